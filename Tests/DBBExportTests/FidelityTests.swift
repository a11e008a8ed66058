import DBBExport
import DBBSQL
import Foundation
import Testing

/// Fixtures for what the real databases lack: extreme values, rowids of keyless tables, WITHOUT ROWID
/// and STRICT tables, generated columns, FTS5, AUTOINCREMENT, header values.
@Suite("Fidelity of every storage class and schema feature")
struct FidelityTests {
    static let integers: [Int64] = [0, 1, -1, .max, .min, 1 << 53 + 1, -(1 << 53) - 1, 9_007_199_254_740_993]
    static let reals: [Double] = [
        14.0, -0.0, 0.0, 0.1, 1e-7, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude,
        -.greatestFiniteMagnitude,
        .infinity, -.infinity, 1e16, 123_456_789.125, .pi, -2.5e-300,
    ]
    static let texts: [String] = [
        "", "plain", "nul\u{0}inside", "\u{0}", "crlf\r\nline", "tab\tand\u{1}\u{1F}controls", "quote\" back\\slash /",
        "non-BMP 😀 𝄞 \u{10FFFF}", "é precomposed", "e\u{301} decomposed", "a real \u{FFFD} replacement character",
        "\u{2028}\u{2029}",
        String(repeating: "long ", count: 20_000),
    ]

    /// Builds the fixture database.
    static func makeFixture(at url: URL) throws {
        let db = try DBBDatabase(path: url.path)
        try db.executeStatements(
            """
            PRAGMA page_size = 8192;
            PRAGMA user_version = 42;
            PRAGMA application_id = -559038737;
            CREATE TABLE anything (v);
            CREATE TABLE keyless (a TEXT, b INTEGER);
            CREATE TABLE shadowed (rowid TEXT, _rowid_ TEXT, x);
            CREATE TABLE counted (id INTEGER PRIMARY KEY AUTOINCREMENT, name TEXT NOT NULL);
            CREATE TABLE pairs (k TEXT, n INTEGER, v BLOB, PRIMARY KEY (k, n)) WITHOUT ROWID;
            CREATE TABLE typed (id INTEGER PRIMARY KEY, i INTEGER, r REAL, t TEXT, b BLOB, a ANY) STRICT;
            CREATE TABLE measured (
                id INTEGER PRIMARY KEY,
                width REAL,
                height REAL,
                area REAL GENERATED ALWAYS AS (width * height) VIRTUAL,
                label TEXT GENERATED ALWAYS AS ('w' || width) STORED,
                note TEXT
            );
            CREATE TABLE log (what TEXT);
            CREATE TABLE descending (id INTEGER PRIMARY KEY DESC, v);
            CREATE VIRTUAL TABLE docs USING fts5(title, body);
            CREATE VIRTUAL TABLE boxes USING rtree(id, minX, maxX, minY, maxY);
            CREATE INDEX keyless_b ON keyless (b DESC);
            CREATE UNIQUE INDEX measured_note ON measured (note) WHERE note IS NOT NULL;
            CREATE VIEW big_areas AS SELECT id, area FROM measured WHERE area > 10;
            CREATE TRIGGER counted_log AFTER INSERT ON counted BEGIN INSERT INTO log (what) VALUES ('added ' || new.name); END;
            """)
        let insertAnything = "INSERT INTO anything (v) VALUES (?)"
        for value in integers { try db.execute(insertAnything, DBBValue.integer(value)) }
        for value in reals { try db.execute(insertAnything, DBBValue.real(value)) }
        for value in texts { try db.execute(insertAnything, DBBValue.text(value)) }
        var large = Data(count: 3_000_000)
        for index in large.indices { large[index] = UInt8(truncatingIfNeeded: index &* 2_654_435_761 >> 7) }
        for value in [Data(), Data([0]), Data([0xFF, 0x00, 0x7F]), large] {
            try db.execute(insertAnything, DBBValue.blob(value))
        }
        try db.execute(insertAnything, DBBValue.null)
        // Rowids with gaps, negative, and the largest, in a table without a key.
        for (rowid, a) in [(5, "five"), (-7, "minus seven"), (1000, "thousand"), (Int(Int64.max), "max")] {
            try db.execute("INSERT INTO keyless (rowid, a, b) VALUES (?, ?, ?)", rowid, a, rowid % 3)
        }
        // TEXT that is not valid UTF-8, which SQLite stores as it is given.
        try db.execute("INSERT INTO keyless (rowid, a, b) VALUES (6, CAST(x'61ff62c3' AS TEXT), 0)")
        try db.execute("INSERT INTO shadowed (rowid, _rowid_, x) VALUES ('r', 'u', 1)")
        try db.execute("INSERT INTO shadowed (oid, rowid, _rowid_, x) VALUES (77, 'r2', 'u2', 2)")
        for name in ["a", "b", "c"] { try db.execute("INSERT INTO counted (name) VALUES (?)", name) }
        try db.execute("DELETE FROM counted WHERE name = 'c'")  // sqlite_sequence stays at 3
        try db.execute("INSERT INTO pairs VALUES ('x', 2, x'00'), ('x', 1, NULL), ('a', 9, x'')")
        try db.execute("INSERT INTO typed VALUES (1, 7, 14.0, 'text', x'01', 14.0), (2, NULL, -0.0, '', NULL, 14)")
        try db.execute("INSERT INTO measured (id, width, height, note) VALUES (1, 2, 3.5, NULL), (2, 4, 4, 'square')")
        try db.execute("INSERT INTO descending (id, v) VALUES (3, 'three'), (-1, 'minus one')")
        try db.execute("INSERT INTO docs (rowid, title, body) VALUES (10, 'Swift', 'Dumps of SQLite databases')")
        try db.execute("INSERT INTO docs (rowid, title, body) VALUES (20, 'Zlib', 'gzip streams and 😀')")
        try db.execute("DELETE FROM docs WHERE rowid = 10")
        try db.execute("INSERT INTO docs (rowid, title, body) VALUES (30, 'JSON', 'a streaming parser')")
        for id in 1...50 {
            try db.execute(
                "INSERT INTO boxes VALUES (?, ?, ?, ?, ?)", id, Double(id), Double(id) + 0.5, 0.0, Double(id))
        }
        try db.close()
    }

    @Test("values, rowids, tables of every kind and the header round-trip exactly")
    func fixtureRoundTrip() throws {
        let folder = try TemporaryFolder()
        let original = folder.file("fixture.sqlite")
        try Self.makeFixture(at: original)
        let dump = folder.file("fixture.json.gz")
        let restored = folder.file("restored.sqlite")
        try DBBExport.dump(databaseAt: original, to: dump)
        try DBBExport.restore(dumpAt: dump, to: restored)

        #expect(try SQLComparison.differences(original: original, restored: restored) == [])
        #expect(try DBBExport.compare(dumpAt: dump, withDatabaseAt: restored) == nil)

        let db = try DBBDatabase(path: restored.path)
        // Every value of the no-affinity column, read back with its storage class.
        let values = try db.fetchCursor("SELECT v FROM anything ORDER BY rowid").map { $0.value(at: 0) }
        var expected: [DBBValue] = Self.integers.map { .integer($0) } + Self.reals.map { .real($0) }
        expected += Self.texts.map { .text($0) }
        #expect(values.count == expected.count + 5)
        for (actual, wanted) in zip(values, expected) {
            switch (actual, wanted) {
            case (.real(let a), .real(let b)): #expect(a.bitPattern == b.bitPattern, "\(a) vs \(b)")
            case (.text(let a), .text(let b)): #expect(Array(a.utf8) == Array(b.utf8))
            default: #expect(actual == wanted)
            }
        }
        #expect(
            try db.fetchValue(
                Int.self, "SELECT length(v) FROM anything WHERE typeof(v) = 'blob' ORDER BY length(v) DESC")
                == 3_000_000)
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM anything WHERE typeof(v) = 'null'") == 1)
        // Keyless rowids, and rowids reached through oid when rowid and _rowid_ are columns.
        #expect(try db.fetchValues(Int64.self, "SELECT rowid FROM keyless ORDER BY rowid") == [-7, 5, 6, 1000, .max])
        #expect(
            try db.fetchValue(String.self, "SELECT hex(a) || typeof(a) FROM keyless WHERE rowid = 6") == "61FF62C3text")
        #expect(try db.fetchValues(Int64.self, "SELECT oid FROM shadowed ORDER BY oid") == [1, 77])
        // Header values.
        #expect(try db.userVersion() == 42)
        #expect(try db.applicationID() == -559_038_737)
        #expect(try db.fetchValue(Int.self, "PRAGMA page_size") == 8192)
        // AUTOINCREMENT continues after the highest id ever used.
        #expect(try db.fetchValue(Int.self, "SELECT seq FROM sqlite_sequence WHERE name = 'counted'") == 3)
        // The trigger did not fire during the restore (log holds only the original two rows) but fires now.
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM log") == 3)
        try db.execute("INSERT INTO counted (name) VALUES ('d')")
        #expect(try db.fetchValue(Int.self, "SELECT max(id) FROM counted") == 4)
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM log") == 4)
        // Generated columns are computed again; the STRICT table kept its types.
        #expect(try db.fetchValue(Double.self, "SELECT area FROM measured WHERE id = 1") == 7)
        #expect(try db.fetchValue(String.self, "SELECT label FROM measured WHERE id = 2") == "w4.0")
        #expect(try db.fetchValues(String.self, "SELECT typeof(a) FROM typed ORDER BY id") == ["real", "integer"])
        // The full-text index answers queries.
        #expect(try db.fetchValues(Int64.self, "SELECT rowid FROM docs WHERE docs MATCH 'gzip'") == [20])
        #expect(try db.fetchValues(Int64.self, "SELECT rowid FROM docs WHERE docs MATCH 'streaming'") == [30])
        #expect(try db.fetchValues(Int64.self, "SELECT rowid FROM docs WHERE docs MATCH 'swift'") == [])
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM big_areas") == 1)
        let boxes = "SELECT id FROM boxes WHERE minX <= 10.2 AND maxX >= 9.8 ORDER BY id"
        #expect(try db.fetchValues(Int64.self, boxes) == [10])
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM boxes") == 50)
        #expect(try db.fetchValues(String.self, "PRAGMA integrity_check") == ["ok"])
        try db.execute("INSERT INTO docs (docs) VALUES ('integrity-check')")
    }

    @Test(
        "the JSON keeps REAL and INTEGER apart, tags BLOBs and infinities, escapes NUL, skips generated columns and the FTS5 table itself"
    )
    func jsonRepresentation() throws {
        let folder = try TemporaryFolder()
        let original = folder.file("fixture.sqlite")
        try Self.makeFixture(at: original)
        let dump = folder.file("fixture.json.gz")
        try DBBExport.dump(databaseAt: original, to: dump)
        let text = String(decoding: try gunzip(dump), as: UTF8.self)
        #expect(text.contains("\n[1,7,14.0,\"text\",{\"blob\":\"AQ==\"},14.0]"))
        // A REAL column stores integral values compactly, so SQLite itself reads -0.0 back as 0.0 there.
        #expect(text.contains("\n[2,null,0.0,\"\",null,14]"))
        #expect(text.contains(",\n[\(Self.integers.count + 2),-0.0]"))
        #expect(text.contains("{\"real\":\"inf\"}"))
        #expect(text.contains("{\"real\":\"-inf\"}"))
        #expect(text.contains("\"nul\\u0000inside\""))
        #expect(text.contains("\"crlf\\r\\nline\""))
        #expect(text.contains("9223372036854775807"))
        #expect(text.contains("-9223372036854775808"))
        #expect(text.contains("{\"blob\":\"\"}"))
        #expect(text.contains("[6,{\"text\":\"Yf9iww==\"},0]"))
        #expect(text.contains("\"a real \u{FFFD} replacement character\""))
        #expect(text.contains("\"name\":\"measured\",\"columns\":[\"id\",\"width\",\"height\",\"note\"]"))
        let report = try DBBExport.verify(dumpAt: dump)
        let names = report.tables.map(\.name)
        #expect(!names.contains("docs"))
        #expect(names.contains("docs_data") && names.contains("docs_content"))
        #expect(names.last == "sqlite_sequence")
        #expect(report.tables.first { $0.name == "pairs" }?.hasRowID == false)
        #expect(report.tables.first { $0.name == "keyless" }?.hasRowID == true)
        #expect(report.tables.first { $0.name == "descending" }?.hasRowID == true)  // DESC: not a rowid alias
        #expect(report.header.userVersion == 42)
        // Every table's declared count matches what SQL counts.
        let db = try DBBDatabase(path: original.path, mode: .readOnly)
        for table in report.tables {
            #expect(
                table.rowCount
                    == (try db.fetchValue(Int.self, "SELECT count(*) FROM \(DBBDatabase.quoteIdentifier(table.name))")))
        }
    }

    @Test("a selection dumps the chosen tables with their indexes and triggers only")
    func selection() throws {
        let folder = try TemporaryFolder()
        let original = folder.file("fixture.sqlite")
        try Self.makeFixture(at: original)
        let dump = folder.file("part.json.gz")
        let report = try DBBExport.dump(
            databaseAt: original, to: dump, options: DBBDumpOptions(tables: ["keyless", "counted", "log", "docs"]))
        #expect(report.header.isPartial)
        #expect(
            report.tables.map(\.name).filter { !$0.hasPrefix("docs_") } == [
                "keyless", "counted", "log", "sqlite_sequence",
            ])
        #expect(Set(report.schema.filter { $0.type != "table" }.map(\.name)) == ["keyless_b", "counted_log"])
        let restored = folder.file("part.sqlite")
        try DBBExport.restore(dumpAt: dump, to: restored)
        #expect(try DBBExport.compare(dumpAt: dump, withDatabaseAt: restored) == nil)
        #expect(try DBBExport.compare(dumpAt: dump, withDatabaseAt: original) == nil)
        let db = try DBBDatabase(path: restored.path, mode: .readOnly)
        #expect(try db.tableNames().contains("anything") == false)
        #expect(try db.fetchValues(Int64.self, "SELECT rowid FROM docs WHERE docs MATCH 'gzip'") == [20])
        #expect(throws: DBBExportError.self) {
            try DBBExport.dump(
                databaseAt: original, to: folder.file("x.json.gz"), options: DBBDumpOptions(tables: ["nope"]))
        }
    }

    @Test("compression levels trade size for speed and read back the same")
    func compressionLevels() throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture("chinook.sqlite", into: folder)
        let stored = try DBBExport.dump(
            databaseAt: original, to: folder.file("0.json.gz"), options: DBBDumpOptions(compressionLevel: 0))
        let best = try DBBExport.dump(
            databaseAt: original, to: folder.file("9.json.gz"), options: DBBDumpOptions(compressionLevel: 9))
        #expect(stored.jsonBytes == best.jsonBytes)
        #expect(stored.compressedBytes > stored.jsonBytes)
        #expect(best.compressedBytes * 2 < stored.compressedBytes)
        #expect(try DBBExport.compare(dumpAt: folder.file("0.json.gz"), withDatabaseAt: original) == nil)
    }

    @Test("progress reports tables and rows done, ending at the totals")
    func progress() throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture("sakila.sqlite", into: folder)
        let dump = folder.file("sakila.json.gz")
        var dumpReports: [DBBExportProgress] = []
        let written = try DBBExport.dump(databaseAt: original, to: dump) { dumpReports.append($0) }
        var restoreReports: [DBBExportProgress] = []
        try DBBExport.restore(dumpAt: dump, to: folder.file("r.sqlite")) { restoreReports.append($0) }
        for reports in [dumpReports, restoreReports] {
            #expect(reports.count > 20)
            #expect(
                zip(reports, reports.dropFirst()).allSatisfy {
                    $0.rowsDone <= $1.rowsDone && $0.tablesDone <= $1.tablesDone
                })
            #expect(reports.last?.rowsDone == written.totalRows)
            #expect(reports.last?.rowCount == written.totalRows)
            #expect(reports.last?.tablesDone == written.tables.count)
            #expect(reports.contains { $0.currentTable == "rental" && $0.rowsDone > 0 && $0.fractionDone < 1 })
        }
    }

    @Test("compare reports the first difference with its table, row and column")
    func compareFindsDifferences() throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture("chinook.sqlite", into: folder)
        let dump = folder.file("c.json.gz")
        try DBBExport.dump(databaseAt: original, to: dump)
        let db = try DBBDatabase(path: original.path)
        let total = try #require(try db.fetchValue(Double.self, "SELECT Total FROM Invoice WHERE InvoiceId = 7"))
        try db.execute("UPDATE Invoice SET Total = 2 WHERE InvoiceId = 7")  // REAL → INTEGER
        let difference = try #require(try DBBExport.compare(dumpAt: dump, withDatabaseAt: original))
        #expect(difference.table == "Invoice")
        #expect(difference.row == 7)
        #expect(difference.column == "Total")
        #expect(difference.message.contains("REAL") && difference.message.contains("INTEGER 2"))
        try db.execute("UPDATE Invoice SET Total = ? WHERE InvoiceId = 7", total)
        #expect(try DBBExport.compare(dumpAt: dump, withDatabaseAt: original) == nil)
        try db.execute("DELETE FROM Genre WHERE GenreId = 25")
        #expect(try DBBExport.compare(dumpAt: dump, withDatabaseAt: original)?.table == "Genre")
        try db.setUserVersion(3)
        #expect(try DBBExport.compare(dumpAt: dump, withDatabaseAt: original)?.message.contains("user_version") == true)
    }
}

@Suite("Header settings and awkward names")
struct HeaderAndNamesTests {
    @Test(
        "a UTF-16 database with auto-vacuum and awkward identifiers round-trips", arguments: ["UTF-16le", "UTF-16be"])
    func utf16AndNames(encoding: String) throws {
        let folder = try TemporaryFolder()
        let original = folder.file("utf16.sqlite")
        let db = try DBBDatabase(path: original.path)
        try db.executeStatements(
            #"""
            PRAGMA page_size = 1024;
            PRAGMA encoding = '\#(encoding)';
            PRAGMA auto_vacuum = 2;
            CREATE TABLE "we""ird 'tab" ("co""l" TEXT, [x y] INTEGER PRIMARY KEY AUTOINCREMENT, "rowid" BLOB);
            CREATE INDEX "idx ""q""" ON "we""ird 'tab" ("co""l" COLLATE NOCASE);
            CREATE VIEW "v 'x'" AS SELECT "co""l" FROM "we""ird 'tab";
            """#)
        for text in ["plain", "😀 non-BMP", "nul\u{0}in", "ÅÄÖ"] {
            try db.execute("INSERT INTO \"we\"\"ird 'tab\" (\"co\"\"l\", rowid) VALUES (?, ?)", text, Data(text.utf8))
        }
        try db.close()
        let dump = folder.file("utf16.json.gz")
        let restored = folder.file("restored.sqlite")
        let report = try DBBExport.dump(databaseAt: original, to: dump)
        #expect(report.header.encoding == encoding)
        #expect(report.header.autoVacuum == 2)
        try DBBExport.restore(dumpAt: dump, to: restored)
        #expect(try SQLComparison.differences(original: original, restored: restored) == [])
        #expect(try DBBExport.compare(dumpAt: dump, withDatabaseAt: restored) == nil)
        let check = try DBBDatabase(path: restored.path, mode: .readOnly)
        #expect(try check.fetchValue(String.self, "PRAGMA encoding") == encoding)
        #expect(try check.fetchValue(Int.self, "PRAGMA page_size") == 1024)
        let viewValues = try check.fetchValues(String.self, "SELECT * FROM \"v 'x'\"")
        #expect(viewValues.sorted() == ["plain", "😀 non-BMP", "nul\u{0}in", "ÅÄÖ"].sorted())
    }

    @Test("a table name with a quote before a combining mark keeps its AUTOINCREMENT counter")
    func quoteBeforeACombiningMark() throws {
        let folder = try TemporaryFolder()
        let original = folder.file("marks.sqlite")
        // The sqlite_sequence rows of the dumped tables are selected by name, in a string literal: the quote and
        // the mark form one Character, and the quote must still be doubled.
        let name = "it'\u{301}s \"x\u{301}\""
        let db = try DBBDatabase(path: original.path)
        try db.execute("CREATE TABLE \(DBBDatabase.quoteIdentifier(name)) (id INTEGER PRIMARY KEY AUTOINCREMENT, v)")
        for value in 1...3 { try db.execute("INSERT INTO \(DBBDatabase.quoteIdentifier(name)) (v) VALUES (?)", value) }
        try db.execute("DELETE FROM \(DBBDatabase.quoteIdentifier(name)) WHERE id = 3")
        try db.close()
        let dump = folder.file("marks.json.gz")
        let restored = folder.file("restored.sqlite")
        _ = try DBBExport.dump(databaseAt: original, to: dump)
        try DBBExport.restore(dumpAt: dump, to: restored)
        let check = try DBBDatabase(path: restored.path, mode: .readOnly)
        #expect(try check.fetchValue(Int.self, "SELECT seq FROM sqlite_sequence WHERE name = ?", name) == 3)
        #expect(
            try check.fetchValues(Int.self, "SELECT v FROM \(DBBDatabase.quoteIdentifier(name)) ORDER BY id") == [1, 2])
        #expect(try DBBExport.compare(dumpAt: dump, withDatabaseAt: restored) == nil)
    }
}
