internal import DBBObjects
internal import DBBSQL
internal import Dispatch
internal import NIOPosix
internal import Synchronization

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

extension DBBPostgresObjectStore {
    /// One connection of the store and the serial queue it is used on, with the `write` or `read` closure running
    /// on it. Every use of the connection runs on the queue: a synchronous caller waits for it there
    /// (``waiting(_:)``), never on a task's thread, and an `async` caller suspends (``suspending(_:)``).
    final class Connection: DBBStoreConnection, @unchecked Sendable {
        // @unchecked: the scope and the connection's state are touched only on `queue`.
        let queue: DispatchQueue
        /// The connection as the object layer uses it.
        let objects: DBBPostgresObjectConnection
        var scope: DBBManagerScope?
        /// Whether the server is a hot standby, as last seen: a reader's reads then wait for the manager's commits
        /// to be replayed there. Read from any thread.
        let onStandby = Atomic<Bool>(false)
        /// The WAL position the standby had replayed at its last check, in bytes, and when that check was
        /// (`DispatchTime` nanoseconds): a read needs no check while both are recent enough.
        let replayed = Atomic<Int>(0)
        /// Whether a table of the schema has a constraint or a trigger checked at commit (`DEFERRABLE INITIALLY
        /// DEFERRED`), as the store found when it opened: a write of one statement then runs in a transaction too,
        /// because postgres-nio reports a statement's success when the statement completes, before the commit that
        /// follows it, so a commit that fails would go unreported. Set before the connection is used.
        let checksAtCommit = Atomic<Bool>(false)
        let checkedAt = Atomic<UInt64>(0)

        /// Marks the thread running a connection's work with the connection, so that a call made there is
        /// recognised: one from inside a `write` or `read` closure joins its transaction, any other (an object's
        /// initializer or a property observer the loader runs) is refused instead of waiting for its own queue.
        /// A thread-specific value rather than the queue's specific: a save asks several times, and a queue's
        /// specific is looked up through generic code each time.
        private static let key: pthread_key_t = {
            var key = pthread_key_t()
            precondition(pthread_key_create(&key, nil) == 0, "no thread-specific key is left for DBBPostgres")
            return key
        }()

        /// The ``marker`` of the connection whose work the calling thread runs, if any.
        static var current: UInt? {
            // The slot holds a marker's bits (see `marking`), never an address to follow.
            pthread_getspecific(key).map { UInt(bitPattern: $0) }
        }

        /// The connection's identity as a number, the thread-specific value: only compared.
        var marker: UInt { UInt(bitPattern: ObjectIdentifier(self)) }

        /// Runs `body` with the calling thread marked as running `marker`'s work, and restores the mark it had. The
        /// mark belongs to the thread: a call that hops synchronously onto another queue from inside a `write` or
        /// `read` closure, on the same thread, is still inside it (and joins its transaction instead of waiting for
        /// the connection's queue, which would never come).
        private static func marking<T>(_ marker: UInt?, _ body: () throws -> T) rethrows -> T {
            let previous = pthread_getspecific(key)
            // Safe: the pointer is only the marker's bits in the thread's slot; nothing reads through it.
            pthread_setspecific(key, marker.flatMap { UnsafeRawPointer(bitPattern: $0) })
            defer { pthread_setspecific(key, previous) }
            return try body()
        }

        /// Whether the caller is on a SwiftNIO event-loop thread, where waiting could wait for itself.
        static var isOnEventLoop: Bool { MultiThreadedEventLoopGroup.currentEventLoop != nil }

        private init(queue: DispatchQueue, objects: DBBPostgresObjectConnection) {
            self.queue = queue
            self.objects = objects
        }

        /// Connects on a queue of its own: a synchronous connect waits, which it may not do inside a task.
        ///
        /// - Parameters:
        ///   - configuration: the server, role and database.
        ///   - name: the connection's name, for its queue's label.
        ///   - schema: the store's schema version, which tells the connection when to prepare statements again.
        /// - Throws: `DBBError` when the connection cannot be made.
        ///   - target: the role of server it wants.
        static func open(
            _ configuration: DBBPostgresConfiguration, name: String, schema: DBBPostgresSchemaVersion,
            target: DBBPostgresConfiguration.TargetSessionAttributes
        ) throws -> Connection {
            let queue = DispatchQueue(label: "DBBPostgres.\(name)")
            let objects = try waiting(on: queue, marking: nil) {
                DBBPostgresObjectConnection(
                    try DBBPostgresConnection.connect(configuration, target: target), schema: schema, target: target)
            }
            let connection = Connection(queue: queue, objects: objects)
            connection.onStandby.store(objects.connection.wasStandby == true, ordering: .relaxed)
            return connection
        }

        /// Called after the connection connected anew to another server: the writer's tells the listener to listen
        /// again, on the new primary. Set once, before the connection is used.
        var onNewServer: (@Sendable () -> Void)?

        /// Connects anew, to a host of the role wanted, and notes that host's role.
        func reconnect() throws {
            let previous = objects.connection.server
            try objects.reconnect()
            onStandby.store(objects.connection.wasStandby == true, ordering: .relaxed)
            checkedAt.store(0, ordering: .relaxed)
            if objects.connection.server != previous { onNewServer?() }
        }

        /// Closes the connection, waiting for its queue, and ignores a failure (a connection being given up).
        func closeWaiting() {
            try? waiting { try self.objects.connection.close() }
        }

        /// Makes a connection the server or the network ended anew, before work starts on it.
        func reconnectIfClosed() throws {
            if objects.connection.isClosed { try reconnect() }
        }

        /// The statement that sets the schema in each transaction, behind a pooler in transaction mode, where the
        /// session cannot keep it; `nil` elsewhere (the schema is the session's, set at login).
        var schemaStatement: String? {
            let configuration = objects.connection.configuration
            guard configuration.pooler == .transaction, let schema = configuration.schema else { return nil }
            return "SET LOCAL search_path TO \"" + schema.replacing("\"", with: "\"\"") + "\""
        }

        /// Runs `body` in a transaction. A write whose connection ends under its `COMMIT` fails with `08007`
        /// (``DBBPostgresObjectStore/outcomeUnknown(_:on:)``), for a `write { }` closure as for the library's own
        /// work: the server may have committed it.
        func inTransaction<T>(isWrite: Bool, _ body: () throws -> T) throws -> T {
            try begin(isWrite: isWrite)
            do {
                if let schemaStatement { try objects.connection.execute(schemaStatement) }
                let result = try body()
                do {
                    try objects.connection.commit()
                } catch {
                    let ended = DBBPostgresObjectStore.connectionEnded(by: error, closed: objects.connection.isClosed)
                    if isWrite, ended, (error as? DBBError)?.sqlState != DBBPostgresErrors.notSent {
                        throw DBBPostgresObjectStore.outcomeUnknown(error, on: self)
                    }
                    throw error
                }
                return result
            } catch {
                rollback()
                throw error
            }
        }

        /// Begins a transaction. A connection found ended there (its server died, or was switched over, since its
        /// last use) is made anew, on a host of the role wanted (``reconnect()`` searches for up to the failover
        /// timeout), and the transaction begun on it: nothing of the work has run yet, so a `write { }` closure,
        /// which is never run twice, runs once on the new primary instead of failing.
        private func begin(isWrite: Bool) throws {
            func begin() throws {
                try objects.connection.begin(isolation: isWrite ? nil : .repeatableRead, readOnly: !isWrite)
            }
            do {
                try reconnectIfClosed()
                try begin()
            } catch {
                guard DBBPostgresObjectStore.connectionEnded(by: error, closed: objects.connection.isClosed) else {
                    throw error
                }
                try reconnect()
                try begin()
            }
        }

        /// Rolls the open transaction back; a connection that ended has rolled it back already.
        func rollback() {
            // The transaction is over either way; a failure to roll back (a dropped connection) is the lesser
            // error, and the one the caller is handling is reported.
            if !objects.connection.isClosed { try? objects.connection.rollback() }
        }

        func perform<Work: DBBObjectWork>(joining work: Work, isWrite: Bool) throws -> Work.Result {
            try work.run(on: objects)
        }

        // MARK: Waiting for the queue

        /// Runs `body` on the connection's queue and waits for it.
        func waiting<T: Sendable>(_ body: @escaping @Sendable () throws -> T) throws -> T {
            try Self.waiting(on: queue, marking: marker, body)
        }

        /// Runs `body` on `queue` and waits for it. A caller outside any task runs it on its own thread, holding
        /// the queue (`sync`): a statement then wakes two threads (the event loop, then the caller) rather than
        /// four (the queue's, the event loop, the queue's again, the caller). A caller inside a Swift concurrency
        /// task hands it to the queue's own thread, where waiting on postgres-nio is allowed, and waits for it as
        /// it waits for SQLite's queue. The thread that runs it is marked with `marker` meanwhile.
        private static func waiting<T: Sendable>(
            on queue: DispatchQueue, marking marker: UInt?,
            _ body: @escaping @Sendable () throws -> T
        ) throws -> T {
            if withUnsafeCurrentTask(body: { $0 == nil }) {
                return try queue.sync { try marking(marker, body) }
            }
            let done = DispatchSemaphore(value: 0)
            let outcome = Mutex<Result<T, any Error>?>(nil)
            queue.async {
                let result = Result { try marking(marker, body) }
                outcome.withLock { $0 = result }
                done.signal()
            }
            done.wait()
            guard let result = outcome.withLock({ $0 }) else {
                throw DBBError.library(
                    .internal, message: "a queued call ended without a result", context: "waiting for PostgreSQL")
            }
            return try result.get()
        }

        /// Runs a closure that the caller keeps on the connection's queue, with the connection, and waits for it.
        func waiting<T>(lending body: (any DBBStoreConnection) throws -> T) throws -> T {
            try withoutActuallyEscaping(body) { body in
                let closure = CallerClosure(body)
                return try waiting { DBBResultTransfer(try closure.call(self)) }.take()
            }
        }

        /// Runs `body` on the connection's queue without blocking the calling task; its result is handed to the
        /// caller.
        func suspending<T>(_ body: @escaping @Sendable () throws -> sending T) async throws -> sending T {
            let marker = marker
            let result: DBBResultTransfer<T> = try await withCheckedThrowingContinuation { continuation in
                queue.async {
                    continuation.resume(with: Result { DBBResultTransfer(try Self.marking(marker, body)) })
                }
            }
            return result.take()
        }
    }

    /// The caller's closure, run on a connection's queue while the caller waits: the closure, what it captured
    /// and its result are used by one thread at a time. The queue lets go of it before the caller resumes, as
    /// `withoutActuallyEscaping` requires.
    private final class CallerClosure<T>: @unchecked Sendable {
        private var body: ((any DBBStoreConnection) throws -> T)?

        init(_ body: @escaping (any DBBStoreConnection) throws -> T) { self.body = body }

        func call(_ connection: any DBBStoreConnection) throws -> T {
            guard let body else { preconditionFailure("a caller's closure was called twice") }
            self.body = nil
            return try body(connection)
        }
    }
}
