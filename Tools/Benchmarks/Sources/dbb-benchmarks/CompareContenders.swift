import CSQLite
import DBBBuilder
import Foundation
import GRDB

/// One way of doing the five workloads of the comparison: hand-written sqlite3 calls, GRDB, or the library
/// in one of its mapping forms. Each keeps what its last timed call built, for checking after the timing.
protocol Contender: AnyObject {
    var name: String { get }
    /// Opens the database at `url`, which already has the library's layout.
    func open(_ url: URL) throws
    func close() throws
    /// Builds the objects that ``insertAll()`` or ``saveEach()`` will save (not timed).
    func prepare(_ seeds: [PersonSeed])
    /// W1: saves the prepared people in one transaction.
    func insertAll() throws
    /// W5: saves the prepared people one by one, each in a transaction of its own.
    func saveEach() throws
    /// The ids the prepared people got.
    var savedIDs: [Int64] { get }
    /// W2: fetches every person.
    func fetchPeople() throws
    var peopleDigest: Int { get }
    /// W3: fetches every project with its tags, meetings and lead.
    func fetchProjects() throws
    var projectsDigest: Int { get }
    /// W4: runs `code = ? AND budget > ?`, sorted by name, limit 1,000, once per pair.
    func query(_ parameters: [(code: String, budget: Double)]) throws
    var queryDigest: Int { get }
}

// MARK: The baseline

/// sqlite3 C calls written by hand, reading into and writing from plain final classes. In the lean layout it
/// writes and reads no timestamp columns, and a single insert runs without an explicit transaction.
final class RawContender: Contender {
    let name = "raw sqlite3"
    /// Whether the tables have DBBBuilder's `createdTime` and `modifiedTime` columns.
    private let stamped = comparisonLayout == .dbbBuilder
    private var database: RawDatabase?
    private var prepared: [PlainPerson] = []
    private var people: [PlainPerson] = []
    private var projects: [PlainProject] = []
    private var results: [[PlainPerson]] = []

    private func db() throws -> RawDatabase {
        guard let database else { throw RawError(message: "not open") }
        return database
    }

    func open(_ url: URL) throws { database = try RawDatabase(url) }
    func close() throws { database = nil }

    func prepare(_ seeds: [PersonSeed]) {
        prepared = seeds.map { seed in
            let person = PlainPerson()
            person.fill(from: seed)
            return person
        }
    }

    private var insertSQL: String {
        stamped
            ? "INSERT INTO Person (createdTime, modifiedTime, active, budget, code, name, startDate) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?)"
            : "INSERT INTO Person (active, budget, code, name, startDate) VALUES (?, ?, ?, ?, ?)"
    }

    private func insert(_ person: PlainPerson, with statement: OpaquePointer, now: Date, in db: RawDatabase) throws {
        var column: Int32 = 1
        if stamped {
            let stamp = now.timeIntervalSinceReferenceDate
            sqlite3_bind_double(statement, 1, stamp)
            sqlite3_bind_double(statement, 2, stamp)
            column = 3
        }
        sqlite3_bind_int64(statement, column, person.active ? 1 : 0)
        sqlite3_bind_double(statement, column + 1, person.budget)
        sqlite3_bind_text(statement, column + 2, person.code, -1, sqliteTransient)
        sqlite3_bind_text(statement, column + 3, person.name, -1, sqliteTransient)
        if let startDate = person.startDate {
            sqlite3_bind_double(statement, column + 4, startDate.timeIntervalSinceReferenceDate)
        } else {
            sqlite3_bind_null(statement, column + 4)
        }
        guard sqlite3_step(statement) == SQLITE_DONE else {
            sqlite3_reset(statement)
            throw db.error()
        }
        sqlite3_reset(statement)
        person.id = sqlite3_last_insert_rowid(db.handle)
        if stamped {
            person.createdTime = now
            person.modifiedTime = now
        }
    }

    func insertAll() throws {
        let db = try db()
        let now = Date()
        let statement = try db.prepare(insertSQL)
        defer { sqlite3_finalize(statement) }
        try db.execute("BEGIN IMMEDIATE")
        do {
            for person in prepared { try insert(person, with: statement, now: now, in: db) }
            try db.execute("COMMIT")
        } catch {
            try? db.execute("ROLLBACK")
            throw error
        }
    }

    func saveEach() throws {
        let db = try db()
        let statement = try db.prepare(insertSQL)
        defer { sqlite3_finalize(statement) }
        for person in prepared {
            // One statement is its own transaction.
            guard stamped else {
                try insert(person, with: statement, now: Date(), in: db)
                continue
            }
            try db.execute("BEGIN IMMEDIATE")
            do {
                try insert(person, with: statement, now: Date(), in: db)
                try db.execute("COMMIT")
            } catch {
                try? db.execute("ROLLBACK")
                throw error
            }
        }
    }

    var savedIDs: [Int64] { prepared.map(\.id) }

    private var personColumns: String {
        stamped
            ? "id, createdTime, modifiedTime, active, budget, code, name, startDate"
            : "id, active, budget, code, name, startDate"
    }

    /// A person from the columns of ``personColumns``.
    private func person(_ statement: OpaquePointer) -> PlainPerson {
        let person = PlainPerson()
        person.id = sqlite3_column_int64(statement, 0)
        let column = timestamps(statement, into: person)
        person.active = sqlite3_column_int64(statement, column) != 0
        person.budget = sqlite3_column_double(statement, column + 1)
        person.code = text(statement, column + 2)
        person.name = text(statement, column + 3)
        person.startDate = Self.optionalDate(statement, column + 4)
        return person
    }

    /// `id`, then the timestamp columns where the layout has them, then `columns`.
    private func selectList(_ columns: String) -> String {
        stamped ? "id, createdTime, modifiedTime, \(columns)" : "id, \(columns)"
    }

    /// Reads the timestamps where the layout has them; returns the first column after them.
    private func timestamps(_ row: OpaquePointer, into object: some TimestampedPlain) -> Int32 {
        guard stamped else { return 1 }
        object.createdTime = Self.optionalDate(row, 1)
        object.modifiedTime = Self.optionalDate(row, 2)
        return 3
    }

    private static func optionalDate(_ statement: OpaquePointer, _ column: Int32) -> Date? {
        sqlite3_column_type(statement, column) == SQLITE_NULL
            ? nil : Date(timeIntervalSinceReferenceDate: sqlite3_column_double(statement, column))
    }

    func fetchPeople() throws {
        var people: [PlainPerson] = []
        try db().forEachRow("SELECT \(personColumns) FROM Person ORDER BY id") { people.append(self.person($0)) }
        self.people = people
    }

    var peopleDigest: Int { digest(people) }

    func fetchProjects() throws {
        let db = try db()
        var projects: [PlainProject] = []
        var byID: [Int64: PlainProject] = [:]
        try db.forEachRow("SELECT \(selectList("budget, name")) FROM Project ORDER BY id") { row in
            let project = PlainProject()
            project.id = sqlite3_column_int64(row, 0)
            let column = timestamps(row, into: project)
            project.budget = sqlite3_column_double(row, column)
            project.name = text(row, column + 1)
            projects.append(project)
            byID[project.id] = project
        }
        try db.forEachRow("SELECT Project_ID, tags FROM Project_tags ORDER BY Project_ID, id") { row in
            byID[sqlite3_column_int64(row, 0)]?.tags.append(text(row, 1))
        }
        var meetings: [Int64: PlainMeeting] = [:]
        try db.forEachRow(
            "SELECT \(selectList("minutes, purpose, startTime")) FROM Meeting "
                + "WHERE id IN (SELECT meetings FROM Project_meetings)"
        ) { row in
            let meeting = PlainMeeting()
            meeting.id = sqlite3_column_int64(row, 0)
            let column = timestamps(row, into: meeting)
            meeting.minutes = Int(sqlite3_column_int64(row, column))
            meeting.purpose = text(row, column + 1)
            meeting.startTime = Date(timeIntervalSinceReferenceDate: sqlite3_column_double(row, column + 2))
            meetings[meeting.id] = meeting
        }
        try db.forEachRow("SELECT Project_ID, meetings FROM Project_meetings ORDER BY Project_ID, id") { row in
            if let meeting = meetings[sqlite3_column_int64(row, 1)] {
                byID[sqlite3_column_int64(row, 0)]?.meetings.append(meeting)
            }
        }
        var leads: [Int64: PlainPerson] = [:]
        try db.forEachRow(
            "SELECT \(personColumns) FROM Person WHERE id IN (SELECT lead FROM Project_lead)"
        ) { row in
            let person = self.person(row)
            leads[person.id] = person
        }
        try db.forEachRow("SELECT Project_ID, lead FROM Project_lead ORDER BY Project_ID, id") { row in
            byID[sqlite3_column_int64(row, 0)]?.lead = leads[sqlite3_column_int64(row, 1)]
        }
        self.projects = projects
    }

    var projectsDigest: Int { digest(projects) }

    func query(_ parameters: [(code: String, budget: Double)]) throws {
        let db = try db()
        let statement = try db.prepare(
            "SELECT \(personColumns) FROM Person WHERE code = ? AND budget > ? ORDER BY name LIMIT 1000")
        defer { sqlite3_finalize(statement) }
        var results: [[PlainPerson]] = []
        for (code, budget) in parameters {
            sqlite3_bind_text(statement, 1, code, -1, sqliteTransient)
            sqlite3_bind_double(statement, 2, budget)
            var people: [PlainPerson] = []
            while true {
                let code = sqlite3_step(statement)
                if code == SQLITE_DONE { break }
                guard code == SQLITE_ROW else {
                    sqlite3_reset(statement)
                    throw db.error()
                }
                people.append(self.person(statement))
            }
            sqlite3_reset(statement)
            results.append(people)
        }
        self.results = results
    }

    var queryDigest: Int { digest(results.flatMap { $0 }) }
}

// MARK: The library

/// The object API, with one set of classes (one mapping form).
final class LibraryContender<
    Person: DBBTableObject & PersonFields, Meeting: DBBTableObject & MeetingFields,
    Project: DBBTableObject & ProjectFields
>: Contender
where Project.Lead == Person, Project.Item == Meeting {
    let name: String
    private var manager: DBBManager?
    private var prepared: [Person] = []
    private var people: [Person] = []
    private var projects: [Project] = []
    private var results: [[Person]] = []

    init(_ name: String) { self.name = name }

    private func db() throws -> DBBManager {
        guard let manager else { throw RawError(message: "not open") }
        return manager
    }

    func open(_ url: URL) throws {
        let manager = try DBBManager(databaseURL: url)
        try manager.addTableClasses([Person.self, Meeting.self, Project.self])
        self.manager = manager
    }

    func close() throws {
        try manager?.close()
        manager = nil
    }

    func prepare(_ seeds: [PersonSeed]) {
        guard let manager else { return }
        prepared = seeds.map { seed in
            let person = Person(dbManager: manager)
            person.fill(from: seed)
            return person
        }
    }

    func insertAll() throws {
        let manager = try db()
        guard Person.saveObjects(prepared, dbManager: manager) else {
            throw RawError(message: manager.errorMessage())
        }
    }

    func saveEach() throws {
        for person in prepared { try person.save() }
    }

    var savedIDs: [Int64] { prepared.map(\.idNum) }

    func fetchPeople() throws { people = Person.allInstances(manager: try db()) }
    var peopleDigest: Int { digest(people) }

    func fetchProjects() throws { projects = Project.allInstances(manager: try db()) }
    var projectsDigest: Int { digest(projects) }

    func query(_ parameters: [(code: String, budget: Double)]) throws {
        let manager = try db()
        results = try parameters.map { code, budget in
            var options = DBBQueryOptions()
            options.addCondition("code = ?", code)
            options.addCondition("budget > ?", budget)
            options.sorting = ["name"]
            options.limit = 1000
            return try Person.fetch(options: options, manager: manager)
        }
    }

    var queryDigest: Int { digest(results.flatMap { $0 }) }
}

// MARK: GRDB

/// GRDB 7 with hand-written records, on the same tables.
final class GRDBContender: Contender {
    let name = "GRDB 7.10"
    private var queue: DatabaseQueue?
    private var prepared: [GRDBPerson] = []
    private var people: [GRDBPerson] = []
    private var projects: [GRDBProject] = []
    private var results: [[GRDBPerson]] = []

    private func db() throws -> DatabaseQueue {
        guard let queue else { throw RawError(message: "not open") }
        return queue
    }

    func open(_ url: URL) throws {
        var configuration = Configuration()
        // The library's settings: WAL (kept in the file) and synchronous NORMAL.
        configuration.prepareDatabase { db in try db.execute(sql: "PRAGMA synchronous = NORMAL") }
        queue = try DatabaseQueue(path: url.path, configuration: configuration)
    }

    func close() throws {
        try queue?.close()
        queue = nil
    }

    func prepare(_ seeds: [PersonSeed]) {
        prepared = seeds.map { seed in
            let person = GRDBPerson()
            person.fill(from: seed)
            return person
        }
    }

    func insertAll() throws {
        let people = prepared
        try db().write { db in
            let now = Date()
            for person in people {
                person.createdTime = now
                person.modifiedTime = now
                try person.insert(db)
            }
        }
    }

    func saveEach() throws {
        let queue = try db()
        for person in prepared {
            try queue.write { db in
                let now = Date()
                person.createdTime = now
                person.modifiedTime = now
                try person.insert(db)
            }
        }
    }

    var savedIDs: [Int64] { prepared.map { $0.id ?? 0 } }

    func fetchPeople() throws {
        people = try db().read { db in
            try GRDBPerson.fetchAll(db, sql: "SELECT \(GRDBPerson.columns) FROM Person ORDER BY id")
        }
    }

    var peopleDigest: Int { digest(people) }

    func fetchProjects() throws {
        projects = try db().read { db in
            let projects = try GRDBProject.fetchAll(db, sql: "SELECT \(GRDBProject.columns) FROM Project ORDER BY id")
            var byID: [Int64: GRDBProject] = [:]
            for project in projects { byID[project.id] = project }
            let tags = try Row.fetchCursor(db, sql: "SELECT Project_ID, tags FROM Project_tags ORDER BY Project_ID, id")
            while let row = try tags.next() { byID[row[0]]?.tags.append(row[1]) }
            var meetings: [Int64: GRDBMeeting] = [:]
            for meeting in try GRDBMeeting.fetchAll(
                db,
                sql: "SELECT \(GRDBMeeting.columns) FROM Meeting WHERE id IN (SELECT meetings FROM Project_meetings)")
            {
                meetings[meeting.id] = meeting
            }
            let links = try Row.fetchCursor(
                db, sql: "SELECT Project_ID, meetings FROM Project_meetings ORDER BY Project_ID, id")
            while let row = try links.next() {
                if let meeting = meetings[row[1]] { byID[row[0]]?.meetings.append(meeting) }
            }
            var leads: [Int64: GRDBPerson] = [:]
            for person in try GRDBPerson.fetchAll(
                db, sql: "SELECT \(GRDBPerson.columns) FROM Person WHERE id IN (SELECT lead FROM Project_lead)")
            {
                leads[person.id ?? 0] = person
            }
            let leadLinks = try Row.fetchCursor(
                db, sql: "SELECT Project_ID, lead FROM Project_lead ORDER BY Project_ID, id")
            while let row = try leadLinks.next() { byID[row[0]]?.lead = leads[row[1]] }
            return projects
        }
    }

    var projectsDigest: Int { digest(projects) }

    func query(_ parameters: [(code: String, budget: Double)]) throws {
        let queue = try db()
        results = try parameters.map { code, budget in
            try queue.read { db in
                let statement = try db.cachedStatement(
                    sql:
                        "SELECT \(GRDBPerson.columns) FROM Person WHERE code = ? AND budget > ? ORDER BY name LIMIT 1000"
                )
                return try GRDBPerson.fetchAll(statement, arguments: [code, budget])
            }
        }
    }

    var queryDigest: Int { digest(results.flatMap { $0 }) }
}
