import DBBExport
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// A comparison of the data only (`dataOnly`, `verify --data-only`): the same rows under a schema in other words
/// are identical; a changed value, a missing or an extra table is still a difference.
@Suite("Comparing the data only")
struct DataOnlyCompareTests {
    /// The original's schema and rows.
    static let original = """
        CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, price REAL);
        CREATE INDEX item_name ON item (name);
        CREATE VIEW cheap AS SELECT * FROM item WHERE price < 1;
        PRAGMA user_version = 7;
        INSERT INTO item VALUES (1, 'apple', 0.5), (2, 'pear', 1.25), (3, 'fig', -0.0);
        """

    /// The same tables and rows, the schema written otherwise: quoted names, `AUTOINCREMENT` (so a
    /// `sqlite_sequence`), no view, another index.
    static let reworded = """
        CREATE TABLE "item" ("id" INTEGER PRIMARY KEY AUTOINCREMENT NOT NULL, "name" TEXT NOT NULL, "price" REAL);
        CREATE INDEX "item_price" ON "item" ("price");
        PRAGMA user_version = 7;
        INSERT INTO item VALUES (1, 'apple', 0.5), (2, 'pear', 1.25), (3, 'fig', -0.0);
        """

    static func database(_ sql: String, _ name: String, in folder: TemporaryFolder) throws -> URL {
        let url = folder.file(name)
        let db = try DBBDatabase(path: url.path)
        try db.executeStatements(sql)
        try db.close()
        return url
    }

    @Test("the same rows under a schema in other words are identical when only the data is compared")
    func sameDataOtherSchema() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("original.json.gz")
        try DBBExport.dump(databaseAt: try Self.database(Self.original, "original.sqlite", in: folder), to: dump)
        let reworded = try Self.database(Self.reworded, "reworded.sqlite", in: folder)
        let whole = try DBBExport.compare(dumpAt: dump, withDatabaseAt: reworded)
        #expect(whole?.message.contains("SQL text") == true, "\(String(describing: whole))")
        #expect(try DBBExport.compare(dumpAt: dump, withDatabaseAt: reworded, dataOnly: true) == nil)
    }

    @Test(
        "a changed value, a missing or an extra table, or another user_version differs when only the data is compared",
        arguments: [
            ("UPDATE item SET price = 0.25 WHERE id = 1", "table item, row 1, column price"),
            ("DELETE FROM item WHERE id = 2", "table item, row 2, column id"),
            ("CREATE TABLE extra (x)", "the dump has no table named extra"),
            ("ALTER TABLE item RENAME TO goods", "the database has no table named item"),
            ("ALTER TABLE item ADD COLUMN more", "the columns differ"),
            ("PRAGMA user_version = 8", "user_version"),
        ])
    func differencesRemain(change: String, expected: String) throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("original.json.gz")
        try DBBExport.dump(databaseAt: try Self.database(Self.original, "original.sqlite", in: folder), to: dump)
        let changed = try Self.database(Self.reworded + change + ";", "changed.sqlite", in: folder)
        let difference = try DBBExport.compare(dumpAt: dump, withDatabaseAt: changed, dataOnly: true)
        #expect(difference.map { "\($0)".contains(expected) } == true, "\(String(describing: difference))")
    }

    @Test("dbb-backup verify --data-only compares two SQLite files by their data, and needs --against")
    func backupTool() throws {
        let folder = try TemporaryFolder()
        let original = try Self.database(Self.original, "original.sqlite", in: folder)
        let reworded = try Self.database(Self.reworded, "reworded.sqlite", in: folder)
        let whole = try BackupToolTests.run("verify", original.path, "--against", reworded.path)
        #expect(whole.status == 1)
        #expect(whole.stdout.contains("the SQL text of table item differs"), "\(whole.stdout)")
        let data = try BackupToolTests.run("verify", original.path, "--against", reworded.path, "--data-only")
        #expect(data.status == 0, "\(data.stdout) \(data.stderr)")
        #expect(data.stdout.contains("identical to \(reworded.path)"), "\(data.stdout)")
        let alone = try BackupToolTests.run("verify", original.path, "--data-only")
        #expect(alone.status == 64)
        #expect(alone.stderr.contains("--data-only needs --against"), "\(alone.stderr)")
    }
}
