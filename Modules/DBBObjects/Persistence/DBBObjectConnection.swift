package import DBBSQL
package import DBBSchema
package import Foundation

/// The connection the object layer saves, loads and deletes through: the one seam between the object layer
/// and a database engine. `DBBDatabase` is SQLite's; the `DBBPostgres` module adds PostgreSQL's.
///
/// The writer, the loader and the deleter are generic over it, so that the SQLite path is specialised for
/// `DBBDatabase` (no dynamic dispatch per row or value), and the statements they run come from the class's
/// ``DBBRegisteredClass``, written in the connection's ``dialect``.
package protocol DBBObjectConnection: AnyObject {
    /// A prepared statement, reused for every row of a batch.
    associatedtype Statement: DBBObjectStatement
    /// A result row, valid only inside the closure it is handed to.
    associatedtype Row
    /// Sets the scalar properties of an object from the columns of a row: a concrete type per engine, so its
    /// closures are stored and called in their own types, with no conversion per call.
    associatedtype ScalarReader: DBBObjectScalarReader where ScalarReader.Row == Row

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

    /// The reader that sets these scalar properties of an object from their columns of a row, in order.
    ///
    /// - Parameters:
    ///   - readers: each property's accessors and its column.
    ///   - wholeRow: the class's generated reader (``DBBTableObject/dbbRowReader``) and where its properties are,
    ///     when `readers` are every scalar of the class: an engine that can reads the row with it instead.
    static func scalarReader(
        _ readers: [(accessor: DBBScalarAccessor, column: Int32)],
        wholeRow: (reader: DBBRowReader, positions: DBBRowPositions)?
    ) -> ScalarReader

    /// Called after a row was inserted with an id the caller chose, so that ids the engine gives later come
    /// after it (SQLite's `AUTOINCREMENT` does this itself; a sequence must be moved).
    ///
    /// - Parameters:
    ///   - id: the id inserted.
    ///   - table: the table.
    ///   - idColumn: its id column.
    func didInsert(presetID id: Int64, table: String, idColumn: String) throws

    /// Holds every other registration on the database off until this transaction ends, so that two processes
    /// registering the same class do not both add its missing tables or columns. SQLite's `BEGIN IMMEDIATE`
    /// already does; a server takes a lock for it.
    func lockSchemaForRegistration() throws

    /// How many new rows of one table the writer hands to ``insertBatch(_:rows:of:)`` at once: 1 inserts row by
    /// row with ``insertStatement(_:idColumn:)``, which costs SQLite nothing more; a server, where each statement
    /// is a round trip, takes many.
    var insertBatchSize: Int { get }

    /// Inserts new rows of one table in as few statements as the engine allows, and returns their ids in row
    /// order.
    ///
    /// - Parameters:
    ///   - values: the rows' values, one row after another, in the order of `table.insertSQL`'s columns.
    ///   - rows: how many rows `values` holds.
    ///   - table: the table's statements and names.
    /// - Throws: `DBBError` when a statement fails; the caller's transaction then rolls back.
    func insertBatch(_ values: [DBBValue], rows: Int, of table: DBBInsertTarget) throws -> [Int64]

    /// Makes commits that change these tables reported to observers of every client, where the engine can: a
    /// server puts a trigger on each that has none, when a manager first observes it, so that writes to tables
    /// nobody observes cost nothing. SQLite's observation sees the manager's own commits through its connection
    /// and needs nothing.
    ///
    /// - Parameter tables: the tables an observation reads.
    /// - Throws: `DBBError` when a trigger cannot be created.
    func reportChanges(of tables: [String]) throws

    /// Whether a table exists (`DBBDatabase`'s own ``DBBDatabase/tableExists(_:)`` on SQLite).
    func tableExists(_ name: String) throws -> Bool

    /// A table's columns, as registration compares them with a class's mapping (`DBBDatabase`'s own
    /// ``DBBDatabase/columns(in:)`` on SQLite).
    func columns(in table: String) throws -> [DBBColumnInfo]
}

/// What ``DBBObjectConnection/insertBatch(_:rows:of:)`` inserts into: a table, its id column and the text of
/// its one-row `INSERT`s, with and without the id.
package struct DBBInsertTarget {
    /// The table's name.
    package var table: String
    /// Its id column.
    package var idColumn: String
    /// `INSERT INTO <table> (<columns>) VALUES (?, …)`.
    package var insertSQL: String
    /// The same with the id column first.
    package var insertWithIDSQL: String

    package init(table: String, idColumn: String, insertSQL: String, insertWithIDSQL: String) {
        self.table = table
        self.idColumn = idColumn
        self.insertSQL = insertSQL
        self.insertWithIDSQL = insertWithIDSQL
    }
}

extension DBBObjectConnection {
    package var insertBatchSize: Int { 1 }

    package func insertBatch(_ values: [DBBValue], rows: Int, of table: DBBInsertTarget) throws -> [Int64] {
        guard rows > 0 else { return [] }
        let insert = try insertStatement(table.insertSQL, idColumn: table.idColumn)
        let width = values.count / rows
        return try (0..<rows).map { row in try insert.insert(values[(row * width)..<((row + 1) * width)]) }
    }
}

/// Sets the scalar properties of an object from the columns of a row
/// (``DBBObjectConnection/scalarReader(_:wholeRow:)``).
package protocol DBBObjectScalarReader {
    /// The rows it reads.
    associatedtype Row

    /// Sets the properties of `object` from `row`.
    func read(_ object: DBBTableObject, _ row: Row) throws
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

    package static func scalarReader(
        _ readers: [(accessor: DBBScalarAccessor, column: Int32)],
        wholeRow: (reader: DBBRowReader, positions: DBBRowPositions)?
    ) -> DBBSQLiteScalarReader {
        DBBSQLiteScalarReader(readers, wholeRow: wholeRow)
    }

    package func didInsert(presetID id: Int64, table: String, idColumn: String) {}

    package func lockSchemaForRegistration() {}

    package func reportChanges(of tables: [String]) {}
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

/// SQLite's scalar reader: the class's generated whole-row reader where there is one, or else one closure that
/// calls each property's reader with its column, in order. A row then costs one call from the loop, and each
/// reader is called from the closure that captured it: a reader called from an array is retained and released
/// around each call, and so is the object handed to it.
package struct DBBSQLiteScalarReader: DBBObjectScalarReader {
    private let chain: (DBBTableObject, DBBRow) throws -> Void

    init(
        _ readers: [(accessor: DBBScalarAccessor, column: Int32)],
        wholeRow: (reader: DBBRowReader, positions: DBBRowPositions)?
    ) {
        if let (reader, positions) = wholeRow {
            let read = reader.read
            chain = { object, row in try read(object, row, positions) }
            return
        }
        // Closures only, never an optional one: `??` would hand back a closure reabstracted behind a thunk.
        guard let last = readers.last else {
            chain = { _, _ in }
            return
        }
        let (lastRead, lastColumn) = (last.accessor.read, last.column)
        var chain: (DBBTableObject, DBBRow) throws -> Void = { object, row in
            try lastRead(object, row, lastColumn)
        }
        for reader in readers.dropLast().reversed() {
            let (read, column, next) = (reader.accessor.read, reader.column, chain)
            chain = { object, row in
                try read(object, row, column)
                try next(object, row)
            }
        }
        self.chain = chain
    }

    @inline(__always)
    package func read(_ object: DBBTableObject, _ row: DBBRow) throws { try chain(object, row) }
}
