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
    /// they use, as they do on SQLite, and the `async` forms suspend until it is done; `write`/`read` closures
    /// and observation are not available on a server manager yet, and say so.
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
}

/// PostgreSQL's engine for a manager: a writer connection and reader connections, each used on a serial queue
/// of its own.
final class DBBPostgresObjectStore: DBBServerStore {
    /// A connection and the serial queue it is used on.
    struct Lane: Sendable {
        let queue: DispatchQueue
        let connection: DBBPostgresObjectConnection
    }

    let configuration: DBBPostgresConfiguration
    let writer: Lane
    let readers: [Lane]
    private let nextReader = Atomic<Int>(0)
    /// Set by ``close()``: later work is refused instead of connecting again.
    private let isClosed = Atomic<Bool>(false)
    /// Marks the lanes' queues, so that a call made from one of them (an object's initializer or a property
    /// observer the loader runs) is refused instead of waiting for its own queue.
    private static let laneKey = DispatchSpecificKey<ObjectIdentifier>()

    var dialect: DBBSQLDialect { .postgres }
    var location: String { configuration.description }

    init(configuration: DBBPostgresConfiguration, readers: Int) throws {
        self.configuration = configuration
        func lane(_ name: String) throws -> Lane {
            let queue = DispatchQueue(label: "DBBPostgres.\(name)")
            queue.setSpecific(key: Self.laneKey, value: ObjectIdentifier(Self.self))
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

    /// The connection for work: the writer for writes (and for reads without readers), else the next reader.
    private func lane(isWrite: Bool) -> Lane {
        isWrite || readers.isEmpty ? writer : readers[nextReader.add(1, ordering: .relaxed).oldValue % readers.count]
    }

    /// Runs work in one transaction on a lane's connection; call on the lane's queue. Reads run in a read-only
    /// `REPEATABLE READ` snapshot, so a fetch's statements see one state.
    ///
    /// A connection the server or the network ended is made anew before the work starts. When it ends during
    /// the work, the work runs once more on a new connection if that is safe: a read always is, and a write is
    /// when the connection ended before its `COMMIT` was sent (the server then rolled it back, and a save plan is
    /// plain data that runs again unchanged). A write whose `COMMIT` was sent may or may not have committed: it is
    /// reported, never run twice.
    private static func run<Work: DBBObjectWork>(_ work: Work, on lane: Lane, isWrite: Bool) throws -> Work.Result {
        let db = lane.connection
        if db.connection.isClosed { try db.reconnect() }
        var commitSent = false
        func attempt() throws -> Work.Result {
            try db.connection.begin(isolation: isWrite ? nil : .repeatableRead, readOnly: !isWrite)
            do {
                let result = try work.run(on: db)
                commitSent = true
                try db.connection.commit()
                return result
            } catch {
                // The transaction is over either way; a failure to roll back (a dropped connection) is the lesser
                // error.
                if !db.connection.isClosed { try? db.connection.rollback() }
                throw error
            }
        }
        do {
            return try attempt()
        } catch where db.connection.isClosed && (!isWrite || !commitSent) {
            try db.reconnect()
            commitSent = false
            return try attempt()
        }
    }

    /// Refuses work on a closed manager, from one of its own queues (which would wait for itself), and a
    /// synchronous call on a SwiftNIO event-loop thread (which could wait for itself through postgres-nio).
    ///
    /// - Parameters:
    ///   - blocking: whether the caller waits for the work on its thread.
    ///   - closing: whether the caller is closing the manager, which a closed manager allows.
    private func requireUsable(blocking: Bool, closing: Bool = false) throws {
        let context = "using the manager of \(configuration)"
        if !closing, isClosed.load(ordering: .acquiring) {
            throw DBBError.misuse(
                "the manager of \(configuration) is closed", recovery: "open a new manager", context: context)
        }
        if DispatchQueue.getSpecific(key: Self.laneKey) != nil {
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
        try requireUsable(blocking: true)
        let lane = lane(isWrite: isWrite)
        return try Self.onQueue(lane.queue) { DBBHandOver(try Self.run(work, on: lane, isWrite: isWrite)) }.take()
    }

    func performAsync<Work: DBBObjectWork>(_ work: Work, isWrite: Bool) async throws -> sending Work.Result {
        try requireUsable(blocking: false)
        let lane = lane(isWrite: isWrite)
        let result: DBBHandOver<Work.Result> = try await withCheckedThrowingContinuation { continuation in
            lane.queue.async {
                continuation.resume(with: Result { DBBHandOver(try Self.run(work, on: lane, isWrite: isWrite)) })
            }
        }
        return result.take()
    }

    func close() throws {
        try requireUsable(blocking: true, closing: true)
        // Closing twice closes once.
        guard !isClosed.exchange(true, ordering: .acquiringAndReleasing) else { return }
        var firstError: (any Error)?
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

    func executeUpdate(_ sql: String, arguments: [DBBValue]) throws -> Int {
        try connection.execute(numbering(sql), arguments)
    }

    func selectIDs(_ sql: String, arguments: [DBBValue]) throws -> [Int64] {
        try connection.fetchAll(numbering(sql), arguments).compactMap { $0.first?.int64Value }
    }

    func forEachObjectRow(_ sql: String, arguments: [DBBValue], _ body: ([DBBValue]) throws -> Void) throws {
        for row in try connection.fetchAll(numbering(sql), arguments) { try body(row) }
    }

    static func integer(in row: [DBBValue], at column: Int) throws -> Int64? { row[column].int64Value }

    static func value(in row: [DBBValue], at column: Int) -> DBBValue { row[column] }

    static func date(in row: [DBBValue], at column: Int) throws -> Date? {
        row[column].doubleValue.map(Date.init(timeIntervalSinceReferenceDate:))
    }

    static func scalarReader(_ readers: [(accessor: DBBScalarAccessor, column: Int32)]) -> ScalarReader {
        ScalarReader(readers: readers.map { ($0.accessor.setStored, Int($0.column)) })
    }

    /// Sets each scalar property from its stored value in the row.
    struct ScalarReader: DBBObjectScalarReader {
        let readers: [(set: @Sendable (AnyObject, DBBValue) throws -> Void, column: Int)]

        func read(_ object: AnyObject, _ row: [DBBValue]) throws {
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
