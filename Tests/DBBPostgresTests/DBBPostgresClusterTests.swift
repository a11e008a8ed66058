import DBBBuilder
import DBBPostgres
import DBBTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

/// A manager on a real cluster (``TestCluster``): reads on the standbys, read-your-writes, failover after a kill,
/// a planned switchover, and pgbouncer in transaction mode. The tests run one at a time: they kill and move the
/// primary.
@Suite(.postgresCluster, .serialized, .timeLimit(.minutes(10)))
struct DBBPostgresClusterTests {
    typealias Member = ServerModels.Member

    /// A fresh database on the cluster, made on the primary, and the configuration of the tests' role for it.
    static func freshDatabase(_ cluster: TestCluster.Cluster) async throws -> DBBPostgresConfiguration {
        let name = "dbb_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").prefix(16).lowercased()
        var primary = cluster.configuration
        primary.targetSessionAttributes = .readWrite
        let admin = primary
        try await TestPostgres.onQueue {
            let connection = try DBBPostgresConnection.connect(admin)
            defer { try? connection.close() }
            try connection.execute("CREATE DATABASE \(name)")
        }
        // Each standby applies the new database a moment after the primary acknowledges it.
        try await TestPostgres.onQueue {
            let deadline = Date().addingTimeInterval(20)
            for node in cluster.nodes {
                var superuser = cluster.superuser(node)
                superuser.database = name
                while (try? DBBPostgresConnection.connect(superuser).close()) == nil, Date() < deadline {
                    usleep(50_000)
                }
            }
        }
        var fresh = cluster.configuration
        fresh.database = name
        return fresh
    }

    /// A manager of `configuration` with the server models registered, made on a dispatch queue.
    static func registeredManager(_ configuration: DBBPostgresConfiguration, readers: Int) async throws -> DBBManager {
        try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration, readers: readers)
            try manager.addTableClasses(ServerModels.all)
            return manager
        }
    }

    /// Each node's count of committed transactions in a database, from its own statistics.
    static func commits(_ cluster: TestCluster.Cluster, database: String) throws -> [String: Int64] {
        var counts: [String: Int64] = [:]
        for node in cluster.nodes {
            var superuser = cluster.superuser(node)
            superuser.database = "postgres"
            let connection = try DBBPostgresConnection.connect(superuser)
            defer { try? connection.close() }
            let rows = try connection.fetchAll(
                "SELECT xact_commit FROM pg_stat_database WHERE datname = $1", [.text(database)])
            counts[node.name] = rows.first?.first?.int64Value ?? 0
        }
        return counts
    }

    /// Runs SQL as the superuser on one node.
    static func superuserRun(_ sql: String, on node: TestCluster.Node, _ cluster: TestCluster.Cluster) throws {
        var superuser = cluster.superuser(node)
        superuser.database = "postgres"
        let connection = try DBBPostgresConnection.connect(superuser)
        defer { try? connection.close() }
        try connection.execute(sql)
    }

    /// Pauses the replay of WAL on the standbys, and waits until each says it is paused (a request takes effect
    /// at the next record the standby replays, which a commit on the primary sends).
    static func pauseReplay(on standbys: [TestCluster.Node], _ cluster: TestCluster.Cluster) throws {
        // Patroni resumes a paused replay unless the cluster is in maintenance mode.
        try cluster.maintenance(true)
        for standby in standbys { try superuserRun("SELECT pg_wal_replay_pause()", on: standby, cluster) }
        var primary = cluster.superuser(try cluster.leader())
        primary.database = "postgres"
        let admin = try DBBPostgresConnection.connect(primary)
        defer { try? admin.close() }
        let deadline = Date().addingTimeInterval(10)
        for standby in standbys {
            var superuser = cluster.superuser(standby)
            superuser.database = "postgres"
            let connection = try DBBPostgresConnection.connect(superuser)
            defer { try? connection.close() }
            // Paused: WAL the standby received after a commit on the primary stays unapplied.
            while true {
                try admin.execute("SELECT txid_current()")
                usleep(100_000)
                let row = try connection.fetchAll(
                    "SELECT pg_last_wal_receive_lsn() > pg_last_wal_replay_lsn(), pg_get_wal_replay_pause_state()")
                if row.first?.first == .integer(1) { break }
                guard Date() < deadline else {
                    throw TestPostgres.SetupError(description: "replay did not pause: \(row)")
                }
            }
        }
    }

    /// Resumes the replay on the standbys, and Patroni's management.
    static func resumeReplay(on standbys: [TestCluster.Node], _ cluster: TestCluster.Cluster) {
        for standby in standbys { try? superuserRun("SELECT pg_wal_replay_resume()", on: standby, cluster) }
        try? cluster.maintenance(false)
    }

    @Test func writesGoToThePrimaryAndReadsSpreadAcrossTheStandbys() async throws {
        let cluster = try await TestCluster.shared()
        let configuration = try await Self.freshDatabase(cluster)
        let leader = try cluster.leader()
        let reads = 60
        try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration, readers: 2)
            try manager.addTableClasses(ServerModels.all)
            for index in 0..<10 {
                let member = Member(dbManager: manager)
                member.name = "m\(index)"
                try member.save()
            }
            // Statistics are counted when a session ends: count from a closed manager.
            let before = try Self.commits(cluster, database: configuration.database!)
            for _ in 0..<reads {
                #expect(try Member.fetchAll(manager: manager).count == 10)
            }
            try manager.close()
            // A backend's statistics reach the shared counters when it exits, which follows the close shortly.
            var after = try Self.commits(cluster, database: configuration.database!)
            let deadline = Date().addingTimeInterval(10)
            while after.values.reduce(0, +) - before.values.reduce(0, +) < Int64(reads), Date() < deadline {
                usleep(100_000)
                after = try Self.commits(cluster, database: configuration.database!)
            }
            let standbys = cluster.nodes.filter { $0 != leader }
            let onStandbys = standbys.map { (after[$0.name] ?? 0) - (before[$0.name] ?? 0) }
            // Every fetch is one read-only transaction on a standby; the two readers are on different standbys.
            #expect(onStandbys.reduce(0, +) >= Int64(reads), "by host: \(before) → \(after)")
            #expect(onStandbys.allSatisfy { $0 >= Int64(reads / 2) }, "by host: \(before) → \(after)")
            print("cluster reads by host (commits): \(before) → \(after), leader \(leader.name)")
        }
    }

    @Test func aReadAfterACommitSeesItWhileTheStandbysLag() async throws {
        let cluster = try await TestCluster.shared()
        var configured = try await Self.freshDatabase(cluster)
        configured.readYourWritesTimeout = 0.5
        // The standbys' lag is not what this test is about: on a loaded machine, pausing may take past the default.
        configured.maxStandbyLag = 3_600
        let configuration = configured
        let leader = try cluster.leader()
        let standbys = cluster.nodes.filter { $0 != leader }
        try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration, readers: 2)
            defer { try? manager.close() }
            try manager.addTableClasses(ServerModels.all)
            // Replaying normally: the read waits for the standby, briefly, and sees the commit there.
            let first = Member(dbManager: manager)
            first.name = "first"
            try first.save()
            #expect(try Member.fetchAll(manager: manager).map(\.name) == ["first"])

            // Held back: the standbys receive the commit but do not apply it.
            defer { Self.resumeReplay(on: standbys, cluster) }
            try Self.pauseReplay(on: standbys, cluster)
            let second = Member(dbManager: manager)
            second.name = "second"
            try second.save()
            let start = Date()
            let seen = try Member.fetch(options: .options(sortColumns: ["name"]), manager: manager).map(\.name)
            let waited = Date().timeIntervalSince(start)
            #expect(seen == ["first", "second"])
            // It waited for the standby up to the timeout, then read on the primary.
            #expect(waited >= 0.45 && waited < 5, "waited \(waited) s")
            #expect(try Member.fetchCount(options: .options(), manager: manager) == 2)
        }
    }

    @Test func aStandbyTooFarBehindIsNotReadFrom() async throws {
        let cluster = try await TestCluster.shared()
        let configuration = try await Self.freshDatabase(cluster)
        let leader = try cluster.leader()
        let standbys = cluster.nodes.filter { $0 != leader }
        try await TestPostgres.onQueue {
            // Two readers of the same database: one lets standbys lag 1 s, the other an hour.
            var strictConfiguration = configuration
            strictConfiguration.maxStandbyLag = 1
            let strict = try DBBManager(postgres: strictConfiguration, readers: 2)
            defer { try? strict.close() }
            try strict.addTableClasses(ServerModels.all)
            var lenientConfiguration = configuration
            lenientConfiguration.maxStandbyLag = 3_600
            let lenient = try DBBManager(postgres: lenientConfiguration, readers: 2)
            defer { try? lenient.close() }
            try lenient.addTableClasses(ServerModels.all)
            let other = try DBBManager(postgres: configuration)
            defer { try? other.close() }
            try other.addTableClasses(ServerModels.all)
            #expect(try Member.fetchCount(options: .options(), manager: strict) == 0)
            #expect(try Member.fetchCount(options: .options(), manager: lenient) == 0)
            defer { Self.resumeReplay(on: standbys, cluster) }
            try Self.pauseReplay(on: standbys, cluster)
            // Another client's commit, which neither reader waits for: the standbys fall behind.
            let member = Member(dbManager: other)
            member.name = "elsewhere"
            try member.save()
            Thread.sleep(forTimeInterval: 2.2)
            // The lenient reader still reads on a standby, 2 s or more behind, which has not applied the commit; the strict
            // one reads on the primary.
            #expect(try Member.fetchCount(options: .options(), manager: lenient) == 0)
            #expect(try Member.fetchCount(options: .options(), manager: strict) == 1)
        }
    }

    /// What a stream of saves saw around a failure of the primary.
    struct StreamOutcome: Sendable {
        var acknowledged: [Int] = []
        var unknown: [Int] = []
        var failures: [String: Int] = [:]
        /// The longest time between two acknowledged saves, in seconds: the window without writes.
        var window: Double = 0
        /// The reads that ran beside the saves, the slowest, and the errors they met.
        var reads = 0
        var slowestRead: Double = 0
        var readFailures: [String: Int] = [:]
    }

    /// Counts reads made beside a stream of saves, on another thread.
    final class ReadStream: Sendable {
        let state = Mutex<(stop: Bool, reads: Int, slowest: Double, failures: [String: Int])>((false, 0, 0, [:]))
        let done = DispatchSemaphore(value: 0)

        func run(_ manager: DBBManager) {
            DispatchQueue(label: "reads").async {
                while !self.state.withLock({ $0.stop }) {
                    let start = Date()
                    do {
                        _ = try Member.fetchCount(options: .options(withConditions: ["age < 0"]), manager: manager)
                        let took = Date().timeIntervalSince(start)
                        self.state.withLock {
                            $0.reads += 1
                            $0.slowest = max($0.slowest, took)
                        }
                    } catch let error as DBBError {
                        self.state.withLock { $0.failures[error.sqlState ?? "\(error.kind)", default: 0] += 1 }
                    } catch {
                        self.state.withLock { $0.failures["\(error)", default: 0] += 1 }
                    }
                    usleep(20_000)
                }
                self.done.signal()
            }
        }

        func stop(into outcome: inout StreamOutcome) {
            state.withLock { $0.stop = true }
            done.wait()
            state.withLock {
                outcome.reads = $0.reads
                outcome.slowestRead = $0.slowest
                outcome.readFailures = $0.failures
            }
        }
    }

    /// Saves numbered members one after another, while `disrupt` runs once after `after` seconds, until writes have
    /// worked again for a second (or 60 s have passed).
    static func stream(
        _ configuration: DBBPostgresConfiguration, after: Double, disrupt: @escaping @Sendable () throws -> Void
    ) async throws -> (StreamOutcome, [Int]) {
        try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration, readers: 2)
            defer { try? manager.close() }
            try manager.addTableClasses(ServerModels.all)
            var outcome = StreamOutcome()
            let reads = ReadStream()
            reads.run(manager)
            let start = Date()
            var lastAcknowledged = Date()
            var disrupted: Date?
            var number = 0
            while Date().timeIntervalSince(start) < 60 {
                if disrupted == nil, Date().timeIntervalSince(start) >= after {
                    try disrupt()
                    disrupted = Date()
                }
                number += 1
                let member = Member(dbManager: manager)
                member.name = "n\(number)"
                member.age = number
                do {
                    try member.save()
                    let now = Date()
                    outcome.window = max(outcome.window, now.timeIntervalSince(lastAcknowledged))
                    lastAcknowledged = now
                    outcome.acknowledged.append(number)
                    if let disrupted, now.timeIntervalSince(disrupted) > 1,
                        lastAcknowledged.timeIntervalSince(disrupted) > outcome.window + 1
                    {
                        break
                    }
                } catch let error as DBBError {
                    if error.sqlState == "08007" { outcome.unknown.append(number) }
                    outcome.failures[error.sqlState ?? "\(error.kind)", default: 0] += 1
                }
            }
            reads.stop(into: &outcome)
            // Every number stored, read on the primary (a write closure runs there).
            let stored = try manager.write { try Member.fetchAll(manager: manager).map(\.age) }
            return (outcome, stored)
        }
    }

    static func check(_ outcome: StreamOutcome, stored: [Int]) {
        let counts = Dictionary(stored.map { ($0, 1) }, uniquingKeysWith: +)
        let lost = outcome.acknowledged.filter { counts[$0] == nil }
        #expect(lost.isEmpty, "acknowledged saves lost: \(lost)")
        #expect(counts.values.allSatisfy { $0 == 1 }, "saved twice: \(counts.filter { $0.value > 1 })")
        let unexpected = Set(stored).subtracting(outcome.acknowledged).subtracting(outcome.unknown)
        #expect(unexpected.isEmpty, "stored without being acknowledged or reported unknown: \(unexpected)")
        #expect(outcome.acknowledged.count > 10)
    }

    @Test func killingThePrimaryLosesNoAcknowledgedSave() async throws {
        let cluster = try await TestCluster.shared()
        let rounds = Int(ProcessInfo.processInfo.environment["DBB_CLUSTER_KILLS"] ?? "") ?? 3
        var windows: [Double] = []
        for round in 0..<rounds {
            let configuration = try await Self.freshDatabase(cluster)
            let leader = try cluster.leader()
            // Alternately the whole node (a failover) and its PostgreSQL alone (Patroni restarts it).
            let wholeNode = round % 2 == 0
            let streamed: (StreamOutcome, [Int])
            do {
                streamed = try await Self.stream(configuration, after: 1) { cluster.kill(leader, wholeNode: wholeNode) }
            } catch {
                if wholeNode { try? cluster.start(leader) }
                throw error
            }
            let (outcome, stored) = streamed
            Self.check(outcome, stored: stored)
            windows.append(outcome.window)
            print(
                "cluster kill \(round + 1) (\(wholeNode ? "node" : "postgres")): window \(outcome.window) s, "
                    + "acknowledged \(outcome.acknowledged.count), unknown \(outcome.unknown.count), "
                    + "failures \(outcome.failures); reads \(outcome.reads), slowest \(outcome.slowestRead) s, "
                    + "read failures \(outcome.readFailures)")
            #expect(outcome.window < 30)
            // Reads went on beside: the standbys served them while the primary was replaced.
            #expect(outcome.readFailures.isEmpty && outcome.reads > 0)
            if wholeNode { try cluster.start(leader) }
            try await TestPostgres.onQueue { try cluster.waitUntilHealthy() }
        }
        let sorted = windows.sorted()
        print("cluster kills: \(rounds), window median \(sorted[sorted.count / 2]) s, worst \(sorted.last ?? 0) s")
    }

    @Test func aPlannedSwitchoverUnderLoadLosesNothing() async throws {
        let cluster = try await TestCluster.shared()
        let configuration = try await Self.freshDatabase(cluster)
        let leader = try cluster.leader()
        let members = try cluster.members()
        let candidate = try #require(cluster.nodes.first { $0 != leader && members[$0.name]?.role == "sync_standby" })
        let (outcome, stored) = try await Self.stream(configuration, after: 1) {
            let run = try cluster.switchover(to: candidate)
            guard run.exitCode == 0 else { throw TestPostgres.SetupError(description: run.standardOutput) }
        }
        Self.check(outcome, stored: stored)
        print(
            "cluster switchover: window \(outcome.window) s, acknowledged \(outcome.acknowledged.count), "
                + "unknown \(outcome.unknown.count), failures \(outcome.failures)")
        #expect(try cluster.leader() == candidate)
        try await TestPostgres.onQueue { try cluster.waitUntilHealthy() }
    }

    @Test func everyOperationWorksThroughPgbouncerInTransactionMode() async throws {
        let cluster = try await TestCluster.shared()
        let direct = try await Self.freshDatabase(cluster)
        let pgbouncer = try await TestPostgres.onQueue { try cluster.startPgbouncer(before: try cluster.leader()) }
        let listen = cluster.nodes.map(\.host.description).joined(separator: ",")
        let url =
            "postgres://dbb_app@127.0.0.1:\(pgbouncer)/\(direct.database!)?sslmode=disable"
            + "&pooler=transaction&listen_hosts=\(listen)"
        var configured = try DBBPostgresConfiguration(url: url)
        configured.password = cluster.appPassword
        let pooled = configured
        #expect(pooled.pooler == DBBPostgresConfiguration.Pooler.transaction)
        #expect(pooled.listenHosts?.count == 3)
        let manager = try await Self.registeredManager(pooled, readers: 2)
        defer { try? manager.close() }
        // An observation listens on a direct connection to the primary, and sees a commit made through the pooler.
        let (observing, seen) = Self.collect(manager)
        defer { observing.cancel() }
        #expect(await Self.waitFor(seen, seconds: 10) { $0.isEmpty })
        try await TestPostgres.onQueue {
            // The same statements many times over: none is prepared, so none is missing on another server connection.
            for index in 0..<40 {
                let member = Member(dbManager: manager)
                member.name = "p\(index)"
                member.age = index
                try member.save()
                #expect(
                    try Member.fetch(options: .options(withConditions: ["age = \(index)"]), manager: manager).count == 1
                )
            }
            try manager.write {
                let first = try Member.fetch(options: .options(withConditions: ["age = 0"]), manager: manager)
                try first.first?.delete()
            }
            #expect(try Member.fetchCount(options: .options(), manager: manager) == 39)
        }
        #expect(await Self.waitFor(seen, seconds: 10) { $0.count == 39 })

        // A restore runs in one transaction, so it needs no session either.
        let folder = try TemporaryFolder()
        let dump = try DBBPostgresRestoreTests.dumpOfFixture("chinook.sqlite", in: folder)
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(pooled)
            defer { try? db.close() }
            let report = try DBBPostgresRestore.restore(
                dumpAt: dump, into: db, options: DBBPostgresRestoreOptions(schema: "chinook"))
            #expect(report.verified)
            #expect(try db.fetchAll("SELECT count(*) FROM chinook.\"Track\"") == [[.integer(3503)]])
            // A migration: its steps and its record in one transaction.
            var migrator = DBBMigrator()
            migrator.registerMigration(
                "v2: nickname renamed alias", [.renameProperty("nickname", to: "alias", in: "Member")])
            let migrating = try DBBManager(postgres: pooled)
            defer { try? migrating.close() }
            try migrator.migrate(migrating)
            let columns = try db.fetchAll(
                "SELECT column_name::text FROM information_schema.columns WHERE table_name = 'Member' "
                    + "AND column_name IN ('nickname', 'alias')")
            #expect(columns == [[.text("alias")]])

            // A schema: set in each transaction (SET LOCAL), which the pooler cannot refuse or lose.
            try db.execute("CREATE SCHEMA board")
            var inSchema = pooled
            inSchema.schema = "board"
            let boardManager = try DBBManager(postgres: inSchema, readers: 1)
            defer { try? boardManager.close() }
            try boardManager.addTableClasses(ServerModels.all)
            let member = Member(dbManager: boardManager)
            member.name = "in board"
            try member.save()
            #expect(try Member.fetchAll(manager: boardManager).map(\.name) == ["in board"])
            #expect(try db.fetchAll("SELECT name FROM board.\"Member\"") == [[.text("in board")]])
        }
    }

    /// Collects the names an observation of members delivers, in a task of its own, so that a test can wait for
    /// a value with a deadline.
    static func collect(_ manager: DBBManager) -> (Task<Void, any Error>, Seen) {
        let seen = Seen()
        let task = Task {
            for try await members in manager.observe(Member.self, options: .options(sortColumns: ["name"])) {
                let names = members.map(\.name)
                seen.values.withLock { $0.append(names) }
            }
        }
        return (task, seen)
    }

    /// The values an observation delivered.
    final class Seen: Sendable {
        let values = Mutex<[[String]]>([])
    }

    static func waitFor(_ seen: Seen, seconds: Double, _ done: ([String]) -> Bool) async -> Bool {
        let deadline = Date().addingTimeInterval(seconds)
        while Date() < deadline {
            if seen.values.withLock({ $0.contains(where: done) }) { return true }
            try? await Task.sleep(for: .milliseconds(50))
        }
        return false
    }

    @Test func anObservationIsToldAfterAFailoverAndSeesTheNewPrimarysCommits() async throws {
        let cluster = try await TestCluster.shared()
        let configuration = try await Self.freshDatabase(cluster)
        let leader = try cluster.leader()
        let manager = try await Self.registeredManager(configuration, readers: 1)
        defer { try? manager.close() }
        let (observing, seen) = Self.collect(manager)
        defer { observing.cancel() }
        #expect(await Self.waitFor(seen, seconds: 10) { $0.isEmpty })
        cluster.kill(leader, wholeNode: true)
        // A backend of the killed server may still answer for a moment: the save is made once another node leads.
        try await TestPostgres.onQueue {
            let deadline = Date().addingTimeInterval(30)
            while (try? cluster.leader()) ?? leader == leader, Date() < deadline { usleep(100_000) }
        }
        #expect(try cluster.leader() != leader)
        // A save whose commit was cut off by the kill reports an unknown outcome; the next one is acknowledged.
        let acknowledged = try await TestPostgres.onQueue {
            for attempt in 1...5 {
                let member = Member(dbManager: manager)
                member.name = "after\(attempt)"
                do {
                    try member.save()
                    return member.name
                } catch let error as DBBError where error.sqlState == "08007" {
                    continue
                }
            }
            return ""
        }
        let delivered = await Self.waitFor(seen, seconds: 30) { $0.contains(acknowledged) }
        let fetched = try await TestPostgres.onQueue { try Member.fetchAll(manager: manager).map(\.name) }
        #expect(delivered, "acknowledged \(acknowledged); seen \(seen.values.withLock { $0 }); fetched \(fetched)")
        try cluster.start(leader)
        try await TestPostgres.onQueue { try cluster.waitUntilHealthy() }
    }

    @Test func tlsAndSCRAMWorkToEveryHostAndNoPasswordIsShown() async throws {
        let cluster = try await TestCluster.shared()
        let trustRootFile = try #require(cluster.trustRootFile, "openssl is needed for the nodes' certificates")
        var configured = try await Self.freshDatabase(cluster)
        configured.tls = .require(trustRootFile: trustRootFile)
        let configuration = configured
        #expect(!"\(configuration)".contains(cluster.appPassword))
        try await TestPostgres.onQueue {
            // Each host on its own, then the list with each role: encrypted, verified, logged in with SCRAM.
            for target in [DBBPostgresConfiguration.TargetSessionAttributes.primary, .standby] {
                var wanted = configuration
                wanted.targetSessionAttributes = target
                let db = try DBBPostgresConnection.connect(wanted)
                defer { try? db.close() }
                let row = try db.fetchAll(
                    "SELECT s.ssl, pg_is_in_recovery() FROM pg_stat_ssl s WHERE s.pid = pg_backend_pid()")
                #expect(row == [[.integer(1), .integer(target == .standby ? 1 : 0)]])
            }
            for node in cluster.nodes {
                var one = configuration
                one.hosts = [node.host]
                let db = try DBBPostgresConnection.connect(one)
                defer { try? db.close() }
                #expect(try db.fetchAll("SELECT ssl FROM pg_stat_ssl WHERE pid = pg_backend_pid()") == [[.integer(1)]])
            }
            let manager = try DBBManager(postgres: configuration, readers: 2)
            defer { try? manager.close() }
            try manager.addTableClasses(ServerModels.all)
            let member = Member(dbManager: manager)
            member.name = "encrypted"
            try member.save()
            #expect(try Member.fetchAll(manager: manager).map(\.name) == ["encrypted"])
            // A wrong password: refused by SCRAM, and named without it.
            var wrong = configuration
            wrong.password = "not-" + cluster.appPassword
            do {
                _ = try DBBManager(postgres: wrong, readers: 1)
                Issue.record("a wrong password was accepted")
            } catch let error as DBBError {
                #expect(error.sqlState == "28P01")
                #expect(!error.description.contains(cluster.appPassword))
            }
        }
    }

    /// One request of wrk's mixed load, as `Examples/load/mixed.lua` records it: sent and answered (wall clock,
    /// ms), whether it writes, and its HTTP status.
    struct LoadRequest {
        var sent: Double
        var answered: Double
        var isWrite: Bool
        var status: Int

        /// The records of every file `RECORDS.<thread>` in a folder.
        static func read(in folder: URL) throws -> [LoadRequest] {
            try FileManager.default.contentsOfDirectory(at: folder, includingPropertiesForKeys: nil)
                .filter { $0.lastPathComponent.hasPrefix("records.") }
                .flatMap { file in
                    try String(contentsOf: file, encoding: .utf8).split(separator: "\n").compactMap { line in
                        let fields = line.split(separator: " ")
                        guard fields.count == 4, let sent = Double(fields[0]), let answered = Double(fields[1]),
                            let status = Int(fields[3])
                        else { return nil }
                        return LoadRequest(
                            sent: sent, answered: answered, isWrite: fields[2] == "write", status: status)
                    }
                }
        }
    }

    /// The example server (`Examples/`) on the cluster under wrk's mixed load (`Examples/load/run.sh`, 4 readers,
    /// 16 connections, 30 s), with the primary's whole node killed 10 s in. Prints wrk's result, and the failover
    /// window — from the kill to the first write sent after it that succeeded — with the requests in flight during
    /// it: their count, failures and latencies. Runs when `DBB_CLUSTER_EXAMPLE_SERVER` names a built
    /// `library-server` and wrk is installed (Examples/README.md, "Under load").
    @Test(.enabled(if: ProcessInfo.processInfo.environment["DBB_CLUSTER_EXAMPLE_SERVER"] != nil))
    func measureTheExampleServerThroughAFailover() async throws {
        let environment = ProcessInfo.processInfo.environment
        let server = try #require(environment["DBB_CLUSTER_EXAMPLE_SERVER"])
        let cluster = try await TestCluster.shared()
        let configuration = try await Self.freshDatabase(cluster)
        let hosts = cluster.nodes.map { "127.0.0.1:\($0.port)" }.joined(separator: ",")
        let url = "postgres://dbb_app:\(cluster.appPassword)@\(hosts)/\(configuration.database!)?sslmode=disable"
        let script = URL(fileURLWithPath: #filePath).deletingLastPathComponent().appendingPathComponent(
            "../../Examples/load/run.sh"
        ).standardizedFileURL
        let duration = Int(environment["DBB_CLUSTER_EXAMPLE_SECONDS"] ?? "") ?? 30
        let port = try TestPostgres.freeLoopbackPort()
        let leader = try cluster.leader()
        let folder = try TemporaryFolder()
        let records = folder.url
        let (output, killedAt) = try await TestPostgres.onQueue {
            let child = try ChildProcess(
                URL(fileURLWithPath: "/usr/bin/env"),
                [
                    "BINARY=\(server)", "LIBRARY_POSTGRES_URL=\(url)", "DURATION=\(duration)", "PORT=\(port)",
                    "THREADS=16", "CONNECTIONS=16", "RECORDS=\(records.appendingPathComponent("records").path)",
                    // The requests the failover holds up wait for it: wrk's timeout is longer than the window.
                    "TIMEOUT=30s", "bash", script.path, "4",
                ], outputIn: records)
            // run.sh prints the reader count when the seeding is done and wrk starts.
            let deadline = Date().addingTimeInterval(300)
            while !child.output.contains("readers=4"), Date() < deadline { usleep(100_000) }
            Thread.sleep(forTimeInterval: Double(duration) / 3)
            let killedAt = Date().timeIntervalSince1970 * 1000
            cluster.kill(leader, wholeNode: true)
            let status = child.wait()
            print("cluster example (primary \(leader.name) killed at \(duration / 3) s):\n\(child.output)")
            // The server's log at level warning: the requests that failed, and why.
            print("cluster example, the server's log:\n\(child.errorOutput.suffix(4000))")
            #expect(status == 0, "\(child.errorOutput)")
            try cluster.start(leader)
            try cluster.waitUntilHealthy()
            return (child.output, killedAt)
        }
        #expect(output.contains("RESULT requests="))
        let requests = try LoadRequest.read(in: records)
        let recovered = try #require(
            requests.filter { $0.isWrite && $0.sent >= killedAt && $0.status < 300 }.map(\.answered).min(),
            "no write succeeded after the kill")
        let window = requests.filter { $0.sent < recovered && $0.answered > killedAt }
        let latencies = window.map { $0.answered - $0.sent }.sorted()
        func percentile(_ p: Double) -> Double {
            latencies[min(latencies.count - 1, Int(Double(latencies.count) * p))]
        }
        let failed = window.filter { $0.status >= 300 }
        print(
            "cluster example: failover window \((recovered - killedAt) / 1000) s; \(window.count) requests in flight "
                + "during it (\(window.filter(\.isWrite).count) writes), \(failed.count) not 2xx "
                + "(\(failed.map(\.status))); latency p50 \(percentile(0.5)) ms, p99 \(percentile(0.99)) ms, "
                + "max \(latencies.last ?? 0) ms; reads answered within it: "
                + "\(window.filter { !$0.isWrite && $0.sent >= killedAt && $0.status < 300 }.count); "
                + "all requests \(requests.count), not 2xx \(requests.filter { $0.status >= 300 }.count)")
        #expect(recovered - killedAt < 30_000)
        #expect(requests.count > 100)
    }

    /// The cost of reading on the standbys with read-your-writes, against reading on the primary: rounds of a save
    /// followed by a fetch of what it saved, and of fetches alone, alternating a manager whose two readers are on
    /// the standbys with one that reads on the primary. Prints medians and each host's share of the reads; asserts
    /// nothing of the times. Runs when `DBB_CLUSTER_MEASURE` is set (Docs/Clusters.md, "Measured").
    @Test(.enabled(if: ProcessInfo.processInfo.environment["DBB_CLUSTER_MEASURE"] != nil))
    func measureReadYourWrites() async throws {
        let cluster = try await TestCluster.shared()
        let configuration = try await Self.freshDatabase(cluster)
        let leader = try cluster.leader()
        try await TestPostgres.onQueue {
            let standbys = try DBBManager(postgres: configuration, readers: 2)
            let primary = try DBBManager(postgres: configuration, readers: 0)
            try standbys.addTableClasses(ServerModels.all)
            try primary.addTableClasses(ServerModels.all)
            var times: [String: [Double]] = [:]
            var number = 0
            func round(_ name: String, _ manager: DBBManager, saving: Bool) throws {
                let start = DispatchTime.now().uptimeNanoseconds
                for _ in 0..<50 {
                    number += 1
                    if saving {
                        let member = Member(dbManager: manager)
                        member.name = "r\(number)"
                        member.age = number
                        try member.save()
                    }
                    let found = try Member.fetch(
                        options: .options(withConditions: ["age = \(saving ? number : 1)"]), manager: manager)
                    if saving && found.count != 1 { Issue.record("\(name): a read missed its own write") }
                }
                let perOperation = Double(DispatchTime.now().uptimeNanoseconds - start) / 50 / 1e6
                times[name, default: []].append(perOperation)
            }
            let before = try Self.commits(cluster, database: configuration.database!)
            for _ in 0..<9 {
                try round("save+fetch, readers on standbys", standbys, saving: true)
                try round("save+fetch, reads on the primary", primary, saving: true)
                try round("fetch, readers on standbys", standbys, saving: false)
                try round("fetch, reads on the primary", primary, saving: false)
            }
            try standbys.close()
            try primary.close()
            Thread.sleep(forTimeInterval: 1)
            let after = try Self.commits(cluster, database: configuration.database!)
            for (name, values) in times.sorted(by: { $0.key < $1.key }) {
                let sorted = values.sorted()
                print(
                    "cluster measure: \(name): median \(sorted[sorted.count / 2]) ms per operation "
                        + "(min \(sorted[0]), max \(sorted[sorted.count - 1]))")
            }
            print("cluster measure: commits by host \(before) → \(after), leader \(leader.name)")
        }
    }
}
