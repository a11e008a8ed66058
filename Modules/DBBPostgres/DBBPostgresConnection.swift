public import DBBSQL
internal import Dispatch
public import Logging
internal import NIOConcurrencyHelpers
internal import NIOCore
internal import NIOPosix
internal import NIOSSL
internal import PostgresNIO
internal import Synchronization

/// One connection to a PostgreSQL server, with a synchronous and an `async` form of each operation.
///
/// ```swift
/// let queue = DispatchQueue(label: "db")
/// try queue.sync {
///     let db = try DBBPostgresConnection.connect(configuration)
///     defer { try? db.close() }
///     try db.execute("CREATE TEMPORARY TABLE note (id bigint, title text)")
///     try db.execute("INSERT INTO note VALUES ($1, $2)", [.integer(1), .text("Hello")])
///     let rows = try db.fetchAll("SELECT id, title FROM note WHERE id = ANY($1::bigint[])",
///                                arguments: [.integerArray([1, 2])])
/// }
/// // In async code:
/// let db = try await DBBPostgresConnection.connect(configuration)
/// let count = try await db.fetchAll("SELECT count(*) FROM note")[0][0]
/// ```
///
/// **Threads.** The synchronous forms wait for postgres-nio's futures on the calling thread: call them from a
/// thread of your own or a `DispatchQueue`, such as a manager's serial queue. They refuse (with a
/// `DBBError.Kind.misuse` error) to run on one of SwiftNIO's event-loop threads, where waiting
/// would deadlock, and inside a Swift concurrency task, whose threads must not block: there, use the `async`
/// forms, which suspend instead. One connection runs one statement at a time; statements sent from several
/// threads at once queue up in the order they arrive, so a transaction needs one caller at a time.
///
/// **Values.** Arguments bind as `$1`, `$2`, … parameters: `DBBValue.integer` as `bigint`,
/// `DBBValue.real` as `double precision` (bit-exact), `DBBValue.text` as `text`,
/// `DBBValue.blob` as `bytea`, `DBBValue.null` as an untyped NULL; ``Argument/integerArray(_:)``
/// binds a `bigint[]` for `= ANY($1::bigint[])`. Columns of type `smallint`, `integer`, `bigint` and `boolean`
/// (0 or 1) read as integers, `real` and `double precision` as reals, `numeric` as an integer when it is a
/// whole number that fits in 64 bits and as a real otherwise, `text`, `varchar`, `char`, `name` and `json`
/// as text, `bytea` as a blob, and `timestamp`, `timestamptz` and `date` as seconds since 1970 (UTC) in a
/// real, as `DBBDateStrategy.secondsSince1970` stores dates. Other types are an error that suggests a cast
/// (`::text`).
///
/// **Errors** are `DBBError`s of kind `DBBError.Kind.server`, with the server's SQLSTATE in
/// `DBBError.sqlState`, its message, the SQL and what the library was doing; a unique violation matches
/// `catch DBBError.constraintUnique`. The password never appears in an error.
///
/// `Sendable`: its state is the postgres-nio connection, which is `Sendable`, and constants.
public final class DBBPostgresConnection: Sendable {
    /// The configuration the connection was made with. Printing it redacts the password.
    public let configuration: DBBPostgresConfiguration
    /// The server of the configuration's ``DBBPostgresConfiguration/hosts`` the connection is to.
    public let server: DBBPostgresConfiguration.Host
    /// Whether the server was a hot standby (in recovery) when the connection was made; `nil` when the connection
    /// did not ask, for a configuration of one host and ``DBBPostgresConfiguration/TargetSessionAttributes/any``.
    public var wasStandby: Bool? {
        switch standby.load(ordering: .relaxed) {
        case 0: false
        case 1: true
        default: nil
        }
    }
    /// ``wasStandby`` as 0, 1, or -1 for unknown: set once, by the host search, before the connection is handed out.
    let standby = Atomic<Int>(-1)
    /// The configuration of ``server`` alone, which the errors name.
    let pinned: DBBPostgresConfiguration
    /// The postgres-nio connection.
    let connection: PostgresConnection
    /// The logger postgres-nio writes to, at `.debug` and `.trace`.
    let logger: Logger

    private static let nextID = Atomic<Int>(1)
    /// The round trips to the server this connection made for statements: each one sent, prepared or run
    /// prepared waits for the server's answer once.
    let roundTrips = Atomic<Int>(0)

    private init(
        configuration: DBBPostgresConfiguration, pinned: DBBPostgresConfiguration, connection: PostgresConnection,
        logger: Logger
    ) {
        self.configuration = configuration
        self.pinned = pinned
        self.server = pinned.hosts[0]
        self.connection = connection
        self.logger = logger
    }

    /// A connection that was not closed closes when it is released, without waiting.
    deinit {
        let connection = connection
        guard !connection.isClosed else { return }
        // The closure keeps the postgres-nio connection alive until its channel has closed.
        connection.close().whenComplete { _ in _ = connection }
    }

    // MARK: Connecting

    /// Connects and logs in, waiting on the calling thread.
    ///
    /// A configuration without a password takes one from `PGPASSWORD` or the password file, as libpq does
    /// (``DBBPostgresConfiguration/resolvingPassword(environment:)``).
    ///
    /// - Parameters:
    ///   - configuration: the server, the role, the database and TLS.
    ///   - logger: where postgres-nio logs (at `.debug` and `.trace`); `nil` logs nothing.
    /// - Returns: the open connection.
    /// - Throws: `DBBError` of kind `DBBError.Kind.server` when the server cannot be reached,
    ///   refuses the login (a wrong password is SQLSTATE `28P01`), has no such database (`3D000`) or fails
    ///   TLS; of kind `DBBError.Kind.misuse` when called on an event-loop thread or inside a
    ///   Swift concurrency task, or when the trust root file cannot be read.
    public static func connect(_ configuration: DBBPostgresConfiguration, logger: Logger? = nil) throws
        -> DBBPostgresConnection
    {
        try connect(configuration, target: configuration.targetSessionAttributes, logger: logger)
    }

    /// Connects to the first host of the configuration with the role `target` wants, waiting on the calling
    /// thread.
    static func connect(
        _ configuration: DBBPostgresConfiguration, target: DBBPostgresConfiguration.TargetSessionAttributes,
        logger: Logger? = nil
    ) throws -> DBBPostgresConnection {
        try requireBlockingAllowed(context: "connecting to \(configuration)", sql: nil)
        var search = HostSearch(configuration, target: target)
        while let host = search.next() {
            let pinned = configuration.pinned(to: host).resolvingPassword()
            let context = "connecting to \(pinned)"
            let (postgresConfiguration, logger) = try prepare(pinned, logger: logger, context: context)
            let future = PostgresConnection.connect(
                on: MultiThreadedEventLoopGroup.singleton.any(), configuration: postgresConfiguration,
                id: nextID.add(1, ordering: .relaxed).oldValue, logger: logger)
            let opened: DBBPostgresConnection
            do {
                opened = DBBPostgresConnection(
                    configuration: configuration, pinned: pinned, connection: try future.wait(), logger: logger)
            } catch {
                try search.failed(host, DBBPostgresErrors.map(error, sql: nil, context: context, configuration: pinned))
                continue
            }
            guard search.asksRole else { return opened }
            do {
                let role = try opened.run(HostSearch.roleQuery, [], context: "asking the server's role").rows
                if let accepted = try search.answered(host, role: role, by: opened) { return accepted }
            } catch {
                try search.failed(host, error)
            }
            try? opened.close()
        }
        throw search.noHost()
    }

    /// Connects and logs in, suspending the calling task.
    ///
    /// A configuration without a password takes one from `PGPASSWORD` or the password file, as libpq does
    /// (``DBBPostgresConfiguration/resolvingPassword(environment:)``).
    ///
    /// - Parameters:
    ///   - configuration: the server, the role, the database and TLS.
    ///   - logger: where postgres-nio logs (at `.debug` and `.trace`); `nil` logs nothing.
    /// - Returns: the open connection.
    /// - Throws: `DBBError` of kind `DBBError.Kind.server` when the server cannot be reached,
    ///   refuses the login (a wrong password is SQLSTATE `28P01`), has no such database (`3D000`) or fails
    ///   TLS; of kind `DBBError.Kind.misuse` when the trust root file cannot be read.
    public static func connect(_ configuration: DBBPostgresConfiguration, logger: Logger? = nil) async throws
        -> DBBPostgresConnection
    {
        try await connect(configuration, target: configuration.targetSessionAttributes, logger: logger)
    }

    /// Connects to the first host of the configuration with the role `target` wants, suspending the calling task.
    static func connect(
        _ configuration: DBBPostgresConfiguration, target: DBBPostgresConfiguration.TargetSessionAttributes,
        logger: Logger? = nil
    ) async throws -> DBBPostgresConnection {
        var search = HostSearch(configuration, target: target)
        while let host = search.next() {
            let pinned = configuration.pinned(to: host).resolvingPassword()
            let context = "connecting to \(pinned)"
            let (postgresConfiguration, logger) = try prepare(pinned, logger: logger, context: context)
            let opened: DBBPostgresConnection
            do {
                let connection = try await PostgresConnection.connect(
                    on: MultiThreadedEventLoopGroup.singleton.any(), configuration: postgresConfiguration,
                    id: nextID.add(1, ordering: .relaxed).oldValue, logger: logger)
                opened = DBBPostgresConnection(
                    configuration: configuration, pinned: pinned, connection: connection, logger: logger)
            } catch {
                try search.failed(host, DBBPostgresErrors.map(error, sql: nil, context: context, configuration: pinned))
                continue
            }
            guard search.asksRole else { return opened }
            do {
                let role = try await opened.run(HostSearch.roleQuery, [], context: "asking the server's role").rows
                if let accepted = try search.answered(host, role: role, by: opened) { return accepted }
            } catch {
                try search.failed(host, error)
            }
            try? await opened.close()
        }
        throw search.noHost()
    }

    /// The order in which a connection tries the hosts of a configuration, and what it learnt of each: libpq's
    /// rules for a host list and `target_session_attrs`.
    struct HostSearch {
        /// Whether the server is in recovery (a hot standby), and whether its sessions are read-only.
        static let roleQuery = "SELECT pg_is_in_recovery(), current_setting('transaction_read_only') = 'on'"

        /// The start of a refused connection's message, which the list of hosts says once.
        static let couldNotConnect = "could not connect to PostgreSQL: "

        let configuration: DBBPostgresConfiguration
        let target: DBBPostgresConfiguration.TargetSessionAttributes
        /// Whether each connection asks its server's role: for a list of hosts, or a target other than any.
        let asksRole: Bool
        private var queue: [DBBPostgresConfiguration.Host]
        /// The hosts of a `prefer-standby` search that turned out to be primaries, tried again when no standby
        /// answers.
        private var primaries: [DBBPostgresConfiguration.Host] = []
        private var secondRound = false
        private var failures: [(DBBPostgresConfiguration.Host, String)] = []
        private var onlyError: DBBError?

        init(_ configuration: DBBPostgresConfiguration, target: DBBPostgresConfiguration.TargetSessionAttributes) {
            self.configuration = configuration
            self.target = target
            queue = configuration.hosts
            asksRole = configuration.hosts.count > 1 || target != .any
        }

        /// The next host to try, or `nil` when every one was tried.
        mutating func next() -> DBBPostgresConfiguration.Host? {
            if queue.isEmpty, !secondRound, target == .preferStandby {
                secondRound = true
                queue = primaries
            }
            return queue.isEmpty ? nil : queue.removeFirst()
        }

        /// Notes why a host could not be used. A login the server refused (a wrong password) is the same on every
        /// host of a cluster: it ends the search with that error. A database that does not exist may be one a
        /// standby has not replayed yet: the next host is tried.
        mutating func failed(_ host: DBBPostgresConfiguration.Host, _ error: any Error) throws {
            if let error = error as? DBBError, let state = error.sqlState, state.hasPrefix("28") {
                throw error
            }
            let mapped = error as? DBBError
            if configuration.hosts.count == 1, let mapped { onlyError = mapped }
            var message = mapped?.message ?? String(describing: error)
            if message.hasPrefix(Self.couldNotConnect) { message.removeFirst(Self.couldNotConnect.count) }
            failures.append((host, message))
        }

        /// The connection with its role noted when its server's role is the one wanted, else `nil` (the caller
        /// closes it and tries the next host).
        mutating func answered(
            _ host: DBBPostgresConfiguration.Host, role: [[DBBValue]], by connection: DBBPostgresConnection
        ) throws -> DBBPostgresConnection? {
            guard let row = role.first, row.count == 2 else {
                throw DBBError.library(
                    .internal, message: "the server's role came back as \(role)", context: "connecting to \(host)")
            }
            let inRecovery = row[0].int64Value == 1
            let readOnly = row[1].int64Value == 1
            if target == .preferStandby, !inRecovery, !secondRound {
                primaries.append(host)
                return nil
            }
            guard target.accepts(inRecovery: inRecovery, readOnly: readOnly) else {
                failures.append((host, inRecovery ? "is a hot standby" : readOnly ? "is read-only" : "is a primary"))
                return nil
            }
            connection.standby.store(inRecovery ? 1 : 0, ordering: .relaxed)
            return connection
        }

        /// The error when no host would do.
        func noHost() -> DBBError {
            if let onlyError, failures.count == 1 { return onlyError }
            let tried = failures.map { "\($0.0): \($0.1)" }.joined(separator: "; ")
            let wanted = target == .any || target == .preferStandby ? "" : " (target_session_attrs=\(target))"
            return DBBError.server(
                sqlState: DBBPostgresErrors.noHost, extendedCode: DBBError.ResultCode.cannotOpen.rawValue,
                message: Self.couldNotConnect + "no server of "
                    + "\(configuration.hosts.map(\.description).joined(separator: ",")) accepted the connection"
                    + "\(wanted): \(tried)", sql: nil, context: "connecting to \(configuration)",
                engine: DBBPostgresErrors.engine)
        }
    }

    /// Closes the connection, waiting on the calling thread. Closing a closed connection does nothing.
    ///
    /// - Throws: `DBBError` of kind `DBBError.Kind.misuse` when called on an event-loop thread
    ///   or inside a Swift concurrency task.
    public func close() throws {
        try Self.requireBlockingAllowed(context: "closing the connection", sql: nil)
        do {
            try connection.close().wait()
        } catch {
            throw map(error, sql: nil, context: "closing the connection")
        }
    }

    /// Closes the connection, suspending the calling task. Closing a closed connection does nothing.
    ///
    /// - Throws: `DBBError` when the connection fails to close cleanly.
    public func close() async throws {
        do {
            try await connection.close().get()
        } catch {
            throw map(error, sql: nil, context: "closing the connection")
        }
    }

    /// Whether the connection is closed, by `close()` or because the server or the network ended it.
    public var isClosed: Bool { connection.isClosed }

    // MARK: Running statements

    /// Runs one statement and returns the number of rows it inserted, updated or deleted (0 for other
    /// statements), waiting on the calling thread.
    ///
    /// - Parameters:
    ///   - sql: one SQL statement, with `$1`, `$2`, … placeholders.
    ///   - arguments: the values of the placeholders, in order.
    /// - Returns: the number of rows changed (for `SELECT`, the number of rows returned).
    /// - Throws: `DBBError`: the server's error, or a misuse (text with a NUL character, a call on an
    ///   event-loop thread or in a task).
    @discardableResult
    public func execute(_ sql: String, _ arguments: [DBBValue] = []) throws -> Int {
        try run(sql, arguments.map(Argument.value), context: "executing a statement").rowsChanged
    }

    /// Runs one statement with arguments that may include arrays, waiting on the calling thread.
    ///
    /// - Parameters:
    ///   - sql: one SQL statement, with `$1`, `$2`, … placeholders.
    ///   - arguments: the values of the placeholders, in order.
    /// - Returns: the number of rows changed (for `SELECT`, the number of rows returned).
    /// - Throws: `DBBError`, as `execute(_:_:)` does.
    @discardableResult
    public func execute(_ sql: String, arguments: [Argument]) throws -> Int {
        try run(sql, arguments, context: "executing a statement").rowsChanged
    }

    /// Runs a query and returns all its rows, waiting on the calling thread.
    ///
    /// - Parameters:
    ///   - sql: one SQL statement, with `$1`, `$2`, … placeholders.
    ///   - arguments: the values of the placeholders, in order.
    /// - Returns: the rows, each an array of values in column order.
    /// - Throws: `DBBError`: the server's error, a column of a type that cannot be read, or a misuse.
    public func fetchAll(_ sql: String, _ arguments: [DBBValue] = []) throws -> [[DBBValue]] {
        try run(sql, arguments.map(Argument.value), context: "fetching rows").rows
    }

    /// Runs a query with arguments that may include arrays and returns all its rows, waiting on the calling
    /// thread.
    ///
    /// - Parameters:
    ///   - sql: one SQL statement, with `$1`, `$2`, … placeholders.
    ///   - arguments: the values of the placeholders, in order.
    /// - Returns: the rows, each an array of values in column order.
    /// - Throws: `DBBError`, as `fetchAll(_:_:)` does.
    public func fetchAll(_ sql: String, arguments: [Argument]) throws -> [[DBBValue]] {
        try run(sql, arguments, context: "fetching rows").rows
    }

    /// Runs a statement and returns its rows with their column names and the number of rows changed, waiting
    /// on the calling thread.
    ///
    /// - Parameters:
    ///   - sql: one SQL statement, with `$1`, `$2`, … placeholders.
    ///   - arguments: the values of the placeholders, in order.
    /// - Returns: the column names, the rows and the changed-row count.
    /// - Throws: `DBBError`, as `fetchAll(_:_:)` does.
    public func fetchResult(_ sql: String, arguments: [Argument] = []) throws -> DBBPostgresResult {
        try run(sql, arguments, context: "fetching rows")
    }

    /// Runs one statement and returns the number of rows it changed, suspending the calling task.
    ///
    /// - Parameters:
    ///   - sql: one SQL statement, with `$1`, `$2`, … placeholders.
    ///   - arguments: the values of the placeholders, in order.
    /// - Returns: the number of rows changed (for `SELECT`, the number of rows returned).
    /// - Throws: `DBBError`: the server's error, or text with a NUL character.
    @discardableResult
    public func execute(_ sql: String, _ arguments: [DBBValue] = []) async throws -> Int {
        try await run(sql, arguments.map(Argument.value), context: "executing a statement").rowsChanged
    }

    /// Runs one statement with arguments that may include arrays, suspending the calling task.
    ///
    /// - Parameters:
    ///   - sql: one SQL statement, with `$1`, `$2`, … placeholders.
    ///   - arguments: the values of the placeholders, in order.
    /// - Returns: the number of rows changed (for `SELECT`, the number of rows returned).
    /// - Throws: `DBBError`: the server's error, or text with a NUL character.
    @discardableResult
    public func execute(_ sql: String, arguments: [Argument]) async throws -> Int {
        try await run(sql, arguments, context: "executing a statement").rowsChanged
    }

    /// Runs a query and returns all its rows, suspending the calling task.
    ///
    /// - Parameters:
    ///   - sql: one SQL statement, with `$1`, `$2`, … placeholders.
    ///   - arguments: the values of the placeholders, in order.
    /// - Returns: the rows, each an array of values in column order.
    /// - Throws: `DBBError`: the server's error, a column of a type that cannot be read, or text with a NUL
    ///   character.
    public func fetchAll(_ sql: String, _ arguments: [DBBValue] = []) async throws -> [[DBBValue]] {
        try await run(sql, arguments.map(Argument.value), context: "fetching rows").rows
    }

    /// Runs a query with arguments that may include arrays and returns all its rows, suspending the calling
    /// task.
    ///
    /// - Parameters:
    ///   - sql: one SQL statement, with `$1`, `$2`, … placeholders.
    ///   - arguments: the values of the placeholders, in order.
    /// - Returns: the rows, each an array of values in column order.
    /// - Throws: `DBBError`, as the `async` `fetchAll(_:_:)` does.
    public func fetchAll(_ sql: String, arguments: [Argument]) async throws -> [[DBBValue]] {
        try await run(sql, arguments, context: "fetching rows").rows
    }

    /// Runs a statement and returns its rows with their column names and the number of rows changed,
    /// suspending the calling task.
    ///
    /// - Parameters:
    ///   - sql: one SQL statement, with `$1`, `$2`, … placeholders.
    ///   - arguments: the values of the placeholders, in order.
    /// - Returns: the column names, the rows and the changed-row count.
    /// - Throws: `DBBError`, as the `async` `fetchAll(_:_:)` does.
    public func fetchResult(_ sql: String, arguments: [Argument] = []) async throws -> DBBPostgresResult {
        try await run(sql, arguments, context: "fetching rows")
    }

    // MARK: Internals

    /// Waits on the calling thread for a request sent on this connection. postgres-nio writes a request to its
    /// channel without a promise for the write: one written just after the channel closed is dropped, and its
    /// future never completes. So the wait looks at the connection every second, and once it is closed (and
    /// postgres-nio has had a moment to fail the request itself) ends with the error of a closed connection.
    ///
    /// - Throws: the request's error, or `DBBError` (ioError) for a connection that closed without answering.
    func waitFor<T: Sendable>(_ future: EventLoopFuture<T>) throws -> T {
        // A condition lock, as postgres-nio's own `wait()` uses: its signal costs the event loop less than a
        // dispatch semaphore's, and a waiting caller holds the answer under the lock it woke with.
        let answer = Answer<T>()
        future.whenComplete { result in
            answer.lock.lock()
            answer.result = result
            answer.lock.unlock(withValue: true)
        }
        while !answer.lock.lock(whenValue: true, timeoutSeconds: 1) {
            if connection.isClosed, !answer.lock.lock(whenValue: true, timeoutSeconds: 0.5) {
                throw Self.unanswered(server)
            }
        }
        let result = answer.result
        answer.lock.unlock()
        guard let result else {
            throw DBBError.library(.internal, message: "a request ended without a result", context: "PostgreSQL")
        }
        return try result.get()
    }

    /// A request's answer, handed from the event loop to the thread waiting for it.
    private final class Answer<T: Sendable>: @unchecked Sendable {
        // @unchecked: `result` is written and read only while `lock` is held.
        let lock = ConditionLock(value: false)
        var result: Result<T, any Error>?
    }

    /// Waits for `signal`, which work on `connection` gives, and ends with an error when the connection closes
    /// and half a second more brings no signal: work whose request postgres-nio dropped is never answered.
    ///
    /// - Throws: `DBBError` (ioError) for a connection that closed without answering.
    static func wait(
        for signal: DispatchSemaphore, whileOpen connection: PostgresConnection,
        server: DBBPostgresConfiguration.Host
    ) throws {
        while signal.wait(timeout: .now() + 1) == .timedOut {
            if connection.isClosed, signal.wait(timeout: .now() + 0.5) == .timedOut {
                throw unanswered(server)
            }
        }
    }

    /// The error of a request the connection closed under without answering.
    static func unanswered(_ server: DBBPostgresConfiguration.Host) -> DBBError {
        DBBError.library(.ioError, message: "the connection to \(server) closed before the statement was answered")
    }

    /// Suspends the calling task until a request sent on this connection is answered: ``waitFor(_:)`` for a task.
    /// A watch on the connection's event loop fails the request once the connection has been closed at two of its
    /// checks, half a second apart, with the request unanswered.
    ///
    /// - Throws: the request's error, or `DBBError` (ioError) for a connection that closed without answering.
    func answer<T: Sendable>(_ future: EventLoopFuture<T>) async throws -> T {
        let guarded = future.eventLoop.makePromise(of: T.self)
        future.cascade(to: guarded)
        let closedBefore = Mutex(false)
        let watch = future.eventLoop.scheduleRepeatedTask(initialDelay: .seconds(1), delay: .milliseconds(500)) {
            [connection, server] _ in
            guard connection.isClosed else { return }
            // Closed at this check and the one before; a promise completed already ignores the failure.
            let closedTwice = closedBefore.withLock { seen in
                defer { seen = true }
                return seen
            }
            if closedTwice { guarded.fail(Self.unanswered(server)) }
        }
        guarded.futureResult.whenComplete { _ in watch.cancel() }
        return try await guarded.futureResult.get()
    }

    /// Runs a statement synchronously.
    @discardableResult
    func run(_ sql: String, _ arguments: [Argument], context: String) throws -> DBBPostgresResult {
        try DBBPostgresCoding.result(try query(sql, arguments, context: context), sql: sql, context: context)
    }

    /// Runs an unnamed statement synchronously and returns its rows, in PostgreSQL's binary format.
    func rows(_ sql: String, _ arguments: [DBBValue], context: String) throws -> [PostgresRow] {
        try query(sql, arguments.map(Argument.value), context: context).rows
    }

    /// Sends a statement and waits for its whole result, where waiting is allowed.
    private func query(_ sql: String, _ arguments: [Argument], context: String) throws -> PostgresQueryResult {
        try Self.requireBlockingAllowed(context: context, sql: sql)
        return try wait(for: send(sql, arguments, context: context))
    }

    /// A statement sent without waiting for its answer.
    struct SentStatement {
        let sql: String
        let context: String
        let answer: EventLoopFuture<PostgresQueryResult>
    }

    /// Sends a statement without waiting for its answer, which ``collect(_:)`` waits for. Statements sent one
    /// after another so queue on the connection and run in the order sent; postgres-nio sends each when the one
    /// before it is answered, without waiting for the calling thread to collect it.
    ///
    /// - Throws: `DBBError` for a closed connection or arguments that cannot be sent.
    func send(_ sql: String, _ arguments: [Argument], context: String) throws -> SentStatement {
        try requireOpen(sql: sql, context: context)
        let query = try DBBPostgresCoding.query(sql, arguments, context: context)
        roundTrips.add(1, ordering: .relaxed)
        return SentStatement(sql: sql, context: context, answer: connection.query(query, logger: logger))
    }

    /// Waits for the answer of a statement sent with ``send(_:_:context:)``.
    ///
    /// - Throws: `DBBError` from the server, or for a connection that closed without answering.
    func collect(_ sent: SentStatement) throws -> DBBPostgresResult {
        try Self.requireBlockingAllowed(context: sent.context, sql: sent.sql)
        return try DBBPostgresCoding.result(wait(for: sent), sql: sent.sql, context: sent.context)
    }

    private func wait(for sent: SentStatement) throws -> PostgresQueryResult {
        do {
            return try waitFor(sent.answer)
        } catch {
            throw map(error, sql: sent.sql, context: sent.context)
        }
    }

    /// Runs a statement asynchronously.
    @discardableResult
    func run(_ sql: String, _ arguments: [Argument], context: String) async throws -> DBBPostgresResult {
        try requireOpen(sql: sql, context: context)
        let query = try DBBPostgresCoding.query(sql, arguments, context: context)
        roundTrips.add(1, ordering: .relaxed)
        let result: PostgresQueryResult
        do {
            result = try await answer(connection.query(query, logger: logger))
        } catch {
            throw map(error, sql: sql, context: context)
        }
        return try DBBPostgresCoding.result(result, sql: sql, context: context)
    }

    /// A statement sent on a closed channel would wait forever: refuse it. The refusal's SQLSTATE is `08003`
    /// (connection does not exist): nothing of the statement reached the server.
    func requireOpen(sql: String, context: String) throws {
        if connection.isClosed {
            throw DBBError.server(
                sqlState: DBBPostgresErrors.notSent, extendedCode: DBBError.ResultCode.misuse.rawValue,
                message: "the connection to \(server) is closed", sql: sql,
                context: context)
        }
    }

    func map(_ error: any Error, sql: String?, context: String) -> DBBError {
        DBBPostgresErrors.map(error, sql: sql, context: context, configuration: pinned)
    }

    /// Refuses to wait where waiting would deadlock (an event-loop thread) or starve the Swift concurrency
    /// thread pool (a task).
    static func requireBlockingAllowed(context: String, sql: String?) throws {
        if MultiThreadedEventLoopGroup.currentEventLoop != nil {
            throw DBBError.misuse(
                "a synchronous DBBPostgres call on a SwiftNIO event-loop thread would deadlock",
                recovery: "call it from a DispatchQueue or a thread of your own, or use the async form", sql: sql,
                context: context)
        }
        if withUnsafeCurrentTask(body: { $0 != nil }) {
            throw DBBError.misuse(
                "a synchronous DBBPostgres call inside a Swift concurrency task would block one of the pool's threads",
                recovery: "use the async form (try await), or call it from a DispatchQueue", sql: sql,
                context: context)
        }
    }

    /// The postgres-nio configuration and the logger for a configuration.
    private static func prepare(
        _ configuration: DBBPostgresConfiguration, logger: Logger?, context: String
    ) throws -> (PostgresConnection.Configuration, Logger) {
        let tls: PostgresConnection.Configuration.TLS
        do {
            switch configuration.tls.mode {
            case .disable:
                tls = .disable
            case .prefer:
                var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
                tlsConfiguration.certificateVerification = .none
                tls = .prefer(try NIOSSLContext(configuration: tlsConfiguration))
            case .require:
                var tlsConfiguration = TLSConfiguration.makeClientConfiguration()
                tlsConfiguration.certificateVerification = .fullVerification
                if let file = configuration.tls.trustRootFile {
                    tlsConfiguration.trustRoots = .certificates(try NIOSSLCertificate.fromPEMFile(file))
                }
                tls = .require(try NIOSSLContext(configuration: tlsConfiguration))
            }
        } catch {
            throw DBBError.misuse(
                "could not set up TLS: \(error)",
                recovery: configuration.tls.trustRootFile.map { "check that \($0) is a readable PEM file" },
                context: context)
        }
        var postgres = PostgresConnection.Configuration(
            host: configuration.host, port: configuration.port, username: configuration.username,
            password: configuration.password, database: configuration.database, tls: tls)
        // postgres-nio sends the host as the TLS server name (SNI) unless it is an IP address; certificate
        // verification checks the host name, or the address.
        postgres.options.connectTimeout = .milliseconds(Int64(max(0, configuration.connectTimeout) * 1000))
        // The schema is the search path of the session from its login on: every statement of every connection,
        // the manager's catalog look-ups (current_schema()) included, works in it.
        // A pooler in transaction mode refuses a startup parameter it does not know, and would not keep it for the
        // next transaction anyway: there, a manager sets the schema in each transaction (`SET LOCAL`).
        if let schema = configuration.schema, configuration.pooler != .transaction {
            postgres.options.additionalStartupParameters = [
                ("search_path", "\"" + schema.replacing("\"", with: "\"\"") + "\"")
            ]
        }
        return (postgres, logger ?? Logger(label: "DBBPostgres", factory: { _ in SwiftLogNoOpLogHandler() }))
    }
}

/// The outcome of a statement: its column names, its rows and the number of rows it changed.
public struct DBBPostgresResult: Sendable, Hashable {
    /// The names of the result's columns, in order; empty when the statement returned no rows.
    public var columnNames: [String]
    /// The rows, each an array of values in column order.
    public var rows: [[DBBValue]]
    /// The number of rows inserted, updated or deleted (for `SELECT`, returned); 0 for other statements.
    public var rowsChanged: Int
    /// The command the server reports it ran, the first word of its command tag: `SELECT`, `INSERT`,
    /// `COMMIT`, `ROLLBACK`, …
    public var command: String

    /// Creates a result.
    ///
    /// - Parameters:
    ///   - columnNames: the names of the columns.
    ///   - rows: the rows.
    ///   - rowsChanged: the changed-row count.
    ///   - command: the command the server ran.
    public init(columnNames: [String], rows: [[DBBValue]], rowsChanged: Int, command: String) {
        self.columnNames = columnNames
        self.rows = rows
        self.rowsChanged = rowsChanged
        self.command = command
    }
}
