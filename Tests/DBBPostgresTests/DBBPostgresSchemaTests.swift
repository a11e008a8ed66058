import DBBBuilder
import DBBPostgres
import Foundation
import Testing

/// A configuration's schema: read from the URL as libpq writes it, and the one schema every connection of a
/// manager works in.
@Suite(.postgres)
struct DBBPostgresSchemaTests {
    @Test func everyConnectionOfAManagerWorksInTheSchema() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let admin = try DBBPostgresConnection.connect(configuration)
            defer { try? admin.close() }
            _ = try admin.execute(#"CREATE SCHEMA "Board Room""#)
            var inSchema = configuration
            inSchema.schema = "Board Room"
            let manager = try DBBManager(postgres: inSchema, readers: 2)
            try manager.addTableClasses(ServerModels.all)
            let ada = ServerModels.Member(dbManager: manager)
            ada.name = "Ada"
            ada.tags = ["a"]
            try ada.save()
            #expect(try ServerModels.Member.fetchCount(manager: manager) == 1)
            #expect(try ServerModels.Member.fetchAll(manager: manager).map(\.tags) == [["a"]])
            try manager.close()
            let tables = try admin.fetchAll(
                "SELECT table_schema, count(*) FROM information_schema.tables WHERE table_name = 'Member' "
                    + "GROUP BY table_schema")
            #expect(tables == [[.text("Board Room"), .integer(1)]])
            // The manager of the database's default schema sees none of it.
            let other = try DBBManager(postgres: configuration)
            try other.addTableClasses(ServerModels.all)
            #expect(try ServerModels.Member.fetchCount(manager: other) == 0)
            try other.close()

            // A schema that does not exist: a clear error, nothing created.
            var missing = configuration
            missing.schema = "nowhere"
            let error = try #require(#expect(throws: DBBError.self) { _ = try DBBManager(postgres: missing) })
            #expect(error.sqlState == "3F000", "\(error)")
            #expect(error.recoverySuggestion?.contains("CREATE SCHEMA") == true, "\(error)")
            #expect(error.description.contains("options=-csearch_path%3Dnowhere"), "\(error)")
            let schemas = try admin.fetchAll("SELECT count(*) FROM pg_namespace WHERE nspname = 'nowhere'")
            #expect(schemas == [[.integer(0)]])
        }
    }
}

/// The schema of a URL, without a server.
struct DBBPostgresSchemaURLTests {
    @Test func theSchemaIsReadAsLibpqWritesIt() throws {
        for url in [
            "postgres://app@h/app?options=-csearch_path%3Dboard",
            "postgres://app@h/app?options=-c%20search_path%3Dboard",
            "postgres://app@h/app?options=--search_path%3Dboard", "postgres://app@h/app?schema=board",
            "postgres://app@h/app?schema=board&options=-csearch_path%3Dboard",
        ] {
            #expect(try DBBPostgresConfiguration(url: url).schema == "board", "\(url)")
        }
        #expect(try DBBPostgresConfiguration(url: "postgres://app@h/app").schema == nil)
        let configuration = try DBBPostgresConfiguration(
            url: "postgres://app@h/app?sslmode=disable&schema=Board%20Room")
        #expect(configuration.schema == "Board Room")
        #expect(
            configuration.redactedURL
                == "postgres://app@h:5432/app?sslmode=disable&options=-csearch_path%3DBoard%20Room")
        #expect(try DBBPostgresConfiguration(url: configuration.redactedURL).schema == "Board Room")
        for (url, says) in [
            ("postgres://app@h/app?options=-cwork_mem%3D1GB", "set something other than the search path"),
            ("postgres://app@h/app?schema=a,b", "is not one schema name"),
            ("postgres://app@h/app?schema=", "is not one schema name"),
            ("postgres://app@h/app?schema=a&options=-csearch_path%3Db", "it names two schemas, a and b"),
        ] {
            let error = try #require(#expect(throws: DBBError.self) { try DBBPostgresConfiguration(url: url) })
            #expect(error.kind == .misuse)
            #expect(error.message.contains(says), "\(error)")
        }
    }
}
