import DBBObjects
import Foundation
import Testing

/// Partial saves, vanished rows, shared columns, foreign keys of deleted rows, class chains with several
/// indexers, and registration from several threads.
@Suite struct DBBObjectsEdgeCaseTests {
    @Test func aSecondSaveAfterAPartialFetchStillLeavesUnloadedPropertiesAlone() throws {
        let world = try DBBObjectsQueryTests.world()
        let partial = try #require(
            try Project.fetch(
                options: .options(withConditions: ["name = 'Apollo'"], properties: ["name"]), manager: world.manager
            ).first)
        partial.name = "Apollo II"
        try partial.save()
        partial.name = "Apollo III"
        try partial.save()
        let reloaded = try #require(Project.instanceWithIDNumber(partial.idNum, manager: world.manager))
        #expect(reloaded.name == "Apollo III")
        #expect(reloaded.budget == 1000)
        #expect(reloaded.tags == ["space", "urgent"])
        #expect(reloaded.projectLead?.firstName == "Ann")
    }

    @Test func aJoinPropertyNamedInPropertiesButNotPopulatedIsNotRewritten() throws {
        let world = try DBBObjectsQueryTests.world()
        var options = DBBQueryOptions.options(withConditions: ["name = 'Apollo'"], properties: ["name", "tags"])
        options.joinPropertiesToPopulate = ["meetings"]
        let project = try #require(try Project.fetch(options: options, manager: world.manager).first)
        #expect(project.tags.isEmpty)  // not populated
        project.name = "Renamed"
        try project.save()
        let reloaded = try #require(Project.instanceWithIDNumber(project.idNum, manager: world.manager))
        #expect(reloaded.name == "Renamed")
        #expect(reloaded.tags == ["space", "urgent"])
    }

    @Test func savingAnObjectWhoseRowWasDeletedFailsAndWritesNothing() throws {
        let world = try DBBObjectsQueryTests.world(.file)
        let meeting = try #require(Meeting.instanceWithIDNumber(world.meetings[0].idNum, manager: world.manager))
        try Meeting.delete(ids: [meeting.idNum], manager: world.manager)
        meeting.purpose = "edited after the delete"
        #expect(meeting.saveToDB() == false)
        #expect(world.manager.errorMessage().contains("no longer exists"))
        #expect(world.manager.lastFailure?.kind == .rowDeleted)
        #expect {
            try meeting.save()
        } throws: { error in
            (error as? DBBError)?.kind == .rowDeleted
        }
        let orphans = try world.test.sql { db in
            try db.fetchValue(
                Int.self, "SELECT count(*) FROM Meeting_participants WHERE Meeting_ID = ?", meeting.idNum)
        }
        #expect(orphans == 0)
    }

    @Test func twoPropertiesOnOneColumnOrOneJoinTableAreRefused() throws {
        let manager = try DBBManager.inMemory()
        #expect(throws: DBBError.self) { try manager.addTableClasses([SharedJoinTable.self]) }
        #expect(manager.errorMessage().contains("join table"))
        #expect(throws: DBBError.self) { try manager.addTableClasses([SharedKeyColumn.self]) }
        #expect(manager.errorMessage().contains("column"))
        #expect(try manager.queue.inDatabase { db in try db.tableNames() } == ["DBVersion"])
    }

    @Test func deletingClearsForeignKeysThatPointAtTheDeletedRows() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses([Author.self, Book.self, Chapter.self])
        let author = Author(dbManager: manager)
        author.name = "Le Guin"
        let book = Book(dbManager: manager)
        book.title = "The Dispossessed"
        book.author = author
        let chapter = Chapter(dbManager: manager)
        chapter.book = book
        try chapter.save()

        try Author.delete([author], manager: manager)
        let stored = try manager.queue.inDatabase { db in
            try db.fetchValue(Int64.self, "SELECT author FROM Book WHERE id = ?", book.idNum)
        }
        #expect(stored == nil)
        #expect(Book.instanceWithIDNumber(book.idNum, manager: manager)?.author == nil)

        // A NOT NULL foreign key refuses: the delete fails and changes nothing.
        #expect(Book.deleteInstance(book, manager: manager) == false)
        #expect(manager.errorMessage().contains("NOT NULL"))
        #expect(manager.countForTable("Book") == 1)
        #expect(Chapter.allInstances(manager: manager).first?.book?.title == "The Dispossessed")
    }

    @Test func everyIndexerOfAClassChainMakesItsIndex() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses([IndexedLeaf.self])
        let indexes = try manager.queue.inDatabase { db in try db.indexNames(in: "IndexedLeaf") }
        #expect(indexes.contains("IndexedLeaf_code") && indexes.contains("IndexedLeaf_label"))
        let first = IndexedLeaf(dbManager: manager)
        first.code = "A"
        try first.save()
        let second = IndexedLeaf(dbManager: manager)
        second.code = "A"
        #expect(second.saveToDB() == false)  // the base class's UNIQUE index holds
    }

    @Test func manyThreadsRegisteringTheSameClassesGetFullMappings() async throws {
        for _ in 0..<10 {
            let manager = try DBBManager.inMemory()
            try await withThrowingTaskGroup(of: Void.self) { group in
                for _ in 0..<8 {
                    group.addTask { try manager.addTableClasses([Person.self, Project.self, Meeting.self]) }
                }
                try await group.waitForAll()
            }
            let person = Person(dbManager: manager)
            person.firstName = "Ann"
            person.nicknames = ["A"]
            try await person.save()
            let loaded = try await Person.fetchOne(id: person.idNum, manager: manager)
            #expect(loaded?.firstName == "Ann" && loaded?.nicknames == ["A"])
        }
    }

    @Test func aMappingExpressionMayUseTheManager() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses([SelfReferencingMapping.self])
        #expect(manager.countForTable("SelfReferencingMapping") == 0)
    }
}

final class SharedJoinTable: DBBTableObject {
    var tags: [String] = []
    var labels: [String] = []
    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            ["tags": .init(\SharedJoinTable.tags, columnName: "labels"), "labels": .init(\SharedJoinTable.labels)],
            for: self)
    }
}

final class SharedKeyColumn: DBBTableObject {
    var owner: Person?
    var ownerID = 0
    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "owner": .init(\SharedKeyColumn.owner, columnName: "ownerID", foreignKey: true),
                "ownerID": .init(\SharedKeyColumn.ownerID),
            ], for: self)
    }
}

final class Author: DBBTableObject {
    var name = ""
    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["name": .init(\Author.name)], for: self)
    }
}

final class Book: DBBTableObject {
    var title = ""
    var author: Author?
    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            ["title": .init(\Book.title), "author": .init(\Book.author, foreignKey: true)], for: self)
    }
}

final class Chapter: DBBTableObject {
    var book: Book?
    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        attributesDictionary = ["book": ColumnAttribute.notNull]
        dbManager.addPersistenceMapping(["book": .init(\Chapter.book, foreignKey: true)], for: self)
    }
}

class IndexedBase: DBBTableObject {
    var code = ""
    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            ["code": .init(\IndexedBase.code)], for: self, indexer: DBBIndexer(columnsToIndex: ["code"], unique: true))
    }
}

final class IndexedLeaf: IndexedBase {
    var label = ""
    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            ["label": .init(\IndexedLeaf.label)], for: self, indexer: DBBIndexer(columnsToIndex: ["label"]))
    }
}

final class SelfReferencingMapping: DBBTableObject {
    var note = ""
    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            ["note": .init(\SelfReferencingMapping.note, columnName: dbManager.errorMessage().isEmpty ? "note" : "n")],
            for: self)
    }
}

/// A mapping whose key is not the property's name.
final class MisnamedBook: DBBTableObject {
    var title = ""

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["titel": .init(\MisnamedBook.title)], for: self)
    }
}

@Suite struct DBBObjectsPresetIDTests {
    @Test(arguments: Storage.allCases) func anObjectWithAPresetIDIsInsertedWithIt(storage: Storage) throws {
        let test = try TestManager(storage)
        let manager = test.manager
        let imported = Person(dbManager: manager)
        imported.idNum = 100
        imported.firstName = "Ada"
        imported.nicknames = ["Countess"]
        let company = Company(dbManager: manager)
        company.name = "Analytical"
        company.employees = [imported]
        try company.save()  // the unsaved person with a preset id is saved along, with that id
        #expect(imported.idNum == 100)
        #expect(imported.createdTime != nil)
        let loaded = try #require(try Person.fetchOne(id: 100, manager: manager))
        #expect((loaded.firstName, loaded.nicknames) == ("Ada", ["Countess"]))
        #expect(try Company.fetchAll(manager: manager).first?.employees.map(\.idNum) == [100])

        // Saved once, the object updates its row; ids chosen by SQLite continue after the preset one.
        imported.lastName = "Lovelace"
        try imported.save()
        #expect(try Person.fetchOne(id: 100, manager: manager)?.lastName == "Lovelace")
        let next = Person(dbManager: manager)
        try next.save()
        #expect(next.idNum == 101)
        #expect(try Person.fetchCount(manager: manager) == 2)
    }

    @Test func aPresetIDThatIsTakenIsAnErrorAndChangesNothing() throws {
        let test = try TestManager(.file)
        let manager = test.manager
        let first = Person(dbManager: manager)
        first.firstName = "First"
        try first.save()
        let clash = Person(dbManager: manager)
        clash.idNum = first.idNum
        clash.firstName = "Clash"
        clash.nicknames = ["x"]
        #expect(clash.saveToDB() == false)
        #expect(manager.lastFailure?.code == DBBError.constraintPrimaryKey)
        #expect(clash.idNum == first.idNum && clash.createdTime == nil)
        #expect(try Person.fetchOne(id: first.idNum, manager: manager)?.firstName == "First")
        #expect(try test.sql { db in try db.fetchValue(Int.self, "SELECT count(*) FROM Person_nicknames") } == 0)
    }

    @Test func aDeletedObjectIsNewAgain() throws {
        let test = try TestManager(.memory)
        let person = Person(dbManager: test.manager)
        try person.save()
        try person.delete()
        #expect(person.idNum == 0)
        try person.save()
        #expect(person.idNum != 0)
        #expect(try Person.fetchCount(manager: test.manager) == 1)
    }

    @Test func aMappingKeyThatIsNotThePropertysNameIsARegistrationError() throws {
        let manager = try DBBManager.inMemory()
        let error = #expect(throws: DBBError.self) { try manager.addTableClasses([MisnamedBook.self]) }
        #expect(error?.kind == .misuse)
        #expect(error?.message == "mapping key titel does not name its key path's property, title")
        #expect(try manager.queue.inDatabase { db in try db.tableNames() } == ["DBVersion"])
    }
}
