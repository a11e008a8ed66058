import DBBBuilder
import DBBPostgres
import Foundation
import Testing

/// `manager.write { }` and `manager.read { }` on PostgreSQL: one transaction, one snapshot, and the state of
/// the objects after a rollback.
@Suite(.postgres)
struct DBBPostgresScopeTests {
    typealias Member = ServerModels.Member
    typealias Team = ServerModels.Team

    /// Runs SQL on a connection of its own: another client of the database.
    static func otherClient<T: Sendable>(
        _ manager: DBBManager, _ body: @escaping @Sendable (DBBPostgresConnection) throws -> T
    ) async throws -> T {
        let configuration = try #require(manager.postgresConfiguration)
        return try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            return try body(db)
        }
    }

    @Test func aWriteClosureCommitsItsObjectsAndItsOwnSQLTogether() async throws {
        let manager = try await TestPostgres.manager()
        try synchronously {
            let ada = Member(dbManager: manager)
            ada.name = "Ada"
            let team = Team(dbManager: manager)
            team.title = "Engines"
            let teams = try manager.write {
                try ada.save()
                team.lead = ada
                team.members = [ada]
                try team.save()
                _ = try manager.postgresConnection().execute(
                    #"UPDATE "Member" SET "age" = 36 WHERE "id" = $1"#, [.integer(ada.idNum)])
                // A fetch inside sees the transaction's own rows.
                return try Team.fetchAll(manager: manager)
            }
            #expect(teams.map(\.title) == ["Engines"])
            #expect(teams.first?.lead?.name == "Ada")
            let fetched = try Member.fetchOne(id: ada.idNum, manager: manager)
            #expect(fetched?.age == 36)
        }
        try manager.close()
    }

    /// A manager of the engine with the server models registered.
    static func manager(_ engine: String) async throws -> DBBManager {
        guard engine == "sqlite" else { return try await TestPostgres.manager() }
        let manager = try DBBManager.inMemory()
        try synchronously { try manager.addTableClasses(ServerModels.all) }
        return manager
    }

    @Test(arguments: ["sqlite", "postgres"])
    func aWriteClosureThatThrowsChangesNothingAndRestoresTheObjects(engine: String) async throws {
        let manager = try await Self.manager(engine)
        struct Stop: Error {}
        try synchronously {
            let kept = Member(dbManager: manager)
            kept.name = "Kept"
            try kept.save()
            let keptID = kept.idNum
            let fresh = Member(dbManager: manager)
            fresh.name = "Fresh"
            #expect(throws: Stop.self) {
                try manager.write {
                    try fresh.save()
                    #expect(fresh.idNum > 0)
                    try kept.delete()
                    throw Stop()
                }
            }
            // The objects have the ids and state they had before the closure.
            #expect(fresh.idNum == 0)
            #expect(kept.idNum == keptID)
            let names = try Member.fetchAll(manager: manager).map(\.name)
            #expect(names == ["Kept"])
        }
        try manager.close()
    }

    @Test func aFailingStatementRollsBackTheWholeWriteClosure() async throws {
        let manager = try await TestPostgres.manager()
        try synchronously {
            let first = Member(dbManager: manager)
            first.name = "First"
            let error = #expect(throws: DBBError.self) {
                try manager.write {
                    try first.save()
                    _ = try manager.postgresConnection().execute(#"INSERT INTO "NoSuchTable" VALUES (1)"#)
                }
            }
            #expect(error?.sqlState == "42P01")
            #expect(first.idNum == 0)
            let count = try Member.fetchCount(manager: manager)
            #expect(count == 0)
        }
        try manager.close()
    }

    @Test func aReadClosureSeesOneSnapshotWhateverOthersCommit() async throws {
        let manager = try await TestPostgres.manager(readers: 2)
        let one = Member(dbManager: manager)
        one.name = "One"
        try synchronously { try one.save() }
        let configuration = try #require(manager.postgresConfiguration)
        let (before, after) = try synchronously {
            try manager.read {
                let before = try Member.fetchCount(manager: manager)
                // Another client commits a row while the snapshot is open.
                let other = try DBBPostgresConnection.connect(configuration)
                defer { try? other.close() }
                _ = try other.execute(#"INSERT INTO "Member" ("name") VALUES ('Two')"#)
                let after = try Member.fetchAll(manager: manager).map(\.name)
                return (before, after)
            }
        }
        #expect(before == 1)
        #expect(after == ["One"])
        let count = try synchronously { try Member.fetchCount(manager: manager) }
        #expect(count == 2)
        try manager.close()
    }

    @Test(arguments: ["sqlite", "postgres"])
    func writesInsideAReadClosureAndNestedClosuresAreRefused(engine: String) async throws {
        let manager = try await Self.manager(engine)
        try synchronously {
            let member = Member(dbManager: manager)
            member.name = "Reader"
            let writeError = #expect(throws: DBBError.self) {
                try manager.read { try member.save() }
            }
            #expect(writeError?.kind == .misuse)
            #expect(writeError?.message.contains("manager.read") == true)
            #expect(member.idNum == 0)
            let nestedError = #expect(throws: DBBError.self) {
                try manager.write { try manager.read { 0 } }
            }
            #expect(nestedError?.message.contains("do not nest") == true)
            let outside = #expect(throws: DBBError.self) { _ = try manager.postgresConnection() }
            #expect(
                outside?.message.contains(
                    engine == "postgres" ? "only inside manager.write" : "not a PostgreSQL manager") == true)
            let count = try Member.fetchCount(manager: manager)
            #expect(count == 0)
        }
        try manager.close()
    }

    @Test(arguments: ["sqlite", "postgres"])
    func theAsyncClosuresRunInOneTransactionToo(engine: String) async throws {
        let manager = try await Self.manager(engine)
        let id = try await manager.write {
            let member = Member(dbManager: manager)
            member.name = "Async"
            try member.save()
            return member.idNum
        }
        let name = try await manager.read { try Member.fetchOne(id: id, manager: manager)?.name }
        #expect(name == "Async")
        struct Stop: Error {}
        await #expect(throws: Stop.self) {
            try await manager.write {
                let member = Member(dbManager: manager)
                member.name = "Gone"
                try member.save()
                throw Stop()
            }
        }
        #expect(try await Member.fetchCount(manager: manager) == 1)
        try synchronously { try manager.close() }
    }

    @Test func theCompletionFormsWorkOnTheServer() async throws {
        let manager = try await TestPostgres.manager()
        let saved: Bool = await withCheckedContinuation { continuation in
            let member = Member(dbManager: manager)
            member.name = "Completed"
            Member.saveObjectsOnQueue([member], dbManager: manager) { continuation.resume(returning: $0) }
        }
        #expect(saved)
        let names: [String] = await withCheckedContinuation { continuation in
            Member.getAllInstancesFromQueue(manager: manager) { continuation.resume(returning: $0.map(\.name)) }
        }
        #expect(names == ["Completed"])
        let ids: [Int64] = await withCheckedContinuation { continuation in
            Member.fetchAllInstanceIDsFromQueue(manager: manager) { continuation.resume(returning: $0) }
        }
        #expect(ids.count == 1)
        try synchronously { try manager.close() }
    }

    @Test func aDeadlockedSaveRunsAgainAndSucceeds() async throws {
        let manager = try await TestPostgres.manager(readers: 0)
        let (first, second) = try synchronously {
            let first = Member(dbManager: manager)
            first.name = "First"
            let second = Member(dbManager: manager)
            second.name = "Second"
            try Member.save([first, second], manager: manager)
            return (first, second)
        }
        let configuration = try #require(manager.postgresConfiguration)
        let (firstID, secondID) = (first.idNum, second.idNum)
        // Another client locks the first row, then (once the save waits for it) the second: the server
        // breaks the deadlock by failing the transaction that waited first, the save's.
        let other = try await TestPostgres.onQueue {
            let other = try DBBPostgresConnection.connect(configuration)
            try other.begin()
            _ = try other.execute(#"UPDATE "Member" SET "age" = 1 WHERE "id" = $1"#, [.integer(firstID)])
            return other
        }
        // PostgreSQL checks a lock wait for a deadlock once, a second after it began, and fails the transaction
        // that checks: the save, which waits first, as long as the other client waits within that second.
        let blocker = Task.detached {
            try await TestPostgres.onQueue {
                defer { try? other.close() }
                // Once the save waits for the first row (it has locked the second by then).
                for _ in 0..<500 {
                    let waiting = try other.fetchAll(
                        """
                        SELECT count(*) FROM pg_stat_activity
                        WHERE datname = current_database() AND wait_event_type = 'Lock'
                        """)
                    if waiting.first?.first?.int64Value ?? 0 > 0 { break }
                    Thread.sleep(forTimeInterval: 0.01)
                }
                do {
                    _ = try other.execute(#"UPDATE "Member" SET "age" = 1 WHERE "id" = $1"#, [.integer(secondID)])
                    try other.commit()
                    return true
                } catch let error as DBBError where error.sqlState == "40P01" {
                    // On a loaded machine the save's check may come before this wait began: then this
                    // transaction is the one failed, and the save goes through without running again.
                    return false
                }
            }
        }
        first.age = 50
        second.age = 60
        try synchronously { try Member.save([second, first], manager: manager) }
        let saveRanAgain = try await blocker.value
        let ages = try synchronously { try Member.fetchAll(manager: manager).map(\.age) }
        #expect(ages == [50, 60])
        if !saveRanAgain { print("the deadlock failed the other transaction; the save did not need to run again") }
        try synchronously { try manager.close() }
    }
}
