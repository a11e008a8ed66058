import DBBBuilder
import Foundation
import Testing

@testable import DBBPostgres

/// What a manager sends PostgreSQL: one round trip per single save, statements prepared once per connection
/// (and again after a migration or another program's change), none prepared when the configuration says so,
/// and change triggers only on tables someone observes.
@Suite(.postgres)
struct DBBPostgresStatementTests {
    typealias Member = ServerModels.Member
    typealias Badge = ServerModels.Badge

    /// The writer's connection of a PostgreSQL manager.
    static func writer(of manager: DBBManager) throws -> DBBPostgresObjectStore.Connection {
        try #require(manager.store as? DBBPostgresObjectStore).writer
    }

    /// The statements prepared on the manager's writer connection, as the server lists them.
    static func preparedStatements(of manager: DBBManager) throws -> [String] {
        let writer = try writer(of: manager)
        let connection = writer.objects.connection
        return try writer.waiting {
            try connection.fetchAll("SELECT statement FROM pg_prepared_statements ORDER BY statement")
                .compactMap { $0.first?.stringValue }
        }
    }

    /// Saves a new badge and returns the round trips its save took.
    static func saveBadge(_ label: String, manager: DBBManager) throws -> Int {
        let counter = try writer(of: manager).objects.connection
        let before = counter.roundTrips.load(ordering: .relaxed)
        let badge = Badge(dbManager: manager)
        badge.label = label
        badge.level = Int64(label.count)
        try badge.save()
        #expect(badge.idNum > 0)
        return counter.roundTrips.load(ordering: .relaxed) - before
    }

    @Test func aSingleSaveIsOneRoundTripAndItsStatementIsPreparedOnItsSecondUse() async throws {
        let manager = try await TestPostgres.manager(readers: 0)
        try await TestPostgres.onQueue {
            // The first save sends its INSERT unnamed; the second prepares it (one more round trip); every later
            // one runs it prepared.
            let trips = try ["a", "bb", "ccc", "dddd", "eeeee"].map { try Self.saveBadge($0, manager: manager) }
            #expect(trips == [1, 2, 1, 1, 1])
            let prepared = try Self.preparedStatements(of: manager)
            #expect(prepared.contains { $0.hasPrefix(#"INSERT INTO "Badge""#) && $0.contains("$1::") })
            // A changed object is one UPDATE.
            let badge = try #require(try Badge.fetchOne(id: 1, manager: manager))
            badge.level = 40
            let writer = try Self.writer(of: manager).objects.connection
            let before = writer.roundTrips.load(ordering: .relaxed)
            try badge.save()
            #expect(writer.roundTrips.load(ordering: .relaxed) - before == 1)
            let levels = try Badge.fetchAll(manager: manager).sorted { $0.idNum < $1.idNum }.map(\.level)
            #expect(levels == [40, 2, 3, 4, 5])
            try manager.close()
        }
    }

    @Test func withPreparedStatementsOffNothingIsPreparedAndEverythingStillWorks() async throws {
        var unprepared = try await TestPostgres.freshDatabase()
        unprepared.preparedStatements = false
        let configuration = unprepared
        try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration, readers: 0)
            try manager.addTableClasses(ServerModels.all)
            let trips = try ["a", "bb", "ccc"].map { try Self.saveBadge($0, manager: manager) }
            #expect(trips == [1, 1, 1])
            for _ in 0..<3 { #expect(try Badge.fetchAll(manager: manager).count == 3) }
            #expect(try Self.preparedStatements(of: manager).isEmpty)
            try manager.close()
        }
    }

    @Test func aMigrationMakesEveryConnectionPrepareItsStatementsAgain() async throws {
        let manager = try await TestPostgres.manager(readers: 0)
        try await TestPostgres.onQueue {
            for name in ["Ada", "Grace"] {
                let member = Member(dbManager: manager)
                member.name = name
                try member.save()
            }
            for _ in 0..<3 { _ = try Member.fetchAll(manager: manager) }
            let before = try Self.preparedStatements(of: manager)
            #expect(before.contains { $0.hasPrefix("SELECT") && $0.contains(#"FROM "Member""#) })
            // The column's type changes: a SELECT prepared before would now fail with "cached plan must not
            // change result type".
            var migrator = DBBMigrator()
            migrator.registerMigration(
                "v1: longer names", [.sql(#"ALTER TABLE "Member" ALTER COLUMN name TYPE varchar(200)"#)])
            try migrator.migrate(manager)
            let names = try Member.fetchAll(manager: manager).map(\.name).sorted()
            #expect(names == ["Ada", "Grace"])
            let after = try Self.preparedStatements(of: manager)
            #expect(!after.contains { $0.hasPrefix("SELECT") && $0.contains(#"FROM "Member""#) })
            try manager.close()
        }
    }

    @Test func aTableAnotherProgramChangedIsReadAgainWithTheStatementPreparedAnew() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration, readers: 1)
            try manager.addTableClasses(ServerModels.all)
            let member = Member(dbManager: manager)
            member.name = "Ada"
            try member.save()
            for _ in 0..<3 { #expect(try Member.fetchAll(manager: manager).map(\.name) == ["Ada"]) }
            let other = try DBBPostgresConnection.connect(configuration)
            try other.execute(#"ALTER TABLE "Member" ALTER COLUMN name TYPE varchar(200)"#)
            try other.close()
            #expect(try Member.fetchAll(manager: manager).map(\.name) == ["Ada"])
            try manager.close()
        }
    }

    @Test func registrationPutsNoChangeTriggerAndTheFirstObservationPutsOneOnEachTableItReads() async throws {
        let manager = try await TestPostgres.manager()
        let configuration = try #require(manager.store as? DBBPostgresObjectStore).configuration
        @Sendable func triggered() throws -> [String] {
            let connection = try DBBPostgresConnection.connect(configuration)
            defer { try? connection.close() }
            return try connection.fetchAll(
                "SELECT tgrelid::regclass::text FROM pg_trigger WHERE tgname = 'dbb_report_change' ORDER BY 1"
            ).compactMap { $0.first?.stringValue }
        }
        #expect(try await TestPostgres.onQueue { try triggered() } == [])
        var iterator = manager.observe(Member.self).makeAsyncIterator()
        #expect(try await iterator.next()?.isEmpty == true)
        // Member's table and its join tables (its tags, its mentor, who is a Member): not Team's nor Badge's.
        let memberTables = try await TestPostgres.onQueue {
            let connection = try DBBPostgresConnection.connect(configuration)
            defer { try? connection.close() }
            return try connection.fetchAll(
                "SELECT quote_ident(tablename) FROM pg_tables WHERE tablename LIKE 'Member%' ORDER BY 1"
            ).compactMap { $0.first?.stringValue }
        }
        #expect(memberTables.count >= 2)
        #expect(try await TestPostgres.onQueue { try triggered() } == memberTables)
        try await TestPostgres.onQueue {
            let ada = Member(dbManager: manager)
            ada.name = "Ada"
            try ada.save()
        }
        let names = try await DBBPostgresObservationTests.values(&iterator) { !$0.isEmpty }
        #expect(names == ["Ada"])
        try await TestPostgres.onQueue { try manager.close() }
    }

    @Test func theConfigurationSaysWhetherStatementsArePrepared() throws {
        let on = try DBBPostgresConfiguration(url: "postgres://app@127.0.0.1/app")
        #expect(on.preparedStatements)
        #expect(!on.redactedURL.contains("prepared_statements"))
        let off = try DBBPostgresConfiguration(url: "postgres://app:pw@127.0.0.1/app?prepared_statements=off")
        #expect(!off.preparedStatements)
        #expect(off.redactedURL == "postgres://app:***@127.0.0.1:5432/app?sslmode=prefer&prepared_statements=off")
        #expect(try DBBPostgresConfiguration(url: off.redactedURL.replacingOccurrences(of: ":***", with: "")) != on)
        #expect(throws: DBBError.self) {
            try DBBPostgresConfiguration(url: "postgres://app@127.0.0.1/app?prepared_statements=maybe")
        }
    }
}
