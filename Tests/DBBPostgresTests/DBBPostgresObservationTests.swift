import DBBBuilder
import DBBPostgres
import Foundation
import Synchronization
import Testing

/// `manager.observe` on PostgreSQL: commits of this manager, of other clients and of other processes.
@Suite(.postgres)
struct DBBPostgresObservationTests {
    typealias Member = ServerModels.Member
    typealias Team = ServerModels.Team

    /// PostgreSQL's command-line client, beside the server's programs or on the `PATH`.
    static let psql: URL? = {
        var folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        folders += versions.map { "/usr/lib/postgresql/\($0)/bin" }
        return folders.map { URL(fileURLWithPath: $0).appendingPathComponent("psql") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs SQL in another process, `psql`, with the password in its environment.
    static func runInAnotherProcess(_ sql: String, _ configuration: DBBPostgresConfiguration) throws -> Int32 {
        let client = try #require(psql)
        let process = Process()
        process.executableURL = client
        process.arguments = [
            "-h", configuration.host, "-p", "\(configuration.port)", "-U", configuration.username,
            "-d", configuration.database ?? configuration.username, "-v", "ON_ERROR_STOP=1", "-q", "-c", sql,
        ]
        var environment = ProcessInfo.processInfo.environment
        environment["PGPASSWORD"] = configuration.password
        environment["PGSSLMODE"] = "disable"
        process.environment = environment
        process.standardOutput = FileHandle.nullDevice
        try process.run()
        process.waitUntilExit()
        return process.terminationStatus
    }

    /// Takes values from an observation until one passes `done`, or fails after `seconds`.
    static func values(
        _ iterator: inout DBBObservation<Member>.Iterator, until done: ([String]) -> Bool, seconds: Double = 10
    ) async throws -> [String] {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            guard let members = try await iterator.next() else { break }
            let names = members.map(\.name)
            if done(names) { return names }
        }
        Issue.record("no value passed the test in \(seconds) seconds")
        return []
    }

    @Test func anObservationSeesThisManagersCommitsAndNotItsRollbacks() async throws {
        let manager = try await TestPostgres.manager()
        var iterator = manager.observe(Member.self, options: .options(sortColumns: ["name"])).makeAsyncIterator()
        let first = try await iterator.next()
        #expect(first?.isEmpty == true)
        struct Stop: Error {}
        try await TestPostgres.onQueue {
            #expect(throws: Stop.self) {
                try manager.write {
                    let ghost = Member(dbManager: manager)
                    ghost.name = "Ghost"
                    try ghost.save()
                    throw Stop()
                }
            }
            let ada = Member(dbManager: manager)
            ada.name = "Ada"
            try ada.save()
        }
        let names = try await Self.values(&iterator) { !$0.isEmpty }
        #expect(names == ["Ada"])
        try await TestPostgres.onQueue { try manager.close() }
    }

    @Test func anObservationSeesCommitsOfAnotherClientAndOfJoinTables() async throws {
        let manager = try await TestPostgres.manager()
        let configuration = try #require(manager.postgresConfiguration)
        var iterator = manager.observe(Member.self).makeAsyncIterator()
        _ = try await iterator.next()
        try await TestPostgres.onQueue {
            let other = try DBBPostgresConnection.connect(configuration)
            defer { try? other.close() }
            _ = try other.execute(#"INSERT INTO "Member" ("name") VALUES ('Grace')"#)
        }
        let names = try await Self.values(&iterator) { $0 == ["Grace"] }
        #expect(names == ["Grace"])
        // A change to a join table alone (a member's tags) is a change to the members too.
        try await TestPostgres.onQueue {
            let other = try DBBPostgresConnection.connect(configuration)
            defer { try? other.close() }
            _ = try other.execute(
                #"INSERT INTO "Member_tags" ("Member_ID", "tags") SELECT "id", 'navy' FROM "Member""#)
        }
        let tagged = try await iterator.next()
        #expect(tagged?.first?.tags == ["navy"])
        try await TestPostgres.onQueue { try manager.close() }
    }

    @Test(.enabled(if: psql != nil, "psql, PostgreSQL's client, is not installed"))
    func anObservationSeesCommitsOfAnotherProcess() async throws {
        let manager = try await TestPostgres.manager()
        let configuration = try #require(manager.postgresConfiguration)
        var iterator = manager.observe(Member.self).makeAsyncIterator()
        _ = try await iterator.next()
        let status = try Self.runInAnotherProcess(#"INSERT INTO "Member" ("name") VALUES ('Linus')"#, configuration)
        #expect(status == 0)
        let names = try await Self.values(&iterator) { $0 == ["Linus"] }
        #expect(names == ["Linus"])
        try await TestPostgres.onQueue { try manager.close() }
    }

    @Test func anObservationOfAnotherTableIsNotWokenAndTheHandleFormWorks() async throws {
        let manager = try await TestPostgres.manager()
        let badges = DBBObservationCounter()
        let handle = manager.observe(ServerModels.Badge.self) { badges.add($0.map(\.label)) }
        defer { handle.cancel() }
        try await badges.wait(forCount: 1)
        try await TestPostgres.onQueue {
            let member = Member(dbManager: manager)
            member.name = "Solo"
            try member.save()
            let badge = ServerModels.Badge(dbManager: manager)
            badge.label = "Core"
            try badge.save()
        }
        try await badges.wait(forCount: 2)
        // The member's save did not wake the badges' observation: the second value is the badge's.
        #expect(badges.values.prefix(2) == [[], ["Core"]])
        handle.cancel()
        try await TestPostgres.onQueue { try manager.close() }
    }

    @Test func anObservationWhoseListenerWasEndedIsToldAndKeepsObserving() async throws {
        let manager = try await TestPostgres.manager()
        let configuration = try #require(manager.postgresConfiguration)
        var iterator = manager.observe(Member.self).makeAsyncIterator()
        _ = try await iterator.next()
        // The server ends every connection but the one doing it; the manager's are made anew.
        _ = try await DBBPostgresReconnectionTests.endOtherConnections(configuration)
        try await TestPostgres.onQueue {
            let member = Member(dbManager: manager)
            member.name = "After"
            try member.save()
        }
        let names = try await Self.values(&iterator) { $0 == ["After"] }
        #expect(names == ["After"])
        try await TestPostgres.onQueue { try manager.close() }
    }
}

/// Collects the values an observation's handle delivers, and waits for them.
final class DBBObservationCounter: Sendable {
    private let collected = Mutex<[[String]]>([])

    var values: [[String]] { collected.withLock { $0 } }

    func add(_ value: [String]) { collected.withLock { $0.append(value) } }

    func wait(forCount count: Int, seconds: Double = 300) async throws {
        let deadline = Date().addingTimeInterval(seconds)
        while values.count < count {
            guard Date() < deadline else {
                Issue.record("only \(values.count) of \(count) values in \(seconds) seconds")
                return
            }
            try await Task.sleep(for: .milliseconds(20))
        }
    }
}
