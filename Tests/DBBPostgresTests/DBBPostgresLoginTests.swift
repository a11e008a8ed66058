import DBBPostgres
import DBBSQL
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
        ] {
            let error = try #require(#expect(throws: DBBError.self) { try DBBPostgresConfiguration(url: url) })
            #expect(error.kind == .misuse)
            #expect(!error.description.contains("hunter2"), "\(error)")
            #expect(error.description.contains(":***@"), "\(error)")
        }
    }
}
