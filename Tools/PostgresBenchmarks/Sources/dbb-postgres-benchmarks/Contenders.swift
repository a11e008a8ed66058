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

/// postgres-nio written by hand: one `PostgresConnection`, queries with bound values by string interpolation,
/// rows decoded by position into plain final classes, and an INSERT … RETURNING per row. The batched variant
/// (W1 only) sends multi-row INSERTs of ``batchSize`` rows instead.
final class HandWrittenContender: Contender {
    let name: String
    private let batched: Bool
    private let logger = Logger(label: "dbb-postgres-benchmarks.hand-written")
    private var connection: PostgresConnection?
    private var prepared: [PlainPerson] = []
    private var people: [PlainPerson] = []
    private var projects: [PlainProject] = []
    private var results: [[PlainPerson]] = []

    /// Rows per INSERT of the batched variant: 7,000 parameters a statement, well below PostgreSQL's 65,535.
    static let batchSize = 1_000

    init(batched: Bool) {
        self.batched = batched
        name = batched ? "hand-written 1000-row INSERTs" : "hand-written"
    }

    func takesPart(in id: String) -> Bool { !batched || id == "W1" }

    private func db() throws -> PostgresConnection {
        guard let connection else { throw BenchmarkError("not open") }
        return connection
    }

    func open(_ address: ServerAddress, database: String) async throws {
        connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: address.postgresNIO(database), id: 1,
            logger: logger)
    }

    func close() async throws {
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

    private func insert(_ person: PlainPerson, now: Date, on connection: PostgresConnection) async throws {
        let stamp = now.timeIntervalSinceReferenceDate
        let active: Int64 = person.active ? 1 : 0
        let rows = try await connection.query(
            """
            INSERT INTO "Person" ("createdTime", "modifiedTime", active, budget, code, name, "startDate")
            VALUES (\(stamp), \(stamp), \(active), \(person.budget), \(person.code), \(person.name), \
            \(person.startDate?.timeIntervalSinceReferenceDate)) RETURNING id
            """, logger: logger)
        for try await id in rows.decode(Int64.self) { person.id = id }
        person.createdTime = now
        person.modifiedTime = now
    }

    /// One INSERT of many rows, `$1`…`$n` numbered by hand; the ids come back in the order of the rows.
    private func insert(_ people: ArraySlice<PlainPerson>, now: Date, on connection: PostgresConnection)
        async throws
    {
        let stamp = now.timeIntervalSinceReferenceDate
        var sql =
            #"INSERT INTO "Person" ("createdTime", "modifiedTime", active, budget, code, name, "startDate") VALUES "#
        var binds = PostgresBindings(capacity: people.count * 7)
        for (offset, person) in people.enumerated() {
            let first = offset * 7
            sql += offset == 0 ? "(" : ", ("
            sql += (1...7).map { "$\(first + $0)" }.joined(separator: ", ") + ")"
            binds.append(stamp)
            binds.append(stamp)
            binds.append(Int64(person.active ? 1 : 0))
            binds.append(person.budget)
            binds.append(person.code)
            binds.append(person.name)
            binds.append(person.startDate?.timeIntervalSinceReferenceDate)
        }
        let rows = try await connection.query(
            PostgresQuery(unsafeSQL: sql + " RETURNING id", binds: binds),
            logger: logger)
        var index = people.startIndex
        for try await id in rows.decode(Int64.self) {
            guard index < people.endIndex else { throw BenchmarkError("an INSERT returned more ids than rows") }
            people[index].id = id
            people[index].createdTime = now
            people[index].modifiedTime = now
            index += 1
        }
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
            let now = Date()
            if batched {
                for start in stride(from: 0, to: prepared.count, by: Self.batchSize) {
                    let end = min(start + Self.batchSize, prepared.count)
                    try await insert(prepared[start..<end], now: now, on: connection)
                }
            } else {
                for person in prepared { try await insert(person, now: now, on: connection) }
            }
        }
    }

    func saveEach() async throws {
        let connection = try db()
        for person in prepared {
            try await inTransaction(connection) { try await insert(person, now: Date(), on: connection) }
        }
    }

    var savedIDs: [Int64] { prepared.map(\.id) }

    private static let personColumns = #"id, "createdTime", "modifiedTime", active, budget, code, name, "startDate""#
    private typealias PersonRow = (Int64, Double?, Double?, Int64, Double, String, String, Double?)

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
            let rows = try await db.query(
                """
                SELECT \(unescaped: Self.personColumns) FROM "Person" WHERE code = \(code) AND budget > \(budget)
                ORDER BY name LIMIT 1000
                """, logger: logger)
            var people: [PlainPerson] = []
            for try await row in rows.decode(PersonRow.self) { people.append(Self.person(row)) }
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
        try synchronously {
            for person in prepared { try person.save() }
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
