package import DBBSQL
package import DBBSchema
package import Foundation

/// The connection the object layer saves, loads and deletes through: the one seam between the object layer
/// and a database engine. `DBBDatabase` is SQLite's; the `DBBPostgres` module adds PostgreSQL's.
///
/// The writer, the loader and the deleter are generic over it, so that the SQLite path is specialised for
/// `DBBDatabase` (no dynamic dispatch per row or value), and the statements they run come from the class's
/// ``DBBTableMap``, written in the connection's ``dialect``.
package protocol DBBObjectConnection: AnyObject {
    /// A prepared statement, reused for every row of a batch.
    associatedtype Statement: DBBObjectStatement
    /// A result row, valid only inside the closure it is handed to.
    associatedtype Row

    /// The SQL the connection takes.
    var dialect: DBBSQLDialect { get }

    /// A statement that returns no rows (an `UPDATE`, a join row's `INSERT`), prepared once for many runs.
    ///
    /// - Parameter sql: the statement, with `?` placeholders.
    /// - Throws: `DBBError` when it cannot be prepared.
    func objectStatement(_ sql: String) throws -> Statement

    /// An `INSERT` whose ``DBBObjectStatement/insert(_:)`` returns the new row's id.
    ///
    /// - Parameters:
    ///   - sql: the `INSERT`, with `?` placeholders.
    ///   - idColumn: the table's id column.
    /// - Throws: `DBBError` when it cannot be prepared.
    func insertStatement(_ sql: String, idColumn: String) throws -> Statement

    /// Runs a statement that returns no rows.
    ///
    /// - Parameters:
    ///   - sql: the statement, with `?` placeholders.
    ///   - arguments: the values bound to them.
    /// - Returns: the number of rows it changed.
    /// - Throws: `DBBError` when it fails.
    @discardableResult
    func executeUpdate(_ sql: String, arguments: [DBBValue]) throws -> Int

    /// The first column of every row a query returns, as ids (NULLs skipped).
    ///
    /// - Throws: `DBBError` when the query fails.
    func selectIDs(_ sql: String, arguments: [DBBValue]) throws -> [Int64]

    /// Calls `body` with each row a query returns, in order.
    ///
    /// - Throws: `DBBError` when the query fails, or what `body` throws.
    func forEachObjectRow(_ sql: String, arguments: [DBBValue], _ body: (Row) throws -> Void) throws

    /// A column of a row as an integer, or `nil` for NULL.
    static func integer(in row: Row, at column: Int) throws -> Int64?

    /// A column of a row as a stored value.
    static func value(in row: Row, at column: Int) -> DBBValue

    /// A timestamp column of a row (seconds since 2001 as a number), or `nil` for NULL.
    static func date(in row: Row, at column: Int) throws -> Date?

    /// The closure that sets a scalar property from a column of this connection's rows.
    static func columnReader(_ accessor: DBBScalarAccessor) -> (AnyObject, Row, Int32) throws -> Void

    /// Called after a row was inserted with an id the caller chose, so that ids the engine gives later come
    /// after it (SQLite's `AUTOINCREMENT` does this itself; a sequence must be moved).
    ///
    /// - Parameters:
    ///   - id: the id inserted.
    ///   - table: the table.
    ///   - idColumn: its id column.
    func didInsert(presetID id: Int64, table: String, idColumn: String) throws

    /// Whether a table exists.
    func objectTableExists(_ name: String) throws -> Bool

    /// A table's columns, as registration compares them with a class's mapping.
    func objectTableColumns(_ table: String) throws -> [DBBColumnInfo]
}

/// A prepared statement of a ``DBBObjectConnection``.
package protocol DBBObjectStatement {
    /// Runs the statement with these values bound in order.
    ///
    /// - Returns: the number of rows it changed.
    @discardableResult
    func run(_ values: ArraySlice<DBBValue>) throws -> Int

    /// Runs an `INSERT` made by ``DBBObjectConnection/insertStatement(_:idColumn:)``.
    ///
    /// - Returns: the new row's id.
    func insert(_ values: ArraySlice<DBBValue>) throws -> Int64
}

extension DBBDatabase: DBBObjectConnection {
    package var dialect: DBBSQLDialect { .sqlite }

    package func objectStatement(_ sql: String) throws -> DBBStatement { try prepare(sql) }

    package func insertStatement(_ sql: String, idColumn: String) throws -> DBBStatement { try prepare(sql) }

    package func executeUpdate(_ sql: String, arguments: [DBBValue]) throws -> Int {
        try prepare(sql).execute(values: arguments[...])
        return changes
    }

    package func selectIDs(_ sql: String, arguments: [DBBValue]) throws -> [Int64] {
        try fetchValues(Int64.self, sql, arguments: DBBArguments(arguments))
    }

    package func forEachObjectRow(_ sql: String, arguments: [DBBValue], _ body: (DBBRow) throws -> Void) throws {
        // The cursor is no sequence: its forEach reads every row through one row value.
        // swift-format-ignore: ReplaceForEachWithForLoop
        try fetchCursor(sql, arguments: DBBArguments(arguments)).forEach(body)
    }

    @inline(__always)
    package static func integer(in row: DBBRow, at column: Int) throws -> Int64? {
        try Int64.readIfPresent(from: row, at: Int32(column))
    }

    @inline(__always)
    package static func value(in row: DBBRow, at column: Int) -> DBBValue { row.value(at: column) }

    @inline(__always)
    package static func date(in row: DBBRow, at column: Int) throws -> Date? {
        try Date.readIfPresent(from: row, at: Int32(column))
    }

    package static func columnReader(_ accessor: DBBScalarAccessor) -> (AnyObject, DBBRow, Int32) throws -> Void {
        accessor.read
    }

    package func didInsert(presetID id: Int64, table: String, idColumn: String) {}

    package func objectTableExists(_ name: String) throws -> Bool { try tableExists(name) }

    package func objectTableColumns(_ table: String) throws -> [DBBColumnInfo] { try columns(in: table) }
}

extension DBBStatement: DBBObjectStatement {
    package func run(_ values: ArraySlice<DBBValue>) throws -> Int {
        try execute(values: values)
        return database.changes
    }

    package func insert(_ values: ArraySlice<DBBValue>) throws -> Int64 {
        try execute(values: values)
        return database.lastInsertRowID
    }
}
