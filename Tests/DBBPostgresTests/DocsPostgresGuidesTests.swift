import DBBBuilder
import DBBPostgres
import DBBTestSupport
import Foundation
import Testing

/// Every Swift block of `Docs/MovingToPostgreSQL.md`, `Docs/Clusters.md` and DBBPostgres's DocC landing page,
/// compiled here (the five commands' section in `DocsMovingToPostgreSQLTests.swift`), and run where a test server
/// can stand in for the guide's.
enum PostgresGuideSamples {
    @DBBTable(indexes: [DBBIndexer(columnsToIndex: ["lastName", "firstName"])])
    final class Person: DBBTableObject {
        var firstName = ""
        var lastName = ""
        var age = 0
        var email: String?
    }

    @DBBTable
    final class Meeting: DBBTableObject {
        var purpose = ""
        var startTime: Date?
        var participants: [Person] = []
        var project: Project?
    }

    @DBBTable
    final class Project: DBBTableObject {
        @Indexed @Column("itemName") var name = ""
        @Unique var code = ""
        var startDate: Date?
        var budget: Float = 0
        var tags: [String] = []
        var meetings: [Meeting] = []
        var projectLead: Person?
    }

    @DBBTable
    final class Author: DBBTableObject {
        var name = ""
    }

    @DBBTable
    final class Book: DBBTableObject {
        var title = ""
        var author: Author?
    }

    /// "What changes: the manager", with the guide's server, password and people.
    static func openTheManager(secret: String, people: [Person]) throws -> [Project] {
        let manager = try DBBManager(
            postgres: .init(
                host: "127.0.0.1", port: 5432, username: "app", password: secret, database: "app",
                tls: .disable),
            readers: 4)
        try manager.addTableClasses([Person.self, Meeting.self, Project.self])  // tables, join tables, indexes
        try Person.save(people, manager: manager)  // sync and async forms, as on SQLite
        var rich = DBBQueryOptions.options(sortColumns: ["name"])
        rich.addCondition("budget > ?", 1_000)
        let found = try Project.fetch(options: rich, manager: manager)
        return found
    }

    /// The password from `PGPASSWORD` or `~/.pgpass`.
    static func openWithoutAPassword() throws -> DBBManager {
        let manager = try DBBManager(postgres: try DBBPostgresConfiguration(url: "postgres://app@db.internal:5432/app"))
        return manager
    }

    /// "Transactions of your own: `write` and `read`".
    static func writeAndRead(manager: DBBManager, author: Author, book: Book, shelfID: Int64) throws -> (Int, Int) {
        try manager.write {  // one transaction on the writer connection
            try author.save()
            try book.save()
            _ = try manager.postgresConnection().execute(  // SQL of your own, in the same transaction
                #"UPDATE "Shelf" SET "bookCount" = "bookCount" + 1 WHERE "id" = $1"#, [.integer(shelfID)])
        }
        let (books, authors) = try manager.read {  // one REPEATABLE READ snapshot on a reader
            (try Book.fetchAll(manager: manager), try Author.fetchCount(manager: manager))
        }
        return (books.count, authors)
    }

    /// "Restoring a dump from Swift".
    static func restoreFromSwift() throws {
        let connection = try DBBPostgresConnection.connect(try DBBPostgresConfiguration(url: "postgres://app@db/app"))
        defer { try? connection.close() }
        let report = try DBBPostgresRestore.restore(
            dumpAt: URL(fileURLWithPath: "app.json.gz"), into: connection,
            options: DBBPostgresRestoreOptions(schema: "app"))
        for note in report.plan.notes { print(note) }
        for orphans in report.orphans { print(orphans) }
    }

    @DBBTable
    final class Invoice: DBBTableObject {
        var number = ""
        var total = 0.0
    }

    /// `Docs/Clusters.md`: a manager of three hosts.
    static func openTheCluster() throws -> DBBManager {
        let cluster = try DBBPostgresConfiguration(
            url: "postgres://app@10.0.0.1:5432,10.0.0.2:5432,10.0.0.3:5432/app?sslmode=require")
        // The password comes from PGPASSWORD or ~/.pgpass, as with libpq.
        let manager = try DBBManager(postgres: cluster, readers: 4)
        try manager.addTableClasses([Person.self, Meeting.self, Project.self])
        return manager
    }

    /// `Docs/Clusters.md`: a commit of unknown outcome.
    static func saveOnce(_ invoice: Invoice) throws {
        do {
            try invoice.save()
        } catch let error as DBBError where error.sqlState == "08007" {
            // Committed or not: look for it by a key of its own before saving it again.
        }
    }

    /// DBBPostgres's landing page.
    static func landingPage() async throws -> [[DBBValue]] {
        let configuration = try DBBPostgresConfiguration(
            url: "postgres://app:secret@127.0.0.1:5432/app?sslmode=disable")
        let db = try await DBBPostgresConnection.connect(configuration)
        try await db.execute("CREATE TEMPORARY TABLE note (id bigint PRIMARY KEY, body text NOT NULL)")
        try await db.inTransaction { db in
            _ = try await db.execute("INSERT INTO note VALUES ($1, $2)", [.integer(1), .text("Buy milk")])
        }
        let rows = try await db.fetchAll(
            "SELECT body FROM note WHERE id = ANY($1::bigint[])",
            arguments: [.integerArray([1, 2])])
        try await db.close()
        return rows
    }
}

@Suite struct DocsPostgresGuidesTests {
    static let sources = [
        "Tests/DBBPostgresTests/DocsPostgresGuidesTests.swift",
        "Tests/DBBPostgresTests/DocsMovingToPostgreSQLTests.swift",
    ]

    @Test(
        arguments: [
            "Docs/MovingToPostgreSQL.md", "Docs/Clusters.md", "Modules/DBBPostgres/DBBPostgres.docc/DBBPostgres.md",
        ])
    func everySwiftBlockIsCompiledHere(guide: String) throws {
        let markdown = try String(contentsOf: repositoryRoot.appendingPathComponent(guide), encoding: .utf8)
        let source = try Self.sources.map {
            try String(contentsOf: repositoryRoot.appendingPathComponent($0), encoding: .utf8)
        }.joined(separator: "\n")
        #expect(!DocSnippets.swiftBlocks(in: markdown).isEmpty)
        #expect(DocSnippets.missingBlocks(markdown: markdown, source: source) == [])
    }

    /// The guide's manifest loads and names both products.
    @Test func theManifestLoads() throws {
        let guide = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Docs/MovingToPostgreSQL.md"), encoding: .utf8)
        let manifest = try #require(DocSnippets.manifests(in: guide).first)
        let folder = try TemporaryFolder()
        try FileManager.default.createDirectory(at: folder.file("Sources/App"), withIntermediateDirectories: true)
        try folder.write("print(1)\n", to: "Sources/App/main.swift")
        try folder.write(manifest, to: "Package.swift")
        let run = try ToolProcess.run(
            executable: URL(fileURLWithPath: "/usr/bin/env"), ["swift", "package", "dump-package"], in: folder.url,
            environment: ["TMPDIR": folder.url.path])
        #expect(run.exitCode == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("\"DBBPostgres\""), "\(run.standardOutput)")
    }

    @Test(.postgres) func theTransactionsRunOnTheTestServer() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        let counts = try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration, readers: 1)
            try manager.addTableClasses([PostgresGuideSamples.Author.self, PostgresGuideSamples.Book.self])
            _ = try manager.write {
                try manager.postgresConnection().execute(
                    #"CREATE TABLE "Shelf" ("id" bigint PRIMARY KEY, "bookCount" bigint NOT NULL)"#)
            }
            _ = try manager.write { try manager.postgresConnection().execute(#"INSERT INTO "Shelf" VALUES (7, 0)"#) }
            let author = PostgresGuideSamples.Author(dbManager: manager)
            author.name = "Le Guin"
            let book = PostgresGuideSamples.Book(dbManager: manager)
            book.title = "The Dispossessed"
            book.author = author
            let counts = try PostgresGuideSamples.writeAndRead(manager: manager, author: author, book: book, shelfID: 7)
            let shelf = try manager.read {
                try manager.postgresConnection().fetchAll(#"SELECT "bookCount" FROM "Shelf""#)
            }
            try manager.close()
            return (counts.0, counts.1, shelf.first?.first?.int64Value)
        }
        #expect(counts.0 == 1 && counts.1 == 1 && counts.2 == 1)
    }

    @Test(.postgres) func theGuidesQueryRunsOnTheTestServer() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        let names = try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration, readers: 1)
            defer { try? manager.close() }
            try manager.addTableClasses([
                PostgresGuideSamples.Person.self, PostgresGuideSamples.Meeting.self, PostgresGuideSamples.Project.self,
            ])
            for (name, budget) in [("Cygnus", Float(5_000)), ("Apollo", 500), ("Ares", 2_000)] {
                let project = PostgresGuideSamples.Project(dbManager: manager)
                project.name = name
                project.code = name
                project.budget = budget
                try project.save()
            }
            var rich = DBBQueryOptions.options(sortColumns: ["name"])
            rich.addCondition("budget > ?", 1_000)
            return try PostgresGuideSamples.Project.fetch(options: rich, manager: manager).map(\.name)
        }
        #expect(names == ["Ares", "Cygnus"])
    }
}
