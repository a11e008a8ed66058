internal import Foundation

/// The SQL of one database engine, as the library's statement builders write it: how names are quoted, how a
/// list of ids is bound, what "no limit" is, the column types of a class's table, and how transactions begin.
///
/// DBBSchema's DDL and object statements and DBBQuery's clauses take a dialect, so that one description of a
/// class gives the statements of either engine. Statements are written with `?` placeholders; an engine that
/// numbers its parameters (`$1`, `$2`, … on PostgreSQL) rewrites them once per statement text with
/// ``numberingPlaceholders(_:)``, which serves user conditions (`"budget > ?"`) too.
///
/// ```swift
/// DBBSQLDialect.sqlite.identifier("Project")       // Project
/// DBBSQLDialect.postgres.identifier("Project")     // "Project"
/// DBBSQLDialect.postgres.idListCondition("\"id\"") // "id" = ANY(?::bigint[])
/// ```
public struct DBBSQLDialect: Sendable, Hashable, CustomStringConvertible {
    /// The engines the library writes SQL for.
    public enum Engine: String, Sendable, Hashable {
        /// SQLite, the embedded default.
        case sqlite
        /// PostgreSQL, through the `DBBPostgres` module.
        case postgres
    }

    /// The engine.
    public let engine: Engine

    /// SQLite's SQL: DBBBuilder's DDL text, names quoted only where they must be.
    public static let sqlite = DBBSQLDialect(engine: .sqlite)
    /// PostgreSQL's SQL: every name quoted (PostgreSQL folds unquoted names to lower case), numbered
    /// placeholders, id lists as arrays, identity columns.
    public static let postgres = DBBSQLDialect(engine: .postgres)

    /// The engine's name.
    public var description: String { engine.rawValue }

    /// A table, column or index name as this dialect writes it. SQLite leaves plain names as they are
    /// (``DBBIdentifier/sql(_:)``); PostgreSQL quotes every name, so that its case is kept.
    ///
    /// - Parameter name: the name.
    /// - Returns: the name as it goes into SQL.
    public func identifier(_ name: String) -> String {
        switch engine {
        case .sqlite: DBBIdentifier.sql(name)
        case .postgres: DBBDatabase.quoteIdentifier(name)
        }
    }

    /// `CREATE [UNIQUE] INDEX IF NOT EXISTS <name> ON <table> (<columns>)`, every name as this dialect writes
    /// it: the one place the library writes an index, for classes' tables and join tables and for
    /// ``DBBDatabase/createIndex(_:on:columns:unique:)``.
    ///
    /// - Parameters:
    ///   - name: the index's name.
    ///   - table: the table.
    ///   - columns: the indexed columns, in order.
    ///   - unique: whether the index is `UNIQUE`. Default: `false`.
    /// - Returns: the statement.
    public func createIndexSQL(_ name: String, on table: String, columns: [String], unique: Bool = false) -> String {
        "CREATE \(unique ? "UNIQUE " : "")INDEX IF NOT EXISTS \(identifier(name)) ON \(identifier(table)) "
            + "(\(columns.map(identifier).joined(separator: ", ")))"
    }

    /// A condition that holds for rows whose `column` is in a list of ids bound as one argument
    /// (``idListArgument(_:)``), so that one statement serves any number of ids: `column IN (SELECT value FROM
    /// json_each(?))` on SQLite, `column = ANY(?::bigint[])` on PostgreSQL.
    ///
    /// - Parameter column: the column, as written in SQL (quoted where needed).
    /// - Returns: the condition, with one placeholder.
    public func idListCondition(_ column: String) -> String {
        switch engine {
        case .sqlite: "\(column) IN (SELECT value FROM json_each(?))"
        case .postgres: "\(column) = ANY(?::bigint[])"
        }
    }

    /// The argument ``idListCondition(_:)`` binds: a JSON array (`[1,2,3]`) on SQLite, an array literal
    /// (`{1,2,3}`) on PostgreSQL.
    ///
    /// - Parameter ids: the ids.
    /// - Returns: the bound text.
    public func idListArgument(_ ids: some Sequence<Int64>) -> DBBValue {
        let (open, close) =
            engine == .sqlite ? (UInt8(ascii: "["), UInt8(ascii: "]")) : (UInt8(ascii: "{"), UInt8(ascii: "}"))
        // Digits written straight into one buffer: a list of tens of thousands of ids is built in a few
        // instructions per digit, with no string per id.
        var bytes: [UInt8] = [open]
        bytes.reserveCapacity(ids.underestimatedCount * 8 + 2)
        for id in ids {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            if id < 0 { bytes.append(UInt8(ascii: "-")) }
            // The magnitude's digits, least significant first, then put in order.
            let start = bytes.count
            var rest = id.magnitude
            repeat {
                bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
                rest /= 10
            } while rest > 0
            // Swapped in place: reversing a slice of the array would copy the whole buffer.
            var (low, high) = (start, bytes.count - 1)
            while low < high {
                bytes.swapAt(low, high)
                low += 1
                high -= 1
            }
        }
        bytes.append(close)
        return .text(String(decoding: bytes, as: UTF8.self))
    }

    /// What follows a sub-select in `FROM`: nothing on SQLite, ` AS sub` on PostgreSQL before version 16, which
    /// requires an alias there.
    public var subqueryAlias: String { engine == .postgres ? " AS sub" : "" }

    /// How an existing column's name is compared with a mapped one: ignoring case on SQLite, whose names are
    /// case-insensitive, exactly on PostgreSQL, where the library quotes every name (a column `itemname` is not
    /// the column `"itemName"` a mapping names).
    ///
    /// - Parameter name: a column's name.
    /// - Returns: the key names are compared by.
    public func columnNameKey(_ name: String) -> String {
        engine == .sqlite ? name.lowercased() : name
    }

    /// Whether text values may hold the NUL character: SQLite's may, PostgreSQL's may not.
    public var textMayHoldNUL: Bool { engine == .sqlite }

    /// `LIMIT`'s value for "no limit", needed before an `OFFSET`: `-1` on SQLite, `ALL` on PostgreSQL.
    public var unlimited: String {
        switch engine {
        case .sqlite: "-1"
        case .postgres: "ALL"
        }
    }

    /// The definition of a table's id column after its name: `Integer PRIMARY KEY AUTOINCREMENT` on SQLite
    /// (DBBBuilder's layout), `bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY` on PostgreSQL, where an id
    /// given by the caller is kept as well.
    public var idColumnDefinition: String { idColumnDefinition(autoincrement: true) }

    /// The definition of a table's id column after its name, with or without SQLite's `AUTOINCREMENT` (which keeps
    /// ids of deleted rows from being handed out again, at the cost of a write to `sqlite_sequence` per insert).
    /// PostgreSQL's identity column never reuses ids either way.
    ///
    /// - Parameter autoincrement: whether SQLite's id column is `AUTOINCREMENT` (DBBBuilder's layout).
    /// - Returns: the definition.
    public func idColumnDefinition(autoincrement: Bool) -> String {
        switch engine {
        case .sqlite: autoincrement ? "Integer PRIMARY KEY AUTOINCREMENT" : "Integer PRIMARY KEY"
        case .postgres: "bigint GENERATED BY DEFAULT AS IDENTITY PRIMARY KEY"
        }
    }

    /// The column type of a stored type named as DBBBuilder's layout names it on SQLite (`Integer`, `Real`,
    /// `Text`, `Boolean`, `BLOB`, `DateTimeStamp`). SQLite keeps the name; PostgreSQL stores integers and
    /// booleans as `bigint` (so conditions such as `active = 1` hold on both), reals and dates as `double
    /// precision` (bit-exact, dates as seconds since 2001 as on SQLite), text as `text` and blobs as `bytea`.
    ///
    /// - Parameter sqliteType: the type's name in the SQLite layout.
    /// - Returns: the column type.
    public func columnType(_ sqliteType: String) -> String {
        guard engine == .postgres else { return sqliteType }
        switch sqliteType.lowercased() {
        case "integer", "boolean", "int", "bigint": return "bigint"
        case "real", "datetimestamp", "double", "float": return "double precision"
        case "blob": return "bytea"
        default: return "text"
        }
    }

    /// The statement text this engine runs for SQL written with `?` placeholders: unchanged on SQLite, `$1`,
    /// `$2`, … in order on PostgreSQL. A `?` inside a string literal (`'?'`), a quoted name (`"a?"`), a
    /// dollar-quoted string or a comment is left as it is.
    ///
    /// - Parameter sql: the statement, with `?` placeholders.
    /// - Returns: the statement as the engine takes it.
    public func numberingPlaceholders(_ sql: String) -> String {
        guard engine == .postgres, sql.utf8.contains(UInt8(ascii: "?")) else { return sql }
        let bytes = Array(sql.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count + 16)
        var index = 0
        var number = 0
        func copy(through end: Int) {
            output.append(contentsOf: bytes[index..<min(end, bytes.count)])
            index = min(end, bytes.count)
        }
        while index < bytes.count {
            let byte = bytes[index]
            switch byte {
            case UInt8(ascii: "'"), UInt8(ascii: "\""):
                // A quoted literal or name: its own quotes are doubled, so the next single quote ends it.
                var end = index + 1
                while end < bytes.count, bytes[end] != byte { end += 1 }
                copy(through: end + 1)
            case UInt8(ascii: "-") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "-"):
                var end = index + 2
                while end < bytes.count, bytes[end] != UInt8(ascii: "\n") { end += 1 }
                copy(through: end)
            case UInt8(ascii: "/") where index + 1 < bytes.count && bytes[index + 1] == UInt8(ascii: "*"):
                var end = index + 2
                while end + 1 < bytes.count, !(bytes[end] == UInt8(ascii: "*") && bytes[end + 1] == UInt8(ascii: "/")) {
                    end += 1
                }
                copy(through: end + 2)
            case UInt8(ascii: "$")
            where !Self.continuesIdentifier(bytes, before: index) && Self.dollarQuoteTag(in: bytes, at: index) != nil:
                // A dollar-quoted string, `$tag$ … $tag$`.
                let tag = Self.dollarQuoteTag(in: bytes, at: index) ?? []
                var end = index + tag.count
                while end < bytes.count, !bytes[end...].starts(with: tag) { end += 1 }
                copy(through: end + tag.count)
            case UInt8(ascii: "?"):
                number += 1
                output.append(contentsOf: "$\(number)".utf8)
                index += 1
            default:
                output.append(byte)
                index += 1
            }
        }
        return String(decoding: output, as: UTF8.self)
    }

    /// Whether the byte before `index` belongs to an identifier, so that a `$` at `index` is part of the name
    /// (`a$b`), not the start of a dollar-quoted string.
    private static func continuesIdentifier(_ bytes: [UInt8], before index: Int) -> Bool {
        guard index > 0 else { return false }
        return bytes[index - 1].continuesIdentifier
    }

    /// The opening tag of a dollar-quoted string at `index` (`$$` or `$name$`), or `nil` when the `$` starts
    /// none (a numbered parameter such as `$1`).
    private static func dollarQuoteTag(in bytes: [UInt8], at index: Int) -> [UInt8]? {
        var end = index + 1
        while end < bytes.count, bytes[end] != UInt8(ascii: "$") {
            let byte = bytes[end]
            guard byte.isASCIILetterOrUnderscore || (byte.isASCIIDigit && end > index + 1) else { return nil }
            end += 1
        }
        guard end < bytes.count else { return nil }
        return Array(bytes[index...end])
    }
}
