public import DBBSQL

// The API that takes SQLite's own connection (`DBBDatabase`), queue or pool: it lives on every manager, as it
// always has, and a manager of another engine refuses it with an error that says so.
extension DBBManager {
    /// The serial queue that owns the connection — the writer, when the manager has readers. Use it for SQL of
    /// your own.
    ///
    /// A manager of a database server has no SQLite connection: its queue refuses every call with a `.misuse`
    /// error that names the server, so SQL meant for the server never runs on another database by mistake.
    public var queue: DBBDatabaseQueue {
        if let sqlite = store as? DBBSQLiteObjectStore { return sqlite.queue }
        return DBBDatabaseQueue(database: .unavailable(path: store.location, refusal: sqliteRefusal("manager.queue")))
    }

    /// The reader pool of a manager opened with readers (``init(databaseURL:mode:readers:)``), whose `writer` is
    /// ``queue``; `nil` for a serial manager and for a manager of a database server.
    public var pool: DBBDatabasePool? { (store as? DBBSQLiteObjectStore)?.pool }

    /// SQLite's store, for a call that takes SQLite's connection.
    ///
    /// - Parameter operation: what the caller was doing, for the message.
    /// - Throws: `DBBError` (misuse) on a manager of another engine.
    func sqliteStore(_ operation: String) throws -> DBBSQLiteObjectStore {
        guard let sqlite = store as? DBBSQLiteObjectStore else { throw record(sqliteRefusal(operation)) }
        return sqlite
    }

    private func sqliteRefusal(_ operation: String) -> DBBError {
        DBBError.misuse(
            "\(operation) takes a SQLite connection, which a manager of \(store.location) does not have",
            recovery: "use manager.write { … } and manager.read { … } without a connection parameter (their "
                + "object calls run in one transaction on the server); for SQL of your own, \(store.ownSQLAdvice)",
            context: operation)
    }

    /// Runs work with SQLite's connection: in the transaction of the `write` or `read` closure the caller is in,
    /// else on the writer's queue (or a reader, for work that only reads, when the manager has readers),
    /// recording a failure for ``errorMessage()``.
    ///
    /// - Parameters:
    ///   - operation: what the caller is doing, for the message on another engine.
    ///   - onReader: whether the work only reads.
    ///   - body: the work.
    /// - Throws: `DBBError` (misuse) on another engine or from inside a closure of the manager's queue, or what
    ///   `body` throws.
    func onSQLite<T>(_ operation: String, onReader: Bool = false, _ body: (DBBDatabase) throws -> T) throws -> T {
        let sqlite = try sqliteStore(operation)
        do {
            if let connection = sqlite.currentConnection {
                guard connection.scope != nil else { throw sqlite.insideQueueClosureError() }
                return try body(try sqlite.database(of: connection))
            }
            if onReader, let pool = sqlite.pool { return try pool.unsafeRead(body) }
            return try sqlite.queue.inDatabase(body)
        } catch {
            throw record(error)
        }
    }

    /// ``onSQLite(_:onReader:_:)`` without blocking the calling task (outside any `write` or `read` closure,
    /// which are synchronous).
    func onSQLite<T>(
        _ operation: String, onReader: Bool = false, _ body: @escaping @Sendable (DBBDatabase) throws -> sending T
    ) async throws -> sending T {
        let sqlite = try sqliteStore(operation)
        do {
            if onReader, let pool = sqlite.pool { return try await pool.unsafeRead(body) }
            return try await sqlite.queue.inDatabase(body)
        } catch {
            throw record(error)
        }
    }
}
