internal import DBBSQL
internal import Foundation

/// A `CREATE TABLE` statement as SQLite keeps it in `sqlite_schema`, split into its column definitions and table
/// constraints, so that a migration can rebuild the table with one column changed or removed and every other
/// column, constraint and option kept as written (SQLite's own `ALTER TABLE` cannot change a type).
///
/// Each item is kept as its tokens: words, quoted names and strings, and parenthesised groups (a `CHECK`
/// expression, a type's `(10, 2)`) as single tokens, so commas inside them never split an item.
///
/// Related SQLite documentation: https://www.sqlite.org/lang_altertable.html#otheralter
package struct DBBTableDefinition: Sendable {
    /// A column definition or a table constraint.
    package struct Item: Sendable {
        /// The item's tokens, in order.
        package var tokens: [String]
        /// The column's name (unquoted) for a column definition; `nil` for a table constraint.
        package var columnName: String?
    }

    /// The column definitions and table constraints, in order.
    package var items: [Item]
    /// What follows the closing parenthesis (`WITHOUT ROWID`, `STRICT`), or an empty string.
    package var options: String

    /// Splits a `CREATE TABLE` statement.
    ///
    /// - Parameter sql: the statement, as `sqlite_schema.sql` holds it.
    /// - Throws: `DBBError` (misuse) when the statement has no column list (a `CREATE TABLE … AS SELECT`).
    package init(sql: String) throws {
        let tokens = Self.tokenize(sql)
        guard let body = tokens.firstIndex(where: { $0.hasPrefix("(") }) else {
            throw DBBError.misuse("the table's statement has no column list: \(sql)", context: "reading a table")
        }
        let inner = String(tokens[body].dropFirst().dropLast())
        var items: [Item] = []
        var current: [String] = []
        for token in Self.tokenize(inner) + [","] {
            if token == "," {
                if !current.isEmpty { items.append(Self.item(current)) }
                current = []
            } else {
                current.append(token)
            }
        }
        self.items = items
        options = tokens[(body + 1)...].joined(separator: " ")
    }

    /// The names of the columns, in order.
    package var columnNames: [String] { items.compactMap(\.columnName) }

    /// The statement that creates the table under a name.
    package func createSQL(tableName: String) -> String {
        let body = items.map { $0.tokens.joined(separator: " ") }.joined(separator: ", ")
        return "CREATE TABLE \(DBBIdentifier.sql(tableName)) (\(body))" + (options.isEmpty ? "" : " \(options)")
    }

    /// Gives a column a new declared type, keeping its constraints.
    ///
    /// - Throws: `DBBError` (misuse) when the table has no such column.
    package mutating func setType(of column: String, to sqlType: String) throws {
        let index = try indexOfColumn(column)
        var tokens = items[index].tokens
        // The type is every token after the name up to the first constraint keyword.
        var end = 1
        while end < tokens.count, !Self.constraintKeywords.contains(tokens[end].uppercased()) { end += 1 }
        tokens.replaceSubrange(1..<end, with: [sqlType])
        items[index].tokens = tokens
    }

    /// Removes a column.
    ///
    /// - Throws: `DBBError` (misuse) when the table has no such column, when it is the table's only column, or
    ///   when a table constraint (a composite key, a `CHECK`, a foreign key) names it: removing it would change
    ///   or lose the constraint.
    package mutating func removeColumn(_ column: String) throws {
        let index = try indexOfColumn(column)
        guard columnNames.count > 1 else {
            throw DBBError.misuse("column \(column) is the table's only column", context: "dropping a column")
        }
        if let constraint = items.first(where: { $0.columnName == nil && Self.mentions($0.tokens, column) }) {
            throw DBBError.misuse(
                "column \(column) is part of the table constraint \(constraint.tokens.joined(separator: " "))",
                recovery: "rebuild the table with SQL of your own (a .sql step)", context: "dropping a column")
        }
        items.remove(at: index)
    }

    /// Adds or removes `AUTOINCREMENT` on the table's `INTEGER PRIMARY KEY` column.
    ///
    /// - Throws: `DBBError` (misuse) when the table has no such column, or (to add it) when the column is not
    ///   declared `PRIMARY KEY` itself.
    package mutating func setAutoincrement(_ enabled: Bool, on column: String) throws {
        let index = try indexOfColumn(column)
        var tokens = items[index].tokens.filter { $0.uppercased() != "AUTOINCREMENT" }
        if enabled {
            guard let key = tokens.firstIndex(where: { $0.uppercased() == "KEY" }), key > 0,
                tokens[key - 1].uppercased() == "PRIMARY"
            else {
                throw DBBError.misuse(
                    "column \(column) is not declared INTEGER PRIMARY KEY", context: "adding AUTOINCREMENT")
            }
            // `PRIMARY KEY [ASC|DESC] [conflict clause] AUTOINCREMENT`: after the direction, before the rest.
            var position = key + 1
            if position < tokens.count, ["ASC", "DESC"].contains(tokens[position].uppercased()) { position += 1 }
            if position + 2 < tokens.count, tokens[position].uppercased() == "ON",
                tokens[position + 1].uppercased() == "CONFLICT"
            {
                position += 3
            }
            tokens.insert("AUTOINCREMENT", at: position)
        }
        items[index].tokens = tokens
    }

    /// Converts the table to DBBBuilder's layout (an `AUTOINCREMENT` id column followed by `createdTime` and
    /// `modifiedTime`, added where missing) or to the lean one (neither).
    ///
    /// - Parameters:
    ///   - lean: `true` for the lean layout.
    ///   - idColumn: the table's `INTEGER PRIMARY KEY` column.
    ///   - existingColumns: the table's column names, lower-cased.
    /// - Throws: `DBBError` (misuse) as ``setAutoincrement(_:on:)``, ``removeColumn(_:)`` and
    ///   ``insertColumn(_:after:)`` do.
    package mutating func convertLayout(lean: Bool, idColumn: String, existingColumns: Set<String>) throws {
        try setAutoincrement(!lean, on: idColumn)
        for column in ["modifiedTime", "createdTime"] {
            if lean, existingColumns.contains(column.lowercased()) { try removeColumn(column) }
            if !lean, !existingColumns.contains(column.lowercased()) {
                try insertColumn("\(column) Real", after: idColumn)
            }
        }
    }

    /// Inserts a column definition after an existing column.
    ///
    /// - Throws: `DBBError` (misuse) when the table has no such column.
    package mutating func insertColumn(_ definition: String, after column: String) throws {
        let index = try indexOfColumn(column)
        let tokens = Self.tokenize(definition)
        items.insert(Item(tokens: tokens, columnName: Self.unquote(tokens[0])), at: index + 1)
    }

    private func indexOfColumn(_ column: String) throws -> Int {
        guard let index = items.firstIndex(where: { $0.columnName?.lowercased() == column.lowercased() }) else {
            throw DBBError.misuse("the table has no column \(column)", context: "changing a table")
        }
        return index
    }

    /// Whether SQL text names an identifier (as a whole word, quoted or not, without regard to case).
    package static func mentions(_ sql: String, _ name: String) -> Bool {
        mentions(tokenize(sql), name)
    }

    private static func mentions(_ tokens: [String], _ name: String) -> Bool {
        let target = name.lowercased()
        return tokens.contains { token in
            if token.hasPrefix("(") { return mentions(String(token.dropFirst().dropLast()), name) }
            return unquote(token).lowercased() == target
                || token.split(separator: ".").contains { unquote(String($0)).lowercased() == target }
        }
    }

    private static let constraintKeywords: Set<String> = [
        "CONSTRAINT", "PRIMARY", "NOT", "NULL", "UNIQUE", "CHECK", "DEFAULT", "COLLATE", "REFERENCES", "GENERATED",
        "AS",
    ]
    private static let tableConstraintKeywords: Set<String> = ["CONSTRAINT", "PRIMARY", "UNIQUE", "CHECK", "FOREIGN"]

    private static func item(_ tokens: [String]) -> Item {
        if tableConstraintKeywords.contains(tokens[0].uppercased()) { return Item(tokens: tokens, columnName: nil) }
        return Item(tokens: tokens, columnName: unquote(tokens[0]))
    }

    /// A name without its quotes (`"a""b"` → `a"b`, `[a]` → `a`, `` `a` `` → `a`).
    package static func unquote(_ token: String) -> String {
        guard let first = token.first, token.count >= 2 else { return token }
        switch first {
        case "\"", "`", "'":
            let inner = token.dropFirst().dropLast()
            return inner.replacingOccurrences(of: String(first) + String(first), with: String(first))
        case "[": return String(token.dropFirst().dropLast())
        default: return token
        }
    }

    /// Splits SQL into words, quoted tokens, parenthesised groups (with their parentheses) and commas; comments
    /// are dropped.
    package static func tokenize(_ sql: String) -> [String] {
        let characters = Array(sql)
        var tokens: [String] = []
        var index = 0
        var word = ""
        func flush() {
            if !word.isEmpty { tokens.append(word) }
            word = ""
        }
        while index < characters.count {
            let character = characters[index]
            switch character {
            case _ where character.isWhitespace:
                flush()
                index += 1
            case "-" where index + 1 < characters.count && characters[index + 1] == "-":
                flush()
                while index < characters.count && characters[index] != "\n" { index += 1 }
            case ",":
                flush()
                tokens.append(",")
                index += 1
            case "\"", "'", "`", "[":
                flush()
                let close: Character = character == "[" ? "]" : character
                var end = index + 1
                while end < characters.count {
                    if characters[end] == close {
                        // A doubled quote is part of the name or string.
                        if close != "]" && end + 1 < characters.count && characters[end + 1] == close {
                            end += 2
                            continue
                        }
                        break
                    }
                    end += 1
                }
                tokens.append(String(characters[index...min(end, characters.count - 1)]))
                index = end + 1
            case "(":
                flush()
                var depth = 0
                var end = index
                var quote: Character?
                while end < characters.count {
                    let current = characters[end]
                    if let open = quote {
                        if current == open || (open == "[" && current == "]") { quote = nil }
                    } else if current == "\"" || current == "'" || current == "`" || current == "[" {
                        quote = current
                    } else if current == "(" {
                        depth += 1
                    } else if current == ")" {
                        depth -= 1
                        if depth == 0 { break }
                    }
                    end += 1
                }
                tokens.append(String(characters[index...min(end, characters.count - 1)]))
                index = end + 1
            default:
                word.append(character)
                index += 1
            }
        }
        flush()
        return tokens
    }
}
