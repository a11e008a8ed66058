import DBBObjects
import Foundation
import Testing

/// `manager.write { }` and `manager.read { }`: object calls and SQL in one transaction or one snapshot.
@Suite struct DBBManagerTransactionTests {
    struct Abort: Error {}

    @Test(arguments: Storage.allCases) func objectsAndSQLCommitTogether(storage: Storage) throws {
        let test = try TestManager(storage)
        let manager = test.manager
        let ann = Person(dbManager: manager)
        ann.firstName = "Ann"
        let apollo = Project(dbManager: manager)
        apollo.name = "Apollo"
        let seen = try manager.write { db -> Int in
            try ann.save()
            apollo.projectLead = ann
            try Project.save([apollo], manager: manager)
            try db.execute("UPDATE Person SET age = 40 WHERE id = ?", ann.idNum)
            // Fetches inside see what the transaction wrote.
            return try Person.fetchOne(id: ann.idNum, manager: manager)?.age ?? -1
        }
        #expect(seen == 40)
        #expect(try Project.fetchAll(manager: manager).map { $0.projectLead?.firstName } == ["Ann"])
    }

    @Test(arguments: Storage.allCases) func aThrowRollsBackEverythingAndRestoresTheObjects(storage: Storage) throws {
        let test = try TestManager(storage)
        let manager = test.manager
        let kept = Person(dbManager: manager)
        kept.firstName = "Kept"
        try kept.save()
        let keptID = kept.idNum
        let fresh = Person(dbManager: manager)
        fresh.firstName = "Fresh"
        #expect(throws: Abort.self) {
            try manager.write { db in
                try fresh.save()
                try kept.delete()
                try db.execute("INSERT INTO Company (name) VALUES ('Acme')")
                #expect(fresh.idNum != 0 && kept.idNum == 0)
                throw Abort()
            }
        }
        #expect(fresh.idNum == 0 && fresh.createdTime == nil)
        #expect(kept.idNum == keptID)
        #expect(try Person.fetchAll(manager: manager).map(\.firstName) == ["Kept"])
        #expect(try Company.fetchCount(manager: manager) == 0)
        // The restored objects save as they would have before.
        try fresh.save()
        kept.age = 9
        try kept.save()
        #expect(try Person.fetchAll(manager: manager).map(\.age) == [9, 0])
    }

    @Test func aReadSeesOneSnapshotWhileAnotherConnectionCommits() throws {
        let test = try TestManager(.file)
        let manager = test.manager
        try Person.save((0..<3).map { _ in Person(dbManager: manager) }, manager: manager)
        let other = try DBBDatabase(url: test.folder.file("test.sqlite"))
        let (before, during) = try manager.read { _ -> (Int, Int) in
            let before = try Person.fetchCount(manager: manager)
            try other.execute("INSERT INTO Person (firstName) VALUES ('Other')")
            return (before, try Person.fetchAll(manager: manager).count)
        }
        #expect((before, during) == (3, 3))
        #expect(try Person.fetchCount(manager: manager) == 4)
        try other.close()
    }

    @Test func aReadRefusesWritesAndScopesDoNotNest() throws {
        let test = try TestManager(.memory)
        let manager = test.manager
        let person = Person(dbManager: manager)
        let error = #expect(throws: DBBError.self) { try manager.read { _ in try person.save() } }
        #expect(error?.kind == .misuse)
        #expect(error?.message == "saving objects inside manager.read, which only reads")
        #expect(throws: DBBError.self) { try manager.read { db in try db.execute("DELETE FROM Person") } }
        let nested = #expect(throws: DBBError.self) { try manager.write { _ in try manager.read { _ in 1 } } }
        #expect(nested?.kind == .misuse)
        let queued = #expect(throws: DBBError.self) {
            try manager.queue.inTransaction { _ in try person.save() }
        }
        #expect(queued?.recoverySuggestion?.contains("manager.write") == true)
        // After a read, writes work again: query_only was reset.
        try person.save()
        #expect(try Person.fetchCount(manager: manager) == 1)
    }

    @Test func aGraphFetchRunsInOneTransaction() throws {
        let world = try DBBObjectsQueryTests.world(.file)
        var projects: [Project] = []
        let statements = try world.test.statements { projects = try Project.fetchAll(manager: world.manager) }
        #expect(projects.count == 3)
        #expect(statements.first == "BEGIN DEFERRED TRANSACTION")
        #expect(statements.last == "COMMIT TRANSACTION")
        #expect(statements.count > 4)  // the rows, the join tables, the referenced people
    }

    @Test func aReadOnlyManagerReadsButDoesNotWrite() throws {
        let folder = try TemporaryFolder()
        let url = try DBBManagerReadOnlyTests.someoneElsesFile(folder)
        let reader = try DBBManager(databaseURL: url, mode: .readOnly)
        try reader.addTableClasses([Note.self])
        #expect(try reader.read { _ in try Note.fetchCount(manager: reader) } == 2)
        #expect(throws: DBBError.self) { try reader.write { _ in () } }
        #expect(try reader.read { _ in try Note.fetchCount(manager: reader) } == 2)  // still query-only
        #expect(throws: DBBError.self) { try reader.queue.inDatabase { db in try db.execute("DELETE FROM Note") } }
        try reader.close()
    }

    @Test func theAsyncFormsRunOnTheQueueWithoutBlocking() async throws {
        let test = try TestManager(.file)
        let manager = test.manager
        let id = try await manager.write { db -> Int64 in
            let person = Person(dbManager: manager)
            person.firstName = "Async"
            try person.save()
            try db.execute("UPDATE Person SET age = 7 WHERE id = ?", person.idNum)
            return person.idNum
        }
        let person = try await manager.read { _ in try Person.fetchOne(id: id, manager: manager) }
        #expect(person?.age == 7)
        await #expect(throws: Abort.self) {
            try await manager.write { _ in
                try Person(dbManager: manager).save()
                throw Abort()
            }
        }
        #expect(try await Person.fetchCount(manager: manager) == 1)
    }
}
