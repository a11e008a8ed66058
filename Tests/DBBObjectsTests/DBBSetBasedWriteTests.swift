import DBBObjects
import DBBQuery
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

@Suite("Set-based updates and deletes") struct DBBSetBasedWriteTests {
    /// Ten people aged 20…65, the even ones with nicknames; each odd one married to the one before.
    static func people(_ manager: DBBManager) throws -> [Person] {
        try manager.addTableClasses(Models.all)
        let people = (0..<10).map { index in
            let person = Person(dbManager: manager)
            person.firstName = "P\(index)"
            person.lastName = index < 5 ? "Lee" : "Kim"
            person.age = 20 + index * 5
            person.nicknames = index.isMultiple(of: 2) ? ["n\(index)", "m\(index)"] : []
            return person
        }
        for index in stride(from: 1, to: 10, by: 2) { people[index].spouse = people[index - 1] }
        try Person.save(people, manager: manager)
        return people
    }

    @Test func anUpdateChangesTheMatchingRowsAndCountsThem() throws {
        let manager = try DBBManager.inMemory()
        let people = try Self.people(manager)
        let birthday = Date(timeIntervalSinceReferenceDate: 86_400)
        var adults = DBBQueryOptions()
        adults.addCondition("age >= ?", 40)
        let changed = try Person.update(
            ["lastName": "Older", "birthday": birthday, "email": nil], where: adults, manager: manager)
        #expect(changed == 6)
        let reloaded = try Person.fetchAll(manager: manager)
        #expect(reloaded.filter { $0.lastName == "Older" }.map(\.age) == [40, 45, 50, 55, 60, 65])
        #expect(reloaded.filter { $0.lastName == "Older" }.allSatisfy { $0.birthday == birthday })
        #expect(reloaded.filter { $0.lastName != "Older" }.allSatisfy { $0.birthday == nil })
        // Join rows are untouched, modifiedTime moves.
        #expect(reloaded.map(\.nicknames.count) == people.map(\.nicknames.count))
        #expect(try #require(reloaded[9].modifiedTime) > #require(people[9].modifiedTime))
        #expect(try Person.update(["age": 1], where: .options(withConditions: ["age > 100"]), manager: manager) == 0)
    }

    @Test func badUpdatesAreRefusedAndChangeNothing() throws {
        let manager = try DBBManager.inMemory()
        _ = try Self.people(manager)
        let all = DBBQueryOptions()
        #expect(throws: DBBError.self) { try Person.update(["shoeSize": 42], where: all, manager: manager) }
        #expect(throws: DBBError.self) { try Person.update(["nicknames": "x"], where: all, manager: manager) }
        #expect(throws: DBBError.self) { try Person.update(["age": "old"], where: all, manager: manager) }
        #expect(manager.errorMessage().contains("Person.age stores Integer"))
        #expect(throws: DBBError.self) { try Person.update([:], where: all, manager: manager) }
        #expect(throws: DBBError.self) {
            try Person.update(["age": 1], where: .options(withConditions: ["height > 2"]), manager: manager)
        }
        #expect(try Person.fetchAll(manager: manager).map(\.age) == Array(stride(from: 20, through: 65, by: 5)))
    }

    @Test func aDeleteRemovesTheMatchingObjectsWithTheirJoinRowsAndReferencesToThem() throws {
        let manager = try DBBManager.inMemory()
        _ = try Self.people(manager)
        let deleted = try Person.delete(where: .options(withConditions: ["lastName = 'Lee'"]), manager: manager)
        #expect(deleted == 5)
        let left = try Person.fetchAll(manager: manager)
        #expect(left.map(\.firstName) == ["P5", "P6", "P7", "P8", "P9"])
        // P5's spouse P4 is gone: the reference row pointing at it went with it.
        #expect(left[0].spouse == nil)
        #expect(left[2].spouse?.firstName == "P6")
        #expect(try manager.rowCount(inTable: "Person_nicknames") == 4)
        #expect(try manager.rowCount(inTable: "Person_spouse") == 2)
        #expect(try Person.delete(where: .options(withConditions: ["age > 100"]), manager: manager) == 0)
    }

    @Test func theLimitAndSortOfTheOptionsApply() throws {
        let manager = try DBBManager.inMemory()
        _ = try Self.people(manager)
        var oldestTwo = DBBQueryOptions.options(sortColumns: ["age"], ascendingSort: false)
        oldestTwo.limit = 2
        #expect(try Person.delete(where: oldestTwo, manager: manager) == 2)
        #expect(try Person.fetchAll(manager: manager).map(\.age).max() == 55)
    }

    @Test func asyncForms() async throws {
        let manager = try DBBManager.inMemory()
        _ = try Self.people(manager)
        let changed = try await Person.update(
            ["age": 30], where: .options(withConditions: ["age < 30"]), manager: manager)
        #expect(changed == 2)
        let deleted = try await Person.delete(where: .options(withConditions: ["age = 30"]), manager: manager)
        #expect(deleted == 3)
        let left = try await Person.fetchCount(manager: manager)
        #expect(left == 7)
    }
}

@Suite("Upserts") struct DBBUpsertTests {
    static func company(_ name: String, employees: [String], manager: DBBManager) -> Company {
        let company = Company(dbManager: manager)
        company.name = name
        company.employees = employees.map { first in
            let person = Person(dbManager: manager)
            person.firstName = first
            return person
        }
        return company
    }

    @Test func aNewObjectWithTheUniqueValuesOfARowUpdatesItAndTakesItsID() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses(Models.all)
        let first = Self.company("Acme", employees: ["Ada", "Grace"], manager: manager)
        try first.save(onConflict: .update)
        let second = Self.company("Acme", employees: ["Linus"], manager: manager)
        try Company.save([second], onConflict: .update, manager: manager)
        #expect(second.idNum == first.idNum)
        #expect(try Company.fetchCount(manager: manager) == 1)
        let stored = try #require(try Company.fetchOne(id: first.idNum, manager: manager))
        #expect(stored.employees.map(\.firstName) == ["Linus"])
        let other = Self.company("Globex", employees: [], manager: manager)
        try other.save(onConflict: .update)
        #expect(other.idNum != first.idNum)
        #expect(try Company.fetchCount(manager: manager) == 2)
    }

    @Test func ignoreKeepsTheRowAndItsJoinRows() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses(Models.all)
        let first = Self.company("Acme", employees: ["Ada", "Grace"], manager: manager)
        try first.save()
        let second = Self.company("Acme", employees: ["Linus"], manager: manager)
        try Company.save([second], onConflict: .ignore, of: ["name"], manager: manager)
        #expect(second.idNum == first.idNum)
        let stored = try #require(try Company.fetchOne(id: first.idNum, manager: manager))
        #expect(stored.employees.map(\.firstName) == ["Ada", "Grace"])
    }

    @Test func aClassWithoutOneUniquePropertyOrAnUnindexedTargetIsRefusedAndNothingIsWritten() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses(Models.all)
        let person = Person(dbManager: manager)
        person.nicknames = ["x"]
        #expect(throws: DBBError.self) { try person.save(onConflict: .update) }
        #expect(manager.errorMessage().contains("Person has no unique properties or indexes"))
        #expect(throws: DBBError.self) { try person.save(onConflict: .update, of: ["firstName"]) }
        #expect(throws: DBBError.self) { try person.save(onConflict: .update, of: ["nicknames"]) }
        #expect(try Person.fetchCount(manager: manager) == 0)
        #expect(try manager.rowCount(inTable: "Person_nicknames") == 0)
        #expect(person.idNum == 0)
    }

    @Test func asyncForms() async throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses(Models.all)
        let first = Self.company("Acme", employees: ["Ada"], manager: manager)
        try await first.save(onConflict: .ignore)
        let second = Self.company("Acme", employees: [], manager: manager)
        try await Company.save([second], onConflict: .update, manager: manager)
        #expect(second.idNum == first.idNum)
        let count = try await Company.fetchCount(manager: manager)
        #expect(count == 1)
    }
}
