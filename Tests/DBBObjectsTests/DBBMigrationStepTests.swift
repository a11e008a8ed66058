import DBBObjects
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

@Suite("Migration steps on SQLite") struct DBBMigrationStepTests {
    static func migrate(_ manager: DBBManager, _ name: String, _ steps: [DBBMigrationStep]) throws {
        var migrator = DBBMigrator()
        migrator.registerMigration(name, steps)
        #expect(try migrator.migrate(manager).applied == [name])
    }

    static func names(_ manager: DBBManager, _ type: String) throws -> [String] {
        try manager.queue.inDatabase { db in
            try db.fetchValues(
                String.self, "SELECT name FROM sqlite_schema WHERE type = ? AND sql IS NOT NULL ORDER BY name", type)
        }
    }

    static func sql(_ manager: DBBManager, _ name: String) throws -> String? {
        try manager.queue.inDatabase { db in
            try db.fetchValue(String.self, "SELECT sql FROM sqlite_schema WHERE name = ?", name)
        }
    }

    /// Release 1's data with a view and a trigger on `Book` of the application's own.
    static func release1WithViewAndTrigger() throws -> (TemporaryFolder, DBBManager) {
        let (folder, url) = try DBBMigratorTests.release1()
        let manager = try DBBManager(databaseURL: url)
        try manager.queue.inDatabase { db in
            try db.executeStatements(
                """
                CREATE TABLE BookLog (bookID Integer, note Text);
                CREATE VIEW RecentBooks AS SELECT title, year FROM Book WHERE year > 1971;
                CREATE TRIGGER BookTouched AFTER UPDATE OF title ON Book BEGIN
                    INSERT INTO BookLog VALUES (new.id, 'retitled');
                END;
                """)
        }
        return (folder, manager)
    }

    @Test func renamingAPropertyRenamesItsColumnIndexAndKeepsViewsAndTriggers() throws {
        let (folder, manager) = try Self.release1WithViewAndTrigger()
        _ = folder
        try Self.migrate(
            manager, "v2",
            [.renameProperty("year", to: "published", in: "Book"), .renameProperty("tags", to: "labels", in: "Book")])
        #expect(try Self.names(manager, "index").contains("Book_published"))
        #expect(try !Self.names(manager, "index").contains("Book_year"))
        #expect(try Self.names(manager, "table").contains("Book_labels"))
        #expect(try !Self.names(manager, "table").contains("Book_tags"))
        #expect(try Self.names(manager, "index").contains("Book_labels_idx"))
        #expect(try Self.sql(manager, "RecentBooks")?.contains("published") == true)
        try manager.addTableClasses([AuthorV1.self, BookV2.self])
        #expect(manager.registrationWarnings.isEmpty)
        let books = try BookV2.fetchAll(manager: manager)
        #expect(books.map(\.published) == [1974, 1972, 1971])
        #expect(books.map(\.labels) == [["utopia", "physics"], ["cities"], []])
        #expect(books.map { $0.author?.name } == ["Ursula K. Le Guin", "Italo Calvino", "Ursula K. Le Guin"])
        // Registration added no second index, and the trigger still fires.
        #expect(try Self.names(manager, "index").filter { $0.hasPrefix("Book_p") } == ["Book_published"])
        books[0].title = "The Dispossessed: An Ambiguous Utopia"
        try books[0].save()
        #expect(try manager.rowCount(inTable: "BookLog") == 1)
        let recent = try manager.queue.inDatabase { db in
            try db.fetchValues(String.self, "SELECT title FROM RecentBooks ORDER BY title")
        }
        #expect(recent == ["Invisible Cities", "The Dispossessed: An Ambiguous Utopia"])
    }

    /// The columns (name and declared type) and indexes of a table and its join tables, as DBBBuilder reads them.
    static func layout(_ manager: DBBManager, tables: [String]) throws -> [String: Set<String>] {
        try manager.queue.inDatabase { db in
            var layout: [String: Set<String>] = [:]
            for table in tables {
                layout[table] = Set(try db.columns(in: table).map { "\($0.name) \($0.declaredType)" })
                layout[table + " indexes"] = Set(try db.indexNames(in: table))
            }
            return layout
        }
    }

    @Test func aFileMigratedByRenamesKeepsDBBBuildersLayout() throws {
        let (folder, url) = try DBBMigratorTests.release1()
        _ = folder
        let manager = try DBBManager(databaseURL: url)
        try Self.migrate(
            manager, "v2",
            [.renameProperty("year", to: "published", in: "Book"), .renameProperty("tags", to: "labels", in: "Book")])
        try manager.addTableClasses([AuthorV1.self, BookV2.self])
        // The same tables, columns, types and indexes as a new file of release 2's classes: what DBBBuilder on Apple
        // platforms creates for them, so it opens the migrated file.
        let fresh = try DBBManager.inMemory()
        try fresh.addTableClasses([AuthorV1.self, BookV2.self])
        let tables = ["Book", "Book_labels", "Book_author", "Author"]
        #expect(try Self.layout(manager, tables: tables) == Self.layout(fresh, tables: tables))
        #expect(try Self.sql(manager, "Book")?.contains("id Integer PRIMARY KEY AUTOINCREMENT") == true)
    }

    @Test func registeringARenamedPropertyWithoutItsMigrationWarnsAndTheMigrationStillApplies() throws {
        let (folder, url) = try DBBMigratorTests.release1()
        _ = folder
        do {
            let early = try DBBManager(databaseURL: url)
            try early.addTableClasses([AuthorV1.self, BookV2.self])
            let warnings = early.registrationWarnings
            #expect(
                warnings.contains {
                    $0.contains("Book.published is new") && $0.contains(".renameProperty(\"year\", to: \"published\"")
                })
            #expect(warnings.contains { $0.contains("Book.labels is new") && $0.contains("Book.tags") })
            #expect(try BookV2.fetchAll(manager: early).map(\.published) == [0, 0, 0])
            try early.close()
        }
        let manager = try DBBManager(databaseURL: url)
        try Self.migrate(
            manager, "v2",
            [.renameProperty("year", to: "published", in: "Book"), .renameProperty("tags", to: "labels", in: "Book")])
        try manager.addTableClasses([AuthorV1.self, BookV2.self])
        #expect(manager.registrationWarnings.isEmpty)
        #expect(try BookV2.fetchAll(manager: manager).map(\.published) == [1974, 1972, 1971])
        #expect(try BookV2.fetchAll(manager: manager).map(\.labels.count) == [2, 1, 0])
    }

    @Test func aTypeChangeWithoutItsMigrationIsAnErrorNamingTheMigration() throws {
        let (folder, url) = try DBBMigratorTests.release1()
        _ = folder
        var migrator = DBBMigrator()
        migrator.registerMigration("v2", [.renameProperty("year", to: "published", in: "Book")])
        let manager = try DBBManager(databaseURL: url)
        try migrator.migrate(manager)
        #expect(throws: DBBError.self) { try manager.addTableClasses([AuthorV1.self, BookV3.self]) }
        #expect(manager.errorMessage().contains(".changeType(of: \"published\", in: \"Book\""))
    }

    @Test func changingATypeRebuildsTheTableKeepingConstraintsIndexesTriggersViewsAndIDs() throws {
        let (folder, manager) = try Self.release1WithViewAndTrigger()
        _ = folder
        try manager.queue.inDatabase { db in
            // A deleted row leaves the AUTOINCREMENT counter above the largest id; the rebuild keeps it.
            try db.execute("INSERT INTO Book (title, year) VALUES ('Deleted', 2000)")
            try db.execute("DELETE FROM Book WHERE title = 'Deleted'")
            try db.execute("CREATE UNIQUE INDEX Book_title_unique ON Book (title)")
        }
        try Self.migrate(
            manager, "v3",
            [
                .renameProperty("year", to: "published", in: "Book"),
                .changeType(of: "published", in: "Book", to: .string) { value in value.int64Value.map { "\($0) CE" } },
            ])
        #expect(try Self.sql(manager, "Book")?.contains("published Text") == true)
        #expect(try Self.sql(manager, "Book")?.contains("AUTOINCREMENT") == true)
        #expect(try Self.names(manager, "index").contains("Book_title_unique"))
        #expect(try Self.names(manager, "index").contains("Book_published"))
        #expect(try Self.names(manager, "view") == ["RecentBooks"])
        #expect(try Self.names(manager, "trigger") == ["BookTouched"])
        let values = try manager.queue.inDatabase { db in
            try db.fetchValues(String.self, "SELECT published FROM Book ORDER BY id")
        }
        #expect(values == ["1974 CE", "1972 CE", "1971 CE"])
        try manager.addTableClasses([BookV3Text.self])
        let book = BookV3Text(dbManager: manager)
        book.title = "New"
        try book.save()
        #expect(book.idNum == 5)
        let duplicate = BookV3Text(dbManager: manager)
        duplicate.title = "New"
        #expect(throws: DBBError.self) { try duplicate.save() }
        #expect(
            try BookV3Text.fetchAll(manager: manager).map(\.published).prefix(3) == ["1974 CE", "1972 CE", "1971 CE"])
    }

    @Test func changingATypeWithoutATransformConvertsByAffinityAndAThrowingTransformChangesNothing() throws {
        let (folder, url) = try DBBMigratorTests.release1()
        _ = folder
        let manager = try DBBManager(databaseURL: url)
        struct Refused: Error {}
        var failing = DBBMigrator()
        failing.registerMigration(
            "refused", [.changeType(of: "year", in: "Book", to: .date) { _ in throw Refused() }])
        #expect(throws: (any Error).self) { try failing.migrate(manager) }
        #expect(try Self.sql(manager, "Book")?.contains("year Integer") == true)
        try Self.migrate(manager, "year as real", [.changeType(of: "year", in: "Book", to: .float)])
        let types = try manager.queue.inDatabase { db in
            try db.fetchValues(String.self, "SELECT typeof(year) FROM Book")
        }
        #expect(types == ["real", "real", "real"])
    }

    @Test func aStringBecomesADateWithAParseClosure() throws {
        let manager = try DBBManager.inMemory()
        try manager.queue.inDatabase { db in
            try db.executeStatements(
                """
                CREATE TABLE Event (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, modifiedTime Real, day Text);
                INSERT INTO Event (day) VALUES ('2024-02-29'), ('1999-12-31'), (NULL);
                """)
        }
        try Self.migrate(
            manager, "day as date",
            [
                .changeType(of: "day", in: "Event", to: .date) { value in
                    let formatter = ISO8601DateFormatter()
                    formatter.formatOptions = [.withFullDate]
                    return value.stringValue.flatMap { formatter.date(from: $0) }
                }
            ])
        try manager.addTableClasses([Event.self])
        let days = try Event.fetchAll(manager: manager).map(\.day)
        #expect(days[0] == Date(timeIntervalSince1970: 1_709_164_800))
        #expect(days[1] == Date(timeIntervalSince1970: 946_598_400))
        #expect(days[2] == nil)
    }

    @Test func renamingAClassRenamesItsTableJoinTablesOwnerColumnsAndIndexes() throws {
        let (folder, url) = try DBBMigratorTests.release1()
        _ = folder
        let manager = try DBBManager(databaseURL: url)
        try Self.migrate(manager, "Book is Volume", [.renameClass("Book", to: "Volume")])
        let tables = try Self.names(manager, "table")
        #expect(tables.contains("Volume") && tables.contains("Volume_tags") && tables.contains("Volume_author"))
        #expect(!tables.contains { $0.hasPrefix("Book") })
        #expect(
            try Self.names(manager, "index").filter { $0.hasPrefix("Volume") }.sorted() == [
                "Volume_author_idx", "Volume_tags_idx", "Volume_year",
            ])
        #expect(try Self.sql(manager, "Volume_tags")?.contains("Volume_ID") == true)
        try manager.addTableClasses([AuthorV1.self, Volume.self, ShelfV2.self])
        #expect(manager.registrationWarnings.isEmpty)
        let volumes = try Volume.fetchAll(manager: manager)
        #expect(volumes.map(\.tags) == [["utopia", "physics"], ["cities"], []])
        #expect(volumes.map { $0.author?.name } == ["Ursula K. Le Guin", "Italo Calvino", "Ursula K. Le Guin"])
        #expect(
            try ShelfV2.fetchAll(manager: manager).first?.books.map(\.title) == [
                "The Dispossessed", "Invisible Cities",
            ])
    }

    @Test func droppingPropertiesAndClasses() throws {
        let (folder, manager) = try Self.release1WithViewAndTrigger()
        _ = folder
        // The view reads `year`: dropping it fails, and changes nothing.
        var refused = DBBMigrator()
        refused.registerMigration("drop year", [.dropProperty("year", in: "Book")])
        #expect(throws: DBBError.self) { try refused.migrate(manager) }
        #expect(manager.errorMessage().contains("view RecentBooks cannot be created again"))
        #expect(try Self.sql(manager, "Book")?.contains("year") == true)
        try Self.migrate(
            manager, "drops",
            [
                .sql("DROP VIEW RecentBooks"), .dropProperty("year", in: "Book"), .dropProperty("tags", in: "Book"),
                .dropClass("Shelf"),
            ])
        #expect(try Self.sql(manager, "Book")?.contains("year") == false)
        #expect(try !Self.names(manager, "index").contains("Book_year"))
        #expect(try Self.names(manager, "trigger") == ["BookTouched"])
        let tables = try Self.names(manager, "table")
        #expect(!tables.contains("Book_tags") && !tables.contains("Shelf") && !tables.contains("Shelf_books"))
        #expect(try manager.rowCount(inTable: "Book") == 3)
        #expect(try manager.rowCount(inTable: "Book_author") == 3)
    }

    @Test func aReferenceMovesFromItsJoinTableToAColumnAndBack() throws {
        let (folder, url) = try DBBMigratorTests.release1()
        _ = folder
        let manager = try DBBManager(databaseURL: url)
        // An array cannot become a reference.
        var refused = DBBMigrator()
        refused.registerMigration("tags", [.moveReferenceToColumn("tags", in: "Book")])
        #expect(throws: DBBError.self) { try refused.migrate(manager) }
        try Self.migrate(
            manager, "v3",
            [
                .renameProperty("year", to: "published", in: "Book"), .dropProperty("tags", in: "Book"),
                .changeType(of: "published", in: "Book", to: .string),
                .moveReferenceToColumn("author", in: "Book"),
            ])
        #expect(try !Self.names(manager, "table").contains("Book_author"))
        try manager.addTableClasses([AuthorV1.self, BookV3.self])
        let books = try BookV3.fetchAll(manager: manager)
        #expect(books.map(\.published) == ["1974", "1972", "1971"])
        #expect(books.map { $0.author?.name } == ["Ursula K. Le Guin", "Italo Calvino", "Ursula K. Le Guin"])
        try manager.close()
        let back = try DBBManager(databaseURL: url)
        try Self.migrate(back, "author back in its join table", [.moveReferenceToJoinTable("author", in: "Book")])
        #expect(try back.rowCount(inTable: "Book_author") == 3)
        #expect(try Self.sql(back, "Book")?.contains("author") == false)
    }
}

/// Release 3 of the book, before its author moved to a column.
final class BookV3Text: DBBTableObject {
    override class var tableName: String { "Book" }
    var title = ""
    var published = ""

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            ["title": .init(\BookV3Text.title), "published": .init(\BookV3Text.published)], for: self)
    }
}

final class Event: DBBTableObject {
    var day: Date?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["day": .init(\Event.day)], for: self)
    }
}
