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

/// The PostgreSQL server the tests use: the one `DBB_POSTGRES_URL` names, or a throwaway one started on first
/// use (`initdb` into a temporary folder, `pg_ctl` on a free loopback port, as the `postgres` user when the
/// tests run as root) and stopped when the test process exits.
///
/// Its host connections use SCRAM-SHA-256 passwords; it also offers TLS with a certificate of a test CA made
/// for it (``Server/trustRootFile``) when `openssl` is installed.
enum TestPostgres {
    /// Where the server comes from.
    enum Source: Sendable {
        case url(String)
        case binaries(URL)
        case missing(String)
    }

    /// A running server and the role the tests log in as.
    struct Server: Sendable {
        /// The tests' role, its password and database, over TCP without TLS.
        var configuration: DBBPostgresConfiguration
        /// The PEM file of the CA that signed the server's certificate, when the server offers TLS.
        var trustRootFile: String?
    }

    struct SetupError: Error, CustomStringConvertible {
        var description: String
    }

    static let ciRequiresPostgres = ProcessInfo.processInfo.environment["CI"] == "true"

    static let source: Source = {
        if let url = ProcessInfo.processInfo.environment["DBB_POSTGRES_URL"], !url.isEmpty { return .url(url) }
        var folders = (ProcessInfo.processInfo.environment["PATH"] ?? "").split(separator: ":").map(String.init)
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        for version in versions.sorted(by: { (Int($0) ?? 0) > (Int($1) ?? 0) }) {
            folders.append("/usr/lib/postgresql/\(version)/bin")
        }
        for folder in folders {
            let url = URL(fileURLWithPath: folder, isDirectory: true)
            if ["initdb", "pg_ctl"].allSatisfy({
                FileManager.default.isExecutableFile(atPath: url.appendingPathComponent($0).path)
            }) {
                return .binaries(url.resolvingSymlinksInPath())
            }
        }
        return .missing(
            "PostgreSQL is not installed: no initdb and pg_ctl in PATH or /usr/lib/postgresql/*/bin, and "
                + "DBB_POSTGRES_URL is not set (apt-get install postgresql, or set DBB_POSTGRES_URL)")
    }()

    /// Whether the PostgreSQL tests run: when a server can be had, and always under `CI=true`, where a
    /// missing PostgreSQL fails them.
    static var isEnabled: Bool {
        if case .missing = source { return ciRequiresPostgres }
        return true
    }

    /// Whether the server offers TLS with a certificate of a CA the tests make: a server they start, with
    /// `openssl` installed.
    static var offersTLS: Bool {
        guard case .binaries = source else { return false }
        return FileManager.default.isExecutableFile(atPath: "/usr/bin/openssl")
    }

    /// Why the tests are skipped.
    static var skipReason: String {
        if case .missing(let reason) = source { return reason }
        return "PostgreSQL is available"
    }

    /// The server, started on first use.
    private static let server: Result<Server, SetupError> = Result(catching: { () throws(SetupError) -> Server in
        try start()
    })

    /// The shared server, started on first use (on a dispatch queue, not a task's thread).
    static func shared() async throws -> Server {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue.global().async { continuation.resume(with: server.mapError { $0 as any Error }) }
        }
    }

    /// Runs `body` on a dispatch queue, where the synchronous API may wait, and hands back its result.
    static func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "DBBPostgresTests").async { continuation.resume(with: Result { try body() }) }
        }
    }

    // MARK: Starting and stopping

    private struct LocalServer: Sendable {
        var postmaster: pid_t
        var baseFolder: URL
    }

    private static let running = Mutex<LocalServer?>(nil)

    private static func start() throws(SetupError) -> Server {
        switch source {
        case .url(let url):
            do {
                return Server(configuration: try DBBPostgresConfiguration(url: url), trustRootFile: nil)
            } catch {
                throw SetupError(description: "DBB_POSTGRES_URL is not a PostgreSQL URL: \(error)")
            }
        case .missing(let reason):
            throw SetupError(description: "\(reason); CI=true requires the PostgreSQL tests to run")
        case .binaries(let bin):
            do {
                return try startLocal(bin: bin)
            } catch let error as SetupError {
                throw error
            } catch {
                throw SetupError(description: "could not start a test PostgreSQL server: \(error)")
            }
        }
    }

    private static func startLocal(bin: URL) throws -> Server {
        removeLeftovers()
        let asRoot = geteuid() == 0
        let base = parentFolder.appendingPathComponent(
            "dbb-postgres-\(getpid())-\(UUID().uuidString.prefix(8))", isDirectory: true)
        let data = base.appendingPathComponent("data", isDirectory: true)
        let sockets = base.appendingPathComponent("sockets", isDirectory: true)
        try FileManager.default.createDirectory(at: sockets, withIntermediateDirectories: true)
        let superPassword = "su-" + UUID().uuidString
        let appPassword = "app-" + UUID().uuidString
        try Data(superPassword.utf8).write(to: base.appendingPathComponent("pwfile"))
        let tls = makeCertificates(in: base.appendingPathComponent("tls", isDirectory: true))
        if asRoot {
            try run(URL(fileURLWithPath: "/bin/chown"), ["-R", "postgres:postgres", base.path], asPostgres: false)
        }
        try run(
            bin.appendingPathComponent("initdb"),
            [
                "-D", data.path, "-U", "postgres", "--pwfile=\(base.appendingPathComponent("pwfile").path)",
                "--auth-local=trust", "--auth-host=scram-sha-256", "-E", "UTF8", "--no-locale", "--no-sync",
            ], asPostgres: asRoot, in: base)
        let pgCtl = bin.appendingPathComponent("pg_ctl")
        var options = "-c listen_addresses=127.0.0.1 -c fsync=off -c full_page_writes=off -c synchronous_commit=off"
        // The whole suite runs its tests in parallel on this one server, each manager with its pool of connections:
        // the default 100 connections ran out once.
        options += " -c max_connections=400"
        options += " -k \(sockets.path)"
        if let tls {
            options += " -c ssl=on -c ssl_cert_file=\(tls.certificate) -c ssl_key_file=\(tls.key)"
        }
        var port = 0
        var lastError: (any Error)?
        for _ in 0..<3 {
            port = try freeLoopbackPort()
            do {
                try run(
                    pgCtl,
                    [
                        "-D", data.path, "-l", base.appendingPathComponent("server.log").path, "-w", "-t", "60",
                        "-o", "-p \(port) \(options)", "start",
                    ], asPostgres: asRoot, in: base)
                lastError = nil
                break
            } catch {
                lastError = error
            }
        }
        if let lastError {
            let log = (try? String(contentsOf: base.appendingPathComponent("server.log"), encoding: .utf8)) ?? ""
            throw SetupError(description: "pg_ctl could not start the server: \(lastError)\n\(log)")
        }
        // The first line of postmaster.pid is the server's process id.
        let pidFile = (try? String(contentsOf: data.appendingPathComponent("postmaster.pid"), encoding: .utf8)) ?? ""
        let postmaster = pid_t(pidFile.split(separator: "\n").first.map(String.init) ?? "") ?? 0
        running.withLock { $0 = LocalServer(postmaster: postmaster, baseFolder: base) }
        atexit { TestPostgres.stopAtExit() }

        let superuser = DBBPostgresConfiguration(
            host: "127.0.0.1", port: port, username: "postgres", password: superPassword, database: "postgres",
            tls: .disable)
        let admin = try DBBPostgresConnection.connect(superuser)
        defer { try? admin.close() }
        try admin.execute("CREATE ROLE dbb_app LOGIN CREATEDB PASSWORD '\(appPassword)'")
        try admin.execute("CREATE DATABASE dbb_app OWNER dbb_app")
        return Server(
            configuration: DBBPostgresConfiguration(
                host: "127.0.0.1", port: port, username: "dbb_app", password: appPassword, database: "dbb_app",
                tls: .disable),
            trustRootFile: tls?.authority)
    }

    /// Stops the server this process started (a fast shutdown, as `pg_ctl stop -m fast` does: SIGINT to the
    /// postmaster, SIGQUIT if it is still running 20 seconds later) and removes its folder. It runs no child
    /// process: at exit, Foundation's Process can no longer be used.
    private static func stopAtExit() {
        guard
            let server = running.withLock({ state in
                defer { state = nil }
                return state
            })
        else { return }
        if server.postmaster > 0, kill(server.postmaster, SIGINT) == 0 {
            var waited = 0
            while kill(server.postmaster, 0) == 0 && waited < 200 {
                usleep(100_000)
                waited += 1
            }
            if kill(server.postmaster, 0) == 0 { kill(server.postmaster, SIGQUIT) }
        }
        try? FileManager.default.removeItem(at: server.baseFolder)
    }

    /// Where the servers' folders go: the temporary folder, or `/tmp` when the `postgres` user could not reach
    /// it (run as root with a private `TMPDIR`) or when its path would make the server's socket path too long.
    private static let parentFolder: URL = {
        let temporary = FileManager.default.temporaryDirectory.standardizedFileURL
        var reachable = true
        var folder = temporary
        while folder.path != "/" {
            let mode = (try? FileManager.default.attributesOfItem(atPath: folder.path)[.posixPermissions]) as? Int
            if (mode ?? 0) & 0o001 == 0 { reachable = false }
            folder.deleteLastPathComponent()
        }
        if (geteuid() == 0 && !reachable) || temporary.path.utf8.count > 40 {
            return URL(fileURLWithPath: "/tmp", isDirectory: true)
        }
        return temporary
    }()

    /// Stops the servers of test processes that died without stopping theirs, and removes their folders.
    private static func removeLeftovers() {
        let temporary = parentFolder
        let names = (try? FileManager.default.contentsOfDirectory(atPath: temporary.path)) ?? []
        for name in names where name.hasPrefix("dbb-postgres-") {
            let parts = name.split(separator: "-")
            guard parts.count >= 3, let pid = pid_t(parts[2]), pid != getpid() else { continue }
            if kill(pid, 0) == 0 || errno != ESRCH { continue }
            let folder = temporary.appendingPathComponent(name, isDirectory: true)
            let data = folder.appendingPathComponent("data", isDirectory: true)
            if case .binaries(let bin) = source,
                FileManager.default.fileExists(atPath: data.appendingPathComponent("postmaster.pid").path)
            {
                _ = try? run(
                    bin.appendingPathComponent("pg_ctl"), ["-D", data.path, "-m", "immediate", "-w", "stop"],
                    asPostgres: geteuid() == 0, in: temporary)
            }
            try? FileManager.default.removeItem(at: folder)
        }
    }

    /// A CA and a server certificate for 127.0.0.1 and localhost, or `nil` without `openssl`.
    static func makeCertificates(in folder: URL) -> (authority: String, certificate: String, key: String)? {
        let openssl = URL(fileURLWithPath: "/usr/bin/openssl")
        guard FileManager.default.isExecutableFile(atPath: openssl.path) else { return nil }
        func path(_ name: String) -> String { folder.appendingPathComponent(name).path }
        do {
            try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            try Data("subjectAltName=DNS:localhost,IP:127.0.0.1\nbasicConstraints=CA:FALSE\n".utf8).write(
                to: folder.appendingPathComponent("server.ext"))
            let key = ["-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1", "-nodes"]
            try run(
                openssl,
                ["req", "-x509"] + key + [
                    "-keyout", path("ca.key"), "-out", path("ca.pem"), "-days", "2", "-subj", "/CN=DBB Test CA",
                    "-addext", "basicConstraints=critical,CA:TRUE", "-addext", "keyUsage=critical,keyCertSign",
                ], asPostgres: false)
            try run(
                openssl,
                ["req"] + key + [
                    "-keyout", path("server.key"), "-out", path("server.csr"), "-subj", "/CN=localhost",
                ], asPostgres: false)
            try run(
                openssl,
                [
                    "x509", "-req", "-in", path("server.csr"), "-CA", path("ca.pem"), "-CAkey", path("ca.key"),
                    "-CAcreateserial", "-out", path("server.pem"), "-days", "2", "-extfile", path("server.ext"),
                ], asPostgres: false)
            try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: path("server.key"))
            return (path("ca.pem"), path("server.pem"), path("server.key"))
        } catch {
            return nil
        }
    }

    /// Runs a program to completion, as the `postgres` user when asked; throws with its output when it fails.
    @discardableResult
    private static func run(_ executable: URL, _ arguments: [String], asPostgres: Bool, in folder: URL? = nil)
        throws -> String
    {
        // Foundation's Process learns that a child ended when the descriptors it hands the child close; a server
        // that pg_ctl starts would inherit them and keep the call waiting until the server stops. The shell
        // closes every descriptor above 2 before it runs the command.
        let closeAndRun =
            #"for fd in /proc/$$/fd/*; do n=${fd##*/}; [ "$n" -gt 2 ] && eval "exec $n>&-" 2>/dev/null; done; exec "$@""#
        let command = (asPostgres ? ["/usr/sbin/runuser", "-u", "postgres", "--"] : []) + [executable.path] + arguments
        let result = try ToolProcess.run(
            executable: URL(fileURLWithPath: "/bin/bash"), ["-c", closeAndRun, "bash"] + command, in: folder,
            mergingStandardError: true)
        guard result.exitCode == 0 else {
            throw SetupError(
                description: "\(executable.lastPathComponent) exited with \(result.exitCode): \(result.standardOutput)")
        }
        return result.standardOutput
    }

    /// A loopback TCP port nothing listens on (at the time of the call).
    static func freeLoopbackPort() throws -> Int {
        let socketFD = socket(AF_INET, Int32(SOCK_STREAM.rawValue), 0)
        guard socketFD >= 0 else { throw SetupError(description: "socket() failed: errno \(errno)") }
        defer { close(socketFD) }
        var address = sockaddr_in()
        address.sin_family = sa_family_t(AF_INET)
        address.sin_port = 0
        address.sin_addr.s_addr = inet_addr("127.0.0.1")
        var length = socklen_t(MemoryLayout<sockaddr_in>.size)
        let bound = withUnsafeMutablePointer(to: &address) { pointer in
            pointer.withMemoryRebound(to: sockaddr.self, capacity: 1) { socketAddress in
                bind(socketFD, socketAddress, length) == 0 && getsockname(socketFD, socketAddress, &length) == 0
            }
        }
        guard bound else { throw SetupError(description: "could not bind a loopback port: errno \(errno)") }
        return Int(UInt16(bigEndian: address.sin_port))
    }
}

extension Trait where Self == ConditionTrait {
    /// Runs the test when a PostgreSQL server can be had (and always under `CI=true`); skips it with the
    /// reason otherwise.
    static var postgres: Self {
        .enabled(if: TestPostgres.isEnabled, Comment(rawValue: TestPostgres.skipReason))
    }
}
