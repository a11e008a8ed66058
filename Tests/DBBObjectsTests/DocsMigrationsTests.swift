import DBBObjects
import DBBTestSupport
import Foundation
import Testing

/// The worked example of `Docs/Migrations.md`: a file written by release 1 goes to release 2, then release 3; a
/// second file goes from release 1 straight to release 3.
@Suite("Docs: Migrations") struct DocsMigrationsTests {
    @Test func theGuidesCodeStandsHere() throws {
        let markdown = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Docs/Migrations.md"), encoding: .utf8)
        let models = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Tests/DBBObjectsTests/Support/MigrationModels.swift"),
            encoding: .utf8)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8) + "\n" + models
        #expect(DocSnippets.missingBlocks(markdown: markdown, source: source) == [])
    }

    struct Refused: Error {
        let value: Int64
    }

    func migrateShelves(_ manager: DBBManager) throws -> String {
        var migrator = DBBMigrator()
        migrator.registerMigration(
            "v3",
            [
                .changeType(of: "built", in: "Shelf", to: .string) { value in
                    guard let year = value.int64Value, year > 0 else { throw Refused(value: value.int64Value ?? 0) }
                    return "\(year) CE"
                }
            ])
        do {
            try migrator.migrate(manager)
            return "migrated"
        } catch let error as DBBError where error.underlyingError is Refused {
            return error.message  // nothing of v3 remains: fix the data or the transform, and run it again
        }
    }

    @Test func aFailedMigrationNamesItselfAsTheGuideShows() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("shelves.sqlite"))
        try manager.queue.inDatabase { db in
            try db.executeStatements(
                "CREATE TABLE Shelf (id Integer PRIMARY KEY, built Integer); INSERT INTO Shelf VALUES (1, 1990), (3, -5);"
            )
        }
        #expect(
            try migrateShelves(manager)
                == "migration v3 failed: step 1 (changeType Shelf.built): row id 3: Refused(value: -5)")
        #expect(try manager.rowCount(inTable: "Shelf") == 2)
        try manager.queue.inDatabase { db in try db.execute("UPDATE Shelf SET built = 1 WHERE id = 3") }
        #expect(try migrateShelves(manager) == "migrated")
    }

    static func release2(_ url: URL) throws {
        var migrator = DBBMigrator()
        migrator.registerMigration(
            "v2: year renamed published, tags renamed labels",
            [
                .renameProperty("year", to: "published", in: "Book"),
                .renameProperty("tags", to: "labels", in: "Book"),
            ])
        let manager = try DBBManager(databaseURL: url)
        try migrator.migrate(manager)
        try manager.addTableClasses([AuthorV1.self, BookV2.self])
        #expect(try BookV2.fetchAll(manager: manager).map(\.labels) == [["utopia", "physics"], ["cities"], []])
        try manager.close()
    }

    static func release3(_ url: URL) throws -> DBBMigrator.Report {
        let manager = try DBBManager(databaseURL: url)
        var migrator = DBBMigrator()
        migrator.registerMigration(
            "v2: year renamed published, tags renamed labels",
            [
                .renameProperty("year", to: "published", in: "Book"),
                .renameProperty("tags", to: "labels", in: "Book"),
            ])
        migrator.registerMigration(
            "v3: published as text, labels dropped, author in a column",
            [
                .changeType(of: "published", in: "Book", to: .string) { value in value.int64Value.map { "\($0) CE" } },
                .dropProperty("labels", in: "Book"),
                .moveReferenceToColumn("author", in: "Book"),
            ])
        let report = try migrator.migrate(manager)
        try manager.addTableClasses([AuthorV1.self, BookV3.self])
        let books = try BookV3.fetchAll(manager: manager)
        #expect(books.map(\.published) == ["1974 CE", "1972 CE", "1971 CE"])
        #expect(books.map { $0.author?.name } == ["Ursula K. Le Guin", "Italo Calvino", "Ursula K. Le Guin"])
        #expect(manager.registrationWarnings.isEmpty)
        try manager.close()
        return report
    }

    @Test func releaseByReleaseAndStraightToRelease3() throws {
        let (folder, stepwise) = try DBBMigratorTests.release1()
        try Self.release2(stepwise)
        #expect(try Self.release3(stepwise).applied == ["v3: published as text, labels dropped, author in a column"])
        let straight = folder.file("straight.sqlite")
        let writer = try DBBManager(databaseURL: straight)
        try MigrationFixtures.writeRelease1(writer)
        try writer.close()
        #expect(try Self.release3(straight).applied.count == 2)
    }
}
