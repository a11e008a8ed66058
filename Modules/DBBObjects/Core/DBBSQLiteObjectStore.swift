package import DBBSQL
package import Foundation

/// SQLite's store: the serial queue of the writer connection and, for a manager opened with readers, the pool of
/// `query_only` reader connections beside it (``DBBObjectStore``).
///
/// Writes run on the writer in an `IMMEDIATE` transaction (one statement alone runs without one), reads on a
/// reader in a deferred transaction (one statement alone, in its own snapshot). Work reaches the connection
/// through ``DBBObjectWork/run(onSQLite:)``, so that the object layer's row loops are specialised for
/// `DBBDatabase`.
package final class DBBSQLiteObjectStore: DBBObjectStore {
    /// The writer's serial queue: the manager's `queue`.
    package let queue: DBBDatabaseQueue
    /// The readers beside the writer, when the manager has any: the manager's `pool`.
    package let pool: DBBDatabasePool?
    /// The writer connection's `write` and `read` closures.
    private let writer = Connection()
    /// Each reader connection's `read` closures, by reader index.
    private let readers: [Connection]
    /// Whether the writer reports its commits to observations yet; touched only on the writer's queue.
    private let observing = DBBObservingFlag()

    package let location: String
    package let namespace: String
    package var dialect: DBBSQLDialect { .sqlite }
    package var systemName: String { "sqlite" }
    package var ownSQLAdvice: String { "use manager.write { db in … } or manager.queue" }
    package var hasReaders: Bool { pool != nil }

    /// How long an operation waits for a lock another connection (or process) holds, in seconds.
    static let busyTimeout: TimeInterval = 5

    private init(queue: DBBDatabaseQueue, pool: DBBDatabasePool?, databaseURL: URL?) {
        self.queue = queue
        self.pool = pool
        readers = (0..<(pool?.readerCount ?? 0)).map { _ in Connection() }
        location = queue.path
        namespace = databaseURL?.lastPathComponent ?? ":memory:"
    }

    /// Opens (or creates) a database file: its writer connection in WAL mode with `synchronous = NORMAL`, and
    /// `readers` reader connections; read-only, a connection that changes nothing in the file.
    ///
    /// - Parameters:
    ///   - databaseURL: a file URL.
    ///   - readOnly: whether the file is only read.
    ///   - readers: the number of reader connections.
    /// - Throws: `DBBError` when the file cannot be opened or is not an SQLite database.
    package convenience init(databaseURL: URL, readOnly: Bool, readers: Int) throws {
        let database: DBBDatabase
        if readOnly {
            database = try DBBDatabasePool.openReader(path: databaseURL.path, busyTimeout: Self.busyTimeout)
            database.codingOptions = .objectLayout
        } else {
            // The busy timeout is set before the connection first touches the file, so a process opening the file
            // while another creates it waits instead of failing.
            database = try DBBDatabase(url: databaseURL, busyTimeout: Self.busyTimeout)
            try Self.configure(database, isFile: true)
        }
        let queue = DBBDatabaseQueue(database: database)
        var pool: DBBDatabasePool?
        if readers > 0 {
            // The readers open after the writer switched the file to WAL mode.
            pool = try DBBDatabasePool(writer: queue, readers: readers) {
                let reader = try DBBDatabasePool.openReader(path: databaseURL.path, busyTimeout: Self.busyTimeout)
                reader.codingOptions = .objectLayout
                return reader
            }
        }
        self.init(queue: queue, pool: pool, databaseURL: databaseURL)
    }

    /// A private in-memory database, on one connection.
    ///
    /// - Throws: `DBBError` if SQLite cannot allocate the database.
    package convenience init(inMemory database: sending DBBDatabase) throws {
        try Self.configure(database, isFile: false)
        self.init(queue: DBBDatabaseQueue(database: database), pool: nil, databaseURL: nil)
    }

    private static func configure(_ database: DBBDatabase, isFile: Bool) throws {
        // DBBBuilder's on-disk dates are seconds since 2001-01-01.
        database.codingOptions = .objectLayout
        try database.setBusyTimeout(busyTimeout)
        if isFile && !database.isReadOnly {
            try switchToWAL(database)
            try database.setSynchronous(.normal)
        }
    }

    /// Switches a file to WAL journaling, tolerating a process that opens the same file at the same time: the
    /// switch needs a moment of exclusive access, which a concurrent opener's read (or its own switch) can deny
    /// without SQLite's busy handler being consulted. Once either process has switched, the file is in WAL mode
    /// for both.
    private static func switchToWAL(_ database: DBBDatabase) throws {
        let deadline = Date(timeIntervalSinceNow: busyTimeout)
        while true {
            do {
                try database.setJournalMode(.wal)
                return
            } catch let error as DBBError where error.resultCode == .busy || error.resultCode == .locked {
                if (try? database.journalMode()) == .wal { return }
                guard Date() < deadline else { throw error }
                usleep(5_000)
            }
        }
    }

    // MARK: Connections

    /// A connection of the store as a `write` or `read` closure uses it: the connection the closure was given,
    /// while it runs.
    package final class Connection: DBBStoreConnection, @unchecked Sendable {
        // @unchecked: touched only on its connection's queue.
        package var scope: DBBManagerScope?
        /// The connection, while a closure runs on it.
        fileprivate(set) var database: DBBDatabase?

        package func inTransaction<T>(isWrite: Bool, _ body: () throws -> T) throws -> T {
            let db = try open()
            if isWrite { return try db.inTransaction(.immediate) { _ in try body() } }
            return try db.inSnapshot { db in
                // query_only refuses writes until the end (readers of a pool are query_only already).
                let wasQueryOnly = try db.isQueryOnly()
                try db.setQueryOnly(true)
                defer { if !wasQueryOnly { try? db.setQueryOnly(false) } }
                return try body()
            }
        }

        package func perform<Work: DBBObjectWork>(joining work: Work, isWrite: Bool) throws -> Work.Result {
            try DBBSQLiteObjectStore.run(work, on: try open(), isWrite: isWrite)
        }

        /// The connection of the running closure.
        func open() throws -> DBBDatabase {
            guard let database else {
                throw DBBError.library(
                    .internal, message: "a connection was used outside the closure it was lent to",
                    context: "running a manager.write or manager.read closure")
            }
            return database
        }
    }

    package var currentConnection: (any DBBStoreConnection)? {
        if queue.isOnQueue { return writer }
        if let index = pool?.currentReaderIndex { return readers[index] }
        return nil
    }

    /// The SQLite connection a `write { db in }` or `read { db in }` closure is given.
    ///
    /// - Parameter connection: the store's connection the closure runs on.
    /// - Throws: `DBBError` (internal) for a connection of another store.
    package func database(of connection: any DBBStoreConnection) throws -> DBBDatabase {
        guard let connection = connection as? Connection else {
            throw DBBError.library(
                .internal, message: "a connection of another engine reached SQLite's store",
                context: "running a manager.write or manager.read closure")
        }
        return try connection.open()
    }

    /// Runs `body` with a connection lent to a closure: the writer's, or a reader's.
    private func lending<T>(_ db: DBBDatabase, _ body: (any DBBStoreConnection) throws -> T) throws -> T {
        let connection = pool?.currentReaderIndex.map { readers[$0] } ?? writer
        connection.database = db
        defer { connection.database = nil }
        return try body(connection)
    }

    // MARK: Work

    /// Runs work on a connection: a write in an `IMMEDIATE` transaction (a savepoint inside one already open),
    /// a read of several statements in a deferred one, anything of one statement alone (a transaction by itself).
    private static func run<Work: DBBObjectWork>(_ work: Work, on db: DBBDatabase, isWrite: Bool) throws
        -> Work.Result
    {
        if isWrite {
            // One statement is a transaction by itself: a BEGIN and a COMMIT around it would only cost time.
            if work.isSingleStatement && !db.isInTransaction { return try work.run(onSQLite: db) }
            return try db.inTransaction(.immediate) { db in try work.run(onSQLite: db) }
        }
        guard Work.readsSeveralStatements else { return try work.run(onSQLite: db) }
        return try db.inTransaction { db in try work.run(onSQLite: db) }
    }

    /// Refuses work from a closure of the store's own queue or of one of its readers (outside a `write` or
    /// `read` closure), which would wait for itself.
    private func refuseInsideQueueClosure() throws {
        if currentConnection != nil { throw insideQueueClosureError() }
    }

    /// The refusal of work from a closure of the store's own queue outside a `write` or `read` closure.
    package func insideQueueClosureError() -> DBBError {
        DBBError.misuse(
            "an object call ran inside a closure of the manager's queue, which would deadlock",
            recovery: "use manager.write { db in … } to run object calls and SQL in one transaction",
            context: "entering the queue of \(queue.path)")
    }

    package func perform<Work: DBBObjectWork>(_ work: Work, isWrite: Bool, report: DBBOperationReport?) throws
        -> Work.Result
    {
        try refuseInsideQueueClosure()
        let body = { (db: DBBDatabase) throws -> Work.Result in
            report?.started()
            return try Self.run(work, on: db, isWrite: isWrite)
        }
        if !isWrite, let pool { return try pool.unsafeRead(body) }
        return try queue.inDatabase(body)
    }

    package func perform<Work: DBBObjectWork>(_ work: Work, isWrite: Bool, report: DBBOperationReport?) async throws
        -> sending Work.Result
    {
        let body: @Sendable (DBBDatabase) throws -> sending DBBResultTransfer<Work.Result> = { db in
            report?.started()
            return DBBResultTransfer(try Self.run(work, on: db, isWrite: isWrite))
        }
        if !isWrite, let pool { return try await pool.unsafeRead(body).take() }
        return try await queue.inDatabase(body).take()
    }

    package func withConnection<T>(isWrite: Bool, _ body: (any DBBStoreConnection) throws -> T) throws -> T {
        if !isWrite, let pool { return try pool.unsafeRead { db in try lending(db, body) } }
        return try queue.inDatabase { db in try lending(db, body) }
    }

    package func withConnection<T>(
        isWrite: Bool, _ body: @escaping @Sendable (any DBBStoreConnection) throws -> sending T
    ) async throws -> sending T {
        let work: @Sendable (DBBDatabase) throws -> sending DBBResultTransfer<T> = { db in
            // The closure's result is its own (`sending`); nothing on the queue keeps it.
            DBBResultTransfer(try self.lending(db, body))
        }
        if !isWrite, let pool { return try await pool.unsafeRead(work).take() }
        return try await queue.inDatabase(work).take()
    }

    // MARK: Observation

    /// Begins the snapshot on the writer, between two of its transactions, after installing the writer's commit
    /// observer: whatever the writer committed before is in the snapshot, whatever it commits afterwards is
    /// reported.
    package func performObserved<Work: DBBObjectWork>(
        _ work: Work, tables: Set<String>, onChange: @escaping @Sendable (Set<String>?) -> Void,
        snapshotBegins: @escaping @Sendable () -> Void
    ) async throws -> sending Work.Result {
        let observing = observing
        let onWriter: @Sendable (DBBDatabase) throws -> Void = { db in
            if !observing.isSet {
                try db.addCommitObserver { changes in onChange(Set(changes.tableNames.map { $0.lowercased() })) }
                observing.isSet = true
            }
            snapshotBegins()
        }
        let read: @Sendable (DBBDatabase) throws -> sending DBBResultTransfer<Work.Result> = { db in
            DBBResultTransfer(try db.inTransaction { db in try work.run(onSQLite: db) })
        }
        if let pool { return try await pool.concurrentRead(onWriter: onWriter, read).take() }
        return try await queue.inDatabase { db in
            try onWriter(db)
            return try read(db)
        }.take()
    }

    // MARK: Migrations, instrumentation, closing

    package func runMigration(_ migration: DBBMigrator.Migration, manager: DBBManager) throws {
        try DBBMigrator.runOnSQLite(migration, manager: manager)
    }

    package func setInstrumentation(_ instrumentation: DBBInstrumentation) throws {
        if let pool {
            try pool.setLogging(instrumentation.logging)
            try pool.setMetrics(instrumentation.metrics)
        } else {
            try queue.setLogging(instrumentation.logging)
            try queue.setMetrics(instrumentation.metrics)
        }
    }

    package func close() throws {
        if let pool { try pool.close() } else { try queue.close() }
    }
}

/// Whether the writer's commit observer is installed; read and set only on the writer's queue.
private final class DBBObservingFlag: @unchecked Sendable {
    // @unchecked: touched only on the writer's serial queue.
    var isSet = false
}
