import DBBObjects
import DBBQuery
import Foundation
import Testing

@Suite struct DBBObjectsAsyncTests {
    @Test(arguments: Storage.allCases) func asyncFormsOfFetchSaveAndDelete(storage: Storage) async throws {
        let test = try TestManager(storage)
        let manager = test.manager
        let ann = Person(dbManager: manager)
        ann.firstName = "Ann"
        ann.nicknames = ["A"]
        try await ann.save()
        #expect(ann.idNum > 0)
        let people = (0..<3).map { index -> Person in
            let person = Person(dbManager: manager)
            person.firstName = "P\(index)"
            person.age = index
            return person
        }
        try await Person.save(people, manager: manager)

        let all = try await Person.fetchAll(manager: manager)
        #expect(all.map(\.firstName) == ["Ann", "P0", "P1", "P2"])
        let one = try await Person.fetchOne(id: ann.idNum, manager: manager)
        #expect(one?.nicknames == ["A"])
        let some = try await Person.fetch(ids: [people[2].idNum, ann.idNum], manager: manager)
        #expect(some.map(\.firstName) == ["P2", "Ann"])
        let old = try await Person.fetch(options: .options(withConditions: ["age >= 1"]), manager: manager)
        #expect(old.map(\.firstName) == ["P1", "P2"])
        #expect(try await Person.fetchAllIDs(manager: manager) == [ann.idNum] + people.map(\.idNum))

        try await Person.delete([people[0]], manager: manager)
        #expect(people[0].idNum == 0)
        try await Person.delete(ids: [people[1].idNum], manager: manager)
        #expect(try await Person.fetchAllIDs(manager: manager) == [ann.idNum, people[2].idNum])
        try await Person.deleteAll(manager: manager)
        #expect(try await Person.fetchAll(manager: manager).isEmpty)

        await #expect(throws: DBBError.self) {
            _ = try await Person.fetch(options: .options(withConditions: ["age >"]), manager: manager)
        }
    }

    @Test(arguments: Storage.allCases) func asyncCountsOfObjectsAndRows(storage: Storage) async throws {
        let test = try TestManager(storage)
        let manager = test.manager
        let people = (0..<5).map { index -> Person in
            let person = Person(dbManager: manager)
            person.firstName = "P\(index)"
            person.age = 20 + index
            person.nicknames = Array(repeating: "n", count: index)
            return person
        }
        try await Person.save(people, manager: manager)

        #expect(try await Person.fetchCount(manager: manager) == 5)
        var older = DBBQueryOptions()
        older.filter(\Person.age >= 22)
        #expect(try await Person.fetchCount(options: older, manager: manager) == 3)
        #expect(try await manager.rowCount(inTable: Person.tableName) == 5)
        #expect(try await manager.rowCount(inTable: "Person_nicknames") == 10)
        let missing = await #expect(throws: DBBError.self) { try await manager.rowCount(inTable: "Nope") }
        #expect(missing?.message.contains("no such table: Nope") == true)
        #expect(manager.errorMessage().contains("no such table: Nope"))
    }

    @Test func completionHandlerForms() async throws {
        let test = try TestManager(.file)
        let manager = test.manager
        // The queued forms take the objects over: build them where they are handed on.
        let saved = await withCheckedContinuation { continuation in
            let people = (0..<4).map { index -> Person in
                let person = Person(dbManager: manager)
                person.firstName = "Q\(index)"
                person.age = index * 10
                return person
            }
            Person.saveObjectsOnQueue(people, dbManager: manager) { continuation.resume(returning: $0) }
        }
        #expect(saved)
        let ids = try await Person.fetchAllIDs(manager: manager)
        #expect(ids.count == 4)

        let names = await withCheckedContinuation { continuation in
            Person.getAllInstancesFromQueue(manager: manager) { continuation.resume(returning: $0.map(\.firstName)) }
        }
        #expect(names == ["Q0", "Q1", "Q2", "Q3"])

        let (matching, error) = await withCheckedContinuation { continuation in
            Person.getInstancesFromQueue(withOptions: .options(withConditions: ["age > 15"]), manager: manager) {
                continuation.resume(returning: ($0.map(\.firstName), $1))
            }
        }
        #expect(matching == ["Q2", "Q3"] && error == nil)
        let (_, failure) = await withCheckedContinuation { continuation in
            Person.getInstancesFromQueue(withOptions: .options(withConditions: ["age >"]), manager: manager) {
                continuation.resume(returning: ($0.count, $1))
            }
        }
        #expect(failure?.message.contains("syntax error") == true)

        let single = await withCheckedContinuation { continuation in
            Person.getQueuedInstanceWithIDNumber(ids[1], manager: manager) {
                continuation.resume(returning: $0?.firstName)
            }
        }
        #expect(single == "Q1")
        let several = await withCheckedContinuation { continuation in
            Person.getInstancesWithIDNumbersFromQueue(ids: [ids[3], ids[0]], manager: manager) {
                continuation.resume(returning: $0.map(\.firstName))
            }
        }
        #expect(several == ["Q3", "Q0"])
        let fetchedIDs = await withCheckedContinuation { continuation in
            Person.fetchAllInstanceIDsFromQueue(manager: manager) { continuation.resume(returning: $0) }
        }
        #expect(fetchedIDs == ids)

        let deleted = await withCheckedContinuation { continuation in
            let doomed = Person.instancesWithIDNumbers([ids[0], ids[2]], manager: manager)
            Person.deleteMultipleInstancesOnQueue(doomed, manager: manager) { continuation.resume(returning: $0) }
        }
        #expect(deleted)
        // The queued delete really deletes.
        #expect(try await Person.fetchAllIDs(manager: manager) == [ids[1], ids[3]])
    }
}
