import DBBObjects
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

@Suite("Migrator") struct DBBMigratorTests {
    /// A file database with release 1's data, and a fresh manager on it (release 1's classes not registered).
    static func release1() throws -> (TemporaryFolder, URL) {
        let folder = try TemporaryFolder()
        let url = folder.file("books.sqlite")
        let writer = try DBBManager(databaseURL: url)
        try MigrationFixtures.writeRelease1(writer)
        try writer.close()
        return (folder, url)
    }

    static func schemaSQL(_ manager: DBBManager, _ name: String) throws -> String? {
        try manager.queue.inDatabase { db in
            try db.fetchValue(String.self, "SELECT sql FROM sqlite_schema WHERE name = ?", name)
        }
    }

    @Test func eachMigrationRunsOnceAndIsRecordedWithItsChecksum() throws {
        let (folder, url) = try Self.release1()
        _ = folder
        var migrator = DBBMigrator()
        migrator.registerMigration("add isbn", [.sql("ALTER TABLE Book ADD COLUMN isbn Text")])
        migrator.registerMigration("isbn for all", [.sql("UPDATE Book SET isbn = 'isbn-' || id")])
        let manager = try DBBManager(databaseURL: url)
        let before = Date()
        let first = try migrator.migrate(manager)
        #expect(first.applied == ["add isbn", "isbn for all"])
        let second = try migrator.migrate(manager)
        #expect(second == DBBMigrator.Report())
        let records = try migrator.appliedMigrations(in: manager)
        #expect(records.map(\.name) == ["add isbn", "isbn for all"])
        #expect(records.map(\.checksum) == migrator.migrations.map(\.checksum))
        #expect(records.allSatisfy { $0.appliedAt.timeIntervalSince(before) > -1 })
        #expect(Set(records.map(\.checksum)).count == 2)
        let isbns = try manager.queue.inDatabase { db in
            try db.fetchValues(String.self, "SELECT isbn FROM Book ORDER BY id")
        }
        #expect(isbns == ["isbn-1", "isbn-2", "isbn-3"])
    }

    @Test func anEditedMigrationIsReportedAndDoesNotRunAgain() throws {
        let manager = try DBBManager.inMemory()
        var release2 = DBBMigrator()
        release2.registerMigration("notes", [.sql("CREATE TABLE Note (id Integer PRIMARY KEY, text Text)")])
        try release2.migrate(manager)
        var edited = DBBMigrator()
        edited.registerMigration("notes", [.sql("CREATE TABLE Note (id Integer PRIMARY KEY, body Text)")])
        edited.registerMigration("later", [.sql("INSERT INTO Note (text) VALUES ('x')")])
        let report = try edited.migrate(manager)
        #expect(report.edited == ["notes"])
        #expect(report.applied == ["later"])
        #expect(manager.registrationWarnings.contains { $0.contains("migration notes was edited") })
        var older = DBBMigrator()
        older.registerMigration("notes", release2.migrations[0].steps)
        #expect(try older.migrate(manager).unknown == ["later"])
    }

    @Test func aFailingMigrationLeavesSchemaAndDataAsTheyWere() throws {
        let (folder, url) = try Self.release1()
        _ = folder
        var migrator = DBBMigrator()
        migrator.registerMigration("first", [.sql("CREATE TABLE Extra (id Integer PRIMARY KEY)")])
        migrator.registerMigration(
            "broken",
            [
                .renameProperty("year", to: "published", in: "Book"),
                .dropProperty("title", in: "Book"),
                .sql("UPDATE NoSuchTable SET x = 1"),
            ])
        let manager = try DBBManager(databaseURL: url)
        let before = try Self.schemaSQL(manager, "Book")
        #expect(throws: DBBError.self) { try migrator.migrate(manager) }
        #expect(manager.errorMessage().contains("migration broken failed"))
        #expect(try Self.schemaSQL(manager, "Book") == before)
        #expect(try migrator.appliedMigrations(in: manager).map(\.name) == ["first"])
        try manager.addTableClasses([AuthorV1.self, BookV1.self])
        let books = try BookV1.fetchAll(manager: manager)
        #expect(books.map(\.title) == ["The Dispossessed", "Invisible Cities", "The Lathe of Heaven"])
        #expect(books.map(\.year) == [1974, 1972, 1971])
    }

    @Test func duplicateNamesAndRegisteredClassesAreRefused() throws {
        let manager = try DBBManager.inMemory()
        var twice = DBBMigrator()
        twice.registerMigration("a", [.sql("CREATE TABLE A (id Integer)")])
        twice.registerMigration("a", [.sql("CREATE TABLE B (id Integer)")])
        #expect(throws: DBBError.self) { try twice.migrate(manager) }
        let tables = try manager.queue.inDatabase { db in try db.tableNames() }
        #expect(!tables.contains("A"))
        try manager.addTableClasses([AuthorV1.self, BookV1.self])
        var late = DBBMigrator()
        late.registerMigration("rename", [.renameProperty("year", to: "published", in: "Book")])
        #expect(throws: DBBError.self) { try late.migrate(manager) }
        #expect(manager.errorMessage().contains("run the migrator before addTableClasses"))
    }

    @Test func foreignKeysAreCheckedBeforeCommit() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("fk.sqlite"))
        try manager.queue.inDatabase { db in
            try db.setForeignKeysEnabled(true)
            try db.executeStatements(
                """
                CREATE TABLE Parent (id Integer PRIMARY KEY, name Text);
                CREATE TABLE Child (id Integer PRIMARY KEY, parent Integer REFERENCES Parent(id), label Text);
                INSERT INTO Parent VALUES (1, 'p');
                INSERT INTO Child VALUES (1, 1, 'c');
                """)
        }
        var migrator = DBBMigrator()
        migrator.registerMigration("orphan", [.sql("INSERT INTO Child VALUES (2, 99, 'orphan')")])
        #expect(throws: DBBError.self) { try migrator.migrate(manager) }
        #expect(manager.errorMessage().contains("breaks its foreign key to Parent"))
        #expect(try manager.rowCount(inTable: "Child") == 1)
        // The rebuild of a referenced table keeps the references valid, and foreign keys are on again after.
        var retype = DBBMigrator()
        retype.registerMigration("Parent rebuilt", [.changeType(of: "name", in: "Parent", to: .string)])
        #expect(try retype.migrate(manager).applied == ["Parent rebuilt"])
        #expect(try manager.queue.inDatabase { db in try db.foreignKeysEnabled() })
        #expect(try Self.schemaSQL(manager, "Child")?.contains("REFERENCES Parent(id)") == true)
    }

    @Test func dataMigrationsUseTheObjectAPIInsideTheMigrationsTransaction() throws {
        let (folder, url) = try Self.release1()
        _ = folder
        let manager = try DBBManager(databaseURL: url)
        var failing = DBBMigrator()
        failing.registerMigration(
            "titles upper-cased, then a failure",
            [
                .objects("upper-case titles") { manager in
                    try manager.addTableClasses([AuthorV1.self, BookV1.self])
                    for book in try BookV1.fetchAll(manager: manager) {
                        book.title = book.title.uppercased()
                        try book.save()
                    }
                },
                .sql("SELECT * FROM NoSuchTable"),
            ])
        #expect(throws: DBBError.self) { try failing.migrate(manager) }
        let titles = try manager.queue.inDatabase { db in
            try db.fetchValues(String.self, "SELECT title FROM Book ORDER BY id")
        }
        #expect(titles == ["The Dispossessed", "Invisible Cities", "The Lathe of Heaven"])
        var migrator = DBBMigrator()
        migrator.registerMigration(
            "titles upper-cased",
            [
                .objects("upper-case titles") { manager in
                    try manager.addTableClasses([AuthorV1.self, BookV1.self])
                    for book in try BookV1.fetchAll(manager: manager) {
                        book.title = book.title.uppercased()
                        try book.save()
                    }
                }
            ])
        try migrator.migrate(manager)
        #expect(try BookV1.fetchAll(manager: manager).map(\.title).first == "THE DISPOSSESSED")
    }

    @Test func theDatabaseVersionHelpersWorkBesideTheMigrator() throws {
        let manager = try DBBManager.inMemory()
        try manager.setDatabaseVersion(2)
        var migrator = DBBMigrator()
        migrator.registerMigration("v3", [.sql("CREATE TABLE T (id Integer PRIMARY KEY)")])
        try migrator.migrate(manager)
        manager.setCurrentDBVersion(3)
        #expect(manager.hasLatestDBVersion(currentVersion: 3) == (true, 3))
        #expect(try manager.databaseVersion() == 3)
    }

    @Test func asyncMigrateRunsTheMigrations() async throws {
        let manager = try DBBManager.inMemory()
        var migrator = DBBMigrator()
        migrator.registerMigration("t", [.sql("CREATE TABLE T (id Integer PRIMARY KEY)")])
        let report = try await migrator.migrate(manager)
        #expect(report.applied == ["t"])
        let rows = try await manager.rowCount(inTable: "T")
        #expect(rows == 0)
    }
}
