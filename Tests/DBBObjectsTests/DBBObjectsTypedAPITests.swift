import DBBObjects
import Foundation
import Testing

/// The typed, throwing entry points: results typed to the calling class, counts by COUNT queries, instance
/// deletes, and completion handlers whose results may move on to other isolation domains.
@Suite struct DBBObjectsTypedAPITests {
    @Test(arguments: Storage.allCases) func fetchesAndSavesAreTypedToTheCallingClass(storage: Storage) throws {
        let world = try DBBObjectsQueryTests.world(storage)
        let people: [Person] = try Person.fetchAll(manager: world.manager)
        #expect(people.map(\.firstName) == ["Ann", "Bo", "Cy", "Di", "Ed"])
        let lees: [Person] = try Person.fetch(
            options: .options(withConditions: ["lastName = 'Lee'"], sortColumns: ["age"]), manager: world.manager)
        #expect(lees.map(\.firstName) == ["Cy", "Ann"])
        lees[0].age = 29
        try Person.save(lees, manager: world.manager)
        #expect(try Person.fetchOne(id: lees[0].idNum, manager: world.manager)?.age == 29)
        try Person.delete([lees[1]], manager: world.manager)
        #expect(lees[1].idNum == 0)
        #expect(try Person.fetchAll(manager: world.manager).count == 4)
    }

    @Test func fetchCountRunsOneCountQueryThatAgreesWithTheFetch() throws {
        let world = try DBBObjectsQueryTests.world(.file)
        var options = DBBQueryOptions()
        options.addCondition("age > ?", 30)
        var count = 0
        let statements = try world.test.statements {
            count = try Person.fetchCount(options: options, manager: world.manager)
        }
        #expect(count == 4)
        #expect(statements == ["SELECT count(*) FROM Person WHERE (age > ?)"])

        #expect(try Person.fetchCount(manager: world.manager) == 5)
        // A condition through a join table, paging, and distinct combinations count as the fetch returns.
        let urgent = DBBQueryOptions.options(withConditions: ["tags = 'urgent'"])
        #expect(try Project.fetchCount(options: urgent, manager: world.manager) == 2)
        options.limit = 2
        options.offset = 3
        #expect(try Person.fetchCount(options: options, manager: world.manager) == 1)
        #expect(try Person.fetch(options: options, manager: world.manager).count == 1)
        let distinctAges = DBBQueryOptions.options(properties: ["age"], distinct: true)
        #expect(try Person.fetchCount(options: distinctAges, manager: world.manager) == 4)
        #expect(try Person.fetch(options: distinctAges, manager: world.manager).count == 4)

        let wrong = DBBQueryOptions.options(withConditions: ["nope = 1"])
        #expect(throws: DBBError.self) { try Person.fetchCount(options: wrong, manager: world.manager) }
        #expect(world.manager.errorMessage().contains("no such column: nope"))
    }

    @Test(arguments: Storage.allCases) func aConditionNamingAnUnknownPropertySaysSo(storage: Storage) throws {
        let world = try DBBObjectsQueryTests.world(storage)
        let typo = DBBQueryOptions.options(withConditions: ["fristName = 'Ann'"])
        for error in [
            #expect(throws: DBBError.self) { try Person.fetch(options: typo, manager: world.manager) },
            #expect(throws: DBBError.self) { try Person.fetchCount(options: typo, manager: world.manager) },
        ] {
            #expect(error?.message == "fristName is not a mapped property of Person (no such column: fristName)")
        }
        // A column SQLite knows (the id) is not reported as a property, nor is a real property's failure.
        let known = DBBQueryOptions.options(withConditions: ["id > 0 AND firstName = 'Ann'"])
        #expect(try Person.fetchCount(options: known, manager: world.manager) == 1)
    }

    @Test func fetchCountHasAnAsyncForm() async throws {
        let world = try DBBObjectsQueryTests.world()
        let lees = DBBQueryOptions.options(withConditions: ["lastName = 'Lee'"])
        #expect(try await Person.fetchCount(options: lees, manager: world.manager) == 2)
    }

    @Test(arguments: Storage.allCases) func anInstanceDeletesItselfWithItsJoinRows(storage: Storage) throws {
        let world = try DBBObjectsQueryTests.world(storage)
        let apollo = world.projects[0]
        let id = apollo.idNum
        try apollo.delete()
        #expect(apollo.idNum == 0)
        #expect(try Project.fetchOne(id: id, manager: world.manager) == nil)
        let tags = try world.test.sql { db in
            try db.fetchValue(Int.self, "SELECT count(*) FROM Project_tags WHERE Project_ID = ?", id)
        }
        #expect(tags == 0)
        try apollo.delete()  // unsaved now: nothing to delete
        #expect(try Project.fetchCount(manager: world.manager) == 2)
    }

    @Test func anInstanceDeletesItselfWithoutBlocking() async throws {
        let world = try DBBObjectsQueryTests.world()
        let person = world.people[4]
        try await person.delete()
        #expect(person.idNum == 0)
        #expect(try await Person.fetchCount(manager: world.manager) == 4)
    }

    @Test func theCompatibleFormsReportWhatTheThrowingFormsThrow() throws {
        let manager = try DBBManager.inMemory()
        #expect(throws: DBBError.self) { _ = try Person.fetchAll(manager: manager) }
        #expect(Person.allInstances(manager: manager).isEmpty)
        #expect(manager.lastFailure?.kind == .misuse)
        let person = Person(dbManager: manager)
        #expect(throws: DBBError.self) { try person.delete() }
        #expect(Person.deleteInstance(person, manager: manager) == false)
        #expect(manager.errorMessage().contains("not registered"))
    }

    @Test func completionHandlersHandTheirObjectsOnToAnActor() async throws {
        let world = try DBBObjectsQueryTests.world()
        let inbox = Inbox()
        // `resume(returning:)` takes a `sending` value: this compiles only because the handler's array is one.
        let people = await withCheckedContinuation { (continuation: CheckedContinuation<[Person], Never>) in
            Person.getAllInstancesFromQueue(manager: world.manager) { people in
                continuation.resume(returning: people)
            }
        }
        await inbox.take(people)
        let found = await withCheckedContinuation { (continuation: CheckedContinuation<[Project], Never>) in
            Project.getInstancesFromQueue(
                withOptions: .options(withConditions: ["tags = 'urgent'"]), manager: world.manager
            ) { projects, _ in
                continuation.resume(returning: projects)
            }
        }
        #expect(found.map(\.name) == ["Apollo", "Cygnus"])
        #expect(await inbox.names == ["Lee", "O'Brien", "Lee", "Park", "Ng"])
    }
}

/// An actor that receives fetched objects.
private actor Inbox {
    var names: [String] = []
    func take(_ people: [Person]) { names += people.map(\.lastName) }
}
