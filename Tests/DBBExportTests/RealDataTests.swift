import DBBExport
import DBBSQL
import Foundation
import Testing

@Suite("Dump and restore of the real databases of the fixtures")
struct RealDataTests {
    @Test(
        "every real database round-trips with identical schema, rows, rowids and storage classes",
        arguments: fixtureDatabaseNames)
    func roundTrip(name: String) throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture(name, into: folder)
        let dump = folder.file("\(name).json.gz")
        let restored = folder.file("restored-\(name)")

        let written = try DBBExport.dump(databaseAt: original, to: dump)
        let read = try DBBExport.restore(dumpAt: dump, to: restored)

        #expect(try SQLComparison.differences(original: original, restored: restored) == [])
        #expect(try DBBExport.compare(dumpAt: dump, withDatabaseAt: restored) == nil)
        #expect(try DBBExport.compare(dumpAt: dump, withDatabaseAt: original) == nil)

        // The row counts the dump reports are the database's, counted with SQL.
        let db = try DBBDatabase(path: original.path, mode: .readOnly)
        for table in read.tables {
            let count = try db.fetchValue(Int.self, "SELECT count(*) FROM \(DBBDatabase.quoteIdentifier(table.name))")
            #expect(table.rowCount == count, "\(table.name)")
        }
        #expect(read.tables == written.tables)
        #expect(read.schema == written.schema)
        // Nothing but the three files is left behind.
        #expect(try folder.contents() == [name, "\(name).json.gz", "restored-\(name)"].sorted())
    }

    @Test("the Chinook dump has the row counts SOURCES.md lists")
    func chinookCounts() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("chinook.json.gz")
        try DBBExport.dump(databaseAt: try copyOfFixture("chinook.sqlite", into: folder), to: dump)
        let report = try DBBExport.verify(dumpAt: dump)
        let counts = Dictionary(uniqueKeysWithValues: report.tables.map { ($0.name, $0.rowCount) })
        #expect(counts["Track"] == 3503)
        #expect(counts["PlaylistTrack"] == 8715)
        #expect(counts["InvoiceLine"] == 2240)
        #expect(report.tables.count == 11)
        #expect(report.totalRows == 15607)
        // INTEGER PRIMARY KEY tables carry no separate rowid; the composite-key table does.
        #expect(report.tables.first { $0.name == "Track" }?.hasRowID == false)
        #expect(report.tables.first { $0.name == "PlaylistTrack" }?.hasRowID == true)
    }

    @Test("Northwind keeps 14 and 14.0 apart, its views and its JPEG BLOBs")
    func northwindDetails() throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture("northwind.sqlite", into: folder)
        let dump = folder.file("northwind.json.gz")
        let restored = folder.file("restored.sqlite")
        try DBBExport.dump(databaseAt: original, to: dump)
        try DBBExport.restore(dumpAt: dump, to: restored)
        let db = try DBBDatabase(path: restored.path, mode: .readOnly)
        let classes = try db.fetchCursor(
            "SELECT typeof(UnitPrice), count(*) FROM \"Order Details\" GROUP BY 1 ORDER BY 1"
        ).map { "\(try $0[0] as String)=\(try $0[1] as Int)" }
        #expect(classes == ["integer=943", "real=1212"])
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'view'") == 17)
        let pictures = try db.fetchValues(Data.self, "SELECT Picture FROM Categories ORDER BY CategoryID")
        #expect(pictures.count == 8)
        #expect(pictures.allSatisfy { $0.count > 9000 })
        // The views still work.
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM [Order Details Extended]") == 2155)
    }

    @Test("Sakila's triggers are restored after the rows, so last_update keeps its 2006 values")
    func sakilaTriggers() throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture("sakila.sqlite", into: folder)
        let dump = folder.file("sakila.json.gz")
        let restored = folder.file("restored.sqlite")
        try DBBExport.dump(databaseAt: original, to: dump)
        try DBBExport.restore(dumpAt: dump, to: restored)
        let db = try DBBDatabase(path: restored.path)
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'trigger'") == 30)
        #expect(try db.fetchValue(String.self, "SELECT max(last_update) FROM actor")?.hasPrefix("2006") == true)
        // The triggers fire again once restored.
        try db.execute("UPDATE actor SET first_name = 'X' WHERE actor_id = 1")
        #expect(
            try db.fetchValue(String.self, "SELECT last_update FROM actor WHERE actor_id = 1")?.hasPrefix("2006")
                == false)
    }

    @Test("the dump is standard gzip around JSON that a generic parser reads")
    func standardGzipJSON() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("mbtiles.json.gz")
        try DBBExport.dump(databaseAt: try copyOfFixture("mbtiles_plain_2.sqlite", into: folder), to: dump)
        let json = try gunzip(dump)
        let object = try #require(try JSONSerialization.jsonObject(with: json) as? [String: Any])
        #expect(object["format"] as? String == "dbb-dump")
        #expect(object["version"] as? Int == 1)
        let tables = try #require(object["tables"] as? [[String: Any]])
        let images = try #require(tables.first { $0["name"] as? String == "images" })
        // The MBTiles tables have no primary key, so every row starts with its rowid.
        #expect(images["rowid"] as? Bool == true)
        let rows = try #require(images["rows"] as? [[Any]])
        #expect(rows.count == 203)
        let blob = try #require(rows[0][1] as? [String: String])
        #expect(Data(base64Encoded: blob["blob"] ?? "")?.prefix(4) == Data([0x89, 0x50, 0x4E, 0x47]))  // PNG
    }
}
