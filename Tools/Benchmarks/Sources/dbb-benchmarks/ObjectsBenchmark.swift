import CSQLite
import DBBBuilder
import Foundation

/// The object API against the sqlite3 C API driven by hand, in the same run: flat save, flat fetch, and
/// the fetch of an object graph. Targets: at most 2× raw for the flat workloads, 3× for the graph.
enum ObjectsBenchmark {
    static let itemCount = 100_000
    static let projectCount = 10_000
    static let peopleCount = 2_000
    static let repetitions = 5

    static func run() {
        runWorkload("objects") { try withTemporaryFolder("dbb-bench", runAll) }
    }

    private static func runAll(in folder: URL) throws {
        print(
            "objects: \(itemCount) objects of six scalar properties; \(projectCount) projects × (5 tags, 3 meetings, 1 lead)"
        )
        print("workload (CPU seconds, best of \(repetitions))    raw (s)   DBBObjects (s)    ratio   target")

        // 1. and 2. Flat save and fetch: mapped by key paths, and by key paths with get/set closures.
        try flatWorkloads(BenchItem.self, label: "key paths", folder: folder)
        try flatWorkloads(FastBenchItem.self, label: "get/set closures", folder: folder)

        // 3. Graph fetch.
        let graphURL = folder.appendingPathComponent("graph.sqlite")
        let graphManager = try DBBManager(databaseURL: graphURL)
        try graphManager.addTableClasses([BenchPerson.self, BenchMeeting.self, BenchProject.self])
        let projects = makeProjects(graphManager)
        let graphSave = try time { try BenchProject.save(projects, manager: graphManager) }
        let graphReader = try RawDatabase(graphURL)
        var apiProjects: [BenchProject] = []
        var rawProjects: [BenchProject] = []
        let (apiGraph, rawGraph) = try bestOf(
            repetitions, { apiProjects = BenchProject.allInstances(manager: graphManager) },
            { rawProjects = try rawFetchProjects(graphReader, manager: graphManager) })
        try check(apiProjects, rawProjects)
        report("fetch 10,000-project graph", raw: rawGraph, api: apiGraph, target: 3)
        print(String(format: "(graph save through the API, not compared: %.3f s)", graphSave))
    }

    private static func flatWorkloads(_ type: BenchItem.Type, label: String, folder: URL) throws {
        let table = type.tableName
        var apiSave = Double.infinity
        var rawSave = Double.infinity
        var lastFile = folder
        for run in 0..<repetitions {
            let apiURL = folder.appendingPathComponent("\(table)-api-\(run).sqlite")
            let manager = try DBBManager(databaseURL: apiURL)
            try manager.addTableClasses([type])
            let items = makeItems(type, manager)
            apiSave = min(apiSave, try time { try type.save(items, manager: manager) })
            lastFile = apiURL

            let rawItems = makeItems(type, manager)
            let raw = try RawDatabase(folder.appendingPathComponent("\(table)-raw-\(run).sqlite"))
            try raw.execute(BenchItem.createSQL(table))
            rawSave = min(rawSave, try time { try rawInsert(rawItems, into: raw, table: table) })
        }
        report("save 100,000 (\(label))", raw: rawSave, api: apiSave, target: 2)

        // Fetch from the file the last API save wrote.
        let manager = try DBBManager(databaseURL: lastFile)
        try manager.addTableClasses([type])
        let reader = try RawDatabase(lastFile)
        var apiItems: [DBBTableObject] = []
        var rawItems: [BenchItem] = []
        let (apiFetch, rawFetch) = try bestOf(
            repetitions, { apiItems = try type.fetchAll(manager: manager) },
            { rawItems = try rawFetchItems(reader, type: type, manager: manager) })
        precondition(apiItems.count == itemCount && rawItems.count == itemCount, "fetched too few objects")
        for (api, raw) in zip(apiItems, rawItems) {
            guard let api = api as? BenchItem else { preconditionFailure("wrong class") }
            precondition(
                api.idNum == raw.idNum && api.name == raw.name && api.code == raw.code && api.quantity == raw.quantity
                    && api.price == raw.price && api.isActive == raw.isActive && api.dueDate == raw.dueDate
                    && api.createdTime == raw.createdTime, "the API and the raw code loaded different objects")
        }
        report("fetch 100,000 (\(label))", raw: rawFetch, api: apiFetch, target: 2)
    }

    // MARK: Data

    private static func makeItems(_ type: BenchItem.Type, _ manager: DBBManager) -> [BenchItem] {
        (0..<itemCount).map { index in
            let item = type.init(dbManager: manager)
            item.name = "Item \(index)"
            item.code = "C\(index % 977)"
            item.quantity = index
            item.price = Double(index) * 0.25
            item.isActive = index % 3 == 0
            item.dueDate = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index))
            return item
        }
    }

    private static func makeProjects(_ manager: DBBManager) -> [BenchProject] {
        let people = (0..<peopleCount).map { index in
            let person = BenchPerson(dbManager: manager)
            person.firstName = "First\(index)"
            person.lastName = "Last\(index)"
            person.age = 20 + index % 50
            return person
        }
        return (0..<projectCount).map { index in
            let project = BenchProject(dbManager: manager)
            project.name = "Project \(index)"
            project.code = "P\(index)"
            project.budget = Double(index) * 10
            project.tags = (0..<5).map { "tag\((index + $0) % 40)" }
            project.meetings = (0..<3).map { number in
                let meeting = BenchMeeting(dbManager: manager)
                meeting.purpose = "Meeting \(number) of \(index)"
                meeting.minutes = 30 + number * 15
                meeting.startTime = Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index * 3 + number))
                return meeting
            }
            project.lead = people[index % peopleCount]
            return project
        }
    }

    private static func check(_ api: [BenchProject], _ raw: [BenchProject]) throws {
        precondition(api.count == projectCount && raw.count == projectCount, "graph sizes differ")
        for (left, right) in zip(api, raw) {
            precondition(
                left.idNum == right.idNum && left.name == right.name && left.tags == right.tags
                    && left.meetings.map(\.purpose) == right.meetings.map(\.purpose)
                    && left.meetings.map(\.startTime) == right.meetings.map(\.startTime)
                    && left.lead?.lastName == right.lead?.lastName && left.lead?.idNum == right.lead?.idNum,
                "the API and the raw code loaded different graphs")
        }
    }

    // MARK: Raw sqlite3

    private static func rawInsert(_ items: [BenchItem], into raw: RawDatabase, table: String) throws {
        let now = Date()
        let stamp = now.timeIntervalSinceReferenceDate
        try raw.execute("BEGIN IMMEDIATE")
        let insert = try raw.prepare(
            "INSERT INTO \(table) (createdTime, modifiedTime, code, dueDate, isActive, name, price, quantity) "
                + "VALUES (?, ?, ?, ?, ?, ?, ?, ?)")
        defer { sqlite3_finalize(insert) }
        for item in items {
            sqlite3_bind_double(insert, 1, stamp)
            sqlite3_bind_double(insert, 2, stamp)
            sqlite3_bind_text(insert, 3, item.code, -1, sqliteTransient)
            sqlite3_bind_double(insert, 4, item.dueDate.timeIntervalSinceReferenceDate)
            sqlite3_bind_int64(insert, 5, item.isActive ? 1 : 0)
            sqlite3_bind_text(insert, 6, item.name, -1, sqliteTransient)
            sqlite3_bind_double(insert, 7, item.price)
            sqlite3_bind_int64(insert, 8, Int64(item.quantity))
            guard sqlite3_step(insert) == SQLITE_DONE else { throw raw.error() }
            sqlite3_reset(insert)
            item.idNum = sqlite3_last_insert_rowid(raw.handle)
            item.createdTime = now
            item.modifiedTime = now
            item.isDirty = false
        }
        try raw.execute("COMMIT")
    }

    private static func rawFetchItems(_ raw: RawDatabase, type: BenchItem.Type, manager: DBBManager) throws
        -> [BenchItem]
    {
        var items: [BenchItem] = []
        try raw.forEachRow(
            "SELECT id, createdTime, modifiedTime, code, dueDate, isActive, name, price, quantity FROM \(type.tableName) "
                + "ORDER BY id"
        ) { select in
            let item = type.init(dbManager: manager)
            item.idNum = sqlite3_column_int64(select, 0)
            item.createdTime = Date(timeIntervalSinceReferenceDate: sqlite3_column_double(select, 1))
            item.modifiedTime = Date(timeIntervalSinceReferenceDate: sqlite3_column_double(select, 2))
            item.code = text(select, 3)
            item.dueDate = Date(timeIntervalSinceReferenceDate: sqlite3_column_double(select, 4))
            item.isActive = sqlite3_column_int64(select, 5) != 0
            item.name = text(select, 6)
            item.price = sqlite3_column_double(select, 7)
            item.quantity = Int(sqlite3_column_int64(select, 8))
            items.append(item)
        }
        return items
    }

    /// Loads the projects, their tags, meetings and leads by hand: one query per table, objects by id.
    private static func rawFetchProjects(_ raw: RawDatabase, manager: DBBManager) throws -> [BenchProject] {
        var projects: [BenchProject] = []
        var byID: [Int64: BenchProject] = [:]
        try raw.forEachRow("SELECT id, createdTime, modifiedTime, budget, code, name FROM BenchProject ORDER BY id") {
            let project = BenchProject(dbManager: manager)
            project.idNum = sqlite3_column_int64($0, 0)
            project.createdTime = Date(timeIntervalSinceReferenceDate: sqlite3_column_double($0, 1))
            project.modifiedTime = Date(timeIntervalSinceReferenceDate: sqlite3_column_double($0, 2))
            project.budget = sqlite3_column_double($0, 3)
            project.code = text($0, 4)
            project.name = text($0, 5)
            projects.append(project)
            byID[project.idNum] = project
        }
        try raw.forEachRow("SELECT BenchProject_ID, tags FROM BenchProject_tags ORDER BY BenchProject_ID, id") {
            byID[sqlite3_column_int64($0, 0)]?.tags.append(text($0, 1))
        }
        var meetingsByID: [Int64: BenchMeeting] = [:]
        try raw.forEachRow(
            "SELECT id, createdTime, modifiedTime, minutes, purpose, startTime FROM BenchMeeting "
                + "WHERE id IN (SELECT meetings FROM BenchProject_meetings)"
        ) {
            let meeting = BenchMeeting(dbManager: manager)
            meeting.idNum = sqlite3_column_int64($0, 0)
            meeting.createdTime = Date(timeIntervalSinceReferenceDate: sqlite3_column_double($0, 1))
            meeting.modifiedTime = Date(timeIntervalSinceReferenceDate: sqlite3_column_double($0, 2))
            meeting.minutes = Int(sqlite3_column_int64($0, 3))
            meeting.purpose = text($0, 4)
            meeting.startTime = Date(timeIntervalSinceReferenceDate: sqlite3_column_double($0, 5))
            meetingsByID[meeting.idNum] = meeting
        }
        try raw.forEachRow("SELECT BenchProject_ID, meetings FROM BenchProject_meetings ORDER BY BenchProject_ID, id") {
            if let meeting = meetingsByID[sqlite3_column_int64($0, 1)] {
                byID[sqlite3_column_int64($0, 0)]?.meetings.append(meeting)
            }
        }
        var peopleByID: [Int64: BenchPerson] = [:]
        try raw.forEachRow(
            "SELECT id, createdTime, modifiedTime, age, firstName, lastName FROM BenchPerson "
                + "WHERE id IN (SELECT lead FROM BenchProject_lead)"
        ) {
            let person = BenchPerson(dbManager: manager)
            person.idNum = sqlite3_column_int64($0, 0)
            person.createdTime = Date(timeIntervalSinceReferenceDate: sqlite3_column_double($0, 1))
            person.modifiedTime = Date(timeIntervalSinceReferenceDate: sqlite3_column_double($0, 2))
            person.age = Int(sqlite3_column_int64($0, 3))
            person.firstName = text($0, 4)
            person.lastName = text($0, 5)
            peopleByID[person.idNum] = person
        }
        try raw.forEachRow("SELECT BenchProject_ID, lead FROM BenchProject_lead ORDER BY BenchProject_ID, id") {
            byID[sqlite3_column_int64($0, 0)]?.lead = peopleByID[sqlite3_column_int64($0, 1)]
        }
        return projects
    }
}

// MARK: Models

/// Six scalar properties, mapped by key path.
class BenchItem: DBBTableObject {
    var name = ""
    var code = ""
    var quantity = 0
    var price = 0.0
    var isActive = false
    var dueDate = Date(timeIntervalSinceReferenceDate: 0)

    /// The table as the manager creates it (columns in property-name order).
    static func createSQL(_ table: String) -> String {
        "CREATE TABLE \(table) (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, modifiedTime Real, "
            + "code Text, dueDate Real, isActive Boolean, name Text, price Real, quantity Integer)"
    }

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "name": .init(\BenchItem.name), "code": .init(\BenchItem.code), "quantity": .init(\BenchItem.quantity),
                "price": .init(\BenchItem.price), "isActive": .init(\BenchItem.isActive),
                "dueDate": .init(\BenchItem.dueDate),
            ], for: self)
    }
}

/// The same six properties, mapped with direct get/set closures (its own table, `FastBenchItem`).
final class FastBenchItem: BenchItem {
    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "name": .init(\FastBenchItem.name, get: { $0.name }, set: { $0.name = $1 }),
                "code": .init(\FastBenchItem.code, get: { $0.code }, set: { $0.code = $1 }),
                "quantity": .init(\FastBenchItem.quantity, get: { $0.quantity }, set: { $0.quantity = $1 }),
                "price": .init(\FastBenchItem.price, get: { $0.price }, set: { $0.price = $1 }),
                "isActive": .init(\FastBenchItem.isActive, get: { $0.isActive }, set: { $0.isActive = $1 }),
                "dueDate": .init(\FastBenchItem.dueDate, get: { $0.dueDate }, set: { $0.dueDate = $1 }),
            ], for: self)
    }
}

final class BenchPerson: DBBTableObject {
    var firstName = ""
    var lastName = ""
    var age = 0

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "firstName": .init(\BenchPerson.firstName), "lastName": .init(\BenchPerson.lastName),
                "age": .init(\BenchPerson.age),
            ], for: self)
    }
}

final class BenchMeeting: DBBTableObject {
    var purpose = ""
    var minutes = 0
    var startTime = Date(timeIntervalSinceReferenceDate: 0)

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "purpose": .init(\BenchMeeting.purpose), "minutes": .init(\BenchMeeting.minutes),
                "startTime": .init(\BenchMeeting.startTime),
            ], for: self)
    }
}

final class BenchProject: DBBTableObject {
    var name = ""
    var code = ""
    var budget = 0.0
    var tags: [String] = []
    var meetings: [BenchMeeting] = []
    var lead: BenchPerson?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "name": .init(\BenchProject.name), "code": .init(\BenchProject.code),
                "budget": .init(\BenchProject.budget), "tags": .init(\BenchProject.tags),
                "meetings": .init(\BenchProject.meetings), "lead": .init(\BenchProject.lead),
            ], for: self)
    }
}
