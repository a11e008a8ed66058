import DBBObjects
import Foundation
import Testing

/// Eight tasks share one manager for a few seconds — saving, updating, fetching with options and
/// deleting objects of the same classes — and record what they wrote; afterwards every surviving object
/// must match the record field by field. With readers, the fetches run on them while the saves and
/// deletes run on the writer.
@Suite struct DBBObjectsStressTests {
    struct Expected: Sendable, Equatable {
        var firstName: String
        var lastName: String
        var age: Int
        var nicknames: [String]
    }

    @Test(arguments: ManagerKind.allCases) func concurrentTasksLoseAndTearNothing(kind: ManagerKind) async throws {
        let folder = try TemporaryFolder()
        let manager = try kind.manager(in: folder)
        let deadline = Date().addingTimeInterval(2)

        let records = try await withThrowingTaskGroup(of: [Int64: Expected?].self) { group in
            for worker in 0..<8 {
                group.addTask {
                    var mine: [Int64: Expected?] = [:]
                    var step = 0
                    // A time window and a minimum of work each, so a loaded machine still exercises every path.
                    while Date() < deadline || step < 60 {
                        step += 1
                        switch step % 5 {
                        case 0, 1:
                            let person = Person(dbManager: manager)
                            person.firstName = "W\(worker)"
                            person.lastName = "S\(step)"
                            person.age = step
                            person.nicknames = ["n\(worker)", "s\(step)"]
                            try await person.save()
                            mine[person.idNum] = Expected(
                                firstName: person.firstName, lastName: person.lastName, age: person.age,
                                nicknames: person.nicknames)
                        case 2:
                            guard let id = mine.keys.filter({ mine[$0] != nil }).randomElement(),
                                let person = try await Person.fetchOne(id: id, manager: manager)
                            else { continue }
                            person.age += 1000
                            person.nicknames.append("u\(step)")
                            try await person.save()
                            mine[id] = Expected(
                                firstName: person.firstName, lastName: person.lastName, age: person.age,
                                nicknames: person.nicknames)
                        case 3:
                            var options = DBBQueryOptions.options(sortColumns: ["age"], ascendingSort: false)
                            options.addCondition("firstName = ?", "W\(worker)")
                            let found = try await Person.fetch(options: options, manager: manager)
                            let expectedIDs = Set(mine.filter { $0.value != nil }.keys)
                            if Set(found.map(\.idNum)) != expectedIDs {
                                throw DBBError(.error, message: "worker \(worker) saw other rows than it wrote")
                            }
                        default:
                            guard let id = mine.keys.filter({ mine[$0] != nil }).randomElement() else { continue }
                            try await Person.delete(ids: [id], manager: manager)
                            mine[id] = .some(nil)
                        }
                    }
                    return mine
                }
            }
            var all: [Int64: Expected?] = [:]
            for try await partial in group { all.merge(partial) { _, new in new } }
            return all
        }

        let survivors = try await Person.fetchAll(manager: manager)
        let expectedAlive = records.compactMapValues { $0 }
        #expect(expectedAlive.count > 50)
        #expect(Set(survivors.map(\.idNum)) == Set(expectedAlive.keys))
        for person in survivors {
            let expected = try #require(expectedAlive[person.idNum])
            #expect(
                Expected(
                    firstName: person.firstName, lastName: person.lastName, age: person.age, nicknames: person.nicknames
                )
                    == expected)
        }
        let orphans = try await manager.queue.inDatabase { db in
            try db.fetchValue(
                Int.self, "SELECT count(*) FROM Person_nicknames WHERE Person_ID NOT IN (SELECT id FROM Person)")
        }
        #expect(orphans == 0)
    }
}
