import DBBObjects
import DBBQuery
import DBBSQL
import DBBSchema
import Foundation
import Testing

/// Compiles only for a `Sendable` value: the compiler checks the conformance, and the value comes back for the
/// test to use.
private func requireSendable<T: Sendable>(_ value: T) -> T { value }

/// Compiles only for a `Sendable` type (for the package types a test cannot build on its own).
private func requireSendable<T: Sendable>(_ type: T.Type) -> String { String(describing: type) }

/// Mapping entries, class-level mappings and typed conditions are `Sendable` as the compiler checks it: they are
/// built on one task and used on others, reading and writing objects each task made.
@Suite struct ClassMappingSendableTests {
    /// Closure entries of a class-level mapping, as `@DBBTable` and `dbb-codegen` write them.
    final class Courier: DBBTableObject {
        var name = ""
        var rounds: [Int] = []

        override class var persistenceMapping: DBBTableMapping {
            DBBTableMapping([
                "name": .init(get: { (courier: Courier) -> String in courier.name }, set: { $0.name = $1 }),
                "rounds": .init(get: { (courier: Courier) -> [Int] in courier.rounds }, set: { $0.rounds = $1 }),
            ])
        }
    }

    @Test func theMappingAndConditionTypesAreSendable() {
        let surname = requireSendable(DBBPropertyPersistence(\Person.lastName, columnName: "surname"))
        #expect(surname.columnName == "surname")
        #expect(surname.storageType == .string)
        let direct = requireSendable(
            DBBPropertyPersistence(\Person.age, get: { $0.age }, set: { $0.age = $1 }))
        #expect(direct.storageType == .int)
        let mapping = requireSendable(Courier.persistenceMapping)
        #expect(mapping.properties.keys.sorted() == ["name", "rounds"])
        #expect(mapping.properties["rounds"]?.storageType == .intArray)
        let condition = requireSendable(\Person.age > 30 && \Person.lastName == "Lee")
        var options = DBBQueryOptions()
        options.filter(condition)
        #expect(requireSendable(options).typedConditions.count == 1)
        let types = [
            requireSendable(DBBPropertyAccessor.self), requireSendable(DBBScalarAccessor.self),
            requireSendable(DBBValuesAccessor.self), requireSendable(DBBObjectAccessor.self),
            requireSendable(DBBObjectsAccessor.self), requireSendable(DBBConditionKeyPath.self),
        ]
        #expect(types.count == 6)
    }

    @Test func aKeyPathHeldInASendableVariableStillMaps() throws {
        // A key path kept in a variable must be declared `& Sendable` (a literal written at the call is inferred so).
        let surname: ReferenceWritableKeyPath<Person, String> & Sendable = \Person.lastName
        let age: KeyPath<Person, Int> & Sendable = \Person.age
        #expect(DBBPropertyPersistence(surname).keyPathPropertyName == "lastName")
        // A `let` whose type is inferred from a literal keeps the literal's Sendable type.
        let inferred = \Person.firstName
        #expect(DBBPropertyPersistence(inferred, columnName: "given").columnName == "given")
        let test = try TestManager(.memory, classes: [Person.self])
        for (first, years) in [("Ada", 36), ("Alan", 41)] {
            let person = Person(dbManager: test.manager)
            person.firstName = first
            person.lastName = "Lee"
            person.age = years
            try person.save()
        }
        var options = DBBQueryOptions()
        options.filter(age > 40)
        #expect(try Person.fetch(options: options, manager: test.manager).map(\.firstName) == ["Alan"])
    }

    @Test(arguments: ["keyPath", "closure"])
    func anEntryCrossesIntoTasksAndReadsAndWritesTheirObjects(form: String) async throws {
        let manager = try TestManager(.memory, classes: [Person.self, Courier.self]).manager
        let keyPathEntry = DBBPropertyPersistence(\Person.lastName)
        let closureEntry = try #require(Courier.persistenceMapping.properties["name"])
        let results = try await withThrowingTaskGroup(of: (DBBValue, String).self) { group in
            for index in 0..<8 {
                group.addTask {
                    // Each task makes its own object; only the entry crossed from the test's task.
                    let object: DBBTableObject
                    let accessor: DBBPropertyAccessor
                    switch form {
                    case "closure":
                        object = Courier(dbManager: manager)
                        accessor = closureEntry.accessor
                    default:
                        object = Person(dbManager: manager)
                        accessor = keyPathEntry.accessor
                    }
                    guard case .scalar(let scalar) = accessor else { throw DBBError.misuse("not a scalar entry") }
                    try scalar.setStored(object, .text("Name \(index)"))
                    let read = try scalar.get(object, DBBCodingOptions())
                    let property = (object as? Person)?.lastName ?? (object as? Courier)?.name ?? ""
                    return (read, property)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        let expected = (0..<8).map { "Name \($0)" }
        #expect(results.map(\.1).sorted() == expected)
        #expect(results.compactMap(\.0.stringValue).sorted() == expected)
    }

    @Test func aConditionBuiltOnOneTaskFetchesOnOthers() async throws {
        let test = try TestManager(.file, classes: [Person.self])
        let manager = test.manager
        for (first, last, years) in [("Ada", "Lee", 36), ("Alan", "Lee", 41), ("Grace", "Hopper", 45)] {
            let person = Person(dbManager: manager)
            person.firstName = first
            person.lastName = last
            person.age = years
            try await person.save()
        }
        let condition = \Person.age > 30 && \Person.lastName == "Lee" && \Person.email == nil
        let names = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<4 {
                group.addTask {
                    var options = DBBQueryOptions.options(sortColumns: ["firstName"])
                    options.filter(condition)
                    return try await Person.fetch(options: options, manager: manager).map(\.firstName)
                }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(names == Array(repeating: ["Ada", "Alan"], count: 4))
        let counted = try await Task.detached {
            var options = DBBQueryOptions()
            options.filter(condition)
            return try await Person.fetchCount(options: options, manager: manager)
        }.value
        #expect(counted == 2)
    }
}
