internal import DBBObjects
internal import DBBSQL
internal import Dispatch
internal import Synchronization

/// PostgreSQL's store for a manager (``DBBObjectStore``): a writer connection and reader connections, each used
/// on a serial queue of its own (``Connection``), and a connection that listens for the commits observers wait
/// for (``Listener``). Work that failed in a way that changed nothing runs again (``run(_:on:isWrite:)``, in
/// `DBBPostgresObjectStore+Retry.swift`).
final class DBBPostgresObjectStore: DBBObjectStore {
    let configuration: DBBPostgresConfiguration
    let writer: Connection
    let readers: [Connection]
    private let nextReader = Atomic<Int>(0)
    /// Set by ``close()``: later work is refused instead of connecting again.
    private let isClosed = Atomic<Bool>(false)
    /// Reports the commits of every client to observations, once one started.
    private let listener: Listener
    /// The tables whose commits this store made sure are reported (they have their trigger).
    private let reported = Mutex<Set<String>>([])
    /// Advanced by each migration step, after which the connections prepare their statements again.
    let schema = DBBPostgresSchemaVersion()
    /// The WAL position, in bytes, after this manager's last commit, while readers read on hot standbys: a read
    /// there waits until the standby has replayed it. `Int.max` when the position of a commit could not be read,
    /// which sends reads to the primary until the next commit.
    let lastCommit = Atomic<Int>(0)

    var dialect: DBBSQLDialect { .postgres }
    var location: String { configuration.description }
    var namespace: String { configuration.description }
    var systemName: String { "postgresql" }
    var ownSQLAdvice: String { "open a connection of your own, DBBPostgresConnection.connect(configuration)" }
    var hasReaders: Bool { !readers.isEmpty }

    /// Connects the writer and `readers` reader connections.
    ///
    /// - Throws: `DBBError` when a connection cannot be made; none stays open then.
    ///
    /// In a cluster (a configuration of several hosts) the writer connects to the primary, and each reader to a
    /// hot standby when there is one, trying first the hosts the fewest readers are on, so that readers spread
    /// across the standbys.
    init(configuration: DBBPostgresConfiguration, readers: Int) throws {
        self.configuration = configuration
        listener = Listener(configuration: configuration)
        let cluster = configuration.isCluster
        writer = try Connection.open(
            configuration, name: "writer", schema: schema,
            target: cluster ? .readWrite : configuration.targetSessionAttributes)
        var opened: [Connection] = []
        do {
            var readersOn: [DBBPostgresConfiguration.Host: Int] = [:]
            for index in 0..<readers {
                var spread = configuration
                spread.hosts = configuration.hosts.enumerated()
                    .sorted { (readersOn[$0.element] ?? 0, $0.offset) < (readersOn[$1.element] ?? 0, $1.offset) }
                    .map(\.element)
                let reader = try Connection.open(
                    spread, name: "reader\(index)", schema: schema,
                    target: cluster ? .preferStandby : configuration.targetSessionAttributes)
                readersOn[reader.objects.connection.server, default: 0] += 1
                opened.append(reader)
            }
            let found = try writer.waiting { [writer] in
                try Self.hasChecksAtCommit(on: writer.objects.connection, schema: configuration.schema)
            }
            writer.checksAtCommit.store(found, ordering: .relaxed)
        } catch {
            for connection in opened + [writer] { connection.closeWaiting() }
            throw error
        }
        self.readers = opened
        // A writer that found a new primary: notifications are sent there, and the listener's connection to the
        // old one may linger (a killed server's backends end late), so it listens again, and tells observers.
        if cluster { writer.onNewServer = { [listener] in listener.listenAgain() } }
    }

    /// Whether a table of the schema (the configuration's, or the session's) has a constraint or a trigger checked
    /// at commit, or is referenced by a foreign key that is.
    static let checksAtCommitSQL = """
        SELECT (EXISTS (SELECT 1 FROM pg_constraint k JOIN pg_class c ON c.oid IN (k.conrelid, k.confrelid)
            JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE k.condeferred AND n.nspname = COALESCE($1::text, current_schema()))
        OR EXISTS (SELECT 1 FROM pg_trigger t JOIN pg_class c ON c.oid = t.tgrelid
            JOIN pg_namespace n ON n.oid = c.relnamespace
            WHERE t.tginitdeferred AND n.nspname = COALESCE($1::text, current_schema())))::int
        """

    /// Whether a table of `schema` (or of the session's schema) has a check at commit, by ``checksAtCommitSQL``.
    ///
    /// - Throws: `DBBError` when the server refuses the query.
    static func hasChecksAtCommit(on connection: DBBPostgresConnection, schema: String?) throws -> Bool {
        try connection.fetchAll(checksAtCommitSQL, [schema.map(DBBValue.text) ?? .null]) == [[.integer(1)]]
    }

    /// The next reader, or the writer for a store without readers.
    func nextReaderConnection() -> Connection {
        readers.isEmpty ? writer : readers[nextReader.add(1, ordering: .relaxed).oldValue % readers.count]
    }

    /// The connection whose queue the caller is on, when it is one of this store's.
    private var currentPostgresConnection: Connection? {
        guard let marker = Connection.current else { return nil }
        if writer.marker == marker { return writer }
        return readers.first { $0.marker == marker }
    }

    var currentConnection: (any DBBStoreConnection)? { currentPostgresConnection }

    /// The connection of the `write` or `read` closure the caller is in, if it is in one.
    var scopedConnection: DBBPostgresConnection? {
        guard let connection = currentPostgresConnection, connection.scope != nil else { return nil }
        return connection.objects.connection
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
        if currentPostgresConnection != nil {
            throw DBBError.misuse(
                "an object call ran on a PostgreSQL manager's own queue (in an initializer or a property observer "
                    + "that a fetch runs), which would wait for itself",
                recovery: "make the call after the fetch returns", context: context)
        }
        if blocking, Connection.isOnEventLoop {
            throw DBBError.misuse(
                "a synchronous object call on a SwiftNIO event-loop thread would block the loop PostgreSQL answers on",
                recovery: "use the async form (try await)", context: context)
        }
    }

    // MARK: Work

    func perform<Work: DBBObjectWork>(_ work: Work, isWrite: Bool, report: DBBOperationReport?) throws -> Work.Result {
        try requireUsable(blocking: true)
        let connection = isWrite ? writer : try readConnection()
        return try connection.waiting {
            report?.started()
            let result = try Self.run(work, on: connection, isWrite: isWrite)
            if isWrite { self.noteCommit(on: connection) }
            return DBBResultTransfer(result)
        }.take()
    }

    func perform<Work: DBBObjectWork>(_ work: Work, isWrite: Bool, report: DBBOperationReport?) async throws
        -> sending Work.Result
    {
        try requireUsable(blocking: false)
        let connection = isWrite ? writer : try await readConnection()
        return try await connection.suspending {
            report?.started()
            let result = try Self.run(work, on: connection, isWrite: isWrite)
            if isWrite { self.noteCommit(on: connection) }
            return result
        }
    }

    func withConnection<T>(isWrite: Bool, _ body: (any DBBStoreConnection) throws -> T) throws -> T {
        try requireUsable(blocking: true)
        let connection = isWrite ? writer : try readConnection()
        return try connection.waiting(lending: { lent in
            let result = try body(lent)
            if isWrite { self.noteCommit(on: connection) }
            return result
        })
    }

    func withConnection<T>(isWrite: Bool, _ body: @escaping @Sendable (any DBBStoreConnection) throws -> sending T)
        async throws -> sending T
    {
        try requireUsable(blocking: false)
        let connection = isWrite ? writer : try await readConnection()
        return try await connection.suspending {
            let result = try body(connection)
            if isWrite { self.noteCommit(on: connection) }
            return result
        }
    }

    // MARK: Observation

    /// Listens for the tables' notifications first: a report that arrives before the snapshot begins is of a
    /// commit the snapshot holds.
    func performObserved<Work: DBBObjectWork>(
        _ work: Work, tables: Set<String>, onChange: @escaping @Sendable (Set<String>?) -> Void,
        snapshotBegins: @escaping @Sendable () -> Void
    ) async throws -> sending Work.Result {
        try requireUsable(blocking: false)
        // The tables' triggers commit before the snapshot begins: no later commit goes unreported.
        let unreported = reported.withLock { tables.subtracting($0) }
        if !unreported.isEmpty {
            try await perform(DBBReportChangesWork(tables: unreported.sorted()), isWrite: true, report: nil)
            reported.withLock { $0.formUnion(unreported) }
        }
        try await listener.start(onChange)
        snapshotBegins()
        return try await perform(work, isWrite: false, report: nil)
    }

    // MARK: Instrumentation and closing

    /// The statements' logs are postgres-nio's own; the manager reports operations and transactions itself.
    func setInstrumentation(_ instrumentation: DBBInstrumentation) throws {}

    func close() throws {
        try requireUsable(blocking: true, closing: true)
        // Closing twice closes once.
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        if let listening = listener.stop() { try? writer.waiting { try listening.close() } }
        var firstError: (any Error)?
        for connection in [writer] + readers {
            do {
                try connection.waiting { try connection.objects.connection.close() }
            } catch {
                firstError = firstError ?? error
            }
        }
        if let firstError { throw firstError }
    }
}

/// Puts the change trigger on the tables an observation reads that have none, in one transaction that holds the
/// registration lock, so that two clients starting observations at once do not both create one.
struct DBBReportChangesWork: DBBObjectWork {
    static var operationName: String { "schema" }
    let tables: [String]

    func run<Connection: DBBObjectConnection>(on db: Connection) throws {
        try db.lockSchemaForRegistration()
        try db.reportChanges(of: tables)
    }
}
