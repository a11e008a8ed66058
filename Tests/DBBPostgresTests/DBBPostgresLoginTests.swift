import DBBExport
import DBBPostgres
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// Logging in: bad input gives clear errors without the password; TLS verifies the server.
@Suite(.postgres)
struct DBBPostgresLoginTests {
    static let wrongPassword = "Wrong-Pa55word-\(UUID().uuidString)"

    /// Connects and returns the error, which must be a ``DBBError`` that does not contain `password`.
    static func loginError(_ configuration: DBBPostgresConfiguration, password: String) async throws -> DBBError {
        let error = try #require(
            await #expect(throws: DBBError.self) { _ = try await DBBPostgresConnection.connect(configuration) })
        #expect(!error.description.contains(password))
        #expect(!String(reflecting: error).contains(password))
        #expect(!"\(error.recoverySuggestion ?? "")".contains(password))
        return error
    }

    @Test func aWrongPasswordIsAClearError() async throws {
        var configuration = try await TestPostgres.shared().configuration
        configuration.password = Self.wrongPassword
        let error = try await Self.loginError(configuration, password: Self.wrongPassword)
        #expect(error.kind == .server)
        #expect(error.sqlState == "28P01")
        #expect(error.message.contains("password authentication failed"))
        #expect(error.description.contains("connecting to postgres://\(configuration.username):***@"))
    }

    @Test func aRefusedPortIsAClearError() async throws {
        var configuration = try await TestPostgres.shared().configuration
        configuration.host = "127.0.0.1"
        configuration.port = try TestPostgres.freeLoopbackPort()
        configuration.password = Self.wrongPassword
        let error = try await Self.loginError(configuration, password: Self.wrongPassword)
        #expect(error.kind == .server)
        #expect(error.resultCode == .cannotOpen)
        #expect(error.message.contains("could not connect"))
        #expect(error.message.contains("127.0.0.1:\(configuration.port)"))
        #expect(error.message.lowercased().contains("refused"))
    }

    @Test func aMissingDatabaseIsAClearError() async throws {
        var configuration = try await TestPostgres.shared().configuration
        configuration.database = "dbb_no_such_database"
        let password = try #require(configuration.password)
        let error = try await Self.loginError(configuration, password: password)
        #expect(error.sqlState == "3D000")
        #expect(error.code == DBBError.cannotOpen)
        #expect(error.message.contains("dbb_no_such_database"))
        #expect(error.message.contains("does not exist"))
    }

    @Test func aMissingPasswordIsAClearError() async throws {
        var configuration = try await TestPostgres.shared().configuration
        configuration.password = nil
        let error = try #require(
            await #expect(throws: DBBError.self) { _ = try await DBBPostgresConnection.connect(configuration) })
        #expect(error.message.contains("password"))
    }

    @Test(
        .enabled(
            if: TestPostgres.offersTLS,
            "needs a test server this process starts, with openssl for its certificate (not DBB_POSTGRES_URL)"))
    func tlsVerifiesTheServerCertificate() async throws {
        let server = try await TestPostgres.shared()
        let trustRootFile = try #require(server.trustRootFile, "the test server offers no TLS (no openssl)")
        var configuration = server.configuration
        configuration.tls = .require(trustRootFile: trustRootFile)
        let db = try await DBBPostgresConnection.connect(configuration)
        #expect(
            try await db.fetchAll("SELECT ssl::int FROM pg_stat_ssl WHERE pid = pg_backend_pid()") == [[.integer(1)]])
        try await db.close()

        configuration.tls = .prefer
        let preferred = try await DBBPostgresConnection.connect(configuration)
        #expect(
            try await preferred.fetchAll("SELECT ssl::int FROM pg_stat_ssl WHERE pid = pg_backend_pid()") == [
                [.integer(1)]
            ])
        try await preferred.close()

        // The test CA is not among the system's roots: verification must fail.
        configuration.tls = .require
        let password = try #require(configuration.password)
        let error = try await Self.loginError(configuration, password: password)
        #expect(error.message.contains("TLS") || error.message.lowercased().contains("certificate"), "\(error)")
    }
}

extension DBBPostgresLoginTests {
    @Test("dbb-backup logs in with the password of PGPASSWORD or ~/.pgpass, a URL without one")
    func backupToolReadsThePasswordLikeLibpq() async throws {
        let folder = try TemporaryFolder()
        let database = try copyOfFixture("chinook.sqlite", into: folder)
        let dump = folder.file("chinook.json.gz")
        try DBBExport.dump(databaseAt: database, to: dump)
        let configuration = try await TestPostgres.freshDatabase()
        let password = try #require(configuration.password)
        let url =
            "postgres://\(configuration.username)@\(configuration.host):\(configuration.port)/"
            + (configuration.database ?? "")
        let home = folder.file("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        let noPasswordFile = ["HOME": home.path, "PGPASSFILE": "", "PGPASSWORD": ""]

        let refused = try ToolProcess.run("dbb-backup", ["restore", dump.path, url], environment: noPasswordFile)
        #expect(refused.exitCode != 0)
        #expect(refused.standardError.contains("password"), "\(refused.standardError)")

        var environment = noPasswordFile
        environment["PGPASSWORD"] = password
        let restored = try ToolProcess.run(
            "dbb-backup", ["restore", dump.path, url, "--schema", "chinook"], environment: environment)
        #expect(restored.exitCode == 0, "\(restored.standardError)")
        #expect(!restored.standardOutput.contains(password) && !restored.standardError.contains(password))

        let line =
            "\(configuration.host):\(configuration.port):\(configuration.database ?? ""):"
            + "\(configuration.username):\(password)\n"
        let passwordFile = home.appendingPathComponent(".pgpass")
        try Data(line.utf8).write(to: passwordFile)
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: passwordFile.path)
        let verified = try ToolProcess.run(
            "dbb-backup", ["verify", dump.path, "--against", url, "--schema", "chinook"], environment: noPasswordFile)
        #expect(verified.exitCode == 0, "\(verified.standardError)")
        #expect(verified.standardOutput.contains("identical to schema chinook"), "\(verified.standardOutput)")
    }
}

/// Configurations and URLs, without a server.
struct DBBPostgresConfigurationTests {
    @Test func urlsParseWithEveryPart() throws {
        let configuration = try DBBPostgresConfiguration(
            url: "postgres://app:s%40cret%3A1@db.example.com:6543/my%20app?sslmode=verify-full&sslrootcert=/ca.pem")
        #expect(configuration.host == "db.example.com")
        #expect(configuration.port == 6543)
        #expect(configuration.username == "app")
        #expect(configuration.password == "s@cret:1")
        #expect(configuration.database == "my app")
        #expect(configuration.tls == .require(trustRootFile: "/ca.pem"))

        let short = try DBBPostgresConfiguration(url: "postgresql://app@127.0.0.1")
        #expect(short.port == 5432)
        #expect(short.password == nil)
        #expect(short.database == nil)
        #expect(short.tls == .prefer)
        #expect(try DBBPostgresConfiguration(url: "postgres://a:b@[::1]:5433/x?sslmode=disable").host == "::1")
        #expect(DBBPostgresConfiguration(url: URL(string: "postgres://a:b@h/d?sslmode=require")!)?.tls == .require)
        #expect(DBBPostgresConfiguration(url: URL(string: "https://a:b@h/d")!) == nil)
    }

    @Test func printingRedactsThePassword() throws {
        let configuration = DBBPostgresConfiguration(
            host: "127.0.0.1", username: "app", password: "hunter2-secret", database: "app", tls: .disable)
        #expect(configuration.description == "postgres://app:***@127.0.0.1:5432/app?sslmode=disable")
        #expect("\(configuration)" == configuration.redactedURL)
        #expect(!String(reflecting: configuration).contains("hunter2"))
        var dumped = ""
        dump(configuration, to: &dumped)
        #expect(!dumped.contains("hunter2"))
        #expect(dumped.contains("***"))
    }

    @Test func badURLsAreErrorsWithoutThePassword() throws {
        for url in [
            "mysql://app:hunter2-secret@host/db", "postgres://app:hunter2-secret@/db",
            "postgres://app:hunter2-secret@host/db?sslmode=sometimes", "postgres://:hunter2-secret@host/db",
            "postgres//app:hunter2-secret@127.0.0.1:54101/app", "postgres:app:hunter2-secret@host/db",
            "postgres://app:hunter2-secret@host:port/db",
        ] {
            let error = try #require(#expect(throws: DBBError.self) { try DBBPostgresConfiguration(url: url) })
            #expect(error.kind == .misuse)
            #expect(!error.description.contains("hunter2"), "\(error)")
            #expect(error.description.contains(":***@"), "\(error)")
        }
    }

    @Test("without a password, PGPASSWORD and then the password file give it, as libpq reads them")
    func passwordFromTheEnvironmentAndThePasswordFile() throws {
        let folder = try TemporaryFolder()
        let bare = try DBBPostgresConfiguration(url: "postgres://app@db.example.com:6543/board")
        #expect(bare.password == nil)
        // A password given is kept.
        var given = bare
        given.password = "given"
        #expect(given.resolvingPassword(environment: ["PGPASSWORD": "other"]).password == "given")
        #expect(bare.resolvingPassword(environment: ["PGPASSWORD": "from-env"]).password == "from-env")

        let lines = """
            # comment:*:*:*:no
            other.example.com:6543:board:app:wrong-host
            db.example.com:5432:board:app:wrong-port
            db.example.com:6543:*:someone:wrong-user
            db.example.com:*:board:app:pass\\:with\\\\colon:and-more
            *:*:*:*:fallback
            """
        let file = try folder.write(lines + "\n", to: "pgpass")
        try FileManager.default.setAttributes([.posixPermissions: 0o600], ofItemAtPath: file.path)
        #expect(bare.resolvingPassword(environment: ["PGPASSFILE": file.path]).password == "pass:with\\colon:and-more")
        var elsewhere = bare
        elsewhere.database = "another"
        #expect(elsewhere.resolvingPassword(environment: ["PGPASSFILE": file.path]).password == "fallback")
        // PGPASSWORD comes first; ~/.pgpass is the file when PGPASSFILE is not set.
        #expect(
            bare.resolvingPassword(environment: ["PGPASSWORD": "env", "PGPASSFILE": file.path]).password == "env")
        let home = folder.file("home")
        try FileManager.default.createDirectory(at: home, withIntermediateDirectories: true)
        try FileManager.default.copyItem(at: file, to: home.appendingPathComponent(".pgpass"))
        #expect(bare.resolvingPassword(environment: ["HOME": home.path]).password == "pass:with\\colon:and-more")
        // A file others may read is ignored, as libpq ignores it; so is a missing one.
        try FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: file.path)
        #expect(bare.resolvingPassword(environment: ["PGPASSFILE": file.path]).password == nil)
        #expect(bare.resolvingPassword(environment: ["PGPASSFILE": folder.path("none")]).password == nil)
        #expect(bare.resolvingPassword(environment: [:]).password == nil)
    }
}
