import DBBObjects
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// A table rebuild (a type change) of many rows keeps every row, its values converted, the index and the
/// `AUTOINCREMENT` counter. How fast it runs beside SQLite's own copy of the same rows is measured by
/// `dbb-benchmarks rebuild` in `Tools/Benchmarks`, not here.
@Suite("Migration rebuild of many rows") struct DBBMigrationRebuildTests {
    static let rows = 20_000

    @Test func aRebuildKeepsEveryRowWithItsValueConverted() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("big.sqlite"))
        try manager.queue.inDatabase { db in
            try db.inTransaction(.immediate) { db in
                try db.execute(
                    "CREATE TABLE Big (id Integer PRIMARY KEY AUTOINCREMENT, name Text, amount Integer, score Real)")
                try db.execute(
                    """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                    INSERT INTO Big (name, amount, score) SELECT 'name ' || (i % 97), i, i / 7.0 FROM n
                    """, Self.rows)
                try db.execute("CREATE INDEX Big_name ON Big (name)")
                try db.execute("DELETE FROM Big WHERE id = ?", Self.rows)
            }
        }
        var migrator = DBBMigrator()
        migrator.registerMigration("amount as real", [.changeType(of: "amount", in: "Big", to: .float)])
        try migrator.migrate(manager)
        try manager.queue.inDatabase { db in
            #expect(try db.fetchValues(String.self, "SELECT DISTINCT typeof(amount) FROM Big") == ["real"])
            #expect(try db.fetchValues(Int.self, "SELECT count(*) FROM Big") == [Self.rows - 1])
            // Every row kept its id and its values: amount is its id, now a real; score as it was.
            #expect(
                try db.fetchValues(Int.self, "SELECT count(*) FROM Big WHERE amount = id * 1.0 AND score = id / 7.0")
                    == [Self.rows - 1])
            #expect(
                try db.fetchValues(
                    String.self, "SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Big'")
                    == ["Big_name"])
            // The id of the deleted last row is not handed out again.
            try db.execute("INSERT INTO Big (name, amount, score) VALUES ('new', 1, 1)")
            #expect(try db.fetchValues(Int.self, "SELECT max(id) FROM Big") == [Self.rows + 1])
        }
        try manager.close()
    }
}
