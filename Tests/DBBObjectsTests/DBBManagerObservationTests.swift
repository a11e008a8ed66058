import DBBObjects
import Foundation
import Testing

/// Values an observation delivered, in order.
private final class Delivered: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var values: [[Int]] = []
    func append(_ value: [Int]) { lock.withLock { values.append(value) } }
    var all: [[Int]] { lock.withLock { values } }
}

@Suite struct DBBManagerObservationTests {
    private static let observed = DBBQueryOptions.options(withConditions: ["lastName = 'Obs'"], sortColumns: ["age"])

    private static func person(_ manager: DBBManager, age: Int) -> Person {
        let person = Person(dbManager: manager)
        person.lastName = "Obs"
        person.age = age
        return person
    }

    @Test(arguments: ManagerKind.allCases)
    func deliversTheCommittedStatesInOrderCoalesced(storage: ManagerKind) async throws {
        let folder = try TemporaryFolder()
        let manager = try storage.manager(in: folder)
        let commits = 40
        let delivered = Delivered()
        let consumer = Task {
            for try await people in manager.observe(Person.self, options: Self.observed) {
                delivered.append(people.map(\.age))
                if people.count == commits * 2 { break }
                // A slow consumer: commits pile up meanwhile, and must coalesce.
                if people.count.isMultiple(of: 6) { try await Task.sleep(for: .milliseconds(20)) }
            }
        }
        // Wait for the first value before committing, so it is the empty state.
        while delivered.all.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        for commit in 0..<commits {
            // Two objects per transaction: a state with an odd count would be half a transaction.
            try await Person.save(
                [Self.person(manager, age: 2 * commit), Self.person(manager, age: 2 * commit + 1)], manager: manager)
            // A commit of a table the query does not read brings no value.
            if commit.isMultiple(of: 10) { try await Meeting(dbManager: manager).save() }
        }
        try await consumer.value
        let values = delivered.all
        #expect(values.first == [])
        #expect(values.last == Array(0..<commits * 2))
        for value in values {
            // Each value is a committed state: the first 2k ages, for some k.
            #expect(value == Array(0..<value.count) && value.count.isMultiple(of: 2))
        }
        let counts = values.map(\.count)
        #expect(counts == counts.sorted() && Set(counts).count == counts.count, "in order, each state once: \(counts)")
        #expect(counts.count <= commits + 1)
    }

    @Test(arguments: ManagerKind.allCases)
    func coalescesCommitsMadeWhileTheConsumerIsBusy(storage: ManagerKind) async throws {
        let folder = try TemporaryFolder()
        let manager = try storage.manager(in: folder)
        var iterator = manager.observe(Person.self, options: Self.observed).makeAsyncIterator()
        #expect(try await iterator.next()?.count == 0)
        // Five transactions commit while nobody asks for a value: the next value is the last state.
        for commit in 0..<5 {
            try await Person.save(
                [Self.person(manager, age: 2 * commit), Self.person(manager, age: 2 * commit + 1)], manager: manager)
        }
        #expect(try await iterator.next()?.map(\.age) == Array(0..<10))
        try await Self.person(manager, age: 10).save()
        #expect(try await iterator.next()?.map(\.age) == Array(0..<11))
    }

    @Test(arguments: ManagerKind.allCases)
    func rawSQLReferencedTablesAndCancellation(storage: ManagerKind) async throws {
        let folder = try TemporaryFolder()
        let manager = try storage.manager(in: folder)
        let lead = Self.person(manager, age: 40)
        let project = Project(dbManager: manager)
        project.name = "Apollo"
        project.projectLead = lead
        try await project.save()

        let delivered = Delivered()
        let stream = Task {
            for try await projects in manager.observe(Project.self) {
                delivered.append(projects.compactMap { $0.projectLead?.age } + projects.map(\.tags.count))
            }
            return "ended"
        }
        func waitFor(_ count: Int) async throws {
            while delivered.all.count < count { try await Task.sleep(for: .milliseconds(1)) }
        }
        try await waitFor(1)
        // A change of the referenced class's table (which the fetch loads) brings a value, through raw SQL
        // on the manager's connection too.
        try await manager.queue.inDatabase { db in try db.execute("UPDATE Person SET age = 41") }
        try await waitFor(2)
        lead.age = 42
        try await lead.save()
        try await waitFor(3)
        // A join table's change too.
        let projectID = project.idNum
        try await manager.queue.inDatabase { db in
            try db.execute("INSERT INTO Project_tags (Project_ID, tags) VALUES (?, 'urgent')", projectID)
        }
        try await waitFor(4)
        #expect(delivered.all == [[40, 0], [41, 0], [42, 0], [42, 1]])

        stream.cancel()
        #expect(try await stream.value == "ended")
        lead.age = 43
        try await lead.save()
        // A new observation sees the commit made after the cancellation; the cancelled one got nothing.
        var iterator = manager.observe(Project.self).makeAsyncIterator()
        #expect(try await iterator.next()?.first?.projectLead?.age == 43)
        #expect(delivered.all.count == 4)
    }

    @Test func closureFormDeliversUntilCancelled() async throws {
        let folder = try TemporaryFolder()
        let manager = try ManagerKind.pool.manager(in: folder)
        let delivered = Delivered()
        let handle = manager.observe(Person.self, options: Self.observed) { people in
            delivered.append(people.map(\.age))
        }
        while delivered.all.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        try await Self.person(manager, age: 1).save()
        while delivered.all.count < 2 { try await Task.sleep(for: .milliseconds(1)) }
        handle.cancel()
        try await Self.person(manager, age: 2).save()
        // Ordering, not time: a later observation's first value includes the last commit...
        var iterator = manager.observe(Person.self, options: Self.observed).makeAsyncIterator()
        #expect(try await iterator.next()?.count == 2)
        // ...and the cancelled one delivered nothing after its cancellation.
        try await Task.sleep(for: .milliseconds(50))
        #expect(delivered.all == [[], [1]])
    }

    @Test func unregisteredClassFailsAndClosingEndsObservations() async throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("o.sqlite"), readers: 1)
        try manager.addTableClasses([Person.self])
        await #expect(throws: DBBError.self) {
            for try await _ in manager.observe(Meeting.self) {}
        }
        #expect(manager.lastFailure?.message.contains("not registered") == true)

        let delivered = Delivered()
        let stream = Task {
            for try await people in manager.observe(Person.self) { delivered.append(people.map(\.age)) }
            return delivered.all.count
        }
        while delivered.all.isEmpty { try await Task.sleep(for: .milliseconds(1)) }
        try manager.close()
        #expect(try await stream.value == 1)
    }
}
