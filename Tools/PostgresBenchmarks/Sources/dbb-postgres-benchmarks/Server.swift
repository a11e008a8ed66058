import DBBPostgres
import Dispatch
import FluentPostgresDriver
import Foundation
import Logging
import NIOCore
import NIOPosix
import PostgresNIO
import Synchronization

/// Where the benchmark's databases live and how to log in; each contender builds its own configuration from it.
struct ServerAddress: Sendable {
    var host: String
    var port: Int
    var username: String
    var password: String?
    /// The database the benchmark connects to for creating and dropping its own databases.
    var maintenanceDatabase: String

    func postgresNIO(_ database: String) -> PostgresConnection.Configuration {
        PostgresConnection.Configuration(
            host: host, port: port, username: username, password: password, database: database, tls: .disable)
    }

    func fluent(_ database: String) -> SQLPostgresConfiguration {
        SQLPostgresConfiguration(
            hostname: host, port: port, username: username, password: password, database: database, tls: .disable)
    }

    func library(_ database: String) -> DBBPostgresConfiguration {
        DBBPostgresConfiguration(
            host: host, port: port, username: username, password: password, database: database, tls: .disable)
    }
}

/// The PostgreSQL server of a run: the one `DBB_POSTGRES_URL` names (its role needs `CREATEDB`), or a throwaway
/// one started for the run (`initdb` into a folder in /tmp, `pg_ctl` on a free loopback port, as the `postgres`
/// user when run as root) and stopped at the end, also when the run fails or is interrupted. The approach is
/// the one of Tests/DBBPostgresTests/TestPostgres.swift.
final class BenchmarkServer: Sendable {
    let address: ServerAddress
    /// What the server is: the version and, for a throwaway server, its settings.
    let summary: String
    private let local: LocalServer?
    private let stopped = Mutex(false)
    private let signalSources = Mutex<[any DispatchSourceSignal]>([])

    private struct LocalServer: Sendable {
        var bin: URL
        var base: URL
        var data: URL { base.appendingPathComponent("data", isDirectory: true) }
    }

    /// The settings of a throwaway server: no waiting for the disk, as the benchmark measures the clients (the
    /// SQLite benchmark's WAL with synchronous NORMAL does not wait for the disk at each commit either).
    private static let settings = "fsync=off, synchronous_commit=off, full_page_writes=off"

    private init(address: ServerAddress, summary: String, local: LocalServer?) {
        self.address = address
        self.summary = summary
        self.local = local
    }

    static func start() async throws -> BenchmarkServer {
        if let url = ProcessInfo.processInfo.environment["DBB_POSTGRES_URL"], !url.isEmpty {
            let configuration = try DBBPostgresConfiguration(url: url)
            let address = ServerAddress(
                host: configuration.host, port: configuration.port, username: configuration.username,
                password: configuration.password, maintenanceDatabase: configuration.database ?? "postgres")
            return BenchmarkServer(address: address, summary: "the server of DBB_POSTGRES_URL", local: nil)
        }
        guard let bin = binaries() else {
            throw BenchmarkError(
                "no initdb and pg_ctl in PATH or /usr/lib/postgresql/*/bin, and DBB_POSTGRES_URL is not set "
                    + "(apt-get install postgresql, or set DBB_POSTGRES_URL)")
        }
        removeLeftovers(bin: bin)
        let asRoot = geteuid() == 0
        // /tmp: the postgres user can reach it, and the socket path stays short.
        let base = URL(fileURLWithPath: "/tmp", isDirectory: true)
            .appendingPathComponent("dbb-pgbench-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)
        let local = LocalServer(bin: bin, base: base)
        let sockets = base.appendingPathComponent("sockets", isDirectory: true)
        try FileManager.default.createDirectory(at: sockets, withIntermediateDirectories: true)
        let password = "bench-" + UUID().uuidString
        let passwordFile = base.appendingPathComponent("pwfile")
        try Data(password.utf8).write(to: passwordFile)
        if asRoot { try run(URL(fileURLWithPath: "/bin/chown"), ["-R", "postgres:postgres", base.path], in: base) }
        try run(
            bin.appendingPathComponent("initdb"),
            [
                "-D", local.data.path, "-U", "postgres", "--pwfile=\(passwordFile.path)", "--auth-local=trust",
                "--auth-host=scram-sha-256", "-E", "UTF8", "--no-locale", "--no-sync",
            ], asPostgres: asRoot, in: base)
        var options = "-c listen_addresses=127.0.0.1 -k \(sockets.path)"
        for setting in settings.split(separator: ", ") { options += " -c \(setting)" }
        var port = 0
        var lastError: (any Error)?
        // A port found free can be taken before the server binds it: try again on another.
        for _ in 0..<3 {
            port = try await freeLoopbackPort()
            do {
                try run(
                    bin.appendingPathComponent("pg_ctl"),
                    [
                        "-D", local.data.path, "-l", base.appendingPathComponent("server.log").path, "-w", "-t", "60",
                        "-o", "-p \(port) \(options)", "start",
                    ], asPostgres: asRoot, in: base)
                lastError = nil
                break
            } catch {
                lastError = error
            }
        }
        let version = (try? run(bin.appendingPathComponent("postgres"), ["--version"], in: base)) ?? "PostgreSQL"
        let server = BenchmarkServer(
            address: ServerAddress(
                host: "127.0.0.1", port: port, username: "postgres", password: password,
                maintenanceDatabase: "postgres"),
            summary: "\(version.trimmingCharacters(in: .whitespacesAndNewlines)), throwaway on 127.0.0.1:\(port) "
                + "(\(settings))", local: local)
        if let lastError {
            let log = (try? String(contentsOf: base.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
            server.stop()
            throw BenchmarkError("pg_ctl could not start the server: \(lastError)\n\(log)")
        }
        server.stopOnSignals()
        return server
    }

    /// Stops a throwaway server (a fast shutdown) and removes its folder; the second call does nothing.
    func stop() {
        let isFirst = stopped.withLock { wasStopped in
            defer { wasStopped = true }
            return !wasStopped
        }
        guard let local, isFirst else { return }
        _ = try? Self.run(
            local.bin.appendingPathComponent("pg_ctl"), ["-D", local.data.path, "-m", "fast", "-w", "stop"],
            asPostgres: geteuid() == 0, in: local.base)
        try? FileManager.default.removeItem(at: local.base)
    }

    /// Ctrl-C or a kill stops the server before the process ends, instead of leaving it running.
    private func stopOnSignals() {
        for number in [SIGINT, SIGTERM] {
            signal(number, SIG_IGN)
            // Made inside the lock, so that the source goes into the list that keeps it alive.
            signalSources.withLock { sources in
                let source = DispatchSource.makeSignalSource(signal: number, queue: .global())
                source.setEventHandler { [self] in
                    stop()
                    exit(128 + number)
                }
                source.resume()
                sources.append(source)
            }
        }
    }

    private static func binaries() -> URL? {
        var folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            folders.append("/usr/lib/postgresql/\(version)/bin")
        }
        return folders.lazy.map { URL(fileURLWithPath: $0, isDirectory: true) }.first { folder in
            ["initdb", "pg_ctl", "postgres"].allSatisfy {
                FileManager.default.isExecutableFile(atPath: folder.appendingPathComponent($0).path)
            }
        }
    }

    /// Stops the servers of benchmark processes that died without stopping theirs, and removes their folders.
    private static func removeLeftovers(bin: URL) {
        let temporary = URL(fileURLWithPath: "/tmp", isDirectory: true)
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix("dbb-pgbench-") {
            let parts = name.split(separator: "-")
            guard parts.count >= 3, let pid = pid_t(parts[2]), pid != getpid() else { continue }
            if kill(pid, 0) == 0 || errno != ESRCH { continue }
            let folder = temporary.appendingPathComponent(name, isDirectory: true)
            let data = folder.appendingPathComponent("data", isDirectory: true)
            if FileManager.default.fileExists(atPath: data.appendingPathComponent("postmaster.pid").path) {
                _ = try? run(
                    bin.appendingPathComponent("pg_ctl"), ["-D", data.path, "-m", "immediate", "-w", "stop"],
                    asPostgres: geteuid() == 0, in: temporary)
            }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// Runs a program to completion, as the `postgres` user when asked; throws with its output when it fails.
    @discardableResult
    private static func run(_ executable: URL, _ arguments: [String], asPostgres: Bool = false, in folder: URL)
        throws -> String
    {
        // A child learns nothing of the pipe's end while a server that pg_ctl starts holds the pipe: the shell
        // closes every descriptor above 2 before it runs the command (the server logs to its own file).
        let closeAndRun =
            #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null; done; exec "$@""#
        let command = (asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + [executable.path] + arguments
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/bash")
        process.arguments = ["-c", closeAndRun, "bash"] + command
        process.currentDirectoryURL = folder
        let output = Pipe()
        process.standardOutput = output
        process.standardError = output
        try process.run()
        let text = String(decoding: output.fileHandleForReading.readDataToEndOfFile(), as: UTF8.self)
        process.waitUntilExit()
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("\(executable.lastPathComponent) exited with \(process.terminationStatus): \(text)")
        }
        return text
    }

    /// A loopback TCP port nothing listens on (at the time of the call): the port the system gives a listener
    /// bound to port 0.
    private static func freeLoopbackPort() async throws -> Int {
        let channel = try await ServerBootstrap(group: MultiThreadedEventLoopGroup.singleton)
            .bind(host: "127.0.0.1", port: 0).get()
        let port = channel.localAddress?.port
        try await channel.close()
        guard let port else { throw BenchmarkError("could not bind a loopback port") }
        return port
    }
}

/// Creates and drops the benchmark's databases, and reads back what a writing workload stored, over a
/// postgres-nio connection to the maintenance database.
final class DatabaseAdmin {
    private let address: ServerAddress
    private let connection: PostgresConnection
    private let logger = Logger(label: "dbb-postgres-benchmarks.admin")
    private let prefix = "dbb_bench_\(getpid())_"
    private var created: [String] = []

    init(_ address: ServerAddress) async throws {
        self.address = address
        connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(),
            configuration: address.postgresNIO(
                address.maintenanceDatabase), id: 0, logger: logger)
    }

    /// A new database, empty or a copy of `template` (which no session may be connected to).
    func create(_ name: String, template: String? = nil) async throws -> String {
        let database = prefix + name
        var sql = "CREATE DATABASE \(database)"
        if let template { sql += " TEMPLATE \(prefix + template)" }
        try await connection.query(PostgresQuery(unsafeSQL: sql), logger: logger)
        created.append(database)
        return database
    }

    func drop(_ database: String) async throws {
        try await connection.query(
            PostgresQuery(unsafeSQL: "DROP DATABASE IF EXISTS \(database) WITH (FORCE)"),
            logger: logger)
        created.removeAll { $0 == database }
    }

    /// Drops every database this run created and closes the connection.
    func close() async {
        for database in created { try? await drop(database) }
        try? await connection.close()
    }

    /// Runs `body` with a connection of its own to `database`.
    func withConnection<Result>(to database: String, _ body: (PostgresConnection) async throws -> Result)
        async throws -> Result
    {
        let connection = try await PostgresConnection.connect(
            on: MultiThreadedEventLoopGroup.singleton.any(), configuration: address.postgresNIO(database), id: 0,
            logger: logger)
        do {
            let result = try await body(connection)
            try await connection.close()
            return result
        } catch {
            try? await connection.close()
            throw error
        }
    }

    /// Fresh statistics after a fill, so that no autovacuum run changes the plans while a workload is timed.
    func analyze(_ database: String) async throws {
        try await withConnection(to: database) { connection in
            _ = try await connection.query("VACUUM ANALYZE", logger: logger)
        }
    }

    /// What a writing workload stored in `database`, read by hand: equal for contenders that stored the same rows.
    func personTableDigest(_ database: String) async throws -> Int {
        try await withConnection(to: database) { connection in
            let rows = try await connection.query(
                """
                SELECT id, name, code, budget, "startDate", active, "createdTime" IS NOT NULL,
                    "modifiedTime" IS NOT NULL FROM "Person" ORDER BY id
                """, logger: logger)
            var hasher = Hasher()
            for try await row in rows.decode((Int64, String, String, Double, Double?, Int64, Bool, Bool).self) {
                hasher.combine(row.0)
                hasher.combine(row.1)
                hasher.combine(row.2)
                hasher.combine(row.3)
                hasher.combine(row.4)
                hasher.combine(row.5)
                hasher.combine(row.6)
                hasher.combine(row.7)
            }
            return hasher.finalize()
        }
    }
}

/// An error as the report prints it: postgres-nio's errors tell what failed only in their reflection (without
/// the password).
func describe(_ error: any Error) -> String {
    error is PSQLError ? String(reflecting: error) : "\(error)"
}
