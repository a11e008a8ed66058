internal import Dispatch
public import Foundation

/// One writer connection and several reader connections to one WAL database file: writes are serialized
/// on the writer, while reads run on the readers, in parallel with each other and with the writer, each
/// in a snapshot of its own (GRDB's `DatabasePool` idea).
///
/// ```swift
/// let pool = try DBBDatabasePool(path: "/tmp/app.sqlite", readers: 4)
/// try pool.write { db in try db.execute("INSERT INTO user (name) VALUES (?)", "Ann") }
/// let count = try pool.read { db in try db.fetchValue(Int.self, "SELECT count(*) FROM user") }
/// ```
///
/// A reader sees what was committed when its snapshot began: a read that starts while a long write
/// transaction is open does not wait for it, and sees none of it. Readers are `query_only`: SQL that
/// writes fails on them. Calling the pool from inside one of its reader closures throws ``DBBError``
/// (misuse): use the `db` the closure receives.
///
/// Related SQLite documentation: https://www.sqlite.org/wal.html
public final class DBBDatabasePool: @unchecked Sendable {
    // @unchecked: each connection is used only on its own serial queue; `checkout` guards the other state.

    /// The writer: every write goes through it, one at a time.
    public let writer: DBBDatabaseQueue
    private let readers: [DBBDatabaseQueue]
    /// Marks each reader's queue with the reader's index.
    private let readerKey = DispatchSpecificKey<Int>()
    private let checkout = NSCondition()
    private var free: [Int]
    private var waiters: [CheckedContinuation<Int?, Never>] = []
    private var isClosed = false

    /// The number of reader connections.
    public var readerCount: Int { readers.count }

    /// Opens a database file in WAL mode (`synchronous = NORMAL`) with one writer and `readers` readers.
    ///
    /// - Parameters:
    ///   - path: the file's path (created when missing). An in-memory database cannot be shared by
    ///     connections, so `":memory:"` is refused.
    ///   - readers: the number of reader connections, at least 1. Default: 4.
    ///   - busyTimeout: how long a statement waits for a lock another process holds, in seconds. Default: 5.
    /// - Throws: ``DBBError`` when a connection cannot be opened, the file is not a database, it cannot
    ///   be switched to WAL mode, or the arguments are invalid (misuse).
    public convenience init(path: String, readers: Int = 4, busyTimeout: TimeInterval = 5) throws {
        guard path != ":memory:", !path.isEmpty else {
            throw DBBError.misuse(
                "a pool needs a database file: an in-memory database belongs to one connection",
                recovery: "use DBBDatabaseQueue for an in-memory database", context: "opening a pool")
        }
        let database = try DBBDatabase(path: path, busyTimeout: busyTimeout)
        try database.setJournalMode(.wal)
        try database.setSynchronous(.normal)
        try self.init(writer: DBBDatabaseQueue(database: database), readers: readers) {
            try Self.openReader(path: path, busyTimeout: busyTimeout)
        }
    }

    /// Wraps a writer and opens readers beside it. Open the readers after the writer switched the file to
    /// WAL mode, so that they read it as a WAL database from their first query.
    ///
    /// - Parameters:
    ///   - writer: the queue of the connection that writes.
    ///   - readers: the number of readers, at least 1.
    ///   - openReader: opens one reader connection (``openReader(path:busyTimeout:)`` opens a plain one).
    /// - Throws: ``DBBError`` (misuse) for fewer than one reader, or what `openReader` throws.
    public init(writer: DBBDatabaseQueue, readers: Int, openReader: () throws -> sending DBBDatabase) throws {
        guard readers >= 1 else {
            throw DBBError.misuse(
                "a pool needs at least one reader (asked for \(readers))",
                recovery: "use DBBDatabaseQueue alone for serial access", context: "opening a pool")
        }
        self.writer = writer
        var queues: [DBBDatabaseQueue] = []
        for index in 0..<readers {
            let queue = DBBDatabaseQueue(database: try openReader())
            queue.queue.setSpecific(key: readerKey, value: index)
            queues.append(queue)
        }
        self.readers = queues
        free = Array((0..<readers).reversed())
    }

    /// Logs the statements of the writer and of every reader through swift-log (``DBBDatabase/setLogging(_:)``).
    ///
    /// - Parameter logging: the logger and what to log, or `nil` to stop logging.
    /// - Throws: ``DBBError`` (misuse) when called from inside one of the pool's closures.
    public func setLogging(_ logging: DBBLogging?) throws {
        for queue in [writer] + readers { try queue.setLogging(logging) }
    }

    /// Records the metrics of the writer and of every reader through swift-metrics
    /// (``DBBDatabase/setMetrics(_:)``).
    ///
    /// - Parameter metrics: the factory and dimensions, or `nil` to stop recording.
    /// - Throws: ``DBBError`` (misuse) when called from inside one of the pool's closures.
    public func setMetrics(_ metrics: DBBMetrics?) throws {
        for queue in [writer] + readers { try queue.setMetrics(metrics) }
    }

    /// Opens a reader connection of a WAL file: read-write (only a connection that may write tidies the
    /// `-wal` and `-shm` files when it closes last) but `query_only`, so it never writes; a file that
    /// may not be written is opened read-only.
    ///
    /// - Parameters:
    ///   - path: the database file, which must exist.
    ///   - busyTimeout: how long to wait for a lock, in seconds.
    /// - Returns: the connection.
    /// - Throws: ``DBBError`` when the file cannot be opened or is not a database.
    public static func openReader(path: String, busyTimeout: TimeInterval) throws -> sending DBBDatabase {
        do {
            let database = try DBBDatabase(path: path, mode: .readWrite, busyTimeout: busyTimeout)
            try database.setQueryOnly(true)
            return database
        } catch let error as DBBError where error.resultCode == .cannotOpen || error.resultCode == .readOnly {
            return try DBBDatabase(path: path, mode: .readOnly, busyTimeout: busyTimeout)
        }
    }

    /// The index of the reader whose closure the caller runs in, if any.
    public var currentReaderIndex: Int? { DispatchQueue.getSpecific(key: readerKey) }

    // MARK: Writing

    /// Runs a closure in an `IMMEDIATE` transaction on the writer, serialized with every other write.
    ///
    /// - Parameter body: the work.
    /// - Returns: what the closure returns.
    /// - Throws: what the closure throws (after rolling back), or ``DBBError``.
    public func write<T>(_ body: (DBBDatabase) throws -> T) throws -> T {
        try writer.inTransaction(.immediate, body)
    }

    /// ``write(_:)`` without blocking the calling task.
    ///
    /// - Parameter body: the work.
    /// - Returns: what the closure returns.
    /// - Throws: what the closure throws (after rolling back), or ``DBBError``.
    public func write<T>(_ body: @escaping @Sendable (DBBDatabase) throws -> sending T) async throws -> sending T {
        try await writer.inTransaction(.immediate, body)
    }

    // MARK: Reading

    /// Runs a closure on a reader, in one snapshot: everything it reads is the database as committed when
    /// it began. Waits for a free reader when all are busy; never waits for the writer.
    ///
    /// - Parameter body: the work.
    /// - Returns: what the closure returns.
    /// - Throws: what the closure throws, or ``DBBError`` (misuse when called from a reader's closure or
    ///   after ``close()``).
    public func read<T>(_ body: (DBBDatabase) throws -> T) throws -> T {
        try unsafeRead { db in try db.inSnapshot(body) }
    }

    /// ``read(_:)-72lu1`` without blocking the calling task.
    ///
    /// - Parameter body: the work.
    /// - Returns: what the closure returns.
    /// - Throws: as ``read(_:)-72lu1``.
    public func read<T>(_ body: @escaping @Sendable (DBBDatabase) throws -> sending T) async throws -> sending T {
        try await unsafeRead { db in try db.inSnapshot(body) }
    }

    /// Runs a closure on a reader outside any transaction: each statement reads its own snapshot, so two
    /// queries may see different states. For single statements, or work that opens its own transaction.
    ///
    /// - Parameter body: the work.
    /// - Returns: what the closure returns.
    /// - Throws: as ``read(_:)-72lu1``.
    public func unsafeRead<T>(_ body: (DBBDatabase) throws -> T) throws -> T {
        let index = try acquire()
        defer { release(index) }
        return try readers[index].inDatabase(body)
    }

    /// ``unsafeRead(_:)`` without blocking the calling task: waiting for a free reader suspends the task.
    ///
    /// - Parameter body: the work.
    /// - Returns: what the closure returns.
    /// - Throws: as ``read(_:)-72lu1``.
    public func unsafeRead<T>(_ body: @escaping @Sendable (DBBDatabase) throws -> sending T) async throws
        -> sending T
    {
        let index = try await acquireAsync()
        return try await readers[index].inDatabase { db in
            // Released on the reader's queue, not after the task resumes: a thread blocked in `close()`
            // or in a synchronous read waits for this reader, and must not wait for the task's executor.
            defer { self.release(index) }
            return try body(db)
        }
    }

    /// Reads in a snapshot that holds exactly the transactions the writer committed before the call
    /// reached it: `onWriter` runs on the writer between two of its accesses, the reader's snapshot
    /// begins there, and the writer is released before `body` runs on the reader. Whatever `onWriter`
    /// sees as done is in the snapshot; whatever the writer does after it is not. Observers use it to
    /// know which commits a value includes.
    ///
    /// - Parameters:
    ///   - onWriter: runs on the writer (it receives the writer's connection) while the snapshot begins.
    ///   - body: the reads, on the reader.
    /// - Returns: what `body` returns.
    /// - Throws: what the closures throw, or ``DBBError``.
    public func concurrentRead<T>(
        onWriter: @escaping @Sendable (DBBDatabase) throws -> Void,
        _ body: @escaping @Sendable (DBBDatabase) throws -> sending T
    ) async throws -> sending T {
        let index = try await acquireAsync()
        let reader = readers[index]
        do {
            try await writer.inDatabase { db in
                try onWriter(db)
                try reader.inDatabase { reader in
                    try reader.beginTransaction(.deferred)
                    do {
                        try reader.startSnapshot()
                    } catch {
                        try? reader.rollback()
                        throw error
                    }
                }
            }
        } catch {
            release(index)
            throw error
        }
        return try await reader.inDatabase { db in
            defer {
                try? db.rollback()  // a read transaction has nothing to commit
                self.release(index)  // on the reader's queue, as in unsafeRead
            }
            return try body(db)
        }
    }

    // MARK: Readers

    private func reentrancyError() -> DBBError {
        DBBError.misuse(
            "DBBDatabasePool was called from inside one of its reader closures",
            recovery: "use the database the closure receives", context: "reading from \(writer.path)")
    }

    private func closedError() -> DBBError {
        DBBError.misuse(
            "the pool is closed", recovery: "open a new pool of the file", context: "reading from \(writer.path)")
    }

    private func acquire() throws -> Int {
        // A closure of a reader waiting for another reader could wait for itself.
        if currentReaderIndex != nil { throw reentrancyError() }
        checkout.lock()
        defer { checkout.unlock() }
        while free.isEmpty && !isClosed { checkout.wait() }
        if isClosed { throw closedError() }
        return free.removeLast()
    }

    private func acquireAsync() async throws -> Int {
        if currentReaderIndex != nil { throw reentrancyError() }
        let index = await withCheckedContinuation { (continuation: CheckedContinuation<Int?, Never>) in
            checkout.lock()
            if isClosed {
                checkout.unlock()
                continuation.resume(returning: nil)
            } else if let index = free.popLast() {
                checkout.unlock()
                continuation.resume(returning: index)
            } else {
                waiters.append(continuation)
                checkout.unlock()
            }
        }
        guard let index else { throw closedError() }
        return index
    }

    private func release(_ index: Int) {
        checkout.lock()
        if !isClosed, !waiters.isEmpty {
            // Handed straight to a waiting task, which resumes on its own executor.
            let waiter = waiters.removeFirst()
            checkout.unlock()
            waiter.resume(returning: index)
            return
        }
        free.append(index)
        checkout.broadcast()
        checkout.unlock()
    }

    // MARK: Closing

    /// Closes the readers, once the reads in progress have finished, then the writer (after the work
    /// queued on it). Reads waiting for a reader, and calls after closing, fail with ``DBBError`` (misuse).
    ///
    /// - Throws: ``DBBError`` (misuse) when called from a reader's closure, or when SQLite cannot close
    ///   a connection.
    public func close() throws {
        if currentReaderIndex != nil { throw reentrancyError() }
        checkout.lock()
        isClosed = true
        let waiting = waiters
        waiters = []
        checkout.broadcast()
        checkout.unlock()
        for waiter in waiting { waiter.resume(returning: nil) }
        // Every reader comes back to `free` when its read ends.
        checkout.lock()
        while free.count < readers.count { checkout.wait() }
        checkout.unlock()
        for reader in readers { try reader.close() }
        try writer.close()
    }
}
