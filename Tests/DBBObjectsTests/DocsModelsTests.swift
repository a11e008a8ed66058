import DBBObjects
import Foundation
import Testing

// The example model of Docs/Models.md mapped with key paths, so that this module's tests (which import only
// DBBObjects, not the macro) compile the guides' snippets against it. The guide's own macro form stands in
// DBBBuilderTests/DocsModelsGuideTests.swift, which checks that the two lay out the same tables.

/// A struct, so that the guide's top-level function is an instance method here.
struct ExampleModel {
    final class Person: DBBTableObject {
        var firstName = ""
        var lastName = ""
        var age = 0
        var email: String?

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                [
                    "firstName": .init(\Person.firstName),
                    "lastName": .init(\Person.lastName),
                    "age": .init(\Person.age),
                    "email": .init(\Person.email),
                ], for: self, indexer: DBBIndexer(columnsToIndex: ["lastName", "firstName"]))
        }
    }

    final class Meeting: DBBTableObject {
        var purpose = ""
        var startTime: Date?
        var participants: [Person] = []
        var project: Project?

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                [
                    "purpose": .init(\Meeting.purpose),
                    "startTime": .init(\Meeting.startTime),
                    "participants": .init(\Meeting.participants),
                    "project": .init(\Meeting.project),
                ], for: self)
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

    func openExampleModel(databaseURL: URL) throws -> DBBManager {
        let manager = try DBBManager(databaseURL: databaseURL)
        try manager.addTableClasses([Person.self, Meeting.self, Project.self])
        return manager
    }
}

@Suite struct DocsModelsTests {
    @Test func theModelSavesAndQueriesAsTheGuidesDo() throws {
        let folder = try TemporaryFolder()
        let manager = try ExampleModel().openExampleModel(databaseURL: folder.file("model.sqlite"))
        func person(_ first: String, _ last: String, _ age: Int) -> ExampleModel.Person {
            let person = ExampleModel.Person(dbManager: manager)
            (person.firstName, person.lastName, person.age) = (first, last, age)
            return person
        }
        let ada = person("Ada", "Byron", 36)
        let bo = person("Bo", "O'Brien", 17)
        let apollo = ExampleModel.Project(dbManager: manager)
        (apollo.name, apollo.code, apollo.budget, apollo.tags) = ("Apollo", "P-1", 120_000, ["space", "urgent"])
        apollo.projectLead = ada
        let kickoff = ExampleModel.Meeting(dbManager: manager)
        kickoff.purpose = "Kick-off"
        kickoff.participants = [ada, bo]
        kickoff.project = apollo
        apollo.meetings = [kickoff]
        try apollo.save()

        var byName = DBBQueryOptions()
        byName.addCondition("lastName = ?", "O'Brien")
        byName.addCondition("age >= ?", 18)
        #expect(try ExampleModel.Person.fetch(options: byName, manager: manager).isEmpty)
        let urgent = DBBQueryOptions.options(withConditions: ["tags = 'urgent'"])
        let found = try #require(try ExampleModel.Project.fetch(options: urgent, manager: manager).first)
        #expect(found.projectLead?.lastName == "Byron")
        #expect(found.meetings.map(\.purpose) == ["Kick-off"])
        #expect(found.meetings.first?.participants.map(\.firstName) == ["Ada", "Bo"])
        #expect(found.meetings.first?.project === found)

        let duplicate = ExampleModel.Project(dbManager: manager)
        duplicate.code = "P-1"
        #expect(throws: DBBError.self) { try duplicate.save() }
    }
}
