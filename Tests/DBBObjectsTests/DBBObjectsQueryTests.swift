import DBBObjects
import Foundation
import Testing

@Suite struct DBBObjectsQueryTests {
    struct World {
        let test: TestManager
        var manager: DBBManager { test.manager }
        let people: [Person]
        let projects: [Project]
        let meetings: [Meeting]
    }

    /// Three projects, five people, four meetings.
    static func world(_ storage: Storage = .memory) throws -> World {
        let test = try TestManager(storage)
        let manager = test.manager
        let names = [
            ("Ann", "Lee", 34), ("Bo", "O'Brien", 51), ("Cy", "Lee", 28), ("Di", "Park", 51), ("Ed", "Ng", 40),
        ]
        let people = names.map { first, last, age -> Person in
            let person = Person(dbManager: manager)
            (person.firstName, person.lastName, person.age) = (first, last, age)
            return person
        }
        try Person.save(people, manager: manager)
        let projects = [
            ("Apollo", 1000, ["space", "urgent"]), ("Borealis", 250, ["north"]), ("Cygnus", 5000, ["urgent"]),
        ]
        .enumerated().map { index, spec -> Project in
            let project = Project(dbManager: manager)
            project.name = spec.0
            project.budget = Float(spec.1)
            project.tags = spec.2
            project.code = "C\(index)"
            project.startDate = Date(timeIntervalSinceReferenceDate: Double(index) * 86_400)
            project.projectLead = people[index]
            return project
        }
        try Project.save(projects, manager: manager)
        let meetings = [(0, [0, 1]), (0, [2]), (1, [1, 3]), (2, [4])].map { projectIndex, participants -> Meeting in
            let meeting = Meeting(dbManager: manager)
            meeting.purpose = "Meeting of \(projects[projectIndex].name)"
            meeting.project = projects[projectIndex]
            meeting.participants = participants.map { people[$0] }
            return meeting
        }
        try Meeting.save(meetings, manager: manager)
        return World(test: test, people: people, projects: projects, meetings: meetings)
    }

    @Test(arguments: Storage.allCases) func theSeedsJoinPropertyConditions(storage: Storage) throws {
        let world = try Self.world(storage)
        let projectID = world.projects[0].idNum
        let byProject = try #require(
            Meeting.instancesWithOptions(
                DBBQueryOptions.options(withConditions: ["project = \(projectID)"]), manager: world.manager))
        #expect(byProject.map(\.purpose) == ["Meeting of Apollo", "Meeting of Apollo"])

        let ids = [world.people[1].idNum, world.people[4].idNum].map(String.init).joined(separator: ", ")
        let byParticipants = try Meeting.fetch(
            options: .options(withConditions: ["participants IN (\(ids))"]), manager: world.manager)
        #expect(byParticipants.map(\.idNum) == [world.meetings[0], world.meetings[2], world.meetings[3]].map(\.idNum))

        // As the seed's README writes it: "project IN (\(idsArray))", with a Swift array of integers.
        let idsArray = [world.people[1].idNum, world.people[4].idNum]
        let bySwiftArray = try Meeting.fetch(
            options: .options(withConditions: ["participants IN (\(idsArray))"]), manager: world.manager)
        #expect(bySwiftArray.map(\.idNum) == byParticipants.map(\.idNum))
        let projectIDs = [Int(projectID)]
        let byProjects = try Meeting.fetch(
            options: .options(withConditions: ["project IN (\(projectIDs))"]), manager: world.manager)
        #expect(byProjects.map(\.purpose) == ["Meeting of Apollo", "Meeting of Apollo"])

        let urgent = try Project.fetch(options: .options(withConditions: ["tags = 'urgent'"]), manager: world.manager)
        #expect(urgent.map(\.name) == ["Apollo", "Cygnus"])
    }

    @Test func orWorksWithJoinPropertiesAndAndIsTheDefault() throws {
        let world = try Self.world()
        let either = try Project.fetch(
            options: .options(withConditions: ["budget < 500", "OR", "tags = 'space'"]), manager: world.manager)
        #expect(either.map(\.name) == ["Apollo", "Borealis"])
        let both = try Project.fetch(
            options: .options(withConditions: ["budget > 500", "tags = 'urgent'"]), manager: world.manager)
        #expect(both.map(\.name) == ["Apollo", "Cygnus"])
        let none = try Project.fetch(
            options: .options(withConditions: ["budget < 500", "tags = 'urgent'"]), manager: world.manager)
        #expect(none.isEmpty)
    }

    @Test func sortingAppliesItsDirectionToEveryColumn() throws {
        let world = try Self.world()
        let ascending = try Person.fetch(
            options: .options(sortColumns: ["lastName", "firstName"]), manager: world.manager)
        #expect(ascending.map(\.firstName) == ["Ann", "Cy", "Ed", "Bo", "Di"])
        let descending = try Person.fetch(
            options: .options(sortColumns: ["age", "firstName"], ascendingSort: false), manager: world.manager)
        #expect(descending.map(\.firstName) == ["Di", "Bo", "Ed", "Ann", "Cy"])
        var mixed = DBBQueryOptions()
        mixed.sorting = ["age DESC", "firstName ASC"]
        #expect(
            try Person.fetch(options: mixed, manager: world.manager).map(\.firstName) == [
                "Bo", "Di", "Ed", "Ann", "Cy",
            ])
    }

    @Test func distinctReturnsEachCombinationOnce() throws {
        let world = try Self.world()
        let lastNames = try Person.fetch(
            options: .options(properties: ["lastName"], sortColumns: ["lastName"], distinct: true),
            manager: world.manager)
        #expect(lastNames.map(\.lastName) == ["Lee", "Ng", "O'Brien", "Park"])
        #expect(lastNames.allSatisfy { $0.firstName.isEmpty })
        let ages = try Person.fetch(
            options: .options(properties: ["age", "lastName"], sortColumns: ["age"], distinct: true),
            manager: world.manager)
        #expect(ages.map { "\($0.age) \($0.lastName)" } == ["28 Lee", "34 Lee", "40 Ng", "51 O'Brien", "51 Park"])
    }

    @Test func propertyNamesJoinPropertiesAndSparsePopulation() throws {
        let world = try Self.world()
        let names = try Project.fetch(options: .options(properties: ["name"]), manager: world.manager)
        #expect(names.map(\.name) == ["Apollo", "Borealis", "Cygnus"])
        #expect(names.allSatisfy { $0.tags.isEmpty && $0.budget == 0 && $0.projectLead == nil })

        var joins = DBBQueryOptions()
        joins.joinPropertiesToPopulate = ["tags"]
        let withTags = try Project.fetch(options: joins, manager: world.manager)
        #expect(withTags.map(\.tags) == [["space", "urgent"], ["north"], ["urgent"]])
        #expect(withTags.allSatisfy { $0.projectLead == nil && $0.budget > 0 })

        let sparse = try Project.fetch(options: DBBQueryOptions(), manager: world.manager, sparsePopulation: true)
        #expect(sparse.map(\.idNum) == world.projects.map(\.idNum))
        #expect(sparse.allSatisfy { $0.name.isEmpty && $0.createdTime != nil })
    }

    @Test(arguments: Storage.allCases) func savingAPartlyLoadedObjectChangesOnlyWhatWasLoadedOrSet(storage: Storage)
        throws
    {
        let world = try Self.world(storage)
        let partial = try #require(
            try Project.fetch(
                options: .options(withConditions: ["name = 'Apollo'"], properties: ["name"]), manager: world.manager
            ).first)
        partial.name = "Apollo II"
        partial.code = "NEW"  // not loaded, but set since: written
        try partial.save()

        let reloaded = try #require(Project.instanceWithIDNumber(partial.idNum, manager: world.manager))
        #expect(reloaded.name == "Apollo II")
        #expect(reloaded.code == "NEW")
        #expect(reloaded.budget == 1000)
        #expect(reloaded.tags == ["space", "urgent"])
        #expect(reloaded.projectLead?.firstName == "Ann")
        #expect(reloaded.startDate == world.projects[0].startDate)

        let sparse = try #require(
            Project.instanceWithIDNumber(partial.idNum, manager: world.manager, sparsePopulation: true))
        try sparse.save()
        let untouched = try #require(Project.instanceWithIDNumber(partial.idNum, manager: world.manager))
        #expect(untouched.name == "Apollo II" && untouched.tags == ["space", "urgent"] && untouched.budget == 1000)
    }

    @Test func boundValuesAreJustValues() throws {
        let world = try Self.world()
        var options = DBBQueryOptions()
        options.addCondition("lastName = ?", "O'Brien")
        #expect(try Person.fetch(options: options, manager: world.manager).map(\.firstName) == ["Bo"])

        var hostile = DBBQueryOptions()
        hostile.addCondition("lastName = ?", "'; DROP TABLE Person; --")
        #expect(try Person.fetch(options: hostile, manager: world.manager).isEmpty)
        #expect(world.manager.countForTable("Person") == 5)

        var joined = DBBQueryOptions()
        joined.addCondition("tags = ?", "urgent")
        joined.addCondition("budget >= ?", 2000)
        #expect(try Project.fetch(options: joined, manager: world.manager).map(\.name) == ["Cygnus"])
    }

    @Test func theSeedsEscapingAndDateHelpersInConditions() throws {
        let world = try Self.world()
        let escaped = try Person.fetch(
            options: .options(withConditions: ["lastName = \("O'Brien".dbb_SQLEscaped())"]), manager: world.manager)
        #expect(escaped.map(\.firstName) == ["Bo"])
        let cutoff = Date(timeIntervalSinceReferenceDate: 43_200)
        let later = try Project.fetch(
            options: .options(withConditions: ["startDate > \(cutoff.dbb_dateComparisonString())"]),
            manager: world.manager)
        #expect(later.map(\.name) == ["Borealis", "Cygnus"])
    }

    @Test func anInvalidQueryGivesNilWithTheReason() throws {
        let world = try Self.world()
        #expect(Project.instancesWithOptions(.options(withConditions: ["budget >>> 3"]), manager: world.manager) == nil)
        #expect(world.manager.errorMessage().contains("syntax error"))
        #expect(Project.instancesWithOptions(.options(properties: ["salary"]), manager: world.manager) == nil)
        #expect(world.manager.errorMessage().contains("salary"))
        #expect(throws: DBBError.self) {
            try Project.fetch(options: .options(withConditions: ["nosuchcolumn = 1"]), manager: world.manager)
        }
        #expect(
            Project.instancesWithOptions(.options(withConditions: ["budget > 1"]), manager: world.manager)?.count == 3)
    }

    @Test func limitAndOffset() throws {
        let world = try Self.world()
        var options = DBBQueryOptions.options(sortColumns: ["firstName"])
        options.limit = 2
        options.offset = 1
        #expect(try Person.fetch(options: options, manager: world.manager).map(\.firstName) == ["Bo", "Cy"])
    }
}
