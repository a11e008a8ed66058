internal import Foundation

/// The SQL of one database engine, as a set of capabilities the library's statement builders read: how names are
/// quoted, how placeholders are written, how a list of ids is bound, what "no limit" is, the id column and the
/// column types of a class's table, and the few places where engines' rules differ (a sub-select's alias, how
/// column names compare, whether text may hold NUL, how a grouped query may be ordered).
///
/// DBBSchema's DDL and object statements and DBBQuery's clauses take a dialect, so that one description of a
/// class gives the statements of either engine, and code above them never asks which engine it has. This module
/// knows SQLite alone: it defines ``sqlite``; another engine's module describes that engine's SQL with the
/// initializer (the `DBBPostgres` module defines `DBBSQLDialect.postgres`).
///
/// ```swift
/// DBBSQLDialect.sqlite.identifier("Project")       // Project
/// DBBSQLDialect.sqlite.identifier("order")         // "order"
/// DBBSQLDialect.sqlite.idListCondition("id")       // id IN (SELECT value FROM json_each(?))
/// ```
///
/// Two dialects are equal when their name and their plain values (`unlimited`, brackets, flags) are; the
/// closures cannot be compared, so a name stands for one engine's SQL.
public struct DBBSQLDialect: Sendable, Hashable, CustomStringConvertible {
    /// The engine's name (`sqlite` for ``sqlite``).
    public let name: String
    private let quote: @Sendable (String) -> String
    /// `nil` for an engine that takes the builders' `?` placeholders as they are.
    package let placeholders: (@Sendable (String) -> String)?
    private let idList: @Sendable (String) -> String
    private let idListOpen: UInt8
    private let idListClose: UInt8
    /// `LIMIT`'s value for "no limit", needed before an `OFFSET`: `-1` on SQLite.
    public let unlimited: String
    private let idColumn: @Sendable (_ autoincrement: Bool) -> String
    private let type: @Sendable (String) -> String
    /// What follows a sub-select in `FROM`: nothing on SQLite; an engine that requires an alias there gives it
    /// here (` AS sub`).
    public let subqueryAlias: String
    private let columnNamesIgnoreCase: Bool
    /// Whether text values may hold the NUL character, as SQLite's may; where they may not, the object layer
    /// refuses such text before writing it.
    public let textMayHoldNUL: Bool
    /// Whether a grouped query (`GROUP BY`) may be ordered only by its grouped columns and aggregates: `false` on
    /// SQLite, which orders by a column's value in the row it picks. Where it is `true`, a grouped or distinct
    /// fetch orders its id query by the lowest value of each other sort key in the group.
    public let groupedQueriesOrderByAggregatesOnly: Bool

    /// A dialect from its capabilities: what another engine's module calls to describe its SQL.
    ///
    /// - Parameters:
    ///   - name: the engine's name, which ``description`` shows and equality compares.
    ///   - identifier: a table, column or index name as the engine's SQL writes it (quoted where needed).
    ///   - placeholders: the statement text the engine runs for SQL written with `?` placeholders, once per
    ///     statement text; `nil` (the default) keeps `?`, as SQLite does.
    ///   - idListCondition: a condition that holds for rows whose column (given as written in SQL) is in a list
    ///     of ids bound as one argument, with one placeholder.
    ///   - idListBrackets: the ASCII characters around the comma-separated ids of the list argument.
    ///   - unlimited: `LIMIT`'s value for "no limit".
    ///   - idColumnDefinition: the definition of a table's id column after its name, given whether it is to
    ///     keep ids of deleted rows from being handed out again (SQLite's `AUTOINCREMENT`).
    ///   - columnType: the column type of a stored type named as DBBBuilder's layout names it on SQLite
    ///     (`Integer`, `Real`, `Text`, `Boolean`, `BLOB`, `DateTimeStamp`).
    ///   - subqueryAlias: what follows a sub-select in `FROM`.
    ///   - columnNamesIgnoreCase: whether an existing column's name matches a mapped one whatever their case.
    ///   - textMayHoldNUL: whether text values may hold the NUL character.
    ///   - groupedQueriesOrderByAggregatesOnly: whether a grouped query may be ordered only by its grouped
    ///     columns and aggregates.
    public init(
        name: String, identifier: @escaping @Sendable (String) -> String,
        placeholders: (@Sendable (String) -> String)? = nil, idListCondition: @escaping @Sendable (String) -> String,
        idListBrackets: (open: Unicode.Scalar, close: Unicode.Scalar), unlimited: String,
        idColumnDefinition: @escaping @Sendable (_ autoincrement: Bool) -> String,
        columnType: @escaping @Sendable (String) -> String, subqueryAlias: String, columnNamesIgnoreCase: Bool,
        textMayHoldNUL: Bool, groupedQueriesOrderByAggregatesOnly: Bool
    ) {
        self.name = name
        quote = identifier
        self.placeholders = placeholders
        idList = idListCondition
        idListOpen = UInt8(ascii: idListBrackets.open)
        idListClose = UInt8(ascii: idListBrackets.close)
        self.unlimited = unlimited
        idColumn = idColumnDefinition
        type = columnType
        self.subqueryAlias = subqueryAlias
        self.columnNamesIgnoreCase = columnNamesIgnoreCase
        self.textMayHoldNUL = textMayHoldNUL
        self.groupedQueriesOrderByAggregatesOnly = groupedQueriesOrderByAggregatesOnly
    }

    /// SQLite's SQL: DBBBuilder's DDL text, names quoted only where they must be.
    public static let sqlite = DBBSQLDialect(
        name: "sqlite", identifier: DBBIdentifier.sql, idListCondition: { "\($0) IN (SELECT value FROM json_each(?))" },
        idListBrackets: ("[", "]"), unlimited: "-1",
        idColumnDefinition: { $0 ? "Integer PRIMARY KEY AUTOINCREMENT" : "Integer PRIMARY KEY" },
        // SQLite keeps the layout's names.
        columnType: { $0 }, subqueryAlias: "", columnNamesIgnoreCase: true, textMayHoldNUL: true,
        groupedQueriesOrderByAggregatesOnly: false)

    /// The engine's name.
    public var description: String { name }

    /// Whether two dialects have the same name and plain values (their closures cannot be compared).
    public static func == (lhs: DBBSQLDialect, rhs: DBBSQLDialect) -> Bool {
        lhs.name == rhs.name && lhs.unlimited == rhs.unlimited && lhs.idListOpen == rhs.idListOpen
            && lhs.idListClose == rhs.idListClose && lhs.subqueryAlias == rhs.subqueryAlias
            && lhs.columnNamesIgnoreCase == rhs.columnNamesIgnoreCase && lhs.textMayHoldNUL == rhs.textMayHoldNUL
            && lhs.groupedQueriesOrderByAggregatesOnly == rhs.groupedQueriesOrderByAggregatesOnly
            && (lhs.placeholders == nil) == (rhs.placeholders == nil)
    }

    /// Hashes the name and `unlimited`, which equal dialects share.
    public func hash(into hasher: inout Hasher) {
        hasher.combine(name)
        hasher.combine(unlimited)
    }

    /// A table, column or index name as this dialect writes it. SQLite leaves plain names as they are
    /// (``DBBIdentifier/sql(_:)``).
    ///
    /// - Parameter name: the name.
    /// - Returns: the name as it goes into SQL.
    public func identifier(_ name: String) -> String { quote(name) }

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
    /// json_each(?))` on SQLite.
    ///
    /// - Parameter column: the column, as written in SQL (quoted where needed).
    /// - Returns: the condition, with one placeholder.
    public func idListCondition(_ column: String) -> String { idList(column) }

    /// The argument ``idListCondition(_:)`` binds: the ids between the dialect's brackets, separated by commas (a
    /// JSON array, `[1,2,3]`, on SQLite).
    ///
    /// - Parameter ids: the ids.
    /// - Returns: the bound text.
    public func idListArgument(_ ids: some Sequence<Int64>) -> DBBValue {
        // Digits written straight into one buffer: a list of tens of thousands of ids is built in a few
        // instructions per digit, with no string per id.
        var bytes: [UInt8] = [idListOpen]
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
        bytes.append(idListClose)
        return .text(String(decoding: bytes, as: UTF8.self))
    }

    /// How an existing column's name is compared with a mapped one: ignoring case on SQLite, whose names are
    /// case-insensitive; exactly where the dialect quotes every name (a column `itemname` is not the column
    /// `"itemName"` a mapping names).
    ///
    /// - Parameter name: a column's name.
    /// - Returns: the key names are compared by.
    public func columnNameKey(_ name: String) -> String {
        columnNamesIgnoreCase ? name.lowercased() : name
    }

    /// The definition of a table's id column after its name: `Integer PRIMARY KEY AUTOINCREMENT` on SQLite
    /// (DBBBuilder's layout).
    public var idColumnDefinition: String { idColumnDefinition(autoincrement: true) }

    /// The definition of a table's id column after its name, with or without SQLite's `AUTOINCREMENT` (which keeps
    /// ids of deleted rows from being handed out again, at the cost of a write to `sqlite_sequence` per insert).
    /// An engine whose id columns never reuse ids may give one definition either way.
    ///
    /// - Parameter autoincrement: whether SQLite's id column is `AUTOINCREMENT` (DBBBuilder's layout).
    /// - Returns: the definition.
    public func idColumnDefinition(autoincrement: Bool) -> String { idColumn(autoincrement) }

    /// The column type of a stored type named as DBBBuilder's layout names it on SQLite (`Integer`, `Real`,
    /// `Text`, `Boolean`, `BLOB`, `DateTimeStamp`). SQLite keeps the name.
    ///
    /// - Parameter sqliteType: the type's name in the SQLite layout.
    /// - Returns: the column type.
    public func columnType(_ sqliteType: String) -> String { type(sqliteType) }
}
