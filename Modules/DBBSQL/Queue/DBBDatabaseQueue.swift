internal import Dispatch

/// Shares one connection between threads and tasks by running every access on a serial queue
/// (FMDatabaseQueue's role).
///
/// ```swift
/// let queue = try DBBDatabaseQueue(path: "/tmp/app.sqlite")
/// try queue.inTransaction { db in
///     try db.execute("INSERT INTO user (name) VALUES (?)", "Ann")
/// }
/// let count = try await queue.inDatabase { db in try db.fetchValue(Int.self, "SELECT count(*) FROM user") }
/// ```
///
/// Calling the queue again from inside one of its own closures would wait for itself forever; such a
/// call throws ``DBBError`` (misuse) instead. Use the `db` the closure receives.
public final class DBBDatabaseQueue: @unchecked Sendable {
    // @unchecked: `database` is touched only on `queue`, a serial dispatch queue.
    private let database: DBBDatabase
    /// The serial queue; a pool marks its readers' queues so it can tell which one a caller is on.
    let queue: DispatchQueue
    private let onQueueKey = DispatchSpecificKey<Bool>()

    /// The path of the database file, or `":memory:"`.
    public let path: String

    /// Opens a database file and wraps its connection.
    ///
    /// - Parameters:
    ///   - path: the file's path, or `":memory:"`.
    ///   - mode: how to open the file. Default: ``DBBDatabase/OpenMode/readWriteCreate``.
    /// - Throws: ``DBBError`` as ``DBBDatabase/init(path:mode:busyTimeout:)``.
    public convenience init(path: String, mode: DBBDatabase.OpenMode = .readWriteCreate) throws {
        self.init(database: try DBBDatabase(path: path, mode: mode))
    }

    /// Wraps an open connection; the queue owns it from then on.
    ///
    /// - Parameter database: a connection nobody else keeps using.
    public init(database: sending DBBDatabase) {
        self.database = database
        self.path = database.path
        self.queue = DispatchQueue(label: "DBBDatabaseQueue \(database.path)")
        queue.setSpecific(key: onQueueKey, value: true)
    }

    /// Opens a private in-memory database behind a queue.
    ///
    /// - Throws: ``DBBError`` if SQLite cannot allocate it.
    public static func inMemory() throws -> DBBDatabaseQueue {
        try DBBDatabaseQueue(path: ":memory:")
    }

    /// Whether the caller is running on this queue (inside one of its closures).
    public var isOnQueue: Bool { DispatchQueue.getSpecific(key: onQueueKey) == true }

    private func reentrancyError() -> DBBError {
        DBBError.misuse(
            "DBBDatabaseQueue was called from inside one of its own closures, which would deadlock",
            recovery: "use the database the closure receives",
            context: "entering the queue of \(path)")
    }

    /// Runs a closure with the connection, serialized with every other use of this queue, and waits.
    ///
    /// - Returns: what the closure returns.
    /// - Throws: ``DBBError`` (misuse) when called from inside this queue's own closure, or what the closure throws.
    public func inDatabase<T>(_ body: (DBBDatabase) throws -> T) throws -> T {
        guard !isOnQueue else { throw reentrancyError() }
        return try queue.sync { try body(database) }
    }

    /// Runs a closure in a transaction (committed on return, rolled back on a thrown error), serialized.
    ///
    /// - Parameters:
    ///   - kind: the lock to take. Default: ``DBBTransactionKind/deferred``.
    ///   - body: the work.
    /// - Returns: what the closure returns.
    /// - Throws: ``DBBError`` (misuse) on re-entrance, what the closure throws, or begin/commit failures.
    public func inTransaction<T>(_ kind: DBBTransactionKind = .deferred, _ body: (DBBDatabase) throws -> T) throws -> T
    {
        try inDatabase { db in try db.inTransaction(kind, body) }
    }

    /// Runs a closure with the connection without blocking the calling task.
    ///
    /// The result is handed over as a `sending` value, so the closure may build non-`Sendable` results
    /// (fresh objects) for the caller.
    ///
    /// - Returns: what the closure returns.
    /// - Throws: what the closure throws.
    public func inDatabase<T>(_ body: @escaping @Sendable (DBBDatabase) throws -> sending T) async throws -> sending T {
        try await withCheckedThrowingContinuation { continuation in
            queue.async {
                do {
                    continuation.resume(returning: try body(self.database))
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }

    /// Runs a closure in a transaction without blocking the calling task.
    ///
    /// - Returns: what the closure returns.
    /// - Throws: what the closure throws (after rolling back), or begin/commit failures.
    public func inTransaction<T>(
        _ kind: DBBTransactionKind = .deferred, _ body: @escaping @Sendable (DBBDatabase) throws -> sending T
    ) async throws -> sending T {
        try await inDatabase { db in try db.inTransaction(kind, body) }
    }

    /// Logs the connection's statements through swift-log (``DBBDatabase/setLogging(_:)``), from the work
    /// queued after this call on.
    ///
    /// - Parameter logging: the logger and what to log, or `nil` to stop logging.
    /// - Throws: ``DBBError`` (misuse) when called from inside this queue's own closure.
    public func setLogging(_ logging: DBBLogging?) throws {
        try inDatabase { $0.setLogging(logging) }
    }

    /// Records the connection's metrics through swift-metrics (``DBBDatabase/setMetrics(_:)``).
    ///
    /// - Parameter metrics: the factory and dimensions, or `nil` to stop recording.
    /// - Throws: ``DBBError`` (misuse) when called from inside this queue's own closure.
    public func setMetrics(_ metrics: DBBMetrics?) throws {
        try inDatabase { $0.setMetrics(metrics) }
    }

    /// Closes the connection after the work queued before this call.
    ///
    /// - Throws: ``DBBError`` as ``DBBDatabase/close()``.
    public func close() throws {
        try inDatabase { try $0.close() }
    }
}
