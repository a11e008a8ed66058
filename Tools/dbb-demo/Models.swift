import DBBBuilder
import Foundation

// The demo's classes: people work for companies, lead projects and meet in meetings.

/// Where the classes are, for the tour's output.
let modelsSource = sourceLocation()

final class Person: DBBTableObject {
    var firstName = ""
    var lastName = ""
    var email: String?
    var age = 0

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "firstName": .init(\Person.firstName),
                "lastName": .init(\Person.lastName),
                "email": .init(\Person.email),
                "age": .init(\Person.age),
            ], for: self, indexer: DBBIndexer(columnsToIndex: ["lastName", "firstName"]))
    }

    var fullName: String { "\(firstName) \(lastName)" }
}

final class Company: DBBTableObject {
    var name = ""
    var founded: Date?
    var employees: [Person] = []
    var ceo: Person?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        attributesDictionary = ["name": ColumnAttribute.unique]
        dbManager.addPersistenceMapping(
            [
                "name": .init(\Company.name),
                "founded": .init(\Company.founded),
                "employees": .init(\Company.employees),
                "ceo": .init(\Company.ceo),
            ], for: self)
    }
}

final class Project: DBBTableObject {
    var name = ""
    var code = ""
    var startDate: Date?
    var budget: Float = 0
    var tags: [String] = []
    var projectLead: Person?
    var company: Company?
    var meetings: [Meeting] = []

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "name": .init(\Project.name, columnName: "itemName"),
                "code": .init(\Project.code),
                "startDate": .init(\Project.startDate),
                "budget": .init(\Project.budget),
                "tags": .init(\Project.tags),
                "projectLead": .init(\Project.projectLead),
                "company": .init(\Project.company),
                "meetings": .init(\Project.meetings),
            ], for: self, indexer: DBBIndexer(columnsToIndex: ["name"]))
    }
}

final class Meeting: DBBTableObject {
    var purpose = ""
    var startTime: Date?
    var minutes = 30
    var participants: [Person] = []
    var project: Project?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "purpose": .init(\Meeting.purpose),
                "startTime": .init(\Meeting.startTime),
                "minutes": .init(\Meeting.minutes),
                "participants": .init(\Meeting.participants),
                "project": .init(\Meeting.project),
            ], for: self)
    }
}
