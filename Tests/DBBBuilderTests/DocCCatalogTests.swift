import DBBBuilder
import DBBTestSupport
import Foundation
import Testing

/// The landing pages of the modules' DocC catalogs: each module has one, and their code is compiled and run
/// here, so the examples stay true.
@Suite struct DocCCatalogTests {
    static let modules = ["DBBSQL", "DBBSchema", "DBBQuery", "DBBObjects", "DBBExport", "DBBMacros", "DBBBuilder"]

    static func landingPage(_ module: String) -> String { "Modules/\(module)/\(module).docc/\(module).md" }

    @Test func everyModuleHasALandingPageWhoseCodeIsHere() throws {
        for module in Self.modules {
            let page = try String(
                contentsOf: repositoryRoot.appendingPathComponent(Self.landingPage(module)), encoding: .utf8)
            #expect(page.hasPrefix("# ``\(module)``\n"), "\(module)")
            #expect(page.contains("\n## Topics\n"), "\(module)")
            #expect(!DocSnippets.swiftBlocks(in: page).isEmpty, "\(module)")
            #expect(try DocSnippets.missingBlocks(guide: Self.landingPage(module)) == [], "\(module)")
        }
    }

    @Test func theObjectTypesKeepTheDBBBuilderNamesInTheirOwnGroup() throws {
        for type in ["DBBTableObject", "DBBManager"] {
            let page = try String(
                contentsOf: repositoryRoot.appendingPathComponent("Modules/DBBObjects/DBBObjects.docc/\(type).md"),
                encoding: .utf8)
            let parts = page.components(separatedBy: "### DBBBuilder compatibility\n")
            #expect(parts.count == 2, "\(type)")
            // The primary API comes first; the compatibility names only after it.
            #expect(parts.first?.contains("errorMessage()") == false && parts.first?.contains("saveToDB()") == false)
            #expect(parts.last?.contains(type == "DBBManager" ? "errorMessage()" : "saveToDB()") == true)
        }
    }

    @Test func everyCompatibilityGroupComesAfterThePrimaryAPI() throws {
        let pages = try Self.modules.flatMap { module in
            let folder = repositoryRoot.appendingPathComponent("Modules/\(module)/\(module).docc")
            return try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
                .filter { $0.pathExtension == "md" }
        }
        let withGroup = try pages.filter {
            try String(contentsOf: $0, encoding: .utf8).contains("### DBBBuilder compatibility\n")
        }
        #expect(withGroup.count >= 5)
        for page in withGroup {
            let groups = try String(contentsOf: page, encoding: .utf8).components(separatedBy: "\n")
                .filter { $0.hasPrefix("### ") }
            #expect(groups.count > 1 && groups.last == "### DBBBuilder compatibility", "\(page.lastPathComponent)")
        }
    }

    @Test func sqlExample() throws {
        #expect(try CatalogExamples().sql() == ["Buy milk"])
    }

    @Test func schemaExample() throws {
        #expect(
            try CatalogExamples().schema() == [
                "CREATE TABLE IF NOT EXISTS Note (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, "
                    + "modifiedTime Real, title Text)",
                "CREATE TABLE IF NOT EXISTS Note_tags (id Integer PRIMARY KEY AUTOINCREMENT, Note_ID Integer, tags Text)",
                "CREATE INDEX IF NOT EXISTS Note_tags_idx ON Note_tags (Note_ID)",
                "CREATE INDEX IF NOT EXISTS Note_title ON Note (title)",
            ])
    }

    @Test func queryExample() throws {
        let plan = try CatalogExamples().query()
        #expect(plan.whereSQL == " WHERE (title LIKE 'Buy%') AND (priority >= ?)")
        #expect(plan.arguments == [.integer(2)])
        #expect(plan.limitSQL.contains("LIMIT 10"))
    }

    @Test func objectsExample() throws {
        let manager = try DBBManager.inMemory()
        let reminders = try CatalogExamples().remindersToday(manager: manager)
        #expect(reminders.map(\.title) == ["Renew the passport"])
        #expect(reminders.first?.tags == ["today"])
        #expect(try manager.queue.inDatabase { try $0.fetchValue(Int.self, "SELECT count(*) FROM Reminder_tags") } == 1)
    }

    @Test func macrosExample() throws {
        let manager = try DBBManager.inMemory()
        let trips = try CatalogExamples().tripsTo("Venice", manager: manager)
        #expect(trips.map(\.destination) == ["Venice"])
        #expect(trips.first?.stops == ["Lyon", "Turin"] && trips.first?.departure == nil)
        #expect(try manager.queue.inDatabase { try $0.indexNames(in: "Trip") } == ["Trip_destination"])
        #expect(try manager.queue.inDatabase { try $0.columnExists("isExpanded", in: "Trip") } == false)
    }

    @Test func exportAndUmbrellaExamples() throws {
        let folder = try TemporaryFolder()
        let database = folder.file("reminders.sqlite")
        let manager = try DBBManager(databaseURL: database)
        try manager.addTableClasses([CatalogExamples.Reminder.self])
        let reminder = CatalogExamples.Reminder(dbManager: manager)
        reminder.title = "Water the plants"
        try CatalogExamples().saveAndBackUp(
            [reminder], manager: manager, database: database, dump: folder.file("a.json.gz"))
        #expect(reminder.idNum == 1)
        #expect(
            try DBBExport.inspect(dumpAt: folder.file("a.json.gz")).tables.first { $0.name == "Reminder" }?.rowCount
                == 1)
        #expect(try CatalogExamples().backUpAndCheck(database: database, to: folder.file("b.json.gz")))
        try manager.close()
    }
}

/// The class of DBBMacros' landing page.
@DBBTable
final class Trip: DBBTableObject {
    @Indexed var destination = ""
    var departure: Date?
    var stops: [String] = []
    @Transient var isExpanded = false  // not persisted
}

/// The code of the landing pages, as they show it.
struct CatalogExamples {
    func sql() throws -> [String] {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE note (id INTEGER PRIMARY KEY, body TEXT NOT NULL, stars INTEGER)")
        try db.execute("INSERT INTO note (body, stars) VALUES (?, ?)", "Buy milk", 3)
        let bodies = try db.fetchValues(String.self, "SELECT body FROM note WHERE stars >= ?", 2)
        return bodies
    }

    func schema() throws -> [String] {
        final class Note {
            var title = ""
            var tags: [String] = []
        }
        let mapping: [String: DBBPropertyPersistence] = ["title": .init(\Note.title), "tags": .init(\Note.tags)]
        let table = try DBBTableDescription(
            tableName: "Note", properties: mapping, indexer: DBBIndexer(columnsToIndex: ["title"]))
        let statements = table.creationStatements
        // CREATE TABLE IF NOT EXISTS Note (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real,
        //   modifiedTime Real, title Text)
        // CREATE TABLE IF NOT EXISTS Note_tags (id Integer PRIMARY KEY AUTOINCREMENT, Note_ID Integer,
        //   tags Text)
        // CREATE INDEX IF NOT EXISTS Note_tags_idx ON Note_tags (Note_ID)
        // CREATE INDEX IF NOT EXISTS Note_title ON Note (title)
        return statements
    }

    func query() throws -> DBBQueryPlan {
        final class Chore {
            var title = ""
            var priority = 0
        }
        let table = try DBBTableDescription(
            tableName: "Chore", properties: ["title": .init(\Chore.title), "priority": .init(\Chore.priority)])
        var options = DBBQueryOptions.options(withConditions: ["title LIKE 'Buy%'"], sortColumns: ["title"])
        options.addCondition("priority >= ?", 2)
        options.limit = 10
        let plan = try DBBQueryPlan(options: options, table: table)
        // plan.whereSQL == " WHERE (title LIKE 'Buy%') AND (priority >= ?)", plan.arguments == [.integer(2)]
        return plan
    }

    final class Reminder: DBBTableObject {
        var title = ""
        var tags: [String] = []

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                ["title": .init(\Reminder.title), "tags": .init(\Reminder.tags)], for: self)
        }
    }

    func remindersToday(manager: DBBManager) throws -> [Reminder] {
        try manager.addTableClasses([Reminder.self])
        let reminder = Reminder(dbManager: manager)
        reminder.title = "Renew the passport"
        reminder.tags = ["today"]
        try reminder.save()
        let today = DBBQueryOptions.options(withConditions: ["tags = 'today'"], sortColumns: ["title"])
        return try Reminder.fetch(options: today, manager: manager)
    }

    func tripsTo(_ destination: String, manager: DBBManager) throws -> [Trip] {
        try manager.addTableClasses([Trip.self])
        let trip = Trip(dbManager: manager)
        trip.destination = destination
        trip.stops = ["Lyon", "Turin"]
        try trip.save()
        var options = DBBQueryOptions()
        options.addCondition("destination = ?", destination)
        return try Trip.fetch(options: options, manager: manager)
    }

    func backUpAndCheck(database: URL, to dump: URL) throws -> Bool {
        let written = try DBBExport.dump(databaseAt: database, to: dump)
        let verified = try DBBExport.verify(dumpAt: dump)
        let difference = try DBBExport.compare(dumpAt: dump, withDatabaseAt: database)
        return verified.totalRows == written.totalRows && difference == nil
    }

    func saveAndBackUp(_ reminders: [Reminder], manager: DBBManager, database: URL, dump: URL) throws {
        try Reminder.save(reminders, manager: manager)  // DBBObjects
        try DBBExport.dump(databaseAt: database, to: dump)  // DBBExport
    }
}
