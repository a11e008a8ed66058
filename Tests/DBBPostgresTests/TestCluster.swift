import DBBPostgres
import DBBSQL
import DBBTestSupport
import Dispatch
import Foundation
import Synchronization
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A PostgreSQL cluster the tests start on loopback, on first use: etcd, three PostgreSQL nodes managed by Patroni
/// (`synchronous_mode: true`, a `ttl` of 6 s, `loop_wait` 1 s), and pgbouncers in transaction mode in front of the
/// primary, started when a test asks. Everything is stopped, and its folder removed, when the test process exits.
///
/// The programs come from Debian's `patroni`, `etcd-server` and `pgbouncer` packages beside `postgresql`; without
/// them the cluster tests are skipped with the reason, except under `CI=true`, where they fail.
enum TestCluster {
    /// The programs the cluster needs, found on the `PATH` or in the system's folders.
    static let programs: Result<[String: URL], TestPostgres.SetupError> = {
        var folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        folders += ["/usr/bin", "/usr/sbin", "/usr/local/bin"]
        var found: [String: URL] = [:]
        var missing: [String] = []
        for name in ["patroni", "patronictl", "etcd", "pgbouncer", "setpriv"] {
            if let url = folders.map({ URL(fileURLWithPath: $0).appendingPathComponent(name) })
                .first(where: { FileManager.default.isExecutableFile(atPath: $0.path) })
            {
                found[name] = url
            } else {
                missing.append(name)
            }
        }
        guard missing.isEmpty else {
            return .failure(
                .init(
                    description: "the cluster tests need \(missing.joined(separator: ", ")): apt-get install patroni "
                        + "etcd-server pgbouncer"))
        }
        guard case .binaries(let bin) = TestPostgres.source else {
            return .failure(
                .init(description: "the cluster tests need PostgreSQL's programs: \(TestPostgres.skipReason)"))
        }
        // Patroni runs the server's other programs (pg_controldata, pg_rewind) from the same folder: the real one.
        found["bin"] = bin.appendingPathComponent("initdb").resolvingSymlinksInPath().deletingLastPathComponent()
        return .success(found)
    }()

    /// Whether the cluster tests run: when the programs are installed, and always under `CI=true`.
    static var isEnabled: Bool {
        if case .failure = programs { return TestPostgres.ciRequiresPostgres }
        return true
    }

    static var skipReason: String {
        if case .failure(let error) = programs { return error.description }
        return "the cluster's programs are installed"
    }

    /// One PostgreSQL node and its Patroni.
    struct Node: Sendable, Hashable {
        var name: String
        var port: Int
        var restPort: Int
        var folder: URL
        var host: DBBPostgresConfiguration.Host { .init("127.0.0.1", port: port) }
    }

    /// The running cluster.
    struct Cluster: Sendable {
        var base: URL
        var nodes: [Node]
        var superPassword: String
        var appPassword: String
        /// The PEM file of the CA that signed every node's certificate, when `openssl` is installed.
        var trustRootFile: String?

        /// The tests' role on every node, as a manager of the cluster is configured.
        var configuration: DBBPostgresConfiguration {
            DBBPostgresConfiguration(
                hosts: nodes.map(\.host), username: "dbb_app", password: appPassword, database: "dbb_app",
                tls: .disable)
        }

        /// The superuser on one node alone.
        func superuser(_ node: Node) -> DBBPostgresConfiguration {
            DBBPostgresConfiguration(
                host: "127.0.0.1", port: node.port, username: "postgres", password: superPassword,
                database: "dbb_app", tls: .disable)
        }

        /// The members as Patroni lists them: name → role (`leader`, `sync_standby`, `replica`) and state.
        func members() throws -> [String: (role: String, state: String, lag: Int?)] {
            let programs = try TestCluster.programs.get()
            var lastError = ""
            for node in nodes {
                let run = try ToolProcess.run(
                    executable: programs["patronictl"]!,
                    ["-c", node.folder.appendingPathComponent("patroni.yml").path, "list", "-f", "json"])
                guard run.exitCode == 0,
                    let list = try? JSONSerialization.jsonObject(with: run.output) as? [[String: Any]]
                else {
                    lastError = run.standardError
                    continue
                }
                var members: [String: (role: String, state: String, lag: Int?)] = [:]
                for member in list {
                    guard let name = member["Member"] as? String else { continue }
                    let role = (member["Role"] as? String ?? "").lowercased().replacingOccurrences(of: " ", with: "_")
                    members[name] = (role, member["State"] as? String ?? "", member["Lag in MB"] as? Int)
                }
                return members
            }
            throw TestPostgres.SetupError(description: "patronictl list failed: \(lastError)")
        }

        /// The node Patroni names the leader (the primary).
        func leader() throws -> Node {
            let members = try members()
            guard let node = nodes.first(where: { members[$0.name]?.role == "leader" }) else {
                throw TestPostgres.SetupError(description: "the cluster has no leader: \(members)")
            }
            return node
        }

        /// Waits until the cluster has a running leader and every other node streams from it as a replica.
        func waitUntilHealthy(seconds: Double = 90) throws {
            let deadline = Date().addingTimeInterval(seconds)
            var last = ""
            while Date() < deadline {
                if let members = try? members() {
                    last = "\(members)"
                    let leaders = members.values.filter { $0.role == "leader" && $0.state == "running" }
                    let replicas = members.values.filter {
                        // Patroni 3.0 says "running" of a replica that streams, later versions "streaming".
                        ($0.role == "replica" || $0.role == "sync_standby")
                            && ($0.state == "streaming" || $0.state == "running") && $0.lag != nil
                    }
                    if leaders.count == 1, replicas.count == nodes.count - 1,
                        members.values.contains(where: { $0.role == "sync_standby" })
                    {
                        return
                    }
                }
                usleep(200_000)
            }
            throw TestPostgres.SetupError(description: "the cluster did not become healthy in \(seconds) s: \(last)")
        }

        /// Kills a node with SIGKILL: its PostgreSQL (the postmaster, which takes its backends with it) and, for
        /// `wholeNode`, its Patroni first, as when the machine dies; Patroni alone restarts a killed PostgreSQL.
        func kill(_ node: Node, wholeNode: Bool) {
            if wholeNode {
                // Every process started with the node's configuration: its Patroni.
                let configuration = node.folder.appendingPathComponent("patroni.yml").path
                for pid in TestCluster.processes(withArgument: configuration) { Glibc.kill(pid, SIGKILL) }
            }
            if let postmaster = Self.pid(in: node.folder.appendingPathComponent("data/postmaster.pid")) {
                Glibc.kill(postmaster, SIGKILL)
            }
        }

        /// Starts a node's Patroni again (after ``kill(_:wholeNode:)``); it rejoins as a replica.
        func start(_ node: Node) throws {
            let configuration = node.folder.appendingPathComponent("patroni.yml").path
            guard TestCluster.processes(withArgument: configuration).isEmpty else {
                throw TestPostgres.SetupError(description: "\(node.name)'s Patroni is still running")
            }
            try TestCluster.startPatroni(node)
        }

        /// Starts a pgbouncer in transaction mode in front of `primary`, and returns its port.
        func startPgbouncer(before primary: Node) throws -> Int {
            try TestCluster.startPgbouncer(
                in: base.appendingPathComponent("pgbouncer-\(UUID().uuidString.prefix(6))", isDirectory: true),
                primary: primary, appPassword: appPassword, program: try TestCluster.programs.get()["pgbouncer"]!)
        }

        /// Puts the cluster in Patroni's maintenance mode, where Patroni changes nothing, or takes it out.
        func maintenance(_ on: Bool) throws {
            let run = try ToolProcess.run(
                executable: try TestCluster.programs.get()["patronictl"]!,
                ["-c", nodes[0].folder.appendingPathComponent("patroni.yml").path, on ? "pause" : "resume", "--wait"],
                mergingStandardError: true)
            guard run.exitCode == 0 else {
                throw TestPostgres.SetupError(
                    description: "patronictl \(on ? "pause" : "resume"): \(run.standardOutput)")
            }
        }

        /// A planned switchover to `candidate`, as an operator runs it.
        func switchover(to candidate: Node) throws -> ToolRun {
            let leader = try leader()
            return try ToolProcess.run(
                executable: try TestCluster.programs.get()["patronictl"]!,
                [
                    "-c", candidate.folder.appendingPathComponent("patroni.yml").path, "switchover", "--leader",
                    leader.name, "--candidate", candidate.name, "--force",
                ], mergingStandardError: true)
        }

        static func pid(in file: URL) -> pid_t? {
            guard let text = try? String(contentsOf: file, encoding: .utf8) else { return nil }
            return pid_t(text.split(separator: "\n").first.map(String.init) ?? "")
        }
    }

    private static let cluster: Result<Cluster, TestPostgres.SetupError> = Result {
        () throws(TestPostgres.SetupError) -> Cluster in
        do {
            return try start()
        } catch let error as TestPostgres.SetupError {
            throw error
        } catch {
            throw TestPostgres.SetupError(description: "could not start the test cluster: \(error)")
        }
    }

    /// The cluster, started on first use (on a dispatch queue, not a task's thread), healthy.
    static func shared() async throws -> Cluster {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async {
                continuation.resume(
                    with: Result {
                        let cluster = try cluster.get()
                        try cluster.waitUntilHealthy()
                        return cluster
                    })
            }
        }
    }

    // MARK: Starting and stopping

    /// The processes to stop at exit, and the folder to remove.
    private static let running = Mutex<(pids: [pid_t], nodes: [Node], base: URL?)>(([], [], nil))

    private static func start() throws -> Cluster {
        let programs = try programs.get()
        let base = URL(fileURLWithPath: "/tmp", isDirectory: true)
            .appendingPathComponent("dbb-cluster-\(getpid())-\(UUID().uuidString.prefix(6))", isDirectory: true)
        try FileManager.default.createDirectory(at: base, withIntermediateDirectories: true)
        running.withLock { $0.base = base }
        atexit { TestCluster.stopAtExit() }
        let superPassword = "su-" + UUID().uuidString
        let appPassword = "app-" + UUID().uuidString
        let etcdPort = try TestPostgres.freeLoopbackPort()
        let etcdPeerPort = try TestPostgres.freeLoopbackPort()
        let etcdFolder = base.appendingPathComponent("etcd", isDirectory: true)
        try FileManager.default.createDirectory(at: etcdFolder, withIntermediateDirectories: true)
        let etcd = try background(
            [
                programs["etcd"]!.path, "--name", "e1", "--data-dir", etcdFolder.appendingPathComponent("data").path,
                "--listen-client-urls", "http://127.0.0.1:\(etcdPort)", "--advertise-client-urls",
                "http://127.0.0.1:\(etcdPort)", "--listen-peer-urls", "http://127.0.0.1:\(etcdPeerPort)",
                "--initial-advertise-peer-urls", "http://127.0.0.1:\(etcdPeerPort)", "--initial-cluster",
                "e1=http://127.0.0.1:\(etcdPeerPort)",
            ], log: etcdFolder.appendingPathComponent("etcd.log"), asPostgres: false)
        running.withLock { $0.pids.append(etcd) }

        // One certificate for 127.0.0.1, of a test CA, serves every node: TLS to every host.
        let tls = TestPostgres.makeCertificates(in: base.appendingPathComponent("tls", isDirectory: true))
        var nodes: [Node] = []
        for index in 1...3 {
            let folder = base.appendingPathComponent("n\(index)", isDirectory: true)
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            let node = Node(
                name: "n\(index)", port: try TestPostgres.freeLoopbackPort(),
                restPort: try TestPostgres.freeLoopbackPort(), folder: folder)
            try patroniConfiguration(
                node, etcdPort: etcdPort, bin: programs["bin"]!, superPassword: superPassword,
                tls: tls.map { ($0.certificate, $0.key) }
            ).write(to: folder.appendingPathComponent("patroni.yml"), atomically: true, encoding: .utf8)
            nodes.append(node)
        }
        running.withLock { $0.nodes = nodes }
        try runChecked(URL(fileURLWithPath: "/bin/chown"), ["-R", "postgres:postgres", base.path])
        // The first node bootstraps the cluster; the others copy it once it leads.
        try startPatroni(nodes[0])
        let cluster = Cluster(
            base: base, nodes: nodes, superPassword: superPassword, appPassword: appPassword,
            trustRootFile: tls?.authority)
        var postgres = cluster.superuser(nodes[0])
        postgres.database = "postgres"
        let deadline = Date().addingTimeInterval(60)
        while (try? cluster.leader()) == nil || (try? DBBPostgresConnection.connect(postgres)) == nil {
            guard Date() < deadline else {
                let file = nodes[0].folder.appendingPathComponent("patroni.log")
                let log = (try? String(contentsOf: file, encoding: .utf8)) ?? ""
                throw TestPostgres.SetupError(description: "the first node did not lead in 60 s:\n\(log.suffix(3000))")
            }
            usleep(200_000)
        }
        for node in nodes.dropFirst() { try startPatroni(node) }
        let admin = try DBBPostgresConnection.connect(postgres)
        try admin.execute("CREATE ROLE dbb_app LOGIN CREATEDB PASSWORD '\(appPassword)'")
        try admin.execute("CREATE DATABASE dbb_app OWNER dbb_app")
        try? admin.close()
        try cluster.waitUntilHealthy()
        return cluster
    }

    /// Patroni's configuration of one node: loopback addresses, SCRAM passwords, a short `ttl` so that a dead
    /// primary is replaced within seconds, and synchronous replication so that no acknowledged commit is lost.
    private static func patroniConfiguration(
        _ node: Node, etcdPort: Int, bin: URL, superPassword: String, tls: (certificate: String, key: String)?
    ) -> String {
        let folder = node.folder.path
        let ssl =
            tls.map {
                """
                    ssl: "on"
                    ssl_cert_file: \($0.certificate)
                    ssl_key_file: \($0.key)

                """
            } ?? ""
        return """
            scope: dbb-test
            name: \(node.name)
            log:
              dir: \(folder)
              level: INFO
            restapi:
              listen: 127.0.0.1:\(node.restPort)
              connect_address: 127.0.0.1:\(node.restPort)
            etcd3:
              host: 127.0.0.1:\(etcdPort)
            bootstrap:
              dcs:
                ttl: 6
                loop_wait: 1
                retry_timeout: 2
                maximum_lag_on_failover: 16777216
                synchronous_mode: true
                postgresql:
                  use_pg_rewind: true
                  use_slots: true
                  parameters:
                    wal_level: replica
                    hot_standby: "on"
                    max_wal_senders: 10
                    max_replication_slots: 10
                    wal_log_hints: "on"
                    max_connections: 200
                    fsync: "off"
              initdb:
                - encoding: UTF8
                - auth-host: scram-sha-256
                - auth-local: trust
                - no-locale
              pg_hba:
                - local all all trust
                - host replication replicator 127.0.0.1/32 scram-sha-256
                - host all all 127.0.0.1/32 scram-sha-256
            postgresql:
              listen: 127.0.0.1:\(node.port)
              connect_address: 127.0.0.1:\(node.port)
              data_dir: \(folder)/data
              bin_dir: \(bin.path)
              pgpass: \(folder)/pgpass
              basebackup:
                - checkpoint: fast
              authentication:
                replication: {username: replicator, password: rep-\(superPassword)}
                superuser: {username: postgres, password: \(superPassword)}
                rewind: {username: rewinder, password: rw-\(superPassword)}
              parameters:
                unix_socket_directories: \(folder)
            \(ssl)
            """
    }

    /// The processes one of whose arguments is `argument`, from `/proc`.
    static func processes(withArgument argument: String) -> [pid_t] {
        let names = (try? FileManager.default.contentsOfDirectory(atPath: "/proc")) ?? []
        return names.compactMap { name -> pid_t? in
            guard let pid = pid_t(name),
                let data = FileManager.default.contents(atPath: "/proc/\(name)/cmdline")
            else { return nil }
            let arguments = data.split(separator: 0).map { String(decoding: $0, as: UTF8.self) }
            return arguments.contains(argument) ? pid : nil
        }
    }

    /// Starts a node's Patroni as the `postgres` user, and notes its process id.
    static func startPatroni(_ node: Node) throws {
        let programs = try programs.get()
        let pid = try background(
            [programs["patroni"]!.path, node.folder.appendingPathComponent("patroni.yml").path],
            log: node.folder.appendingPathComponent("patroni.out"), asPostgres: geteuid() == 0)
        try Data("\(pid)\n".utf8).write(to: node.folder.appendingPathComponent("patroni.pid"))
        running.withLock { $0.pids.append(pid) }
    }

    /// pgbouncer in transaction mode in front of `primary`, with SCRAM for the tests' role.
    private static func startPgbouncer(in folder: URL, primary: Node, appPassword: String, program: URL) throws -> Int {
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let port = try TestPostgres.freeLoopbackPort()
        try "\"dbb_app\" \"\(appPassword)\"\n".write(
            to: folder.appendingPathComponent("userlist.txt"), atomically: true, encoding: .utf8)
        try pgbouncerConfiguration(folder: folder, port: port, primary: primary).write(
            to: folder.appendingPathComponent("pgbouncer.ini"), atomically: true, encoding: .utf8)
        try runChecked(URL(fileURLWithPath: "/bin/chown"), ["-R", "postgres:postgres", folder.path])
        let pid = try background(
            [program.path, folder.appendingPathComponent("pgbouncer.ini").path],
            log: folder.appendingPathComponent("pgbouncer.out"), asPostgres: geteuid() == 0)
        running.withLock { $0.pids.append(pid) }
        let deadline = Date().addingTimeInterval(20)
        while !isListening(port: port) {
            guard Date() < deadline else {
                throw TestPostgres.SetupError(description: "pgbouncer did not listen on \(port) within 20 s")
            }
            usleep(100_000)
        }
        return port
    }

    /// pgbouncer's configuration: every database of the primary, each transaction on a server connection of the
    /// pool.
    static func pgbouncerConfiguration(folder: URL, port: Int, primary: Node) -> String {
        """
        [databases]
        * = host=127.0.0.1 port=\(primary.port)

        [pgbouncer]
        listen_addr = 127.0.0.1
        listen_port = \(port)
        unix_socket_dir =
        auth_type = scram-sha-256
        auth_file = \(folder.path)/userlist.txt
        pool_mode = transaction
        max_client_conn = 200
        default_pool_size = 10
        logfile = \(folder.path)/pgbouncer.log
        pidfile = \(folder.path)/pgbouncer.pid

        """
    }

    private static func isListening(port: Int) -> Bool {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { return false }
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = in_port_t(UInt16(port).bigEndian)
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        return withUnsafePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) {
                connect(socketFD, $0, socklen_t(MemoryLayout<sockaddr_in>.size)) == 0
            }
        }
    }

    /// Starts a long-running program in the background, its output to `log`, and returns its process id. The
    /// shell closes the descriptors above 2 first (Foundation's Process would wait for them), and `setpriv` runs
    /// the program itself as `postgres` (not a child of it), so that the id is the program's.
    private static func background(_ command: [String], log: URL, asPostgres: Bool) throws -> pid_t {
        let programs = try programs.get()
        let closeAndRun =
            #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null; done; log=$1; shift; "$@" > "$log" 2>&1 < /dev/null & echo $!"#
        let user =
            asPostgres
            ? [programs["setpriv"]!.path, "--reuid=postgres", "--regid=postgres", "--init-groups", "--reset-env"]
            : []
        let run = try ToolProcess.run(
            executable: URL(fileURLWithPath: "/bin/bash"), ["-c", closeAndRun, "bash", log.path] + user + command)
        guard run.exitCode == 0, let pid = pid_t(run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines))
        else {
            throw TestPostgres.SetupError(description: "could not start \(command[0]): \(run.standardError)")
        }
        return pid
    }

    private static func runChecked(_ executable: URL, _ arguments: [String]) throws {
        let run = try ToolProcess.run(executable: executable, arguments, mergingStandardError: true)
        guard run.exitCode == 0 else {
            throw TestPostgres.SetupError(description: "\(executable.lastPathComponent) failed: \(run.standardOutput)")
        }
    }

    /// Stops everything with signals (at exit, Foundation's Process can no longer be used): Patroni, etcd and
    /// pgbouncer with SIGKILL, then each PostgreSQL with SIGQUIT, an immediate shutdown; then removes the folder.
    private static func stopAtExit() {
        let (pids, nodes, base) = running.withLock { state in
            defer { state = ([], [], nil) }
            return state
        }
        for pid in pids { kill(pid, SIGKILL) }
        for node in nodes {
            if let postmaster = Cluster.pid(in: node.folder.appendingPathComponent("data/postmaster.pid")) {
                kill(postmaster, SIGQUIT)
            }
        }
        usleep(500_000)
        if let base, ProcessInfo.processInfo.environment["DBB_CLUSTER_KEEP"] == nil {
            try? FileManager.default.removeItem(at: base)
        }
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test when the cluster's programs are installed (and always under `CI=true`); skips it with the
    /// reason otherwise.
    static var postgresCluster: Self {
        .enabled(if: TestCluster.isEnabled, Comment(rawValue: TestCluster.skipReason))
    }
}
