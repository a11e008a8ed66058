import DBBObjects
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// A failed migration names itself: the migration, the step and, for a transform, the row's id; the error the
/// application's code threw stays reachable, unchanged; and nothing of the migration remains.
@Suite("Migration failures") struct DBBMigrationFailureTests {
    /// The application's own error, thrown by a transform or a data step.
    struct Refused: Error, Equatable {
        let value: Int64
    }

    /// A shelf table with three rows, one of whose years no transform accepts (row 3: -5), written by
    /// migration `v1`, which every test expects to stay applied.
    static func shelves() throws -> (TemporaryFolder, DBBManager, DBBMigrator) {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("shelves.sqlite"))
        var migrator = DBBMigrator()
        migrator.registerMigration(
            "v1",
            [
                .sql(
                    """
                    CREATE TABLE Shelf (id Integer PRIMARY KEY, name Text, built Integer);
                    INSERT INTO Shelf VALUES (1, 'oak', 1990), (2, 'pine', NULL), (3, 'birch', -5);
                    """)
            ])
        #expect(try migrator.migrate(manager).applied == ["v1"])
        return (folder, manager, migrator)
    }

    static func rows(_ manager: DBBManager) throws -> [String] {
        try manager.queue.inDatabase { db in
            var rows: [String] = []
            try db.forEachRow("SELECT id, name, built, typeof(built) FROM Shelf ORDER BY id") { row in
                rows.append("\(row.value(at: 0)) \(row.value(at: 1)) \(row.value(at: 2)) \(row.value(at: 3))")
            }
            return rows
        }
    }

    static func shelfSQL(_ manager: DBBManager) throws -> String? {
        try manager.queue.inDatabase { db in
            try db.fetchValue(String.self, "SELECT sql FROM sqlite_schema WHERE name = 'Shelf'")
        }
    }

    static let acceptPositiveYears: @Sendable (DBBValue) throws -> (any DBBBindable)? = { value in
        guard let year = value.int64Value, year > 0 else { throw Refused(value: value.int64Value ?? 0) }
        return "\(year) CE"
    }

    @Test func aThrowingTransformNamesTheMigrationTheStepAndTheRowAndCarriesTheThrownError() throws {
        let (folder, manager, v1) = try Self.shelves()
        _ = folder
        let before = try (Self.rows(manager), Self.shelfSQL(manager))
        var migrator = v1
        migrator.registerMigration(
            "v3",
            [
                .sql("UPDATE Shelf SET name = upper(name)"),
                .changeType(of: "built", in: "Shelf", to: .string, transform: Self.acceptPositiveYears),
            ])
        let error = try #require(#expect(throws: DBBError.self) { try migrator.migrate(manager) })
        #expect(error.message == "migration v3 failed: step 2 (changeType Shelf.built): row id 3: Refused(value: -5)")
        #expect(error.underlyingError as? Refused == Refused(value: -5))
        #expect(error.kind == .library)
        #expect(error.engine == nil)
        #expect(!error.description.contains("SQLite"), "\(error)")
        #expect(manager.lastFailure?.underlyingError as? Refused == Refused(value: -5))
        #expect(manager.errorMessage() == error.message)

        // The caller catches its own type through the error.
        var caught: Refused?
        do {
            try migrator.migrate(manager)
        } catch let error as DBBError where error.underlyingError is Refused {
            caught = error.underlyingError as? Refused
        }
        #expect(caught == Refused(value: -5))

        // Nothing of v3 remains; v1 stays applied; the fixed migration runs afterwards.
        #expect(try (Self.rows(manager), Self.shelfSQL(manager)) == before)
        #expect(try migrator.appliedMigrations(in: manager).map(\.name) == ["v1"])
        var fixed = v1
        fixed.registerMigration(
            "v3",
            [
                .sql("UPDATE Shelf SET name = upper(name)"),
                .changeType(of: "built", in: "Shelf", to: .string) { value in value.int64Value.map { "\($0) CE" } },
            ])
        #expect(try fixed.migrate(manager).applied == ["v3"])
        #expect(
            try Self.rows(manager) == ["1 'OAK' '1990 CE' 'text'", "2 'PINE' NULL 'null'", "3 'BIRCH' '-5 CE' 'text'"])
    }

    @Test func aTransformOfAJoinTableNamesTheJoinTable() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("tags.sqlite"))
        var migrator = DBBMigrator()
        migrator.registerMigration(
            "v1",
            [
                .sql(
                    """
                    CREATE TABLE Book (id Integer PRIMARY KEY, title Text);
                    CREATE TABLE Book_codes (Book_ID Integer, codes Integer);
                    INSERT INTO Book VALUES (1, 'Emma');
                    INSERT INTO Book_codes (rowid, Book_ID, codes) VALUES (7, 1, 4), (8, 1, -1);
                    """)
            ])
        migrator.registerMigration(
            "v2", [.changeType(of: "codes", in: "Book", to: .stringArray, transform: Self.acceptPositiveYears)])
        let error = try #require(#expect(throws: DBBError.self) { try migrator.migrate(manager) })
        #expect(
            error.message == "migration v2 failed: step 1 (changeType Book.codes): row id 8 of Book_codes: "
                + "Refused(value: -1)")
        #expect(error.underlyingError as? Refused == Refused(value: -1))
        #expect(try migrator.appliedMigrations(in: manager).map(\.name) == ["v1"])
    }

    @Test func aFailingSQLStepNamesTheStepAndKeepsSQLitesCodes() throws {
        let (folder, manager, v1) = try Self.shelves()
        _ = folder
        let before = try Self.rows(manager)
        var migrator = v1
        migrator.registerMigration(
            "v3", [.sql("UPDATE Shelf SET name = 'x'"), .sql("UPDATE NoSuchTable SET x = 1")])
        let error = try #require(#expect(throws: DBBError.self) { try migrator.migrate(manager) })
        #expect(
            error.message
                == "migration v3 failed: step 2 (sql UPDATE NoSuchTable SET x = 1): no such table: NoSuchTable")
        #expect(error.kind == .sqlite)
        #expect(error.resultCode == .error)
        #expect(error.underlyingError == nil)
        #expect(error.description.hasPrefix("SQLite error 1: migration v3 failed"), "\(error)")
        #expect(try Self.rows(manager) == before)
        #expect(try migrator.appliedMigrations(in: manager).map(\.name) == ["v1"])
    }

    @Test func aLongSQLStepIsNamedByItsBeginning() throws {
        let (folder, manager, v1) = try Self.shelves()
        _ = folder
        var migrator = v1
        migrator.registerMigration(
            "v3",
            [
                .sql(
                    """
                    UPDATE Shelf
                       SET name = name || ' (renamed)', built = built + 1
                     WHERE id IN (SELECT id FROM NoSuchTable)
                    """)
            ])
        let error = try #require(#expect(throws: DBBError.self) { try migrator.migrate(manager) })
        #expect(
            error.message.hasPrefix(
                "migration v3 failed: step 1 (sql UPDATE Shelf SET name = name || ' (renamed)', b…): "),
            "\(error.message)")
    }

    @Test func aForeignKeyViolationFailsTheMigrationWithTheForeignKeyCode() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("fk.sqlite"))
        var migrator = DBBMigrator()
        migrator.registerMigration(
            "v1",
            [
                .sql(
                    """
                    CREATE TABLE Parent (id Integer PRIMARY KEY, name Text);
                    CREATE TABLE Child (id Integer PRIMARY KEY, parent Integer REFERENCES Parent(id), label Text);
                    INSERT INTO Parent VALUES (1, 'p');
                    INSERT INTO Child VALUES (1, 1, 'c');
                    """)
            ])
        migrator.registerMigration("orphan", [.sql("INSERT INTO Child VALUES (2, 99, 'orphan')")])
        let error = try #require(#expect(throws: DBBError.self) { try migrator.migrate(manager) })
        #expect(
            error.message
                == "migration orphan failed: the foreign-key check after the steps found a row of Child that breaks "
                + "its foreign key to Parent")
        #expect(DBBError.constraintForeignKey.matches(error))
        #expect(try manager.rowCount(inTable: "Child") == 1)
        #expect(try migrator.appliedMigrations(in: manager).map(\.name) == ["v1"])
    }

    @Test func aDataStepThatThrowsIsNamedAndUndone() throws {
        let (folder, manager, v1) = try Self.shelves()
        _ = folder
        var migrator = v1
        migrator.registerMigration(
            "v3",
            [
                .objects("rename the shelves") { manager in
                    try manager.addTableClasses([MigrationShelf.self])
                    let shelves = try MigrationShelf.fetchAll(manager: manager)
                    for shelf in shelves { shelf.name += " (checked)" }
                    try MigrationShelf.save(shelves, manager: manager)
                    throw Refused(value: Int64(shelves.count))
                }
            ])
        let error = try #require(#expect(throws: DBBError.self) { try migrator.migrate(manager) })
        #expect(error.message == #"migration v3 failed: step 1 (objects "rename the shelves"): Refused(value: 3)"#)
        #expect(error.underlyingError as? Refused == Refused(value: 3))
        #expect(try Self.rows(manager).allSatisfy { !$0.contains("checked") })
        // The class the step registered inside the rolled-back transaction is forgotten.
        #expect(throws: DBBError.self) { _ = try MigrationShelf.fetchAll(manager: manager) }
        #expect(try migrator.appliedMigrations(in: manager).map(\.name) == ["v1"])
    }

    @Test func aDBBErrorThrownByADataStepKeepsItsKindAndCodes() throws {
        let (folder, manager, v1) = try Self.shelves()
        _ = folder
        var migrator = v1
        migrator.registerMigration(
            "v3",
            [
                .objects("duplicate a shelf") { manager in
                    try manager.write { db in try db.execute("INSERT INTO Shelf VALUES (1, 'again', 2000)") }
                }
            ])
        let error = try #require(#expect(throws: DBBError.self) { try migrator.migrate(manager) })
        #expect(error.kind == .misuse, "\(error)")
        #expect(error.message.hasPrefix(#"migration v3 failed: step 1 (objects "duplicate a shelf"): "#))
    }
}

/// The shelf table of ``DBBMigrationFailureTests`` as a class, for its data steps.
final class MigrationShelf: DBBTableObject {
    override class var tableName: String { "Shelf" }
    var name = ""

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["name": .init(\MigrationShelf.name)], for: self)
    }
}
