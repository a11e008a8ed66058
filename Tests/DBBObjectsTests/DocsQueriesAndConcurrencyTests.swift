import DBBObjects
import DBBQuery
import Foundation
import Testing

/// The code of Docs/Queries.md and Docs/Concurrency.md, compiled and run.
@Suite struct DocsQueriesAndConcurrencyTests {
    @Test func theGuidesShowOnlyCodeThatIsHere() throws {
        #expect(try DocSnippets.missingBlocks(guide: "Docs/Queries.md") == [])
        #expect(try DocSnippets.missingBlocks(guide: "Docs/Concurrency.md") == [])
    }

    @Test func theCheckFindsABlockThatIsNotInTheSource() {
        let markdown = "Text\n```swift\nlet a = 1\n  let b = 2\n```\n```swift\nlet c = 3\n```\n"
        #expect(
            DocSnippets.missingBlocks(markdown: markdown, source: "    let a = 1\n    let b = 2\n") == ["let c = 3"])
        #expect(
            DocSnippets.missingBlocks(markdown: markdown, source: "let a = 1\nlet c = 3\n") == ["let a = 1\nlet b = 2"])
    }

    @Test func changingAndDeletingByQuery() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses(Models.all)
        for (first, age) in [("Kid", 12), ("Ada", 36), ("Old", 70)] {
            let person = Person(dbManager: manager)
            person.firstName = first
            person.age = age
            person.email = "\(first)@example.com"
            try person.save()
        }
        var retired = DBBQueryOptions()
        retired.addCondition("age >= ?", 65)
        let renamed = try Person.update(["lastName": "Retired", "email": nil], where: retired, manager: manager)
        let removed = try Person.delete(where: .options(withConditions: ["age < 18"]), manager: manager)
        #expect(renamed == 1 && removed == 1)
        let people = try Person.fetchAll(manager: manager)
        #expect(people.map(\.firstName) == ["Ada", "Old"])
        #expect(people.map(\.lastName) == ["", "Retired"])
        #expect(people.map(\.email) == ["Ada@example.com", nil])

        let first = Company(dbManager: manager)
        first.name = "Acme"
        try first.save()
        let acme = Company(dbManager: manager)
        acme.name = "Acme"
        try Company.save([acme], onConflict: .update, manager: manager)
        #expect(acme.idNum == first.idNum)
        #expect(try Company.fetchCount(manager: manager) == 1)
    }

    @Test func conditions() throws {
        let world = try DBBObjectsQueryTests.world()
        let manager = world.manager
        let big = DBBQueryOptions.options(withConditions: ["budget > 1000"], sortColumns: ["name"])
        let bigProjects = Project.instancesWithOptions(big, manager: manager) ?? []

        let either = DBBQueryOptions.options(withConditions: ["budget < 100", "OR", "tags = 'urgent'"])
        let cheapOrUrgent = try Project.fetch(options: either, manager: manager)
        #expect(bigProjects.map(\.name) == ["Cygnus"])
        #expect(cheapOrUrgent.map(\.name) == ["Apollo", "Cygnus"])
    }

    @Test func throughReferences() throws {
        let world = try DBBObjectsQueryTests.world()
        let manager = world.manager
        var ledByALee = DBBQueryOptions.options(sortColumns: ["projectLead.firstName"])
        ledByALee.addCondition("projectLead.lastName = ?", "Lee")
        let leeProjects = try Project.fetch(options: ledByALee, manager: manager)

        var withPark = DBBQueryOptions()
        withPark.addCondition("participants.lastName = ?", "Park")
        let meetingsWithPark = try Meeting.fetch(options: withPark, manager: manager)
        #expect(leeProjects.map(\.name) == ["Apollo", "Cygnus"])
        #expect(meetingsWithPark.map(\.purpose) == ["Meeting of Borealis"])
    }

    @Test func typedConditions() throws {
        let world = try DBBObjectsQueryTests.world()
        let manager = world.manager
        var olderLees = DBBQueryOptions()
        olderLees.filter(\Person.age > 30 && \Person.lastName == "Lee")
        let found = try Person.fetch(options: olderLees, manager: manager)

        var ledByAnAdult = DBBQueryOptions.options(sortColumns: ["name"])
        ledByAnAdult.filter(\Project.projectLead?.age >= 30 && .like(\Project.name, "A%"))
        ledByAnAdult.filter(.in(\Project.code, ["C0", "C2"]) || .isNil(\Project.projectLead))
        let adultLed = try Project.fetch(options: ledByAnAdult, manager: manager)
        #expect(found.map(\.firstName) == ["Ann"])
        #expect(adultLed.map(\.name) == ["Apollo"])

        var withAnAdultLee = DBBQueryOptions()
        withAnAdultLee.filter(.any(\Meeting.participants, where: \Person.age > 30 && \Person.lastName == "Lee"))
        let meetingsWithAnAdultLee = try Meeting.fetch(options: withAnAdultLee, manager: manager)
        #expect(meetingsWithAnAdultLee.map(\.purpose) == ["Meeting of Apollo"])
    }

    @Test func boundValues() throws {
        let world = try DBBObjectsQueryTests.world()
        let manager = world.manager
        var byName = DBBQueryOptions()
        byName.addCondition("lastName = ?", "O'Brien")
        byName.addCondition("age >= ?", 18)
        let adults = try Person.fetch(options: byName, manager: manager)
        #expect(adults.map(\.firstName) == ["Bo"])

        let escaped = DBBQueryOptions.options(withConditions: ["lastName = \("O'Brien".dbb_SQLEscaped())"])
        let cutoff = Date(timeIntervalSinceReferenceDate: 0)
        let recent = DBBQueryOptions.options(withConditions: ["startDate > \(cutoff.dbb_dateComparisonString())"])
        #expect(try Person.fetch(options: escaped, manager: manager).count == 1)
        #expect(try Project.fetch(options: recent, manager: manager).map(\.name) == ["Borealis", "Cygnus"])
    }

    @Test func paging() throws {
        let world = try DBBObjectsQueryTests.world()
        let manager = world.manager
        var page = DBBQueryOptions.options(properties: ["lastName"], sortColumns: ["lastName"], distinct: true)
        page.limit = 20
        let lastNames = try Person.fetch(options: page, manager: manager).map(\.lastName)
        #expect(lastNames == ["Lee", "Ng", "O'Brien", "Park"])
    }

    @Test func grouping() throws {
        let world = try DBBObjectsQueryTests.world()
        let manager = world.manager
        var oldestFirst = DBBQueryOptions.options(
            withConditions: ["age >= 18"], sortColumns: ["age"], ascendingSort: false)
        oldestFirst.groupBy = ["lastName"]
        let onePerFamily = try Person.fetch(options: oldestFirst, manager: manager)
        let families = try Person.fetchCount(options: oldestFirst, manager: manager)
        // Ann Lee (34) stands for the Lees; the groups are ordered by their representative's age, then
        // by descending id (Di before Bo, both 51).
        #expect(onePerFamily.map(\.firstName) == ["Di", "Bo", "Ed", "Ann"])
        #expect(families == 4)
    }

    @Test func counting() throws {
        let world = try DBBObjectsQueryTests.world()
        let manager = world.manager
        var adultsOnly = DBBQueryOptions()
        adultsOnly.addCondition("age >= ?", 18)
        let adultCount = try Person.fetchCount(options: adultsOnly, manager: manager)
        let everyone = try Person.fetchCount(manager: manager)
        #expect((adultCount, everyone) == (5, 5))
    }

    func deliverProjects(to inbox: ProjectInbox, manager: DBBManager) async {
        let projects = await withCheckedContinuation { continuation in
            Project.getAllInstancesFromQueue(manager: manager) { continuation.resume(returning: $0) }
        }
        await inbox.receive(projects)
    }

    func renameProject(id: Int64, to name: String, manager: DBBManager) async throws {
        guard let project = try await Project.fetchOne(id: id, manager: manager) else { return }
        project.name = name
        try await project.save()
    }

    func archiveAll(manager: DBBManager) async {
        let done = await withCheckedContinuation { continuation in
            let stale = Project.allInstances(manager: manager)
            Project.deleteMultipleInstancesOnQueue(stale, manager: manager) { continuation.resume(returning: $0) }
        }
        print(done ? "archived" : manager.errorMessage())
    }

    func moveLead(of project: Project, to person: Person, manager: DBBManager) throws {
        try manager.write { db in
            try person.save()
            project.projectLead = person
            try project.save()
            try db.execute("UPDATE Person SET age = age + 1 WHERE id = ?", person.idNum)
        }
    }

    func report(manager: DBBManager) throws -> String {
        try manager.read { _ in
            let projects = try Project.fetchAll(manager: manager)
            let people = try Person.fetchCount(manager: manager)
            return "\(projects.count) projects led by some of \(people) people"
        }
    }

    struct OverBudget: Error {
        let budget: Float
    }

    func raiseBudget(of projectID: Int64, by amount: Float, manager: DBBManager) throws -> Bool {
        do {
            try manager.write {
                guard let project = try Project.fetchOne(id: projectID, manager: manager) else { return }
                project.budget += amount
                if project.budget > 10_000 { throw OverBudget(budget: project.budget) }
                try project.save()
            }
            return true
        } catch is OverBudget {
            return false
        }
    }

    @Test func yourOwnErrorLeavesAWriteAsItIs() throws {
        let world = try DBBObjectsQueryTests.world()
        let project = world.projects[0]
        let before = project.budget
        #expect(try raiseBudget(of: project.idNum, by: 1, manager: world.manager))
        #expect(try Project.fetchOne(id: project.idNum, manager: world.manager)?.budget == before + 1)
        #expect(try !raiseBudget(of: project.idNum, by: 20_000, manager: world.manager))
        #expect(try Project.fetchOne(id: project.idNum, manager: world.manager)?.budget == before + 1)
    }

    @Test func transactionSamples() throws {
        let world = try DBBObjectsQueryTests.world()
        let manager = world.manager
        let newLead = Person(dbManager: manager)
        newLead.age = 30
        try moveLead(of: world.projects[0], to: newLead, manager: manager)
        let reloaded = try Project.fetchOne(id: world.projects[0].idNum, manager: manager)
        #expect(reloaded?.projectLead?.idNum == newLead.idNum)
        #expect(reloaded?.projectLead?.age == 31)
        #expect(try report(manager: manager) == "3 projects led by some of 6 people")
    }

    func countTags(manager: DBBManager) throws -> Int {
        try manager.queue.inDatabase { db in
            try db.fetchValue(Int.self, "SELECT count(DISTINCT tags) FROM Project_tags") ?? 0
        }
    }

    @Test func concurrencySamples() async throws {
        let world = try DBBObjectsQueryTests.world()
        let manager = world.manager
        let id = world.projects[1].idNum
        try await renameProject(id: id, to: "Renamed", manager: manager)
        #expect(try await Project.fetchOne(id: id, manager: manager)?.name == "Renamed")
        #expect(try countTags(manager: manager) == 3)
        let inbox = ProjectInbox()
        await deliverProjects(to: inbox, manager: manager)
        #expect(await inbox.names == ["Apollo", "Renamed", "Cygnus"])
        await archiveAll(manager: manager)
        #expect(try await Project.fetchAllIDs(manager: manager).isEmpty)
    }

    func openServerManager(at url: URL) throws -> DBBManager {
        let manager = try DBBManager(databaseURL: url, readers: 4)
        try manager.addTableClasses([Person.self, Project.self, Meeting.self])
        return manager
    }

    func logBigProjects(manager: DBBManager, log: @escaping @Sendable ([String]) -> Void) async throws {
        let big = DBBQueryOptions.options(withConditions: ["budget > 1000"], sortColumns: ["name"])
        for try await projects in manager.observe(Project.self, options: big) {
            log(projects.map(\.name))
        }
    }

    func showProjectCount(manager: DBBManager, show: @escaping @Sendable (Int) -> Void) -> DBBObservationHandle {
        manager.observe(Project.self) { projects in show(projects.count) }
    }

    @Test func readersAndObservationSamples() async throws {
        let folder = try TemporaryFolder()
        let manager = try openServerManager(at: folder.file("server.sqlite"))
        #expect(manager.pool?.readerCount == 4)
        let counts = Recorded<Int>()
        let names = Recorded<[String]>()
        let handle = showProjectCount(manager: manager) { counts.record($0) }
        let watcher = Task { try await logBigProjects(manager: manager) { names.record($0) } }
        while counts.all.isEmpty || names.all.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        let project = Project(dbManager: manager)
        project.name = "Zephyr"
        project.budget = 5000
        try await project.save()
        while counts.all.count < 2 || names.all.count < 2 { try await Task.sleep(for: .milliseconds(1)) }
        handle.cancel()
        watcher.cancel()
        try await watcher.value
        #expect(counts.all == [0, 1])
        #expect(names.all == [[], ["Zephyr"]])
    }
}

actor ProjectInbox {
    var names: [String] = []
    func receive(_ projects: [Project]) { names += projects.map(\.name) }
}

/// The values an observation reported, in order.
final class Recorded<Value: Sendable>: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var values: [Value] = []
    func record(_ value: Value) { lock.withLock { values.append(value) } }
    var all: [Value] { lock.withLock { values } }
}
