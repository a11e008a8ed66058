import DBBBuilder
import Foundation

// The demo's classes: people work for companies, lead projects and meet in meetings. `@DBBTable` writes each
// class's mapping; the markers give column names, attributes and indexes.

/// Where the classes are, for the tour's output.
let modelsSource = sourceLocation()

@DBBTable(indexes: [DBBIndexer(columnsToIndex: ["lastName", "firstName"])])
final class Person: DBBTableObject {
    var firstName = ""
    var lastName = ""
    var email: String?
    var age = 0

    var fullName: String { "\(firstName) \(lastName)" }
}

@DBBTable
final class Company: DBBTableObject {
    @Unique var name = ""
    var founded: Date?
    var employees: [Person] = []
    var ceo: Person?
}

@DBBTable
final class Project: DBBTableObject {
    @Indexed @Column("itemName") var name = ""
    var code = ""
    var startDate: Date?
    var budget: Float = 0
    var tags: [String] = []
    var projectLead: Person?
    var company: Company?
    var meetings: [Meeting] = []
}

@DBBTable
final class Meeting: DBBTableObject {
    var purpose = ""
    var startTime: Date?
    var minutes = 30
    var participants: [Person] = []
    var project: Project?
}
