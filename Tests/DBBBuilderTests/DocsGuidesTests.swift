import DBBBuilder
import DBBTestSupport
import Foundation
import Testing

/// The code of Docs/GettingStarted.md and Docs/ComingFromDBBBuilder.md, compiled and run through the
/// umbrella module only.
@Suite struct DocsGuidesTests {
    @Test func theGuidesShowOnlyCodeThatIsHere() throws {
        #expect(try DocSnippets.missingBlocks(guide: "Docs/GettingStarted.md") == [])
        #expect(try DocSnippets.missingBlocks(guide: "Docs/ComingFromDBBBuilder.md") == [])
    }

    /// The installation section's manifests load (`swift package dump-package`, which reads a manifest without
    /// fetching its dependencies) and name the package and products the way SwiftPM resolves them.
    @Test func theInstallationManifestsLoad() throws {
        let guide = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Docs/GettingStarted.md"), encoding: .utf8)
        let manifests = DocSnippets.manifests(in: guide)
        #expect(manifests.count == 4)
        var identities: [String] = []
        var products: [[String]] = []
        var traits: [[String]] = []
        for manifest in manifests {
            let folder = try TemporaryFolder()
            try FileManager.default.createDirectory(
                at: folder.file("Sources/NotesApp"), withIntermediateDirectories: true)
            try folder.write("print(1)\n", to: "Sources/NotesApp/main.swift")
            try folder.write(manifest, to: "Package.swift")
            // SwiftPM keeps a lock file in TMPDIR named after the package: in the package's own folder, it goes
            // with it.
            let run = try ToolProcess.run(
                executable: URL(fileURLWithPath: "/usr/bin/env"), ["swift", "package", "dump-package"], in: folder.url,
                environment: ["TMPDIR": folder.url.path])
            #expect(run.exitCode == 0, "\(run.standardError)")
            let json = try #require(try JSONSerialization.jsonObject(with: run.output) as? [String: Any])
            #expect(json["name"] as? String == "NotesApp")
            let dependency = try #require((json["dependencies"] as? [[String: Any]])?.first)
            let kind = try #require((dependency["fileSystem"] ?? dependency["sourceControl"]) as? [[String: Any]])
            identities.append(kind.first?["identity"] as? String ?? "")
            traits.append((kind.first?["traits"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String })
            let target = try #require((json["targets"] as? [[String: Any]])?.first)
            let names = (target["dependencies"] as? [[String: Any]] ?? []).compactMap {
                ($0["product"] as? [Any])?.first as? String
            }
            products.append(names)
        }
        // Every identity matches the products' `package:` "DBBBuilder" (identities compare without case).
        #expect(identities == ["dbbbuilder", "dbbbuilder", "dbbbuilder", "dbbbuilder"])
        #expect(
            products == [["DBBBuilder"], ["DBBObjects", "DBBExport"], ["DBBObjects", "DBBQuery"], ["DBBBuilder"]])
        // The last is the umbrella without the macro: the package's default traits (DBBTableMacro) off.
        #expect(traits == [["default"], ["default"], ["default"], []])
    }

    @Test func gettingStarted() throws {
        let folder = try TemporaryFolder()
        let notes = try GettingStartedSample().firstSteps(databaseURL: folder.file("notes.sqlite"))
        #expect(notes.map(\.title) == ["Buy milk"])
        #expect(notes.first?.tags == ["errand", "today"])
        #expect(notes.first?.idNum == 1)
    }

    @Test func gettingStartedAsync() async throws {
        let folder = try TemporaryFolder()
        let notes = try await GettingStartedSample().firstStepsAsync(databaseURL: folder.file("notes.sqlite"))
        #expect(notes.map(\.title) == ["Buy milk"])
        #expect(notes.first?.body == "two litres")
        #expect(notes.first?.tags == ["errand", "today"])
        #expect(notes.first?.idNum == 1)
    }

    @Test func enumsAndCodableValues() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("chores.sqlite"))
        let sample = GettingStartedEnumSample()
        let chores = try sample.urgentChores(manager: manager)
        #expect(chores.map(\.title) == ["Call the plumber"])
        #expect(chores.first?.priority == .urgent)
        #expect(chores.first?.reminder?.minutesBefore == 30 && chores.first?.reminder?.repeats == true)
        // On disk: the raw value, and the JSON text with its keys sorted.
        let stored = try manager.queue.inDatabase { db in
            try db.fetchValues(String.self, "SELECT priority || ' ' || reminder FROM Chore")
        }
        #expect(stored == [#"urgent {"minutesBefore":30,"repeats":true}"#])
        // A value no case has is refused, naming it.
        try manager.queue.inDatabase { db in try db.execute("UPDATE Chore SET priority = 'someday'") }
        let error = try #require(
            #expect(throws: DBBError.self) { _ = try GettingStartedEnumSample.Chore.fetchAll(manager: manager) })
        #expect(error.message.contains("someday"), "\(error)")
    }

    @Test func comingFromDBBBuilder() throws {
        typealias Sample = ComingFromDBBBuilderSample
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses([Sample.Person.self, Sample.Project.self])
        let first = Sample.Project(dbManager: manager)
        first.name = "One"
        first.budget = 10
        first.projectLead = Sample.Person(dbManager: manager)
        let second = Sample.Project(dbManager: manager)
        second.tags = ["x"]
        Sample().saveBoth(first, second, manager: manager)
        let projects = Sample.Project.allInstances(manager: manager)
        #expect(projects.map(\.name) == ["One", ""])
        #expect(projects[0].projectLead != nil && projects[1].tags == ["x"])
        let columns = try manager.queue.inDatabase { db in try db.columns(in: "Project").map(\.name) }
        #expect(columns == ["id", "createdTime", "modifiedTime", "budget", "itemName"])
    }
}

struct GettingStartedSample {
    @DBBTable
    final class Note: DBBTableObject {
        @Indexed var title = ""
        var body = ""
        var tags: [String] = []
        var due: Date?
    }

    func firstSteps(databaseURL: URL) throws -> [Note] {
        let manager = try DBBManager(databaseURL: databaseURL)
        try manager.addTableClasses([Note.self])

        let note = Note(dbManager: manager)
        note.title = "Buy milk"
        note.tags = ["errand", "today"]
        try note.save()

        let options = DBBQueryOptions.options(withConditions: ["tags = 'errand'"], sortColumns: ["title"])
        return try Note.fetch(options: options, manager: manager)
    }

    func firstStepsAsync(databaseURL: URL) async throws -> [Note] {
        let manager = try DBBManager(databaseURL: databaseURL)
        try manager.addTableClasses([Note.self])

        let note = Note(dbManager: manager)
        note.title = "Buy milk"
        note.tags = ["errand", "today"]
        try await note.save()  // in async code, the async form
        let id = note.idNum

        // One transaction; the closure is @Sendable: it captures the id, and fetches the object inside.
        try await manager.write {
            guard let milk = try Note.fetchOne(id: id, manager: manager) else { return }
            milk.body = "two litres"
            try milk.save()
        }

        let options = DBBQueryOptions.options(withConditions: ["tags = 'errand'"], sortColumns: ["title"])
        return try await Note.fetch(options: options, manager: manager)
    }
}

/// The enums and Codable values of Docs/GettingStarted.md.
struct GettingStartedEnumSample {
    enum Priority: String, DBBPersistableValue {
        case low, normal, urgent
    }

    struct Reminder: DBBCodableValue {
        var minutesBefore = 10
        var repeats = false
    }

    @DBBTable
    final class Chore: DBBTableObject {
        var title = ""
        var priority = Priority.normal
        var reminder: Reminder?
        var history: [Priority] = []
    }

    func urgentChores(manager: DBBManager) throws -> [Chore] {
        try manager.addTableClasses([Chore.self])
        let chore = Chore(dbManager: manager)
        chore.title = "Call the plumber"
        chore.priority = .urgent
        chore.reminder = Reminder(minutesBefore: 30, repeats: true)
        try chore.save()

        var options = DBBQueryOptions()
        options.addCondition("priority = ?", Priority.urgent)  // an enum is bound as its raw value
        return try Chore.fetch(options: options, manager: manager)
    }
}

struct ComingFromDBBBuilderSample {
    final class Person: DBBTableObject {
        var name = ""
        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["name": .init(\Person.name)], for: self)
        }
    }

    final class Project: DBBTableObject {
        var name = ""
        var budget: Float = 0
        var tags: [String] = []
        var projectLead: Person?

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                [
                    "name": .init(\Project.name, columnName: "itemName"),
                    "budget": .init(\Project.budget, type: .float),
                    "tags": .init(\Project.tags),
                    "projectLead": .init(\Project.projectLead),
                ], for: self, indexer: DBBIndexer(columnsToIndex: ["name"]))
        }
    }

    func saveBoth(_ first: Project, _ second: Project, manager: DBBManager) {
        do {
            try Project.save([first, second], manager: manager)
        } catch DBBError.constraintUnique {
            print("a project with that name exists")
        } catch let error as DBBError where error.kind == .misuse {
            print(error.message, "—", error.recoverySuggestion ?? "")
        } catch {
            print(manager.errorMessage())
        }
    }
}

/// The README's example, compiled and run.
struct ReadmeSample {
    @DBBTable
    final class Person: DBBTableObject {
        @Indexed var name = ""
        var tags: [String] = []
        var boss: Person?
        @Transient var isSelected = false  // not persisted
    }

    func saveAndQuery(databaseURL: URL) throws -> [Person] {
        let manager = try DBBManager(databaseURL: databaseURL)
        try manager.addTableClasses([Person.self])  // creates the tables, join tables and indexes
        let ada = Person(dbManager: manager)
        ada.name = "Ada"
        ada.tags = ["admin", "founder"]
        try ada.save()
        let admins = DBBQueryOptions.options(withConditions: ["tags = 'admin'"], sortColumns: ["name"])
        return try Person.fetch(options: admins, manager: manager)
    }
}

@Suite struct ReadmeTests {
    @Test func theReadmeShowsOnlyCodeThatIsHere() throws {
        #expect(try DocSnippets.missingBlocks(guide: "README.md") == [])
    }

    @Test func theReadmeExampleSavesAndQueries() throws {
        let folder = try TemporaryFolder()
        let admins = try ReadmeSample().saveAndQuery(databaseURL: folder.file("readme.sqlite"))
        #expect(admins.map(\.name) == ["Ada"])
        #expect(admins.first?.tags == ["admin", "founder"])
        #expect(admins.first?.isSelected == false)
    }
}
