import DBBBuilder
import DBBPostgres
import Foundation
import Testing

/// Model classes written for SQLite, used unchanged on PostgreSQL: one in each mapping form.
enum ServerModels {
    @DBBTable
    final class Member: DBBTableObject {
        @Indexed var name = ""
        var age = 0
        var score = 0.0
        var active = false
        var joined: Date?
        var nickname: String?
        var tags: [String] = []
        var photo: Data?
        var mentor: Member?
    }

    final class Team: DBBTableObject {
        var title = ""
        var budget: Float = 0
        var members: [Member] = []
        var lead: Member?
        var ratings: [Double] = []

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                [
                    "title": .init(\Team.title, columnName: "teamTitle"),
                    "budget": .init(\Team.budget),
                    "members": .init(\Team.members),
                    "lead": .init(\Team.lead),
                    "ratings": .init(\Team.ratings),
                ], for: self)
        }
    }

    final class Badge: DBBTableObject {
        var label = ""
        var level: Int64 = 0

        override class var persistenceMapping: DBBTableMapping {
            DBBTableMapping([
                "label": .init(get: { (badge: Badge) -> String in badge.label }, set: { $0.label = $1 }),
                "level": .init(get: { (badge: Badge) -> Int64 in badge.level }, set: { $0.level = $1 }),
            ])
        }
    }

    static let all: [DBBTableObject.Type] = [Member.self, Team.self, Badge.self]
}

extension TestPostgres {
    /// A database of its own for one test, on the shared server: tables of one test never meet another's.
    static func freshDatabase() async throws -> DBBPostgresConfiguration {
        let configuration = try await shared().configuration
        let name = "dbb_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        try await onQueue {
            let admin = try DBBPostgresConnection.connect(configuration)
            defer { try? admin.close() }
            _ = try admin.execute("CREATE DATABASE \(name)")
        }
        var fresh = configuration
        fresh.database = name
        return fresh
    }

    /// A manager of a fresh database with the server models registered, made on a dispatch queue.
    static func manager(readers: Int = 1) async throws -> DBBManager {
        let configuration = try await freshDatabase()
        return try await onQueue {
            let manager = try DBBManager(postgres: configuration, readers: readers)
            try manager.addTableClasses(ServerModels.all)
            return manager
        }
    }
}

/// Runs a closure in which calls resolve to their synchronous forms, as they do in code that is not `async`.
func synchronously<T>(_ body: () throws -> T) rethrows -> T { try body() }

@Suite(.postgres)
struct DBBPostgresObjectTests {
    typealias Member = ServerModels.Member
    typealias Team = ServerModels.Team
    typealias Badge = ServerModels.Badge

    @Test func theSameClassesSaveAndFetchEveryTypeExactly() async throws {
        let manager = try await TestPostgres.manager()
        try synchronously {
            let joined = Date(timeIntervalSinceReferenceDate: 786_000_000.123456)
            let ada = Member(dbManager: manager)
            ada.name = "Ada"
            ada.age = 36
            ada.score = 0.1 + 0.2
            ada.active = true
            ada.joined = joined
            ada.tags = ["admin", "founder", "émoji 👩‍💻"]
            ada.photo = Data([0, 1, 0, 255])
            let bob = Member(dbManager: manager)
            bob.name = "Bob"
            bob.age = 41
            bob.score = -0.0
            bob.mentor = ada
            let team = Team(dbManager: manager)
            team.title = "Engines"
            team.budget = 1_000.5
            team.members = [bob, ada]
            team.lead = ada
            team.ratings = [1e308, .leastNonzeroMagnitude, -2.5]
            let badge = Badge(dbManager: manager)
            badge.label = "first"
            badge.level = .max
            try team.save()
            try badge.save()
            #expect(ada.idNum > 0 && bob.idNum > 0 && team.idNum > 0 && badge.idNum > 0)

            let teams = try Team.fetchAll(manager: manager)
            #expect(teams.count == 1)
            let loaded = try #require(teams.first)
            #expect(loaded.title == "Engines")
            #expect(loaded.budget == 1_000.5)
            #expect(loaded.ratings.map(\.bitPattern) == [1e308, .leastNonzeroMagnitude, -2.5].map(\.bitPattern))
            #expect(loaded.members.map(\.name) == ["Bob", "Ada"])
            // One row, one object: the lead, Bob's mentor and the second member are the same Ada.
            let loadedAda = try #require(loaded.lead)
            #expect(loaded.members[1] === loadedAda)
            #expect(loaded.members[0].mentor === loadedAda)
            #expect(loadedAda.age == 36)
            #expect(loadedAda.score.bitPattern == (0.1 + 0.2).bitPattern)
            #expect(loadedAda.active)
            #expect(loadedAda.joined == joined)
            #expect(loadedAda.nickname == nil)
            #expect(loadedAda.tags == ["admin", "founder", "émoji 👩‍💻"])
            #expect(loadedAda.photo == Data([0, 1, 0, 255]))
            #expect(loaded.members[0].score.bitPattern == (-0.0).bitPattern)
            #expect(loadedAda.createdTime != nil)
            #expect(try Badge.fetchOne(id: badge.idNum, manager: manager)?.level == .max)
            try manager.close()
        }
    }

    /// One suite of queries, run on SQLite and on PostgreSQL: the same answers from both.
    @Test(arguments: ["sqlite", "postgres"])
    func theSameQueriesSelectTheSameObjects(engine: String) async throws {
        let manager: DBBManager
        if engine == "postgres" {
            manager = try await TestPostgres.manager()
        } else {
            manager = try DBBManager.inMemory()
            try synchronously { try manager.addTableClasses(ServerModels.all) }
        }
        try synchronously {
            var members: [Member] = []
            for (index, name) in ["Ann", "bea", "Cid", "Dee", "Eve"].enumerated() {
                let member = Member(dbManager: manager)
                member.name = name
                member.age = 20 + index * 10
                member.active = index % 2 == 0
                member.tags = index < 2 ? ["early"] : ["late"]
                member.mentor = members.first
                members.append(member)
            }
            try Member.save(members, manager: manager)

            var older = DBBQueryOptions.options(sortColumns: ["name"])
            older.addCondition("age > ?", 30)
            #expect(try Member.fetch(options: older, manager: manager).map(\.name) == ["Cid", "Dee", "Eve"])
            // The seed's boolean condition, a join property, a reference, paging and a count.
            let active = DBBQueryOptions.options(withConditions: ["active = 1"], sortColumns: ["age DESC"])
            #expect(try Member.fetch(options: active, manager: manager).map(\.name) == ["Eve", "Cid", "Ann"])
            let early = DBBQueryOptions.options(withConditions: ["tags = 'early'"], sortColumns: ["age"])
            #expect(try Member.fetch(options: early, manager: manager).map(\.name) == ["Ann", "bea"])
            let mentored = DBBQueryOptions.options(withConditions: ["mentor.name = 'Ann'"], sortColumns: ["age"])
            #expect(try Member.fetch(options: mentored, manager: manager).map(\.name) == ["bea", "Cid", "Dee", "Eve"])
            var page = DBBQueryOptions.options(sortColumns: ["age"])
            page.offset = 3
            #expect(try Member.fetch(options: page, manager: manager).map(\.name) == ["Dee", "Eve"])
            page.limit = 1
            #expect(try Member.fetch(options: page, manager: manager).map(\.name) == ["Dee"])
            // A count with a page counts a sub-select, which PostgreSQL before 16 needs named.
            #expect(try Member.fetchCount(options: page, manager: manager) == 1)
            var grouped = DBBQueryOptions()
            grouped.groupBy = ["active"]
            #expect(try Member.fetchCount(options: grouped, manager: manager) == 2)
            // One object per group, in the order of a column that is not grouped.
            grouped.sorting = ["name DESC"]
            #expect(try Member.fetch(options: grouped, manager: manager).map(\.name) == ["bea", "Ann"])
            #expect(try Member.fetchCount(options: older, manager: manager) == 3)
            // Typed conditions through the same plans.
            var typed = DBBQueryOptions.options(sortColumns: ["name"])
            typed.filter(\Member.age >= 50)
            #expect(try Member.fetch(options: typed, manager: manager).map(\.name) == ["Dee", "Eve"])
            // Names keep their case: PostgreSQL would fold unquoted `teamTitle` to `teamtitle`.
            let team = Team(dbManager: manager)
            team.title = "Mixed"
            try team.save()
            let titled = DBBQueryOptions.options(withConditions: ["title = 'Mixed'"])
            #expect(try Team.fetch(options: titled, manager: manager).map(\.title) == ["Mixed"])
            try manager.close()
        }
    }

    @Test func updatesAndDeletesChangeWhatTheyShouldAndNothingElse() async throws {
        let manager = try await TestPostgres.manager()
        try synchronously {
            let ann = Member(dbManager: manager)
            ann.name = "Ann"
            ann.tags = ["a", "b"]
            let cid = Member(dbManager: manager)
            cid.name = "Cid"
            cid.mentor = ann
            try Member.save([ann, cid], manager: manager)
            ann.tags = ["c"]
            ann.nickname = "A"
            try ann.save()
            let reloaded = try #require(try Member.fetchOne(id: ann.idNum, manager: manager))
            #expect(reloaded.tags == ["c"])
            #expect(reloaded.nickname == "A")
            try Member.delete([ann], manager: manager)
            #expect(ann.idNum == 0)
            let left = try Member.fetchAll(manager: manager)
            #expect(left.map(\.name) == ["Cid"])
            // The join row of Cid's mentor went with Ann.
            #expect(left.first?.mentor == nil)
            #expect(try Member.fetchCount(manager: manager) == 1)
            try manager.close()
        }
    }

    @Test func aLargeSaveIsInsertedInBatchesWithIdsInSaveOrderAndReferencesResolved() async throws {
        let manager = try await TestPostgres.manager()
        try synchronously {
            var members: [Member] = []
            for index in 0..<2_345 {
                let member = Member(dbManager: manager)
                member.name = "M\(index)"
                member.age = index
                member.score = Double(index) / 3
                member.nickname = index % 2 == 0 ? nil : "n\(index)"
                member.tags = index % 500 == 0 ? ["t\(index)"] : []
                // A reference to a row of the same batch, saved earlier in the same call.
                member.mentor = members.last
                members.append(member)
            }
            let team = Team(dbManager: manager)
            team.title = "All"
            team.lead = members[1_000]
            team.members = Array(members.prefix(3))
            try Member.save(members, manager: manager)
            try Team.save([team], manager: manager)
            let ids = members.map(\.idNum)
            #expect(ids.allSatisfy { $0 > 0 })
            #expect(ids == ids.sorted() && Set(ids).count == ids.count)
            let fetched = try Member.fetch(options: .options(sortColumns: ["age"]), manager: manager)
            #expect(fetched.count == 2_345)
            #expect(fetched.map(\.idNum) == ids)
            #expect(fetched.map(\.name) == members.map(\.name))
            #expect(fetched.map(\.score) == members.map(\.score))
            #expect(fetched.map(\.nickname) == members.map(\.nickname))
            #expect(fetched[1].mentor?.idNum == ids[0] && fetched[2_344].mentor?.idNum == ids[2_343])
            #expect(fetched[0].mentor == nil)
            #expect(fetched[500].tags == ["t500"])
            let loadedTeam = try Team.fetchOne(id: team.idNum, manager: manager)
            #expect(loadedTeam?.lead?.name == "M1000")
            #expect(loadedTeam?.members.map(\.name) == ["M0", "M1", "M2"])
            // The identity sequence is past the batch: the next row's id comes after it.
            let later = Member(dbManager: manager)
            later.name = "Later"
            try later.save()
            #expect(later.idNum > ids.max() ?? 0)
        }
        try manager.close()
    }

    @Test func aPresetIDIsKeptAndLaterIDsComeAfterIt() async throws {
        let manager = try await TestPostgres.manager()
        try synchronously {
            let preset = Badge(dbManager: manager)
            preset.idNum = 500
            preset.label = "preset"
            try preset.save()
            let next = Badge(dbManager: manager)
            next.label = "next"
            try next.save()
            #expect(preset.idNum == 500)
            #expect(next.idNum > 500)
            #expect(try Badge.fetchAll(manager: manager).map(\.label) == ["preset", "next"])
            try manager.close()
        }
    }

    @Test func aTableSomeoneElseCreatedWithOtherColumnTypesIsAClearError() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            _ = try db.execute(
                #"CREATE TABLE "Badge" ("id" bigint PRIMARY KEY, "createdTime" double precision, "#
                    + #""modifiedTime" double precision, "label" bigint, "level" bigint)"#)
        }
        let error = await #expect(throws: DBBError.self) {
            try await TestPostgres.onQueue {
                let manager = try DBBManager(postgres: configuration)
                defer { try? manager.close() }
                try manager.addTableClasses([Badge.self])
            }
        }
        #expect(error?.message.contains("label") == true)
        #expect(error?.message.contains("Text") == true)
    }

    @Test func theAsyncFormsSaveFetchCountAndDeleteWithoutBlockingTheTask() async throws {
        let manager = try await TestPostgres.manager()
        let team = Team(dbManager: manager)
        team.title = "Async"
        let member = Member(dbManager: manager)
        member.name = "Tess"
        member.age = 28
        team.members = [member]
        try await team.save()
        #expect(team.idNum > 0 && member.idNum > 0)
        let teams = try await Team.fetchAll(manager: manager)
        #expect(teams.map(\.title) == ["Async"])
        #expect(teams.first?.members.map(\.name) == ["Tess"])
        let young = DBBQueryOptions.options(withConditions: ["age < 30"])
        #expect(try await Member.fetch(options: young, manager: manager).map(\.name) == ["Tess"])
        #expect(try await Member.fetchCount(options: young, manager: manager) == 1)
        #expect(try await Member.fetchAllIDs(manager: manager) == [member.idNum])
        try await member.delete()
        #expect(member.idNum == 0)
        #expect(try await Member.fetchCount(manager: manager) == 0)
        #expect(try await Team.fetchAll(manager: manager).first?.members.isEmpty == true)
        try manager.close()
    }

    @Test func textWithANULIsRefusedNamingThePropertyAndNothingIsWritten() async throws {
        let manager = try await TestPostgres.manager()
        try synchronously {
            let fine = Member(dbManager: manager)
            fine.name = "Fine"
            let broken = Member(dbManager: manager)
            broken.name = "Bro\u{0}ken"
            let error = #expect(throws: DBBError.self) { try Member.save([fine, broken], manager: manager) }
            #expect(error?.message.contains("property name of") == true)
            #expect(error?.message.contains("NUL") == true)
            let tagged = Member(dbManager: manager)
            tagged.name = "Tagged"
            tagged.tags = ["ok", "n\u{0}t ok"]
            let tagError = #expect(throws: DBBError.self) { try tagged.save() }
            #expect(tagError?.message.contains("property tags of") == true)
            let count = try Member.fetchCount(manager: manager)
            #expect(count == 0)
            #expect(fine.idNum == 0 && tagged.idNum == 0)
        }
        try manager.close()
    }

    @Test func aClosedManagerRefusesWorkInsteadOfConnectingAgain() async throws {
        let manager = try await TestPostgres.manager()
        try synchronously {
            try manager.close()
            try manager.close()
            let error = #expect(throws: DBBError.self) { _ = try Member.fetchAll(manager: manager) }
            #expect(error?.kind == .misuse)
            #expect(error?.message.contains("is closed") == true)
        }
        let asyncError = await #expect(throws: DBBError.self) { _ = try await Member.fetchCount(manager: manager) }
        #expect(asyncError?.message.contains("is closed") == true)
    }

    @Test func aClosureThatTakesASQLiteConnectionIsRefusedClearly() async throws {
        let manager = try await TestPostgres.manager(readers: 0)
        let error = #expect(throws: DBBError.self) {
            try synchronously { try manager.write { _ in } }
        }
        #expect(error?.kind == .misuse)
        #expect(error?.message.contains("takes a SQLite connection") == true)
        #expect(error?.message.contains("manager.write") == true)
        #expect(error?.recoverySuggestion?.contains("without a connection parameter") == true)
        try manager.close()
    }

    @Test func theSQLiteQueueOfAPostgreSQLManagerRefusesEveryStatementNamingTheServer() async throws {
        let manager = try await TestPostgres.manager(readers: 1)
        #expect(manager.pool == nil)
        let error = #expect(throws: DBBError.self) {
            _ = try manager.queue.inDatabase { db in try db.fetchValue(Int.self, "SELECT 1") }
        }
        #expect(error?.kind == .misuse)
        #expect(error?.message.contains("manager.queue takes a SQLite connection") == true)
        #expect(error?.message.contains("postgres://") == true)
        let count = #expect(throws: DBBError.self) { _ = try manager.rowCount(inTable: "Member") }
        #expect(count?.message.contains("takes a SQLite connection") == true)
        try manager.close()
    }
}

@Suite(.postgres)
struct DBBPostgresReconnectionTests {
    typealias Member = ServerModels.Member

    /// Ends every other connection to the test's database, as a server restart or a network failure would, and
    /// waits until their server processes are gone: the server has then told each client, so a later statement
    /// finds its connection ended instead of racing the server's goodbye.
    ///
    /// - Returns: how many it ended.
    static func endOtherConnections(_ configuration: DBBPostgresConfiguration) async throws -> Int {
        try await TestPostgres.onQueue {
            let admin = try DBBPostgresConnection.connect(configuration)
            defer { try? admin.close() }
            let ended = try admin.fetchAll(
                """
                SELECT pid, pg_terminate_backend(pid) FROM pg_stat_activity
                WHERE datname = current_database() AND pid <> pg_backend_pid()
                """
            ).compactMap { $0.first?.int64Value }
            let deadline = Date().addingTimeInterval(30)
            while !ended.isEmpty, Date() < deadline {
                let list = ended.map(String.init).joined(separator: ", ")
                let left = try admin.fetchAll("SELECT count(*) FROM pg_stat_activity WHERE pid IN (\(list))")
                if left.first?.first?.int64Value == 0 { break }
                Thread.sleep(forTimeInterval: 0.01)
            }
            return ended.count
        }
    }

    @Test func aManagerWhoseConnectionsWereEndedConnectsAgainAndLosesNothing() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        let manager = try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration, readers: 2)
            try manager.addTableClasses(ServerModels.all)
            return manager
        }
        try synchronously {
            let first = Member(dbManager: manager)
            first.name = "Before"
            try first.save()
        }
        // The writer and both readers.
        #expect(try await Self.endOtherConnections(configuration) == 3)
        try synchronously {
            let second = Member(dbManager: manager)
            second.name = "After"
            second.tags = ["x"]
            try second.save()
            #expect(second.idNum > 0)
            let names = try Member.fetchAll(manager: manager).map(\.name)
            #expect(names == ["Before", "After"])
        }
        // The writer and the reader the fetch connected again; the other reader is still closed from before.
        #expect(try await Self.endOtherConnections(configuration) == 2)
        #expect(try await Member.fetchCount(manager: manager) == 2)
        #expect(try await Member.fetchCount(manager: manager) == 2)
        // A write closure whose connection ended before it began runs once, on a new connection.
        #expect(try await Self.endOtherConnections(configuration) > 0)
        let runs = Tally()
        let id = try await manager.write {
            runs.add()
            let third = Member(dbManager: manager)
            third.name = "Closure"
            try third.save()
            return third.idNum
        }
        #expect(runs.count == 1 && id > 0)
        #expect(try await manager.read { try Member.fetchCount(manager: manager) } == 3)
        try manager.close()
    }
}

extension DBBPostgresReconnectionTests {
    /// A write refused or ended at its commit is reported, never taken for saved. A deferred constraint
    /// trigger acts as the transaction commits: for the name `Refused` it raises an error, for `Doomed` it ends
    /// its own server process, so the connection ends exactly under the `COMMIT`. postgres-nio reports a
    /// statement's success before its implicit commit, so a manager that finds such checks in its schema runs
    /// even a save of one statement in a transaction.
    @Test func aWriteRefusedOrEndedAtItsCommitIsReportedNeverTakenForSaved() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let first = try DBBManager(postgres: configuration)
            try first.addTableClasses(ServerModels.all)
            try first.close()
            let admin = try DBBPostgresConnection.connect(configuration)
            defer { try? admin.close() }
            _ = try admin.execute(
                """
                CREATE FUNCTION check_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                    IF NEW.name = 'Refused' THEN RAISE EXCEPTION 'refused at commit'; END IF;
                    IF NEW.name = 'Doomed' THEN
                        PERFORM pg_terminate_backend(pg_backend_pid());
                        PERFORM pg_sleep(10);  -- where the process takes the signal, before the commit
                    END IF;
                    RETURN NULL;
                END $$
                """)
            _ = try admin.execute(
                """
                CREATE CONSTRAINT TRIGGER check_at_commit AFTER INSERT ON "Member" DEFERRABLE INITIALLY DEFERRED
                FOR EACH ROW EXECUTE FUNCTION check_at_commit()
                """)
        }
        let manager = try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration)
            try manager.addTableClasses(ServerModels.all)
            return manager
        }
        for (name, inClosure, state) in [
            ("Refused", false, "P0001"), ("Refused", true, "P0001"), ("Doomed", false, "08007"),
            ("Doomed", true, "08007"),
        ] {
            let runs = Tally()
            let error = await #expect(throws: DBBError.self, "\(name), in a closure: \(inClosure)") {
                try await TestPostgres.onQueue {
                    let member = Member(dbManager: manager)
                    member.name = name
                    if inClosure {
                        try manager.write {
                            runs.add()
                            try member.save()
                        }
                    } else {
                        runs.add()
                        try member.save()
                    }
                }
            }
            #expect(error?.sqlState == state, "\(name), in a closure: \(inClosure): \(String(describing: error))")
            #expect(runs.count == 1)
            if state == "08007" {
                #expect(error?.message.contains("whether it committed is unknown") == true)
                #expect(error?.message.contains("(the connection") == false, "reported once, not wrapped twice")
            }
        }
        // Nothing was stored, and the manager connects again.
        try await TestPostgres.onQueue {
            let member = Member(dbManager: manager)
            member.name = "After"
            try member.save()
            #expect(try Member.fetchAll(manager: manager).map(\.name) == ["After"])
            try manager.close()
        }
    }

    /// A save of one statement whose connection ends while that statement is prepared (a class's second save on a
    /// connection prepares its `INSERT` first) was never sent to run: it runs again on a new connection, once,
    /// rather than being reported as a commit of unknown outcome. Another session's lock on the table holds the
    /// server's parse of the `INSERT`, so the connection is ended exactly in the prepare round trip.
    @Test func aSingleSaveWhoseConnectionEndsWhileItsStatementIsPreparedRunsAgain() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        let manager = try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration)
            try manager.addTableClasses(ServerModels.all)
            let first = Member(dbManager: manager)
            first.name = "First"
            try first.save()  // sent unprepared: the next save of the class prepares the statement
            return manager
        }
        let admin = try await TestPostgres.onQueue { () -> DBBPostgresConnection in
            let admin = try DBBPostgresConnection.connect(configuration)
            try admin.begin()
            _ = try admin.execute(#"LOCK TABLE "Member" IN ACCESS EXCLUSIVE MODE"#)
            return admin
        }
        async let saved: Void = TestPostgres.onQueue {
            let second = Member(dbManager: manager)
            second.name = "Second"
            try second.save()
        }
        let (ended, sessions) = try await TestPostgres.onQueue { () -> (Bool, String) in
            // The lock goes whatever happens here, so that the save ends.
            defer {
                try? admin.rollback()
                try? admin.close()
            }
            let watcher = try DBBPostgresConnection.connect(configuration)
            defer { try? watcher.close() }
            // Long: with the whole package's tests running at once, the save's queue may wait minutes for a
            // thread (one CI run found nothing within 30 s, and the test took 164 s).
            let deadline = Date().addingTimeInterval(300)
            while Date() < deadline {
                // The server process parsing the INSERT, waiting for the table's lock.
                let waiting = try watcher.fetchAll(
                    """
                    SELECT pid FROM pg_stat_activity
                    WHERE datname = current_database() AND wait_event_type = 'Lock' AND query LIKE 'INSERT%'
                    """
                ).compactMap { $0.first?.int64Value }
                if let pid = waiting.first {
                    _ = try watcher.fetchAll("SELECT pg_terminate_backend($1::int)", [.integer(pid)])
                    return (true, "")
                }
                Thread.sleep(forTimeInterval: 0.01)
            }
            // What the database's sessions were doing, for the failure's message.
            let sessions = try watcher.fetchAll(
                """
                SELECT pid::text || ' ' || coalesce(state, '') || ' ' || coalesce(wait_event_type, '') || ' '
                    || left(query, 60)
                FROM pg_stat_activity WHERE datname = current_database()
                """)
            return (false, sessions.compactMap { $0.first?.stringValue }.joined(separator: "; "))
        }
        #expect(ended, "no save waited for the lock; the sessions: \(sessions)")
        try await saved
        let names = try await TestPostgres.onQueue { () -> [String] in
            defer { try? manager.close() }
            return try Member.fetchAll(manager: manager).map(\.name)
        }
        #expect(names == ["First", "Second"])
    }

    /// A migration that adds a check at commit protects the next single save of the manager that ran it, without
    /// reopening.
    @Test func aCheckAtCommitAddedByAMigrationReportsTheNextSave() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        let (refused, stored) = try await TestPostgres.onQueue { () -> (DBBError?, [String]) in
            let manager = try DBBManager(postgres: configuration)
            defer { try? manager.close() }
            try manager.addTableClasses(ServerModels.all)
            let before = Member(dbManager: manager)
            before.name = "Refused"
            try before.save()  // no check yet
            var migrator = DBBMigrator()
            migrator.registerMigration(
                "v2: a check at commit",
                [
                    .sql(
                        """
                        CREATE FUNCTION check_at_commit() RETURNS trigger LANGUAGE plpgsql AS $$ BEGIN
                            IF NEW.name = 'Refused' THEN RAISE EXCEPTION 'refused at commit'; END IF;
                            RETURN NULL;
                        END $$
                        """),
                    .sql(
                        """
                        CREATE CONSTRAINT TRIGGER check_at_commit AFTER INSERT ON "Member"
                        DEFERRABLE INITIALLY DEFERRED FOR EACH ROW EXECUTE FUNCTION check_at_commit()
                        """),
                ])
            try migrator.migrate(manager)
            let member = Member(dbManager: manager)
            member.name = "Refused"
            var refused: DBBError?
            do { try member.save() } catch let error as DBBError { refused = error }
            return (refused, try Member.fetchAll(manager: manager).map(\.name))
        }
        #expect(refused?.sqlState == "P0001", "\(String(describing: refused))")
        #expect(stored == ["Refused"], "only the save before the migration is stored")
    }
}

@Suite(.postgres)
struct DBBPostgresManagerTLSTests {
    @Test(
        .enabled(
            if: TestPostgres.offersTLS,
            "needs a test server this process starts, with openssl for its certificate (not DBB_POSTGRES_URL)"))
    func aManagerOverTLSVerifiesTheServerAndSavesAndFetches() async throws {
        let server = try await TestPostgres.shared()
        let trustRootFile = try #require(server.trustRootFile, "the test server offers no TLS (no openssl)")
        var configuration = try await TestPostgres.freshDatabase()
        configuration.tls = .require(trustRootFile: trustRootFile)
        let secure = configuration
        let manager = try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: secure, readers: 1)
            try manager.addTableClasses(ServerModels.all)
            return manager
        }
        try synchronously {
            let member = ServerModels.Member(dbManager: manager)
            member.name = "Over TLS"
            try member.save()
            #expect(try ServerModels.Member.fetchAll(manager: manager).map(\.name) == ["Over TLS"])
        }
        // Every connection of the database but the checking one is encrypted: the manager's writer and reader.
        let encrypted = try await TestPostgres.onQueue {
            let check = try DBBPostgresConnection.connect(secure)
            defer { try? check.close() }
            return try check.fetchAll(
                """
                SELECT s.ssl::int FROM pg_stat_ssl s JOIN pg_stat_activity a ON a.pid = s.pid
                WHERE a.datname = current_database() AND a.pid <> pg_backend_pid()
                """)
        }
        #expect(encrypted == [[.integer(1)], [.integer(1)]])
        try manager.close()
        // The system's roots do not include the test CA: the manager refuses to connect.
        configuration.tls = .require
        let insecure = configuration
        let error = await #expect(throws: DBBError.self) {
            try await TestPostgres.onQueue { _ = try DBBManager(postgres: insecure) }
        }
        #expect(error?.description.contains(insecure.password ?? "no password") == false)
    }
}
