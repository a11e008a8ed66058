import DBBObjects
import Foundation
import Testing

// The code of Docs/Mapping.md and Docs/ExistingDatabases.md, compiled and run. `docsMatchTheTests` fails
// when a ```swift block of those guides no longer appears in this file or in ChinookMappingTests.swift.

enum MappingGuide {
    final class Person: DBBTableObject {
        var name = ""

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["name": .init(\Person.name)], for: self)
        }
    }

    final class Meeting: DBBTableObject {
        var purpose = ""

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["purpose": .init(\Meeting.purpose)], for: self)
        }
    }

    final class Project: DBBTableObject {
        var name = ""
        var code = ""
        var startDate: Date?
        var budget: Float = 0
        var tags: [String] = []
        var meetings: [Meeting] = []
        var projectLead: Person?

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            attributesDictionary = ["code": ColumnAttribute.unique]
            dbManager.addPersistenceMapping(
                [
                    "name": .init(\Project.name, columnName: "itemName"),
                    "code": .init(\Project.code),
                    "startDate": .init(\Project.startDate),
                    "budget": .init(\Project.budget),
                    "tags": .init(\Project.tags),
                    "meetings": .init(\Project.meetings),
                    "projectLead": .init(\Project.projectLead),
                ], for: self, indexer: DBBIndexer(columnsToIndex: ["name"]))
        }
    }

    class Animal: DBBTableObject {
        var name = ""

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["name": .init(\Animal.name)], for: self)
        }
    }

    class Mammal: Animal {
        var legs = 4

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["legs": .init(\Mammal.legs)], for: self)
        }
    }

    final class Pet: Mammal {
        var owner = ""

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["owner": .init(\Pet.owner)], for: self)
        }
    }

    final class Task: DBBTableObject {
        var title = ""
        var done = false
        var steps: [String] = []

        override class var persistenceMapping: DBBTableMapping {
            super.persistenceMapping.merging(
                DBBTableMapping(
                    [
                        "title": .init(get: { (task: Task) -> String in task.title }, set: { $0.title = $1 }),
                        "done": .init(get: { (task: Task) -> Bool in task.done }, set: { $0.done = $1 }),
                        "steps": .init(get: { (task: Task) -> [String] in task.steps }, set: { $0.steps = $1 }),
                    ],
                    attributes: ["title": ColumnAttribute.notNull],
                    indexers: [DBBIndexer(columnsToIndex: ["title"])]))
        }
    }

    final class Reminder: DBBTableObject {
        var text = ""
        var pinned = false

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                [
                    "text": .init(\Reminder.text, get: { $0.text }, set: { $0.text = $1 }),
                    "pinned": .init(\Reminder.pinned, get: { $0.pinned }, set: { $0.pinned = $1 }),
                ], for: self)
        }
    }
}

@Suite struct DocsExamplesTests {
    typealias Person = MappingGuide.Person
    typealias Meeting = MappingGuide.Meeting
    typealias Project = MappingGuide.Project
    typealias Artist = Chinook.Artist
    typealias Album = Chinook.Album

    @Test func mappingGuide() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("guide.sqlite")
        let manager = try DBBManager(databaseURL: url)
        try manager.addTableClasses([Person.self, Meeting.self, Project.self])
        let project = Project(dbManager: manager)
        project.name = "Apollo"
        project.tags = ["space", "moon"]
        try project.save()
        let projects = Project.allInstances(manager: manager)
        #expect(projects.map(\.name) == ["Apollo"])
        #expect(projects.first?.tags == ["space", "moon"])

        let wrongType = try DBBManager.inMemory()
        let error = #expect(throws: DBBError.self) { try wrongType.addTableClasses([WronglyTyped.self]) }
        #expect(error?.message == "property budget is declared as int but its type maps to float")
        #expect(try wrongType.queue.inDatabase { try $0.tableExists("WronglyTyped") } == false)
    }

    /// The guide's `.init(\Project.budget, type: .int)`.
    final class WronglyTyped: DBBTableObject {
        var budget: Float = 0

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["budget": .init(\WronglyTyped.budget, type: .int)], for: self)
        }
    }

    @Test(arguments: Storage.allCases) func inheritanceAndClosures(storage: Storage) throws {
        let test = try TestManager(storage, classes: [MappingGuide.Pet.self, MappingGuide.Reminder.self])
        #expect(
            try test.sql { try $0.columns(in: "Pet").map(\.name) } == [
                "id", "createdTime", "modifiedTime", "legs", "name", "owner",
            ])
        #expect(try test.sql { try $0.tableExists("Animal") || $0.tableExists("Mammal") } == false)
        let pet = MappingGuide.Pet(dbManager: test.manager)
        pet.name = "Rex"
        pet.legs = 3
        pet.owner = "Ann"
        let reminder = MappingGuide.Reminder(dbManager: test.manager)
        reminder.text = "feed Rex"
        reminder.pinned = true
        try pet.save()
        try reminder.save()
        let loadedPet = try #require(try MappingGuide.Pet.fetchOne(id: pet.idNum, manager: test.manager))
        #expect(loadedPet !== pet)
        #expect(loadedPet.name == "Rex" && loadedPet.legs == 3 && loadedPet.owner == "Ann")
        let loadedReminder = try #require(MappingGuide.Reminder.allInstances(manager: test.manager).first)
        #expect(loadedReminder.text == "feed Rex" && loadedReminder.pinned)
        #expect(
            try test.sql { try $0.fetchDictionary("SELECT text, pinned FROM Reminder") } == [
                ["text": .text("feed Rex"), "pinned": .integer(1)]
            ])
    }

    @Test func theClassLevelMappingOfTheGuide() throws {
        let test = try TestManager(.memory, classes: [MappingGuide.Task.self])
        let task = MappingGuide.Task(dbManager: test.manager)
        task.title = "write"
        task.done = true
        task.steps = ["draft", "edit"]
        try task.save()
        let loaded = try #require(try MappingGuide.Task.fetchOne(id: task.idNum, manager: test.manager))
        #expect(loaded.title == "write" && loaded.done && loaded.steps == ["draft", "edit"])
        let sql = try test.sql { try $0.fetchValue(String.self, "SELECT sql FROM sqlite_master WHERE name = 'Task'") }
        #expect(sql?.contains("title Text NOT NULL") == true)
        #expect(
            try test.sql { try $0.fetchValue(Int.self, "SELECT count(*) FROM sqlite_master WHERE name = 'Task_title'") }
                == 1)
    }

    @Test func aSendableKeyPathKeptInAVariable() throws {
        let name: ReferenceWritableKeyPath<Project, String> & Sendable = \Project.name
        let entry: DBBPropertyPersistence = .init(name, columnName: "itemName")
        #expect(entry.columnName == "itemName")
        #expect(entry.storageType == .string)
        #expect(entry.keyPathPropertyName == "name")
    }

    @Test func existingDatabasesGuide() throws {
        let folder = try TemporaryFolder()
        let chinookCopy = try copyOfFixture("chinook.sqlite", into: folder)
        let manager = try DBBManager(databaseURL: chinookCopy)
        try manager.addTableClasses([Artist.self, Album.self])
        let album = try Album.fetchOne(id: 1, manager: manager)
        // album?.title is "For Those About To Rock We Salute You", album?.artist?.name is "AC/DC"
        #expect(album?.title == "For Those About To Rock We Salute You")
        #expect(album?.artist?.name == "AC/DC")
    }

    /// The statements of OnDiskLayout.md's example are exactly what SQLite holds for the guide's `Project`.
    @Test func onDiskLayoutExample() throws {
        let test = try TestManager(.memory, classes: [Person.self, Meeting.self, Project.self])
        let documented = try Self.blocks("sql", in: "Docs/OnDiskLayout.md").flatMap { $0 }
        let stored = try test.sql { db in
            try db.fetchValues(
                String.self,
                "SELECT sql FROM sqlite_master WHERE tbl_name LIKE 'Project%' AND sql IS NOT NULL ORDER BY rowid")
        }
        #expect(!documented.isEmpty)
        #expect(documented.map { $0.replacingOccurrences(of: " IF NOT EXISTS", with: "") } == stored)
    }

    @Test(arguments: ["Docs/Mapping.md", "Docs/ExistingDatabases.md"])
    func docsMatchTheTests(document: String) throws {
        // The macro's examples need DBBMacros, so they stand in that module's tests.
        let files = [
            "DBBObjectsTests/DocsExamplesTests.swift", "DBBObjectsTests/ChinookMappingTests.swift",
            "DBBMacrosTests/MacroDocsExamplesTests.swift",
        ]
        let sources = try files.map {
            try String(contentsOf: repositoryRoot.appendingPathComponent("Tests/\($0)"), encoding: .utf8)
        }
        let tested = sources.map(Self.normalized)
        let blocks = try Self.blocks("swift", in: document)
        #expect(!blocks.isEmpty)
        for block in blocks {
            let lines = Self.normalized(block.joined(separator: "\n"))
            #expect(
                tested.contains { Self.contains($0, lines) },
                "this block of \(document) is not in the tests:\n\(block.joined(separator: "\n"))")
        }
    }

    /// The fenced code blocks of one language in a Markdown file of the repository, as lines.
    static func blocks(_ language: String, in document: String) throws -> [[String]] {
        DocSnippets.blocks(
            language, in: try String(contentsOf: repositoryRoot.appendingPathComponent(document), encoding: .utf8))
    }

    /// Lines without indentation or trailing space, blank lines dropped (the tests nest the code deeper).
    static func normalized(_ text: String) -> [String] {
        text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }.filter { !$0.isEmpty }
    }

    static func contains(_ haystack: [String], _ needle: [String]) -> Bool {
        guard !needle.isEmpty, needle.count <= haystack.count else { return needle.isEmpty }
        return (0...(haystack.count - needle.count)).contains { start in
            haystack[start..<(start + needle.count)].elementsEqual(needle)
        }
    }
}
