import DBBBuilder
import DBBPostgres
import Foundation
import Testing

/// On PostgreSQL, errors say PostgreSQL or, for the library's own, no engine: never "SQLite error".
@Suite(.postgres)
struct DBBPostgresErrorEngineTests {
    struct Boom: Error {}

    @Test("a stored value that is no case of its enum, and a failing migration, name no engine")
    func theLibrarysOwnErrorsNameNoEngine() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration)
            defer { try? manager.close() }
            try manager.addTableClasses([DBBPostgresEnumTests.Volume.self])
            let atlas = DBBPostgresEnumTests.Volume(dbManager: manager)
            atlas.title = "Atlas"
            try atlas.save()
            try manager.write {
                _ = try manager.postgresConnection().execute(#"UPDATE "Volume" SET "shelf" = 'bogus'"#)
            }
            let decoding = try #require(
                #expect(throws: DBBError.self) { _ = try DBBPostgresEnumTests.Volume.fetchAll(manager: manager) })
            #expect(decoding.kind == .library)
            #expect(decoding.engine == nil)
            #expect(
                decoding.description.hasPrefix(#"DBBBuilder error: the stored value "bogus" is not a case of "#),
                "\(decoding)")
            #expect(!decoding.description.contains("SQLite"), "\(decoding)")

            var migrator = DBBMigrator()
            migrator.registerMigration("v3", [.objects("a transform that throws") { _ in throw Boom() }])
            let failed = try #require(#expect(throws: DBBError.self) { try migrator.migrate(manager) })
            #expect(!failed.description.contains("SQLite"), "\(failed)")
            #expect(failed.description.contains("Boom"), "\(failed)")
            #expect(!manager.errorMessage().contains("SQLite"), "\(manager.errorMessage())")

            let server = try #require(
                #expect(throws: DBBError.self) {
                    try manager.write {
                        _ = try manager.postgresConnection().execute(#"SELECT * FROM "NoSuchTable""#)
                    }
                })
            #expect(server.kind == .server)
            #expect(server.engine == "PostgreSQL")
            #expect(server.description.hasPrefix("PostgreSQL error (SQLSTATE 42P01): "), "\(server)")
        }
    }

    @Test("a refused connection says so in plain words, without the networking library's types")
    func aRefusedConnectionReadsPlainly() async throws {
        var configuration = try await TestPostgres.shared().configuration
        configuration.host = "127.0.0.1"
        configuration.port = try TestPostgres.freeLoopbackPort()
        let error = try #require(
            await #expect(throws: DBBError.self) { _ = try await DBBPostgresConnection.connect(configuration) })
        #expect(
            error.message
                == "could not connect to PostgreSQL: connection refused by 127.0.0.1:\(configuration.port): "
                + "is the server running and listening there?")
        #expect(error.description.hasPrefix("PostgreSQL error: could not connect"), "\(error)")
        for typeName in ["SingleConnectionFailure", "NIOConnectionError", "IOError", "[IPv4]", "target:"] {
            #expect(!error.description.contains(typeName), "\(error)")
        }
        #expect(
            error.description.filter { $0 == "(" }.count == error.description.filter { $0 == ")" }.count, "\(error)")
    }
}

/// URLs: a port that is not a number is named as such; the sslmode is echoed as written.
struct DBBPostgresURLMessageTests {
    @Test func aPortThatIsNotANumberIsNamed() throws {
        for (url, port) in [
            ("postgres://app:hunter2@db.example.com:fivefour/app", "fivefour"),
            ("postgres://app@db.example.com:54x/app", "54x"), ("postgres://app@[::1]:abc/app", "abc"),
        ] {
            let error = try #require(#expect(throws: DBBError.self) { try DBBPostgresConfiguration(url: url) })
            #expect(error.message.hasSuffix(": the port '\(port)' is not a number"), "\(error)")
            #expect(!error.description.contains("hunter2"))
        }
        let tooLarge = try #require(
            #expect(throws: DBBError.self) { try DBBPostgresConfiguration(url: "postgres://app@h:99999/app") })
        #expect(tooLarge.message.hasSuffix("the port 99999 is not between 1 and 65535"), "\(tooLarge)")
        let notAURL = try #require(
            #expect(throws: DBBError.self) { try DBBPostgresConfiguration(url: "postgres://a b") })
        #expect(notAURL.message.hasSuffix("it is not a URL"), "\(notAURL)")
    }

    @Test func theSSLModeIsEchoedAsWritten() throws {
        for mode in ["disable", "allow", "prefer", "require", "verify-ca", "verify-full"] {
            let configuration = try DBBPostgresConfiguration(url: "postgres://app:pw@h:5432/app?sslmode=\(mode)")
            #expect(configuration.redactedURL == "postgres://app:***@h:5432/app?sslmode=\(mode)")
        }
        var required = try DBBPostgresConfiguration(url: "postgres://app@h/app?sslmode=require")
        #expect(required.tls == .require)
        #expect(required.tls.mode == .require)
        // A mode changed afterwards is printed as the mode it now is.
        required.tls.mode = .disable
        #expect(required.description == "postgres://app@h:5432/app?sslmode=disable")
        #expect(DBBPostgresConfiguration.TLS.require.description == "verify-full")
    }
}
