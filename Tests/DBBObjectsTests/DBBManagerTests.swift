import DBBObjects
import DBBSQL
import Foundation
import Testing

@Suite struct DBBManagerTests {
    @Test func registrationCreatesTablesJoinTablesAndIndexes() throws {
        let test = try TestManager(.file)
        let schema = try test.sql { db in
            try db.fetchDictionary("SELECT type, name FROM sqlite_master WHERE name LIKE 'Project%' ORDER BY name")
        }
        let names = schema.compactMap { $0["name"]?.stringValue }
        #expect(
            names == [
                "Project", "Project_itemName", "Project_meetings", "Project_meetings_idx", "Project_projectLead",
                "Project_projectLead_idx", "Project_subProject", "Project_subProject_idx", "Project_tags",
                "Project_tags_idx",
            ])
        let indexSQL = try test.sql { db in
            try db.fetchValue(String.self, "SELECT sql FROM sqlite_master WHERE name = 'Project_itemName'")
        }
        // The indexer names the property; the index is named after, and built on, its column.
        #expect(indexSQL == "CREATE INDEX Project_itemName ON Project (itemName)")
    }

    @Test func aNewPropertyAddsAColumnAndNothingIsDropped() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("evolve.sqlite")
        do {
            let manager = try DBBManager(databaseURL: url)
            try manager.addTableClasses([GadgetV1.self])
            let gadget = GadgetV1(dbManager: manager)
            gadget.name = "old"
            try gadget.save()
        }
        let manager = try DBBManager(databaseURL: url)
        try manager.addTableClasses([GadgetV2.self])
        let columns = try manager.queue.inDatabase { db in try db.columns(in: "Gadget").map(\.name) }
        #expect(columns == ["id", "createdTime", "modifiedTime", "legacy", "name", "weight"])
        let gadget = try #require(GadgetV2.allInstances(manager: manager).first)
        #expect(gadget.name == "old")
        #expect(gadget.weight == 1.5)  // NULL in the new column leaves the default
        #expect(try manager.queue.inDatabase { db in try db.tableExists("Gadget_parts") })
    }

    @Test func aConflictingColumnTypeIsAClearErrorAndChangesNothing() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("conflict.sqlite")
        do {
            let manager = try DBBManager(databaseURL: url)
            try manager.addTableClasses([GadgetV1.self])
        }
        let manager = try DBBManager(databaseURL: url)
        #expect(throws: DBBError.self) { try manager.addTableClasses([GadgetConflict.self]) }
        #expect(manager.errorMessage().contains("Gadget.name"))
        let columns = try manager.queue.inDatabase { db in try db.columns(in: "Gadget").map(\.name) }
        #expect(columns == ["id", "createdTime", "modifiedTime", "legacy", "name"])
        #expect(try manager.queue.inDatabase { db in try db.tableExists("Gadget_parts") } == false)
    }

    @Test func aDeclaredTypeThatDiffersFromThePropertyIsRejected() throws {
        let manager = try DBBManager.inMemory()
        #expect(throws: DBBError.self) { try manager.addTableClasses([Mistyped.self]) }
        #expect(manager.errorMessage().contains("declared"))
    }

    @Test func inheritanceMapsTheWholeClassChain() throws {
        let test = try TestManager(.memory, classes: [Pet.self])
        let columns = try test.sql { db in try db.columns(in: "Pet").map(\.name) }
        #expect(columns == ["id", "createdTime", "modifiedTime", "legs", "name", "owner"])
        let pet = Pet(dbManager: test.manager)
        pet.name = "Rex"
        pet.legs = 4
        pet.owner = "Ann"
        try pet.save()
        let loaded = try #require(Pet.allInstances(manager: test.manager).first)
        #expect((loaded.name, loaded.legs, loaded.owner) == ("Rex", 4, "Ann"))
    }

    @Test func helpers() throws {
        let test = try TestManager(.file)
        let manager = test.manager
        #expect(manager.hasLatestDBVersion(currentVersion: 1) == (false, 0))
        manager.setCurrentDBVersion(2)
        #expect(manager.hasLatestDBVersion(currentVersion: 1.5) == (true, 2))
        manager.setCurrentDBVersion(1)  // never lowers
        #expect(manager.hasLatestDBVersion(currentVersion: 2) == (true, 2))
        manager.setCurrentDBVersion(3.5)
        #expect(manager.hasLatestDBVersion(currentVersion: 4) == (false, 3.5))
        #expect(manager.countForTable("DBVersion") == 1)

        #expect(manager.dropIndex(named: "Person_lastNamefirstName"))
        #expect(try test.sql { db in try db.indexNames(in: "Person") }.contains("Person_lastNamefirstName") == false)
        #expect(manager.countForTable("NoSuchTable") == 0)
        #expect(manager.errorMessage().contains("no such table"))
        manager.vacuumDB()
        #expect(try test.sql { db in try db.fetchValue(String.self, "PRAGMA integrity_check") } == "ok")
        #expect(try test.sql { db in try db.journalMode() } == .wal)
    }

    @Test func theHelpersThrowingFormsReportErrors() throws {
        let test = try TestManager(.file)
        let manager = test.manager
        #expect(try manager.databaseVersion() == 0)
        try manager.setDatabaseVersion(2)
        try manager.setDatabaseVersion(1)  // never lowers
        #expect(try manager.databaseVersion() == 2)
        #expect(try manager.rowCount(inTable: "DBVersion") == 1)
        #expect {
            try manager.rowCount(inTable: "Nope")
        } throws: { error in
            DBBError.sqlError ~= error && (error as? DBBError)?.message == "no such table: Nope"
        }

        // A trigger refuses new versions: the throwing form says so, the compatible form records it.
        try test.sql { db in
            try db.execute("CREATE TRIGGER frozen BEFORE UPDATE ON DBVersion BEGIN SELECT RAISE(ABORT, 'frozen'); END")
            try db.execute("CREATE TABLE Tagged (label TEXT UNIQUE)")
        }
        #expect(throws: DBBError.self) { try manager.setDatabaseVersion(3) }
        #expect(manager.lastFailure?.code == DBBError.constraintTrigger)
        manager.setCurrentDBVersion(4)
        #expect(manager.errorMessage() == "frozen")
        #expect(try manager.databaseVersion() == 2)

        // The index behind a UNIQUE constraint cannot be dropped.
        #expect(throws: DBBError.self) { try manager.dropIndex("sqlite_autoindex_Tagged_1") }
        #expect(manager.dropIndex(named: "sqlite_autoindex_Tagged_1") == false)
        #expect(manager.errorMessage().contains("cannot be dropped"))
        try manager.dropIndex("Person_lastNamefirstName")
        try manager.dropIndex("Person_lastNamefirstName")  // a missing index is no error
        try manager.vacuum()

        try manager.close()
        #expect { try manager.vacuum() } throws: { DBBError.Kind.misuse ~= $0 }
        #expect { try manager.databaseVersion() } throws: { DBBError.Kind.misuse ~= $0 }
        manager.vacuumDB()
        #expect(manager.errorMessage().hasPrefix("the database is closed"))
        #expect(manager.hasLatestDBVersion(currentVersion: 1) == (false, 0))
    }

    @Test func aFileThatIsNotADatabaseIsRefusedAndUntouched() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("notes.txt")
        let bytes = Data(String(repeating: "not a database\n", count: 200).utf8)
        try bytes.write(to: url)
        #expect(throws: DBBError.self) { _ = try DBBManager(databaseURL: url) }
        #expect(try Data(contentsOf: url) == bytes)
    }
}

final class GadgetV1: DBBTableObject {
    override class var tableName: String { "Gadget" }
    var name = ""
    var legacy = 0
    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["name": .init(\GadgetV1.name), "legacy": .init(\GadgetV1.legacy)], for: self)
    }
}

final class GadgetV2: DBBTableObject {
    override class var tableName: String { "Gadget" }
    var name = ""
    var weight = 1.5
    var parts: [String] = []
    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            ["name": .init(\GadgetV2.name), "weight": .init(\GadgetV2.weight), "parts": .init(\GadgetV2.parts)],
            for: self)
    }
}

final class GadgetConflict: DBBTableObject {
    override class var tableName: String { "Gadget" }
    var name = 0
    var parts: [String] = []
    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            ["name": .init(\GadgetConflict.name), "parts": .init(\GadgetConflict.parts)], for: self)
    }
}

final class Mistyped: DBBTableObject {
    var count = 0
    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["count": .init(\Mistyped.count, type: .string)], for: self)
    }
}

// The inheritance chain of the mapping guide (Animal → Mammal → Pet).
typealias Mammal = MappingGuide.Mammal
typealias Pet = MappingGuide.Pet

@Suite struct DBBDynamicTypeTests {
    /// A class method called through a metatype variable works on the class the variable holds, not on
    /// the variable's static type: a subclass has its own table.
    @Test func metatypeVariablesReachTheirOwnClassesTable() async throws {
        let test = try TestManager(.memory, classes: [Mammal.self, Pet.self])
        let pet = Pet(dbManager: test.manager)
        pet.name = "Rex"
        pet.owner = "Ann"
        try await pet.save()
        let mammal = Mammal(dbManager: test.manager)
        mammal.name = "Wild"
        try await mammal.save()

        let type: Mammal.Type = Pet.self
        let fetched = try await type.fetch(options: DBBQueryOptions(), manager: test.manager)
        #expect(fetched.map(\.name) == ["Rex"])
        #expect((fetched.first as? Pet)?.owner == "Ann")
        #expect(type.allInstances(manager: test.manager).map(\.name) == ["Rex"])
        let saved = try type.savedInstance(values: ["name": "Fido"], manager: test.manager)
        #expect(saved is Pet)
        #expect(test.manager.countForTable("Pet") == 2)
        #expect(test.manager.countForTable("Mammal") == 1)
        let asyncFetched = try await type.fetchAll(manager: test.manager)
        #expect(asyncFetched.count == 2 && asyncFetched.allSatisfy { $0 is Pet })
    }

    @Test func batchOperationsRefuseInstancesOfASubclass() async throws {
        let test = try TestManager(.memory, classes: [Mammal.self, Pet.self])
        let pet = Pet(dbManager: test.manager)
        await #expect(throws: DBBError.self) { try await Mammal.save([pet], manager: test.manager) }
        #expect(test.manager.errorMessage().contains("Pet"))
        #expect(test.manager.countForTable("Mammal") == 0 && test.manager.countForTable("Pet") == 0)
        try await pet.save()
        await #expect(throws: DBBError.self) { try await Mammal.delete([pet], manager: test.manager) }
        #expect(test.manager.countForTable("Pet") == 1)
    }
}
