import DBBObjects
import Foundation
import Testing

@Suite struct DBBObjectsLoadingTests {
    /// Saves `count` projects, each with a lead, two tags and one meeting with two participants.
    static func makeProjects(_ count: Int, manager: DBBManager) throws -> [Project] {
        let projects = (0..<count).map { index -> Project in
            let project = Project(dbManager: manager)
            project.name = "P\(index)"
            project.code = String(format: "C%03d", count - index)
            project.tags = ["t\(index)", "shared"]
            let lead = Person(dbManager: manager)
            lead.firstName = "Lead\(index)"
            project.projectLead = lead
            let meeting = Meeting(dbManager: manager)
            meeting.purpose = "M\(index)"
            meeting.participants = [lead, Person(dbManager: manager)]
            meeting.project = project
            project.meetings = [meeting]
            return project
        }
        try Project.save(projects, manager: manager)
        return projects
    }

    @Test(arguments: Storage.allCases) func allInstancesReturnsTypedFullyPopulatedObjects(storage: Storage) throws {
        let test = try TestManager(storage)
        let saved = try Self.makeProjects(5, manager: test.manager)
        let projects: [Project] = Project.allInstances(manager: test.manager)
        #expect(projects.map(\.idNum) == saved.map(\.idNum))
        #expect(projects.map(\.name) == ["P0", "P1", "P2", "P3", "P4"])
        #expect(projects[3].tags == ["t3", "shared"])
        #expect(projects[3].meetings.first?.participants.first === projects[3].projectLead)
        #expect(projects[3].meetings.first?.project === projects[3])
        // The seed's cast still compiles and succeeds.
        let cast = Project.allInstances(manager: test.manager) as [DBBTableObject] as? [Project]
        #expect(cast?.count == 5)
    }

    @Test func idBasedFetches() throws {
        let test = try TestManager(.file)
        let saved = try Self.makeProjects(4, manager: test.manager)
        let ids = saved.map(\.idNum)
        #expect(Project.allInstanceIDs(manager: test.manager) == ids)
        let some = Project.instancesWithIDNumbers([ids[2], 9999, ids[0]], manager: test.manager)
        #expect(some.map(\.name) == ["P2", "P0"])
        #expect(Project.instanceWithIDNumber(9999, manager: test.manager) == nil)

        let sparse = try #require(Project.instanceWithIDNumber(ids[1], manager: test.manager, sparsePopulation: true))
        #expect(sparse.idNum == ids[1])
        #expect(sparse.createdTime != nil && sparse.modifiedTime != nil)
        #expect(sparse.name == "" && sparse.tags.isEmpty && sparse.projectLead == nil)
    }

    @Test func aFetchRunsTheSameNumberOfStatementsForAnyNumberOfObjects() throws {
        let small = try TestManager(.memory)
        _ = try Self.makeProjects(3, manager: small.manager)
        let smallStatements = try small.statements { _ = try Project.fetchAll(manager: small.manager) }

        let large = try TestManager(.memory)
        _ = try Self.makeProjects(60, manager: large.manager)
        let largeStatements = try large.statements { _ = try Project.fetchAll(manager: large.manager) }

        #expect(smallStatements.count == largeStatements.count)
        #expect(smallStatements.count < 20)
        #expect(largeStatements.count == Set(largeStatements).count || largeStatements.count < 20)
    }

    @Test func theMappingIsBuiltOncePerClassNotPerFetchedObject() throws {
        // A class of this test alone: other tests register the shared models meanwhile, each building its mapping.
        let test = try TestManager(.memory, classes: [CountedNote.self])
        #expect(CountedNote.mappingBuilds.value == 1)
        let notes = (0..<40).map { index in
            let note = CountedNote(dbManager: test.manager)
            note.text = "note \(index)"
            return note
        }
        #expect(CountedNote.saveObjects(notes, dbManager: test.manager))
        let loaded = try CountedNote.fetchAll(manager: test.manager)
        #expect(loaded.map(\.text) == notes.map(\.text))
        #expect(CountedNote.mappingBuilds.value == 1)
    }

    @Test func unregisteredClassesGiveAClearError() throws {
        let manager = try DBBManager.inMemory()
        #expect(throws: DBBError.self) { _ = try Person.fetchAll(manager: manager) }
        #expect(manager.errorMessage().contains("not registered"))
        #expect(manager.lastFailure?.kind == .misuse)
        #expect(manager.lastFailure?.recoverySuggestion == "call addTableClasses([Person.self]) before using the class")
        let person = Person(dbManager: manager)
        #expect(person.saveToDB() == false)
        #expect(manager.errorMessage().contains("addTableClasses"))
    }
}

@Suite struct DBBObjectsDeletingTests {
    @Test(arguments: Storage.allCases) func deletingRemovesJoinRowsHereAndElsewhere(storage: Storage) throws {
        let test = try TestManager(storage)
        let projects = try DBBObjectsLoadingTests.makeProjects(2, manager: test.manager)
        let lead = try #require(projects[0].projectLead)
        let leadID = lead.idNum

        #expect(Person.deleteInstance(lead, manager: test.manager))
        #expect(lead.idNum == 0)
        #expect(Person.instanceWithIDNumber(leadID, manager: test.manager) == nil)
        let references = try test.sql { db in
            try db.fetchValue(
                Int.self,
                "SELECT (SELECT count(*) FROM Project_projectLead WHERE projectLead = ?1)"
                    + " + (SELECT count(*) FROM Meeting_participants WHERE participants = ?1)", leadID)
        }
        #expect(references == 0)
        let project = try #require(Project.instanceWithIDNumber(projects[0].idNum, manager: test.manager))
        #expect(project.projectLead == nil)
        #expect(project.meetings.first?.participants.count == 1)

        #expect(Project.deleteMultipleInstances(projects, manager: test.manager))
        #expect(test.manager.countForTable("Project") == 0)
        #expect(test.manager.countForTable("Project_tags") == 0)
        #expect(test.manager.countForTable("Project_meetings") == 0)
        #expect(test.manager.countForTable("Meeting") == 2)  // not cascading
    }

    @Test func cascadingArraysDeleteTheirObjects() throws {
        let test = try TestManager(.file)
        let company = Company(dbManager: test.manager)
        company.name = "Acme"
        company.employees = [Person(dbManager: test.manager), Person(dbManager: test.manager)]
        company.owner = Person(dbManager: test.manager)
        try company.save()
        #expect(test.manager.countForTable("Person") == 3)
        try Company.delete([company], manager: test.manager)
        // The employees went with the company; the owner (a plain reference) stays.
        #expect(Person.allInstanceIDs(manager: test.manager) == [company.owner!.idNum])
        #expect(test.manager.countForTable("Company_employees") == 0)
        #expect(test.manager.countForTable("Company_owner") == 0)
    }

    @Test func deleteAllInstances() throws {
        let test = try TestManager(.memory)
        _ = try DBBObjectsLoadingTests.makeProjects(3, manager: test.manager)
        #expect(Meeting.deleteAllInstances(manager: test.manager))
        #expect(test.manager.countForTable("Meeting") == 0)
        #expect(test.manager.countForTable("Meeting_participants") == 0)
        #expect(test.manager.countForTable("Project_meetings") == 0)
        #expect(Project.allInstances(manager: test.manager).allSatisfy { $0.meetings.isEmpty })
    }

    @Test func deletingTakesOneClassOnly() throws {
        let test = try TestManager(.memory)
        let person = Person(dbManager: test.manager)
        try person.save()
        #expect(Project.deleteMultipleInstances([person], manager: test.manager) == false)
        #expect(test.manager.countForTable("Person") == 1)
    }
}

/// A class only `theMappingIsBuiltOncePerClassNotPerFetchedObject` registers, counting its mapping's builds.
private final class CountedNote: DBBTableObject {
    static let mappingBuilds = Counter()
    var text = ""

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(Self.mapping(), for: self)
    }

    static func mapping() -> [String: DBBPropertyPersistence] {
        mappingBuilds.increment()
        return ["text": .init(\CountedNote.text)]
    }
}
