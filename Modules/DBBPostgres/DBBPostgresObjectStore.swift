public import DBBObjects
internal import DBBSQL
internal import DBBSchema
internal import Dispatch
internal import Foundation
internal import NIOPosix
internal import Synchronization

extension DBBManager {
    /// Opens a manager whose classes are saved and fetched on a PostgreSQL server: the same classes, queries and
    /// calls as on SQLite, written in PostgreSQL's SQL.
    ///
    /// ```swift
    /// let manager = try DBBManager(
    ///     postgres: .init(
    ///         host: "127.0.0.1", port: 5432, username: "app", password: secret, database: "app", tls: .disable),
    ///     readers: 4)
    /// try manager.addTableClasses([Person.self, Project.self])
    /// try Person.save(people, manager: manager)
    /// let found = try Person.fetch(options: .options(withConditions: ["age > 30"]), manager: manager)
    /// ```
    ///
    /// Saves and deletes run in one transaction on the writer connection, one at a time; fetches and counts run
    /// in a `REPEATABLE READ` read-only snapshot on a reader connection (on the writer when `readers` is 0), so a
    /// fetch never sees half of a saved graph. The synchronous calls wait on a serial queue of the connection
    /// they use, as they do on SQLite, and the `async` forms suspend until it is done. `manager.write { }` runs
    /// its object calls in one transaction on the writer, `manager.read { }` in one snapshot on a reader, and
    /// `manager.observe` sees the commits of every client of the database.
    ///
    /// - Parameters:
    ///   - configuration: the server, the role, the database and TLS.
    ///   - readers: the number of reader connections beside the writer; 0 reads on the writer.
    /// - Throws: `DBBError` when a connection cannot be made (a refused port, a wrong password, a database that
    ///   does not exist: the message says which, without the password), or when the `DBVersion` table cannot be
    ///   created.
    public convenience init(postgres configuration: DBBPostgresConfiguration, readers: Int = 0) throws {
        guard readers >= 0 else {
            throw DBBError.misuse(
                "a manager cannot have \(readers) readers", recovery: "pass 0 to read on the writer, or more",
                context: "connecting to \(configuration)")
        }
        try self.init(server: try DBBPostgresObjectStore(configuration: configuration, readers: readers))
    }

    /// The server, role and database of a manager opened with ``init(postgres:readers:)``; `nil` for a manager of
    /// an SQLite file. Its `description` has no password.
    public var postgresConfiguration: DBBPostgresConfiguration? {
        (server as? DBBPostgresObjectStore)?.configuration
    }

    /// The connection of the `manager.write { }` or `manager.read { }` closure the caller is in, for SQL of its
    /// own in that closure's transaction, beside the object calls.
    ///
    /// ```swift
    /// try manager.write {
    ///     try invoice.save()
    ///     _ = try manager.postgresConnection().execute(
    ///         "UPDATE \"Customer\" SET \"balance\" = \"balance\" + $1 WHERE \"id\" = $2",
    ///         [.double(invoice.total), .integer(invoice.customerID)])
    /// }
    /// ```
    ///
    /// - Returns: the connection; use it only inside the closure.
    /// - Throws: `DBBError` (misuse) outside such a closure, or on a manager of an SQLite file.
    public func postgresConnection() throws -> DBBPostgresConnection {
        guard let store = server as? DBBPostgresObjectStore else {
            throw DBBError.misuse(
                "this manager is not a PostgreSQL manager", recovery: "use manager.write { db in … } for SQL on SQLite",
                context: "asking for the PostgreSQL connection")
        }
        guard let connection = store.scopedConnection else {
            throw DBBError.misuse(
                "the PostgreSQL connection is lent only inside manager.write { } and manager.read { }",
                recovery: "call it inside the closure, whose transaction its statements join",
                context: "asking for the PostgreSQL connection")
        }
        return connection
    }
}

/// PostgreSQL's engine for a manager: a writer connection and reader connections, each used on a serial queue
/// of its own, and a connection that listens for the commits observers wait for.
final class DBBPostgresObjectStore: DBBServerStore {
    /// A connection, the serial queue it is used on, and the scope of the `write` or `read` closure running on
    /// it.
    final class Lane: DBBServerLane, @unchecked Sendable {
        // @unchecked: the scope slot and the connection's state are touched only on `queue`.
        let queue: DispatchQueue
        let connection: DBBPostgresObjectConnection
        let scopeSlot = DBBManagerScopeSlot()

        init(queue: DispatchQueue, connection: DBBPostgresObjectConnection) {
            self.queue = queue
            self.connection = connection
            queue.setSpecific(key: DBBPostgresObjectStore.laneKey, value: ObjectIdentifier(self))
        }

        /// Makes a connection the server or the network ended anew, before work starts on it.
        func reconnectIfClosed() throws {
            if connection.connection.isClosed { try connection.reconnect() }
        }

        func begin(isWrite: Bool) throws {
            try reconnectIfClosed()
            try connection.connection.begin(isolation: isWrite ? nil : .repeatableRead, readOnly: !isWrite)
        }

        func commit() throws { try connection.connection.commit() }

        func rollback() {
            // The transaction is over either way; a failure to roll back (a dropped connection) is the lesser
            // error, and the one the caller is handling is reported.
            if !connection.connection.isClosed { try? connection.connection.rollback() }
        }
    }

    /// The channel the tables' triggers report commits on; each notification's payload is a table's name.
    static let changesChannel = "dbbbuilder_changes"

    let configuration: DBBPostgresConfiguration
    let writer: Lane
    let readers: [Lane]
    private let nextReader = Atomic<Int>(0)
    /// Set by ``close()``: later work is refused instead of connecting again.
    private let isClosed = Atomic<Bool>(false)
    /// Marks each lane's queue with the lane, so that a call made on it is recognised: one from inside a
    /// `write` or `read` closure joins its transaction, any other (an object's initializer or a property
    /// observer the loader runs) is refused instead of waiting for its own queue.
    fileprivate static let laneKey = DispatchSpecificKey<ObjectIdentifier>()
    /// The first `LISTEN` of observation, which later observations wait for too; `nil` until one starts.
    private let listenerStart = Mutex<Task<Void, any Error>?>(nil)
    /// The listening loop and its current connection, ended by ``close()``.
    private let listener = Listener()

    /// The listening loop and its current connection, shared with the loop.
    final class Listener: Sendable {
        let state = Mutex<(loop: Task<Void, Never>?, connection: DBBPostgresConnection?)>((nil, nil))
    }

    var dialect: DBBSQLDialect { .postgres }
    var location: String { configuration.description }

    init(configuration: DBBPostgresConfiguration, readers: Int) throws {
        self.configuration = configuration
        func lane(_ name: String) throws -> Lane {
            let queue = DispatchQueue(label: "DBBPostgres.\(name)")
            // Connected on the lane's own queue: a synchronous connect waits, which it may not do inside a task.
            let connection = try Self.onQueue(queue) {
                DBBPostgresObjectConnection(try DBBPostgresConnection.connect(configuration))
            }
            return Lane(queue: queue, connection: connection)
        }
        writer = try lane("writer")
        var opened: [Lane] = []
        do {
            for index in 0..<readers { opened.append(try lane("reader\(index)")) }
        } catch {
            for lane in opened + [writer] { try? Self.onQueue(lane.queue) { try lane.connection.connection.close() } }
            throw error
        }
        self.readers = opened
    }

    deinit {
        let (loop, connection) = listener.state.withLock { $0 }
        loop?.cancel()
        if let connection { Task { try? await connection.close() } }
    }

    /// The connection for work: the writer for writes (and for reads without readers), else the next reader.
    private func lane(isWrite: Bool) -> Lane {
        isWrite || readers.isEmpty ? writer : readers[nextReader.add(1, ordering: .relaxed).oldValue % readers.count]
    }

    /// The lane whose queue the caller is on, when it is one of this engine's.
    private var currentPostgresLane: Lane? {
        guard let id = DispatchQueue.getSpecific(key: Self.laneKey) else { return nil }
        if ObjectIdentifier(writer) == id { return writer }
        return readers.first { ObjectIdentifier($0) == id }
    }

    var currentLane: (any DBBServerLane)? { currentPostgresLane }

    /// The connection of the `write` or `read` closure the caller is in, if it is in one.
    var scopedConnection: DBBPostgresConnection? {
        guard let lane = currentPostgresLane, lane.scopeSlot.scope != nil else { return nil }
        return lane.connection.connection
    }

    /// Runs work in one transaction on a lane's connection; call on the lane's queue. Reads run in a read-only
    /// `REPEATABLE READ` snapshot, so a fetch's statements see one state.
    ///
    /// The work runs again, on a new connection if need be, when its transaction failed in a way that changed
    /// nothing and may not fail again: a serialization failure or a deadlock (SQLSTATE `40001`, `40P01`: the
    /// server rolled it back), or a connection that ended — for a read always, for a write when it ended before
    /// its `COMMIT` was sent (the server then rolled it back). The work is plain data (a save plan, ids), so it
    /// runs again unchanged. A write whose `COMMIT` was sent on a connection that then ended may or may not have
    /// committed: it is reported, never run twice. A statement refused because its connection was already closed
    /// (SQLSTATE `08003`) was never sent, so its work runs again even after its `COMMIT` or its one statement.
    ///
    /// Work of one statement runs without `BEGIN` and `COMMIT`: the statement is its own transaction. Its
    /// "commit" is sent with it, so a write of one statement whose connection ended is not run again.
    private static func run<Work: DBBObjectWork>(_ work: Work, on lane: Lane, isWrite: Bool) throws -> Work.Result {
        var attempt = 1
        let isTransaction = !work.isSingleStatement
        while true {
            var commitSent = false
            do {
                guard isTransaction else {
                    try lane.reconnectIfClosed()
                    commitSent = true
                    return try work.run(on: lane.connection)
                }
                try lane.begin(isWrite: isWrite)
                do {
                    let result = try work.run(on: lane.connection)
                    commitSent = true
                    try lane.commit()
                    return result
                } catch {
                    lane.rollback()
                    throw error
                }
            } catch  where attempt < 3 {
                let ended = connectionEnded(by: error, closed: lane.connection.connection.isClosed)
                guard mayRunAgain(after: error, ended: ended, unsafe: isWrite && commitSent) else { throw error }
                attempt += 1
                if ended {
                    try lane.connection.reconnect()
                } else {
                    // Two deadlocked transactions that both ran again at once would meet again.
                    Thread.sleep(forTimeInterval: 0.01 * Double(attempt))
                }
            }
        }
    }

    /// Whether a failed transaction changed nothing and its work may run again.
    ///
    /// - Parameters:
    ///   - error: the failure.
    ///   - ended: whether the connection ended.
    ///   - unsafe: whether the transaction may have committed (its `COMMIT` was sent).
    static func mayRunAgain(after error: any Error, ended: Bool, unsafe: Bool) -> Bool {
        let state = (error as? DBBError)?.sqlState
        // Refused before it was sent: the server did none of the statement, and rolls back what came before it.
        if ended { return !unsafe || state == DBBPostgresErrors.notSent }
        guard let state else { return false }
        return state == "40001" || state == "40P01"
    }

    /// Whether a failure ended the connection: it is closed, or the server said it is ending it (SQLSTATE class
    /// `08`, connection exceptions, and `57P01`–`57P03`, a shutdown or a terminated backend), which the
    /// connection may not have noticed yet.
    static func connectionEnded(by error: any Error, closed: Bool) -> Bool {
        if closed { return true }
        guard let state = (error as? DBBError)?.sqlState else { return false }
        return state.hasPrefix("08") || state == "57P01" || state == "57P02" || state == "57P03"
    }

    /// Refuses work on a closed manager, from one of its own queues outside a `write` or `read` closure (which
    /// would wait for itself), and a synchronous call on a SwiftNIO event-loop thread (which could wait for
    /// itself through postgres-nio).
    ///
    /// - Parameters:
    ///   - blocking: whether the caller waits for the work on its thread.
    ///   - closing: whether the caller is closing the manager, which a closed manager allows.
    private func requireUsable(blocking: Bool, closing: Bool = false) throws {
        // Built only for an error: the redacted URL costs as much as the save plan of one object.
        var context: String { "using the manager of \(configuration)" }
        if !closing, isClosed.load(ordering: .acquiring) {
            throw DBBError.misuse(
                "the manager of \(configuration) is closed", recovery: "open a new manager", context: context)
        }
        if currentPostgresLane != nil {
            throw DBBError.misuse(
                "an object call ran on a PostgreSQL manager's own queue (in an initializer or a property observer "
                    + "that a fetch runs), which would wait for itself",
                recovery: "make the call after the fetch returns", context: context)
        }
        if blocking, MultiThreadedEventLoopGroup.currentEventLoop != nil {
            throw DBBError.misuse(
                "a synchronous object call on a SwiftNIO event-loop thread would block the loop PostgreSQL answers on",
                recovery: "use the async form (try await)", context: context)
        }
    }

    func perform<Work: DBBObjectWork>(_ work: Work, isWrite: Bool) throws -> Work.Result {
        // Inside a `write` or `read` closure, on its connection: the work joins the closure's transaction.
        if let lane = currentPostgresLane, let scope = lane.scopeSlot.scope {
            guard scope.isWrite || !isWrite else {
                throw DBBError.misuse(
                    "a change inside manager.read, which only reads", recovery: "use manager.write to write",
                    context: "using the manager of \(configuration)")
            }
            return try work.run(on: lane.connection)
        }
        try requireUsable(blocking: true)
        let lane = lane(isWrite: isWrite)
        return try Self.onQueue(lane.queue) { DBBHandOver(try Self.run(work, on: lane, isWrite: isWrite)) }.take()
    }

    func performAsync<Work: DBBObjectWork>(_ work: Work, isWrite: Bool) async throws -> sending Work.Result {
        try requireUsable(blocking: false)
        let lane = lane(isWrite: isWrite)
        return try await Self.onQueue(lane.queue) { try Self.run(work, on: lane, isWrite: isWrite) }
    }

    func withLane<T>(isWrite: Bool, _ body: (any DBBServerLane) throws -> T) throws -> T {
        try requireUsable(blocking: true)
        let lane = lane(isWrite: isWrite)
        return try withoutActuallyEscaping(body) { body in
            let slot = LentClosure(body)
            return try Self.onQueue(lane.queue) { DBBHandOver(try slot.call(lane)) }.take()
        }
    }

    /// A closure lent to a lane's queue while its caller waits: the closure, what it captured and its result
    /// are used by one thread at a time. The queue lets go of it before the caller resumes, as
    /// `withoutActuallyEscaping` requires.
    private final class LentClosure<T>: @unchecked Sendable {
        private var body: ((any DBBServerLane) throws -> T)?

        init(_ body: @escaping (any DBBServerLane) throws -> T) { self.body = body }

        func call(_ lane: any DBBServerLane) throws -> T {
            guard let body else { preconditionFailure("a lent closure was called twice") }
            self.body = nil
            return try body(lane)
        }
    }

    func withLane<T>(isWrite: Bool, _ body: @escaping @Sendable (any DBBServerLane) throws -> sending T)
        async throws -> sending T
    {
        try requireUsable(blocking: false)
        let lane = lane(isWrite: isWrite)
        return try await Self.onQueue(lane.queue) { try body(lane) }
    }

    func startObserving(_ onChange: @escaping @Sendable (Set<String>?) -> Void) async throws {
        try requireUsable(blocking: false)
        let start = listenerStart.withLock { start in
            if let start { return start }
            let task = Task { try await self.listen(onChange) }
            start = task
            return task
        }
        do {
            try await start.value
        } catch {
            // The next observation tries again.
            listenerStart.withLock { if $0 == start { $0 = nil } }
            throw error
        }
    }

    /// Listens on the changes channel on a connection of its own, for as long as the engine is open, and
    /// returns once the first `LISTEN` is in effect. When that connection ends, another is made, and every
    /// observer is told that anything may have changed: notifications sent meanwhile were lost.
    private func listen(_ onChange: @escaping @Sendable (Set<String>?) -> Void) async throws {
        let (ready, readiness) = AsyncThrowingStream<Void, any Error>.makeStream()
        let configuration = configuration
        let loop = Task.detached { [listener] in
            var isFirst = true
            while !Task.isCancelled {
                do {
                    let connection = try await DBBPostgresConnection.connect(configuration)
                    listener.state.withLock { $0.connection = connection }
                    try await connection.listen(channel: Self.changesChannel) { notifications in
                        if isFirst { readiness.finish() } else { onChange(nil) }
                        isFirst = false
                        for try await notification in notifications { onChange([notification.payload.lowercased()]) }
                    }
                    try? await connection.close()
                } catch {
                    if isFirst {
                        readiness.finish(throwing: error)
                        return
                    }
                }
                listener.state.withLock { $0.connection = nil }
                try? await Task.sleep(for: .milliseconds(200))
            }
        }
        listener.state.withLock { $0.loop = loop }
        for try await _ in ready {}
    }

    func close() throws {
        try requireUsable(blocking: true, closing: true)
        // Closing twice closes once.
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var firstError: (any Error)?
        let (loop, listening) = listener.state.withLock { state in
            defer { state = (nil, nil) }
            return state
        }
        loop?.cancel()
        if let listening { try? Self.onQueue(writer.queue) { try listening.close() } }
        for lane in [writer] + readers {
            do {
                try Self.onQueue(lane.queue) { try lane.connection.connection.close() }
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }

    /// Runs `body` on `queue` and waits for it. The body runs on the queue's own thread, never on the caller's:
    /// a caller inside a Swift concurrency task waits for it as it waits for SQLite's queue, while the
    /// connection's synchronous calls run where waiting on postgres-nio is allowed.
    static func onQueue<T: Sendable>(_ queue: DispatchQueue, _ body: @escaping @Sendable () throws -> T) throws -> T {
        let done = DispatchSemaphore(value: 0)
        let outcome = Mutex<Result<T, any Error>?>(nil)
        queue.async {
            let result = Result { try body() }
            outcome.withLock { $0 = result }
            done.signal()
        }
        done.wait()
        guard let result = outcome.withLock({ $0 }) else {
            throw DBBError(
                .internal, message: "a queued call ended without a result", context: "waiting for PostgreSQL")
        }
        return try result.get()
    }

    /// Runs `body` on `queue` without blocking the calling task; its result is handed to the caller.
    static func onQueue<T>(_ queue: DispatchQueue, _ body: @escaping @Sendable () throws -> sending T)
        async throws -> sending T
    {
        let result: DBBHandOver<T> = try await withCheckedThrowingContinuation { continuation in
            queue.async { continuation.resume(with: Result { DBBHandOver(try body()) }) }
        }
        return result.take()
    }
}

/// PostgreSQL's connection as the object layer uses it: `?` placeholders numbered once per statement text,
/// rows read into ``DBBValue``s, tables described in SQLite's type names so that registration compares them
/// with a class's mapping as it does on SQLite.
final class DBBPostgresObjectConnection: DBBObjectConnection, @unchecked Sendable {
    // @unchecked: used only on its lane's serial queue; the connection and the statement-text cache are touched
    // there alone.
    private(set) var connection: DBBPostgresConnection
    private var numbered: [String: String] = [:]

    init(_ connection: DBBPostgresConnection) { self.connection = connection }

    /// Replaces a connection the server or the network ended with a new one, made with the same configuration.
    ///
    /// - Throws: `DBBError` when the server cannot be reached again.
    func reconnect() throws {
        try? connection.close()
        connection = try DBBPostgresConnection.connect(connection.configuration)
    }

    var dialect: DBBSQLDialect { .postgres }

    /// The statement with `$n` placeholders, numbered once per statement text.
    func numbering(_ sql: String) -> String {
        if let text = numbered[sql] { return text }
        let text = DBBSQLDialect.postgres.numberingPlaceholders(sql)
        numbered[sql] = text
        return text
    }

    struct Statement: DBBObjectStatement {
        let owner: DBBPostgresObjectConnection
        let sql: String

        func run(_ values: ArraySlice<DBBValue>) throws -> Int {
            try owner.connection.execute(sql, Array(values))
        }

        func insert(_ values: ArraySlice<DBBValue>) throws -> Int64 {
            guard let id = try owner.connection.fetchAll(sql, Array(values)).first?.first?.int64Value else {
                throw DBBError(.internal, message: "an INSERT returned no id", sql: sql, context: "saving objects")
            }
            return id
        }
    }

    func objectStatement(_ sql: String) throws -> Statement { Statement(owner: self, sql: numbering(sql)) }

    func insertStatement(_ sql: String, idColumn: String) throws -> Statement {
        Statement(owner: self, sql: numbering(sql + " RETURNING " + dialect.identifier(idColumn)))
    }

    /// New rows are inserted many at a time: each statement is a round trip to the server.
    var insertBatchSize: Int { 10_000 }

    /// Takes the rows' ids from the table's identity sequence in one query, then inserts the rows with their ids,
    /// up to 1,000 in one multi-row `INSERT` (and fewer than 32,768 values in one statement). The ids are taken
    /// first so that each row's id is known without relying on the order of `RETURNING` rows, which PostgreSQL
    /// does not promise.
    func insertBatch(_ values: [DBBValue], rows: Int, of table: DBBInsertTarget) throws -> [Int64] {
        guard rows > 0 else { return [] }
        let newIDs = try connection.fetchAll(
            "SELECT nextval(pg_get_serial_sequence($1, $2)) FROM generate_series(1, $3)",
            [.text(dialect.identifier(table.table)), .text(table.idColumn), .integer(Int64(rows))]
        ).compactMap { $0.first?.int64Value }.sorted()
        guard newIDs.count == rows else {
            throw DBBError(
                .internal, message: "the sequence of \(table.table) gave \(newIDs.count) ids for \(rows) rows",
                context: "saving objects")
        }
        let width = values.count / rows
        let perStatement = max(1, min(1_000, 32_767 / (width + 1)))
        var arguments: [DBBValue] = []
        arguments.reserveCapacity(perStatement * (width + 1))
        var start = 0
        while start < rows {
            let count = min(perStatement, rows - start)
            arguments.removeAll(keepingCapacity: true)
            for row in start..<(start + count) {
                arguments.append(.integer(newIDs[row]))
                arguments.append(contentsOf: values[(row * width)..<((row + 1) * width)])
            }
            _ = try connection.execute(multiRowInsert(table.insertWithIDSQL, rows: count), arguments)
            start += count
        }
        return newIDs
    }

    /// A one-row `INSERT … VALUES (?, …)` made to insert `rows` rows, with numbered placeholders; kept per text
    /// and row count.
    private func multiRowInsert(_ sql: String, rows: Int) -> String {
        let key = "\(rows)\u{0}\(sql)"
        if let text = numbered[key] { return text }
        // The library writes the statement: its values are the one parenthesised list after the last " VALUES ".
        guard let valuesStart = sql.range(of: " VALUES ", options: .backwards) else { return numbering(sql) }
        let tuple = sql[valuesStart.upperBound...]
        let text = DBBSQLDialect.postgres.numberingPlaceholders(
            sql[..<valuesStart.upperBound] + repeatElement(tuple, count: rows).joined(separator: ", "))
        numbered[key] = text
        return text
    }

    func executeUpdate(_ sql: String, arguments: [DBBValue]) throws -> Int {
        try connection.execute(numbering(sql), arguments)
    }

    func selectIDs(_ sql: String, arguments: [DBBValue]) throws -> [Int64] {
        try connection.fetchAll(numbering(sql), arguments).compactMap { $0.first?.int64Value }
    }

    func forEachObjectRow(_ sql: String, arguments: [DBBValue], _ body: ([DBBValue]) throws -> Void) throws {
        try connection.forEachRow(numbering(sql), arguments, body)
    }

    static func integer(in row: [DBBValue], at column: Int) throws -> Int64? { row[column].int64Value }

    static func value(in row: [DBBValue], at column: Int) -> DBBValue { row[column] }

    static func date(in row: [DBBValue], at column: Int) throws -> Date? {
        row[column].doubleValue.map(Date.init(timeIntervalSinceReferenceDate:))
    }

    /// Rows arrive as stored values, which each property's accessor sets: a generated reader (`wholeRow`), which
    /// reads SQLite's rows, is not used.
    static func scalarReader(
        _ readers: [(accessor: DBBScalarAccessor, column: Int32)],
        wholeRow: (reader: DBBRowReader, positions: DBBRowPositions)?
    ) -> ScalarReader {
        ScalarReader(readers: readers.map { ($0.accessor.setStored, Int($0.column)) })
    }

    /// Sets each scalar property from its stored value in the row.
    struct ScalarReader: DBBObjectScalarReader {
        let readers: [(set: @Sendable (AnyObject, DBBValue) throws -> Void, column: Int)]

        func read(_ object: DBBTableObject, _ row: [DBBValue]) throws {
            for reader in readers { try reader.set(object, row[reader.column]) }
        }
    }

    func didInsert(presetID id: Int64, table: String, idColumn: String) throws {
        // An identity column's sequence does not see ids given to it: move it past this one, never back.
        _ = try connection.fetchAll(
            """
            SELECT setval(pg_get_serial_sequence($1, $2), $3) WHERE $3 > COALESCE(
                pg_sequence_last_value(pg_get_serial_sequence($1, $2)::regclass), 0)
            """, [.text(dialect.identifier(table)), .text(idColumn), .integer(id)])
    }

    func lockSchemaForRegistration() throws {
        // One lock for the library's registrations, held until the transaction ends.
        _ = try connection.fetchAll("SELECT pg_advisory_xact_lock(hashtext('DBBBuilder registration'))")
    }

    func reportChanges(of tables: [String]) throws {
        let function = "dbb_report_change"
        let hasFunction = try !connection.fetchAll(
            "SELECT 1 FROM pg_proc WHERE proname = $1 AND pronamespace = current_schema()::regnamespace",
            [.text(function)]
        ).isEmpty
        if !hasFunction {
            _ = try connection.execute(
                """
                CREATE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_notify('\(DBBPostgresObjectStore.changesChannel)', TG_TABLE_NAME); RETURN NULL; END $$
                """)
        }
        for table in tables {
            let name = dialect.identifier(table)
            let hasTrigger = try !connection.fetchAll(
                "SELECT 1 FROM pg_trigger WHERE tgrelid = $1::regclass AND tgname = $2", [.text(name), .text(function)]
            ).isEmpty
            guard !hasTrigger else { continue }
            // One notification per statement, not per row; the server sends it at commit, once per table and
            // transaction, and not at all on a rollback.
            _ = try connection.execute(
                """
                CREATE TRIGGER \(function) AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(name)
                FOR EACH STATEMENT EXECUTE FUNCTION \(function)()
                """)
        }
    }

    func tableExists(_ name: String) throws -> Bool {
        try !connection.fetchAll(
            "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1",
            [.text(name)]
        ).isEmpty
    }

    func columns(in table: String) throws -> [DBBColumnInfo] {
        let rows = try connection.fetchAll(
            """
            SELECT column_name::text, data_type::text, is_nullable::text, column_default::text
            FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1
            ORDER BY ordinal_position
            """, [.text(table)])
        return rows.map { row in
            DBBColumnInfo(
                name: row[0].stringValue ?? "", declaredType: Self.sqliteTypeName(row[1].stringValue ?? ""),
                isNotNull: row[2].stringValue == "NO", defaultValueSQL: row[3].stringValue, primaryKeyIndex: 0)
        }
    }

    /// A PostgreSQL column type as SQLite's type names say it, so that a column another program created with
    /// another type (`integer` where a property stores text) is refused at registration as on SQLite.
    static func sqliteTypeName(_ type: String) -> String {
        switch type.lowercased() {
        case "bigint", "integer", "smallint", "boolean": "INTEGER"
        case "double precision", "real", "numeric": "REAL"
        case "bytea": "BLOB"
        case "text", "character varying", "character", "name", "json", "jsonb", "uuid": "TEXT"
        default: type
        }
    }
}
