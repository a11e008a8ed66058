import DBBBuilder
import DBBPostgres
import FluentKit
import FluentPostgresDriver
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO

/// One way of doing the five workloads of the comparison: postgres-nio code written by hand, Fluent, or the
/// library's macro classes. Each keeps what its last timed call built, for checking after the timing.
protocol Contender: AnyObject {
    var name: String { get }
    /// Whether the contender takes part in the workload `id` (a variant of the baseline may do one only).
    func takesPart(in id: String) -> Bool
    /// Connects to `database`, which already has the library's layout.
    func open(_ address: ServerAddress, database: String) async throws
    func close() async throws
    /// Builds the objects that ``insertAll()`` or ``saveEach()`` will save (not timed).
    func prepare(_ seeds: [PersonSeed])
    /// W1: saves the prepared people in one transaction.
    func insertAll() async throws
    /// W5: saves the prepared people one by one, each in a transaction of its own.
    func saveEach() async throws
    /// The ids the prepared people got.
    var savedIDs: [Int64] { get }
    /// W2: fetches every person.
    func fetchPeople() async throws
    var peopleDigest: Int { get }
    /// W3: fetches every project with its tags, meetings and lead.
    func fetchProjects() async throws
    var projectsDigest: Int { get }
    /// W4: runs `code = ? AND budget > ?`, sorted by name, limit 1,000, once per pair.
    func query(_ parameters: [(code: String, budget: Double)]) async throws
    var queryDigest: Int { get }
}

extension Contender {
    func takesPart(in id: String) -> Bool { true }
}

// MARK: The baseline

/// postgres-nio written by an expert: one `PostgresConnection`, `PostgresPreparedStatement`s for every statement
/// that runs more than once (parsed and planned once per connection), rows decoded by position from the binary
/// format into plain final classes.
///
/// - W1 (`batch`): in one transaction, `INSERT … RETURNING id` of ``batchSize`` rows at a time, prepared; or, for
///   the `copy` variant, the ids taken from the table's sequence in one query and the rows sent with `COPY`.
/// - W5: one autocommit `INSERT … RETURNING id` per object, prepared: one round trip per save.
/// - W4: the query prepared once, run with each pair of values.
/// - W2, W3: each statement runs once per run: sent unnamed.
///
/// The `synchronous` variant takes part in W5 only: the same prepared `INSERT … RETURNING id`, through
/// postgres-nio's synchronous `PreparedQuery` (the one the library uses), from a thread of its own, waiting on
/// each future. It shows what a synchronous caller of postgres-nio costs without the library's layers.
final class HandWrittenContender: Contender {
    enum Variant { case prepared, copy, synchronous }

    let name: String
    private let variant: Variant
    private let logger = Logger(label: "dbb-postgres-benchmarks.hand-written")
    private var connection: PostgresConnection?
    /// The synchronous variant's `INSERT`, prepared when the connection opens.
    private var preparedInsert: PreparedQuery?
    private var prepared: [PlainPerson] = []
    private var people: [PlainPerson] = []
    private var projects: [PlainProject] = []
    private var results: [[PlainPerson]] = []

    /// Rows per INSERT of W1: 7,000 parameters a statement, well below PostgreSQL's 65,535.
    static let batchSize = 1_000

    init(_ variant: Variant) {
        self.variant = variant
        name =
            switch variant {
            case .prepared: "hand-written"
            case .copy: "hand-written COPY"
            case .synchronous: "hand-written sync"
            }
    }

    func takesPart(in id: String) -> Bool {
        switch variant {
        case .prepared: true
        case .copy: id == "W1"
        case .synchronous: id == "W5"
        }
    }

    private func db() throws -> PostgresConnection {
        guard let connection else { throw BenchmarkError("not open") }
        return connection
    }

    func open(_ address: ServerAddress, database: String) async throws {
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: address.postgresNIO(database), id: 1,
            logger: logger)
        self.connection = connection
        if variant == .synchronous {
            preparedInsert = try await connection.prepare(query: InsertPerson.sql).get()
        }
    }

    func close() async throws {
        try await preparedInsert?.deallocate().get()
        preparedInsert = nil
        try await connection?.close()
        connection = nil
    }

    func prepare(_ seeds: [PersonSeed]) {
        prepared = seeds.map { seed in
            let person = PlainPerson()
            person.fill(from: seed)
            return person
        }
    }

    /// The values of a new person's row, which a statement sent to the connection's event loop carries.
    struct PersonValues: Sendable {
        let active: Int64
        let budget: Double
        let code: String
        let name: String
        let startDate: Double?

        init(_ person: PlainPerson) {
            active = person.active ? 1 : 0
            budget = person.budget
            code = person.code
            name = person.name
            startDate = person.startDate?.timeIntervalSinceReferenceDate
        }

        /// The seven columns of the row, in the order of ``InsertPerson/columns``.
        func bind(stamp: Double, into binds: inout PostgresBindings) {
            binds.append(stamp)
            binds.append(stamp)
            binds.append(active)
            binds.append(budget)
            binds.append(code)
            binds.append(name)
            binds.append(startDate)
        }
    }

    /// `INSERT … RETURNING id` of one person, prepared.
    struct InsertPerson: PostgresPreparedStatement {
        static let columns = #""createdTime", "modifiedTime", active, budget, code, name, "startDate""#
        static let sql = #"INSERT INTO "Person" ("# + columns + ") VALUES ($1, $2, $3, $4, $5, $6, $7) RETURNING id"
        typealias Row = Int64
        let person: PersonValues
        let stamp: Double

        func makeBindings() throws -> PostgresBindings {
            var binds = PostgresBindings(capacity: 7)
            person.bind(stamp: stamp, into: &binds)
            return binds
        }

        func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
    }

    /// `INSERT … RETURNING id` of ``HandWrittenContender/batchSize`` people, prepared.
    struct InsertPeople: PostgresPreparedStatement {
        static let sql = HandWrittenContender.multiRowInsert(rows: HandWrittenContender.batchSize)
        typealias Row = Int64
        let people: [PersonValues]
        let stamp: Double

        func makeBindings() throws -> PostgresBindings {
            var binds = PostgresBindings(capacity: people.count * 7)
            for person in people { person.bind(stamp: stamp, into: &binds) }
            return binds
        }

        func decodeRow(_ row: PostgresRow) throws -> Int64 { try row.decode(Int64.self) }
    }

    /// W4's query, prepared.
    struct PeopleByCode: PostgresPreparedStatement {
        static let sql = """
            SELECT \(HandWrittenContender.personColumns) FROM "Person" WHERE code = $1 AND budget > $2
            ORDER BY name LIMIT 1000
            """
        typealias Row = PersonRow
        let code: String
        let budget: Double

        func makeBindings() throws -> PostgresBindings {
            var binds = PostgresBindings(capacity: 2)
            binds.append(code)
            binds.append(budget)
            return binds
        }

        func decodeRow(_ row: PostgresRow) throws -> PersonRow { try row.decode(PersonRow.self) }
    }

    /// An INSERT of `rows` people, `$1`…`$n` numbered, returning their ids.
    static func multiRowInsert(rows: Int) -> String {
        var sql = #"INSERT INTO "Person" ("# + InsertPerson.columns + ") VALUES "
        for row in 0..<rows {
            let first = row * 7
            sql += row == 0 ? "(" : ", ("
            sql += (1...7).map { "$\(first + $0)" }.joined(separator: ", ") + ")"
        }
        return sql + " RETURNING id"
    }

    /// Inserts people in statements of ``batchSize`` rows (the prepared one; a shorter last one unnamed). A
    /// multi-row `INSERT` returns its ids in the order of its rows in practice, which PostgreSQL does not
    /// promise: the check after the run would see a difference.
    private func insertBatches(now: Date, on connection: PostgresConnection) async throws {
        let stamp = now.timeIntervalSinceReferenceDate
        for start in stride(from: 0, to: prepared.count, by: Self.batchSize) {
            let people = prepared[start..<min(start + Self.batchSize, prepared.count)]
            var ids: [Int64] = []
            ids.reserveCapacity(people.count)
            if people.count == Self.batchSize {
                for try await id in try await connection.execute(
                    InsertPeople(people: people.map(PersonValues.init), stamp: stamp), logger: logger)
                {
                    ids.append(id)
                }
            } else {
                var binds = PostgresBindings(capacity: people.count * 7)
                for person in people { PersonValues(person).bind(stamp: stamp, into: &binds) }
                let rows = try await connection.query(
                    PostgresQuery(unsafeSQL: Self.multiRowInsert(rows: people.count), binds: binds), logger: logger)
                for try await id in rows.decode(Int64.self) { ids.append(id) }
            }
            guard ids.count == people.count else { throw BenchmarkError("an INSERT returned \(ids.count) ids") }
            for (person, id) in zip(people, ids) {
                person.id = id
                person.createdTime = now
                person.modifiedTime = now
            }
        }
    }

    /// Takes the people's ids from the table's sequence in one query, then sends every row with `COPY` (text
    /// format: Swift's shortest round-trip `description` of a double reads back bit-exact).
    private func copy(now: Date, on connection: PostgresConnection) async throws {
        let stamp = now.timeIntervalSinceReferenceDate
        var ids: [Int64] = []
        ids.reserveCapacity(prepared.count)
        let rows = try await connection.query(
            """
            SELECT nextval(pg_get_serial_sequence('"Person"', 'id')) FROM generate_series(1, \(prepared.count))
            """, logger: logger)
        for try await id in rows.decode(Int64.self) { ids.append(id) }
        guard ids.count == prepared.count else { throw BenchmarkError("the sequence gave \(ids.count) ids") }
        let people = prepared
        try await connection.copyFrom(
            // postgres-nio quotes the names itself.
            table: "Person",
            columns: ["id", "createdTime", "modifiedTime", "active", "budget", "code", "name", "startDate"],
            logger: logger
        ) { writer in
            var buffer = ByteBuffer()
            for (person, id) in zip(people, ids) {
                let start = person.startDate.map { "\($0.timeIntervalSinceReferenceDate)" } ?? "\\N"
                buffer.writeString(
                    "\(id)\t\(stamp)\t\(stamp)\t\(person.active ? 1 : 0)\t\(person.budget)\t"
                        + "\(Self.copyText(person.code))\t\(Self.copyText(person.name))\t\(start)\n")
                if buffer.readableBytes >= 1 << 16 {
                    try await writer.write(buffer)
                    buffer.clear()
                }
            }
            if buffer.readableBytes > 0 { try await writer.write(buffer) }
        }
        for (person, id) in zip(people, ids) {
            person.id = id
            person.createdTime = now
            person.modifiedTime = now
        }
    }

    /// Text as `COPY`'s text format writes it: backslash, tab, newline and carriage return escaped.
    private static func copyText(_ text: String) -> String {
        guard text.contains(where: { "\\\t\n\r".contains($0) }) else { return text }
        return text.replacingOccurrences(of: "\\", with: "\\\\").replacingOccurrences(of: "\t", with: "\\t")
            .replacingOccurrences(of: "\n", with: "\\n").replacingOccurrences(of: "\r", with: "\\r")
    }

    /// Runs `body` between `BEGIN` and `COMMIT`, or `ROLLBACK` when it throws. (postgres-nio's own
    /// `withTransaction` runs its closure in the caller's actor isolation, into which these non-`Sendable` objects
    /// could not be sent.)
    private func inTransaction(_ connection: PostgresConnection, _ body: () async throws -> Void) async throws {
        try await connection.query("BEGIN", logger: logger)
        do {
            try await body()
            try await connection.query("COMMIT", logger: logger)
        } catch {
            _ = try? await connection.query("ROLLBACK", logger: logger)
            throw error
        }
    }

    func insertAll() async throws {
        let connection = try db()
        try await inTransaction(connection) {
            switch variant {
            case .prepared, .synchronous: try await insertBatches(now: Date(), on: connection)
            case .copy: try await copy(now: Date(), on: connection)
            }
        }
    }

    /// Each save is one autocommit statement: its own transaction, one round trip.
    func saveEach() async throws {
        let connection = try db()
        if variant == .synchronous {
            guard let insert = preparedInsert else { throw BenchmarkError("not open") }
            let people = prepared
            try await onThread { try Self.saveEachWaiting(people, with: insert) }
            return
        }
        for person in prepared {
            let now = Date()
            for try await id in try await connection.execute(
                InsertPerson(person: PersonValues(person), stamp: now.timeIntervalSinceReferenceDate), logger: logger)
            {
                person.id = id
            }
            person.createdTime = now
            person.modifiedTime = now
        }
    }

    /// W5 through postgres-nio's synchronous API: the statement prepared when the connection opened, run for each
    /// person, waiting for its row on the calling thread.
    private static func saveEachWaiting(_ people: [PlainPerson], with insert: PreparedQuery) throws {
        for person in people {
            let now = Date()
            let stamp = now.timeIntervalSinceReferenceDate
            let values = PersonValues(person)
            let binds: [PostgresData] = [
                PostgresData(double: stamp), PostgresData(double: stamp), PostgresData(int64: values.active),
                PostgresData(double: values.budget), PostgresData(string: values.code),
                PostgresData(string: values.name), values.startDate.map { PostgresData(double: $0) } ?? .null,
            ]
            guard let id = try insert.execute(binds).wait().first?.makeRandomAccess()[data: 0].int64 else {
                throw BenchmarkError("an INSERT returned no id")
            }
            person.id = id
            person.createdTime = now
            person.modifiedTime = now
        }
    }

    var savedIDs: [Int64] { prepared.map(\.id) }

    static let personColumns = #"id, "createdTime", "modifiedTime", active, budget, code, name, "startDate""#
    typealias PersonRow = (Int64, Double?, Double?, Int64, Double, String, String, Double?)

    /// A person from the columns of ``personColumns``.
    private static func person(_ row: PersonRow) -> PlainPerson {
        let person = PlainPerson()
        person.id = row.0
        person.createdTime = row.1.map(Date.init(timeIntervalSinceReferenceDate:))
        person.modifiedTime = row.2.map(Date.init(timeIntervalSinceReferenceDate:))
        person.active = row.3 != 0
        person.budget = row.4
        person.code = row.5
        person.name = row.6
        person.startDate = row.7.map(Date.init(timeIntervalSinceReferenceDate:))
        return person
    }

    func fetchPeople() async throws {
        var people: [PlainPerson] = []
        let rows = try await db().query(
            PostgresQuery(unsafeSQL: "SELECT \(Self.personColumns) FROM \"Person\" ORDER BY id"), logger: logger)
        for try await row in rows.decode(PersonRow.self) { people.append(Self.person(row)) }
        self.people = people
    }

    var peopleDigest: Int { digest(people) }

    func fetchProjects() async throws {
        let db = try db()
        var projects: [PlainProject] = []
        var byID: [Int64: PlainProject] = [:]
        let projectRows = try await db.query(
            #"SELECT id, "createdTime", "modifiedTime", budget, name FROM "Project" ORDER BY id"#, logger: logger)
        for try await row in projectRows.decode((Int64, Double?, Double?, Double, String).self) {
            let project = PlainProject()
            project.id = row.0
            project.createdTime = row.1.map(Date.init(timeIntervalSinceReferenceDate:))
            project.modifiedTime = row.2.map(Date.init(timeIntervalSinceReferenceDate:))
            project.budget = row.3
            project.name = row.4
            projects.append(project)
            byID[project.id] = project
        }
        let tags = try await db.query(
            #"SELECT "Project_ID", tags FROM "Project_tags" ORDER BY "Project_ID", id"#, logger: logger)
        for try await (projectID, tag) in tags.decode((Int64, String).self) { byID[projectID]?.tags.append(tag) }
        var meetings: [Int64: PlainMeeting] = [:]
        let meetingRows = try await db.query(
            """
            SELECT id, "createdTime", "modifiedTime", minutes, purpose, "startTime" FROM "Meeting"
            WHERE id IN (SELECT meetings FROM "Project_meetings")
            """, logger: logger)
        for try await row in meetingRows.decode((Int64, Double?, Double?, Int, String, Double).self) {
            let meeting = PlainMeeting()
            meeting.id = row.0
            meeting.createdTime = row.1.map(Date.init(timeIntervalSinceReferenceDate:))
            meeting.modifiedTime = row.2.map(Date.init(timeIntervalSinceReferenceDate:))
            meeting.minutes = row.3
            meeting.purpose = row.4
            meeting.startTime = Date(timeIntervalSinceReferenceDate: row.5)
            meetings[meeting.id] = meeting
        }
        let meetingLinks = try await db.query(
            #"SELECT "Project_ID", meetings FROM "Project_meetings" ORDER BY "Project_ID", id"#, logger: logger)
        for try await (projectID, meetingID) in meetingLinks.decode((Int64, Int64).self) {
            if let meeting = meetings[meetingID] { byID[projectID]?.meetings.append(meeting) }
        }
        var leads: [Int64: PlainPerson] = [:]
        let leadRows = try await db.query(
            PostgresQuery(
                unsafeSQL:
                    "SELECT \(Self.personColumns) FROM \"Person\" WHERE id IN (SELECT lead FROM \"Project_lead\")"
            ), logger: logger)
        for try await row in leadRows.decode(PersonRow.self) {
            let person = Self.person(row)
            leads[person.id] = person
        }
        let leadLinks = try await db.query(
            #"SELECT "Project_ID", lead FROM "Project_lead" ORDER BY "Project_ID", id"#, logger: logger)
        for try await (projectID, leadID) in leadLinks.decode((Int64, Int64).self) {
            byID[projectID]?.lead = leads[leadID]
        }
        self.projects = projects
    }

    var projectsDigest: Int { digest(projects) }

    func query(_ parameters: [(code: String, budget: Double)]) async throws {
        let db = try db()
        var results: [[PlainPerson]] = []
        for (code, budget) in parameters {
            var people: [PlainPerson] = []
            for try await row in try await db.execute(PeopleByCode(code: code, budget: budget), logger: logger) {
                people.append(Self.person(row))
            }
            results.append(people)
        }
        self.results = results
    }

    var queryDigest: Int { digest(results.flatMap { $0 }) }
}

// MARK: Fluent

/// Fluent 4 (FluentKit with the PostgreSQL driver, without Vapor), its models on the library's tables, one
/// pooled connection, as an application would write it: `create(on:)` per model in a transaction, queries
/// with `filter`/`sort`/`limit`, relations eager-loaded with `with`.
final class FluentContender: Contender {
    let name = "Fluent 4"
    private let logger = Logger(label: "dbb-postgres-benchmarks.fluent")
    private var databases: Databases?
    private var database: (any Database)?
    private var prepared: [FluentPerson] = []
    private var people: [FluentPerson] = []
    private var projects: [FluentProject] = []
    private var results: [[FluentPerson]] = []

    private func db() throws -> any Database {
        guard let database else { throw BenchmarkError("not open") }
        return database
    }

    func open(_ address: ServerAddress, database name: String) async throws {
        let databases = Databases(threadPool: .singleton, on: MultiThreadedEventLoopGroup.singleton)
        databases.use(.postgres(configuration: address.fluent(name), maxConnectionsPerEventLoop: 1), as: .psql)
        self.databases = databases
        guard let database = databases.database(logger: logger, on: MultiThreadedEventLoopGroup.singleton.any())
        else { throw BenchmarkError("Fluent has no database") }
        self.database = database
        // The pool connects on first use: connect before the timing starts.
        _ = try await FluentPerson.query(on: database).count()
    }

    func close() async throws {
        await databases?.shutdownAsync()
        databases = nil
        database = nil
    }

    func prepare(_ seeds: [PersonSeed]) {
        prepared = seeds.map { seed in
            let person = FluentPerson()
            person.fill(from: seed)
            return person
        }
    }

    func insertAll() async throws {
        // One create per model, as the ids are needed: Fluent's batch `create` on a collection sets no ids.
        let people = prepared
        try await db().transaction { database in
            for person in people { try await person.create(on: database) }
        }
    }

    func saveEach() async throws {
        let database = try db()
        for person in prepared {
            try await database.transaction { database in try await person.create(on: database) }
        }
    }

    var savedIDs: [Int64] { prepared.map(\.rowID) }

    func fetchPeople() async throws { people = try await FluentPerson.query(on: db()).sort(\.$id).all() }
    var peopleDigest: Int { digest(people) }

    func fetchProjects() async throws {
        let projects = try await FluentProject.query(on: db())
            .with(\.$tagRows).with(\.$meetingRows).with(\.$leadRows)
            .sort(\.$id).all()
        // Eager loading leaves the order of related rows to the server and builds one object per join row: sort
        // by the join rows' ids, and keep one lead object per person, as the other contenders do.
        var leads: [Int64: FluentPerson] = [:]
        for project in projects {
            project.tags = project.tagRows.sorted { ($0.id ?? 0) < ($1.id ?? 0) }.map(\.tag)
            let meetings = try project.meetingRows.map { meeting in
                (link: try meeting.joined(FluentProjectMeeting.self).id ?? 0, meeting: meeting)
            }
            project.meetings = meetings.sorted { $0.link < $1.link }.map(\.meeting)
            if let lead = project.leadRows.first {
                let shared = leads[lead.rowID, default: lead]
                leads[lead.rowID] = shared
                project.lead = shared
            }
        }
        self.projects = projects
    }

    var projectsDigest: Int { digest(projects) }

    func query(_ parameters: [(code: String, budget: Double)]) async throws {
        let database = try db()
        var results: [[FluentPerson]] = []
        for (code, budget) in parameters {
            results.append(
                try await FluentPerson.query(on: database)
                    .filter(\.$code == code).filter(\.$budget > budget)
                    .sort(\.$name).limit(1000).all())
        }
        self.results = results
    }

    var queryDigest: Int { digest(results.flatMap { $0 }) }
}

// MARK: The library

/// The library's `@DBBTable` classes on a server manager, with the calls of the SQLite benchmark: the
/// synchronous ones, which the manager runs on its connections' queues while the calling task waits.
final class LibraryContender: Contender {
    let name = "DBBBuilder"
    private var manager: DBBManager?
    private var prepared: [MacroPerson] = []
    private var people: [MacroPerson] = []
    private var projects: [MacroProject] = []
    private var results: [[MacroPerson]] = []

    private func db() throws -> DBBManager {
        guard let manager else { throw BenchmarkError("not open") }
        return manager
    }

    func open(_ address: ServerAddress, database: String) async throws {
        manager = try synchronously {
            let manager = try DBBManager(postgres: address.library(database), readers: 1)
            try manager.addTableClasses([MacroPerson.self, MacroMeeting.self, MacroProject.self])
            return manager
        }
    }

    func close() async throws {
        try synchronously { try manager?.close() }
        manager = nil
    }

    func prepare(_ seeds: [PersonSeed]) {
        guard let manager else { return }
        prepared = seeds.map { seed in
            let person = MacroPerson(dbManager: manager)
            person.fill(from: seed)
            return person
        }
    }

    func insertAll() async throws {
        let manager = try db()
        guard synchronously({ MacroPerson.saveObjects(prepared, dbManager: manager) }) else {
            throw BenchmarkError(manager.errorMessage())
        }
    }

    func saveEach() async throws {
        // The synchronous save as a program outside Swift concurrency calls it: on a thread of its own.
        try await onThread {
            for person in self.prepared { try person.save() }
        }
    }

    var savedIDs: [Int64] { prepared.map(\.idNum) }

    func fetchPeople() async throws {
        let manager = try db()
        people = synchronously { MacroPerson.allInstances(manager: manager) }
    }

    var peopleDigest: Int { digest(people) }

    func fetchProjects() async throws {
        let manager = try db()
        projects = synchronously { MacroProject.allInstances(manager: manager) }
    }

    var projectsDigest: Int { digest(projects) }

    func query(_ parameters: [(code: String, budget: Double)]) async throws {
        let manager = try db()
        results = try synchronously {
            try parameters.map { code, budget in
                var options = DBBQueryOptions()
                options.addCondition("code = ?", code)
                options.addCondition("budget > ?", budget)
                options.sorting = ["name"]
                options.limit = 1000
                return try MacroPerson.fetch(options: options, manager: manager)
            }
        }
    }

    var queryDigest: Int { digest(results.flatMap { $0 }) }
}

/// Runs `body`, a closure that is not `async`: there Swift picks the library's synchronous calls, where an
/// `async` function would pick their `async` overloads.
func synchronously<Result>(_ body: () throws -> Result) rethrows -> Result { try body() }

/// Runs `body` on a thread of its own, not one of Swift concurrency's, and suspends the task until it is done.
func onThread(_ body: @escaping () throws -> Void) async throws {
    let work = ThreadWork(body)
    try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
        Thread { continuation.resume(with: Result { try work.run() }) }.start()
    }
}

/// A closure run once on another thread while its caller is suspended waiting for it: one thread at a time uses
/// the closure and what it captured.
private final class ThreadWork: @unchecked Sendable {
    private let body: () throws -> Void

    init(_ body: @escaping () throws -> Void) { self.body = body }

    func run() throws { try body() }
}
