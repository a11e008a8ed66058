public import DBBSQL
public import DBBSchema
internal import Foundation

/// Query options translated for one class's table: SQL fragments with bound arguments, and the
/// properties to load. Built once per fetch, before any row is read.
public struct DBBQueryPlan: Sendable {
    /// `" WHERE …"`, or empty.
    public package(set) var whereSQL = ""
    /// `" ORDER BY …"` (id order when no sorting was asked for).
    public package(set) var orderSQL = ""
    /// `" LIMIT … OFFSET …"`, or empty.
    public package(set) var limitSQL = ""
    /// The values bound to the `?` placeholders of ``whereSQL``, in order.
    public package(set) var arguments: [DBBValue] = []
    /// The properties to load (`nil`: all).
    public package(set) var properties: Set<String>?
    /// The join properties to load (`nil`: all that ``properties`` allows).
    public package(set) var joinProperties: Set<String>?
    /// For a distinct fetch, the columns whose combinations are distinct.
    public package(set) var distinctColumns: [String]?
    /// For a grouped fetch (``DBBQueryOptions/groupBy``), the columns to group by.
    public package(set) var groupColumns: [String]?
    /// The table the plan was built for, and its id column: the statements of `DBBQueryPlan+Statements.swift`
    /// select from it.
    let tableName: String
    let idColumn: String
    /// The SQL dialect of the table's engine, which the clauses are written in.
    let dialect: DBBSQLDialect
    /// For a grouped or distinct fetch in a dialect whose grouped queries are ordered by grouped columns and
    /// aggregates only (PostgreSQL's), the order of its id query, where a column that is not grouped is sorted by
    /// as an aggregate; `nil` where ``orderSQL`` serves.
    var groupedOrderSQL: String?

    /// Translates options for a table.
    ///
    /// - Parameters:
    ///   - options: the query options.
    ///   - table: the table of the class being fetched.
    ///   - schema: resolves references to other classes' tables and key paths to properties, for
    ///     conditions and sorting through references (`lead.lastName`) and typed conditions. Default: `nil`
    ///     (names with a dot are left as written; typed conditions are refused).
    /// - Throws: `DBBError` (misuse) naming the problem: an unknown property in `propertyNames`,
    ///   `sorting` or `joinPropertiesToPopulate`, a sort on an array or reference property, a condition
    ///   naming two array or reference properties, or an argument count that does not match the
    ///   placeholders; (mismatch) for a value that cannot be bound.
    public init(options: DBBQueryOptions, table: DBBTableDescription, schema: (any DBBQuerySchema)? = nil) throws {
        try self.init(options: options, names: DBBQueryTableNames(table: table), schema: schema)
    }

    /// Translates options for a table whose names were resolved once (the object layer keeps them with each
    /// registered class), as ``init(options:table:schema:)`` does.
    ///
    /// - Parameters:
    ///   - options: the query options.
    ///   - tableNames: the table's property names, from ``DBBQueryTableNames/init(table:)``.
    ///   - schema: resolves references and key paths; see ``init(options:table:schema:)``.
    /// - Throws: `DBBError` as ``init(options:table:schema:)``.
    package init(options: DBBQueryOptions, names tableNames: DBBQueryTableNames, schema: (any DBBQuerySchema)?) throws {
        let table = tableNames.table
        tableName = table.tableName
        idColumn = table.idColumn
        dialect = table.dialect
        let names = DBBQueryNames(tableNames, schema: schema)
        arguments = try options.storedArguments.map { try $0.get() }

        var clauses: [String] = []
        var useOr = false
        var placeholders = 0
        for condition in options.conditions ?? [] {
            let trimmed = condition.trimmedForQuery(newlines: true)
            if trimmed.uppercased() == "OR" {
                useOr = true
                continue
            }
            if trimmed.uppercased() == "AND" || trimmed.isEmpty { continue }
            let translated = try names.translateCondition(trimmed)
            placeholders += translated.placeholders
            // A line comment would swallow the closing parenthesis: end the line first. `--` is looked for on the
            // bytes, as SQLite reads them: a `-` that a combining mark follows is one Character with it.
            let hasLineComment = translated.sql.utf8.firstRange(of: "--".utf8) != nil
            clauses.append(hasLineComment ? "(\(translated.sql)\n)" : "(\(translated.sql))")
        }
        guard placeholders == arguments.count else {
            throw DBBError.misuse(
                "the conditions have \(placeholders) placeholder(s) but \(arguments.count) value(s) were given",
                recovery: "pass one value per ? in the conditions",
                context: "building a query for \(table.tableName)")
        }
        if !clauses.isEmpty { whereSQL = " WHERE " + clauses.joined(separator: useOr ? " OR " : " AND ") }
        try names.addTypedConditions(options.typedConditions, to: &whereSQL, joinedWithOr: useOr, arguments: &arguments)

        orderSQL = try names.orderBy(options.sorting)
        if let limit = options.limit {
            limitSQL = " LIMIT \(max(limit, 0))"
            if let offset = options.offset { limitSQL += " OFFSET \(max(offset, 0))" }
        } else if let offset = options.offset {
            limitSQL = " LIMIT \(dialect.unlimited) OFFSET \(max(offset, 0))"
        }

        if let propertyNames = options.propertyNames {
            properties = Set(try propertyNames.map { try names.requireProperty($0, context: "propertyNames") })
        }
        if let joins = options.joinPropertiesToPopulate {
            joinProperties = Set(
                try joins.map { name in
                    guard names.joins[name] != nil else {
                        throw DBBError.misuse(
                            "\(name) is not an array, reference or binary property of \(table.tableName)",
                            context: "reading joinPropertiesToPopulate")
                    }
                    return name
                })
        }
        if let groupBy = options.groupBy, !groupBy.isEmpty {
            groupColumns = try groupBy.map { name in
                guard let column = names.column(named: name) else {
                    throw DBBError.misuse(
                        "\(name) is not a column property of \(table.tableName)",
                        recovery: "group by property or column names of the class's own table",
                        context: "reading groupBy")
                }
                return column
            }
        }
        if options.distinct {
            let selected =
                properties.map { set in names.columnOrder.filter { set.contains($0.property) } } ?? names.columnOrder
            distinctColumns = selected.map(\.column)
            if distinctColumns?.isEmpty == true {
                throw DBBError.misuse(
                    "a distinct fetch needs at least one column property in propertyNames",
                    context: "building a query for \(table.tableName)")
            }
        }
        if dialect.groupedQueriesOrderByAggregatesOnly, let groups = groupColumns ?? distinctColumns {
            groupedOrderSQL = try names.orderBy(options.sorting, groupedBy: Set(groups))
        }
    }
}

/// A table's property names as query plans resolve them. Building them hashes every property name, so a caller
/// that plans many queries for one table builds them once and passes them to
/// ``DBBQueryPlan/init(options:names:schema:)``.
package struct DBBQueryTableNames: Sendable {
    let table: DBBTableDescription
    /// Scalar and foreign-key properties → their column.
    var columns: [String: String] = [:]
    var columnOrder: [(property: String, column: String)] = []
    var joins: [String: DBBTableDescription.JoinTable] = [:]

    /// Resolves a table's property names.
    ///
    /// - Parameter table: the table.
    package init(table: DBBTableDescription) {
        self.table = table
        for column in table.columns {
            columns[column.propertyName] = column.name
            columnOrder.append((column.propertyName, column.name))
        }
        for join in table.joinTables { joins[join.propertyName] = join }
        columns["idNum"] = table.idColumn
        if table.includesTimestamps {
            columns["createdTime"] = "createdTime"
            columns["modifiedTime"] = "modifiedTime"
        }
    }
}

/// Property-name resolution for one table, with the schema that resolves references for one plan.
struct DBBQueryNames {
    let names: DBBQueryTableNames
    /// Resolves references and key paths (see ``DBBQuerySchema``).
    var schema: (any DBBQuerySchema)?

    var table: DBBTableDescription { names.table }
    /// Scalar and foreign-key properties → their column.
    var columns: [String: String] { names.columns }
    var columnOrder: [(property: String, column: String)] { names.columnOrder }
    var joins: [String: DBBTableDescription.JoinTable] { names.joins }

    init(_ names: DBBQueryTableNames, schema: (any DBBQuerySchema)?) {
        self.names = names
        self.schema = schema
    }

    /// The column a sort or group item names: a property's column, the id, or a column by its own name.
    func column(named name: String) -> String? {
        if let column = columns[name] { return column }
        if name == table.idColumn { return name }
        return columnOrder.first { $0.column.caseInsensitiveCompare(name) == .orderedSame }?.column
    }

    func requireProperty(_ name: String, context: String) throws -> String {
        guard columns[name] != nil || joins[name] != nil else {
            throw DBBError.misuse(
                "\(name) is not a mapped property of \(table.tableName)",
                recovery: "name a property (or column) of the class's persistence mapping",
                context: "reading \(context)")
        }
        return name
    }

    /// The `ORDER BY` clause of a sorting.
    ///
    /// - Parameters:
    ///   - sorting: the sort items.
    ///   - groupedBy: for the id query of a grouped or distinct fetch on an engine that allows only grouped
    ///     columns and aggregates there (PostgreSQL), the grouped columns: any other sort key is ordered by its
    ///     lowest value in the group, the row whose id the query selects on SQLite too when the key is unique.
    func orderBy(_ sorting: [String]?, groupedBy: Set<String>? = nil) throws -> String {
        let id = table.dialect.identifier(table.idColumn)
        guard let sorting, !sorting.isEmpty else { return " ORDER BY \(id)" }
        let globalDescending = sorting.contains { $0.trimmedForQuery(newlines: false).uppercased() == "DESC" }
        var terms: [String] = []
        for item in sorting {
            let parts = item.split(separator: " ", omittingEmptySubsequences: true).map(String.init)
            guard let name = parts.first, !["ASC", "DESC"].contains(name.uppercased()) else { continue }
            let direction: String
            switch parts.count {
            case 1: direction = globalDescending ? "DESC" : "ASC"
            case 2 where ["ASC", "DESC"].contains(parts[1].uppercased()): direction = parts[1].uppercased()
            default:
                throw DBBError.misuse(
                    "sort item '\(item)' is not a property or column name with an optional ASC or DESC",
                    context: "reading sorting")
            }
            if name.containsDotForQuery() {
                let expression = try referenceSortExpression(name)
                terms.append("\(groupedBy == nil ? expression : "MIN(\(expression))") \(direction)")
                continue
            }
            guard let column = column(named: name) else {
                if joins[name] != nil {
                    throw DBBError.misuse(
                        "cannot sort by \(name): it is an array, reference or binary property",
                        context: "reading sorting")
                }
                throw DBBError.misuse(
                    "\(name) is not a mapped property of \(table.tableName)",
                    context: "reading sorting")
            }
            let expression = table.dialect.identifier(column)
            let isGrouped = groupedBy?.contains(column) ?? true
            terms.append("\(isGrouped ? expression : "MIN(\(expression))") \(direction)")
        }
        // The id last keeps the order stable among equal sort keys.
        terms.append("\(id) \(globalDescending ? "DESC" : "ASC")")
        return " ORDER BY " + terms.joined(separator: ", ")
    }

    /// Translates property names in a condition to columns; a condition on a join property becomes a
    /// sub-select of its join table.
    func translateCondition(_ condition: String) throws -> (sql: String, placeholders: Int) {
        let tokens = DBBConditionTokenizer.tokens(condition)
        if let throughReference = try translateThroughReference(condition, tokens: tokens) { return throughReference }
        let named = Set(tokens.compactMap { $0.identifier }.filter { joins[$0] != nil })
        guard named.count <= 1 else {
            throw DBBError.misuse(
                "a condition can name one array or reference property; '\(condition)' names "
                    + named.sorted().joined(separator: " and "),
                context: "building a condition")
        }
        let placeholders = tokens.filter(\.isPlaceholder).count
        if let joinName = named.first, let join = joins[joinName] {
            // The condition becomes a sub-select of the join table, where other names would mean the join
            // table's columns (or nothing): such a condition is refused rather than silently changed.
            let others = Set(tokens.compactMap(\.identifier)).filter {
                $0 != joinName && (columns[$0] != nil || $0.lowercased() == table.idColumn.lowercased())
            }
            guard others.isEmpty else {
                throw DBBError.misuse(
                    "the condition '\(condition)' names the array or reference property \(joinName) and also "
                        + others.sorted().joined(separator: ", ") + "; write each as its own condition",
                    context: "building a condition")
            }
            let inner = tokens.map { token -> String in
                if token.identifier == joinName { return table.dialect.identifier(join.columnName) }
                return token.text
            }.joined()
            let sql =
                "\(table.dialect.identifier(table.idColumn)) IN (SELECT \(table.dialect.identifier(join.ownerColumn)) FROM "
                + "\(table.dialect.identifier(join.tableName)) WHERE \(inner))"
            return (sql, placeholders)
        }
        let sql = tokens.map { token -> String in
            if let name = token.identifier, let column = columns[name] { return table.dialect.identifier(column) }
            return token.text
        }.joined()
        return (sql, placeholders)
    }
}

/// Splits a condition into identifiers, string literals, placeholders and everything else, so only real
/// identifiers are translated (never text inside quotes).
enum DBBConditionTokenizer {
    struct Token {
        var text: String
        /// The name, when the token is an identifier that may name a property.
        var identifier: String?
        var isPlaceholder = false
    }

    /// Splits on UTF-8 bytes, not `Character`s: a combining mark after a quote must not hide the quote (it would
    /// turn text inside a literal into "identifiers" and have it rewritten). Every character that delimits a
    /// token is ASCII, and every byte of a non-ASCII scalar is 0x80 or more and continues an identifier, so the
    /// bytes split where the scalars would, and each token's text is a copy of its bytes.
    static func tokens(_ sql: String) -> [Token] {
        let bytes = Array(sql.utf8)
        var tokens: [Token] = []
        // Growing the array token by token costs more than the tokens: a condition rarely has more tokens than
        // a quarter of its bytes, and never more than its bytes.
        tokens.reserveCapacity(bytes.count / 4 + 4)
        func text(_ range: Range<Int>) -> String { String(decoding: bytes[range], as: UTF8.self) }
        /// Digits, `-`, `,` and spaces, with at least one digit: the text of a Swift integer array.
        func isIntegerList(_ slice: ArraySlice<UInt8>) -> Bool {
            slice.contains(where: \.isASCIIDigit)
                && slice.allSatisfy {
                    $0.isASCIIDigit || $0 == UInt8(ascii: ",")
                        || $0 == UInt8(ascii: " ") || $0 == UInt8(ascii: "-")
                }
        }
        let dot = UInt8(ascii: ".")
        var index = 0
        var previousSignificant: UInt8?
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: "'") || byte == UInt8(ascii: "\"") || byte == UInt8(ascii: "`")
                || byte == UInt8(ascii: "[")
            {
                let close = byte == UInt8(ascii: "[") ? UInt8(ascii: "]") : byte
                var end = index + 1
                while end < bytes.count {
                    if bytes[end] == close {
                        if end + 1 < bytes.count && bytes[end + 1] == close && close != UInt8(ascii: "]") {
                            end += 2
                            continue
                        }
                        break
                    }
                    end += 1
                }
                let quoted = text(index..<min(end + 1, bytes.count))
                if byte == UInt8(ascii: "["), previousSignificant == UInt8(ascii: "("),
                    isIntegerList(bytes[(index + 1)..<min(end, bytes.count)])
                {
                    // A Swift `[Int]` interpolated into `IN (\(ids))` reads `IN ([1, 2])`, as DBBBuilder's README
                    // writes it: the list, not an identifier.
                    tokens.append(Token(text: text((index + 1)..<min(end, bytes.count))))
                } else if byte == UInt8(ascii: "'") {
                    tokens.append(Token(text: quoted))
                } else {
                    // A quoted identifier may still name a property.
                    var name: [UInt8] = []
                    var inner = index + 1
                    while inner < min(end, bytes.count) {
                        name.append(bytes[inner])
                        // A doubled closing quote stands for one.
                        inner += bytes[inner] == close && inner + 1 < end && bytes[inner + 1] == close ? 2 : 1
                    }
                    let identifier = previousSignificant == dot ? nil : String(decoding: name, as: UTF8.self)
                    tokens.append(Token(text: quoted, identifier: identifier))
                }
                index = end + 1
                previousSignificant = close
            } else if byte == UInt8(ascii: "-") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-") {
                // A line comment: kept as written, nothing in it translated or counted.
                var end = index
                while end < bytes.count && bytes[end] != UInt8(ascii: "\n") { end += 1 }
                tokens.append(Token(text: text(index..<end)))
                index = end
            } else if byte == UInt8(ascii: "/") && index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*") {
                var end = index + 2
                while end + 1 < bytes.count && !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/"))
                {
                    end += 1
                }
                end = min(end + 2, bytes.count)
                tokens.append(Token(text: text(index..<end)))
                index = end
            } else if byte.startsIdentifier {
                var end = index
                while end < bytes.count && bytes[end].continuesIdentifier { end += 1 }
                let name = text(index..<end)
                // `table.column` names a column explicitly; leave it alone.
                let qualified = previousSignificant == dot || (end < bytes.count && bytes[end] == dot)
                tokens.append(Token(text: name, identifier: qualified ? nil : name))
                index = end
                previousSignificant = bytes[end - 1]
            } else {
                // Only ASCII gets here (other scalars start identifiers).
                tokens.append(Token(text: text(index..<index + 1), isPlaceholder: byte == UInt8(ascii: "?")))
                // ASCII white space is tab to carriage return, and space.
                let isWhitespace = (0x09...0x0D).contains(byte) || byte == UInt8(ascii: " ")
                if !isWhitespace { previousSignificant = byte }
                index += 1
            }
        }
        return tokens
    }
}

extension String {
    /// The string trimmed of white space (and of newlines with `newlines`), as `trimmingCharacters(in:)` trims it;
    /// a string that starts and ends with a visible ASCII character, as conditions and sort items usually do, is
    /// returned as it is without asking Foundation (whose trimming, and even its character sets, cost thousands of
    /// instructions per call). Neither set holds a visible ASCII character.
    ///
    /// - Parameter newlines: whether to trim `.whitespacesAndNewlines` rather than `.whitespaces`.
    /// - Returns: the trimmed string.
    fileprivate func trimmedForQuery(newlines: Bool) -> String {
        if let first = utf8.first, let last = utf8.last, (0x21...0x7E).contains(first), (0x21...0x7E).contains(last) {
            return self
        }
        return trimmingCharacters(in: newlines ? .whitespacesAndNewlines : .whitespaces)
    }

    /// Whether a name holds a `.`, as Foundation's `contains(".")` answers: ASCII text, as property names usually
    /// are, is searched on its bytes (Foundation's search costs thousands of instructions); other text keeps
    /// Foundation's answer, which compares whole characters (a `.` that a combining mark follows is no `.`).
    ///
    /// - Returns: whether the name holds a dot.
    func containsDotForQuery() -> Bool {
        utf8.allSatisfy { $0 < 0x80 } ? utf8.contains(UInt8(ascii: ".")) : contains(".")
    }
}
