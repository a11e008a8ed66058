import DBBSQL
import Foundation
import Testing

@Suite("Reading rows")
struct DBBRowReadingTests {
    private func makeFixture(_ db: DBBDatabase) throws {
        try db.executeStatements(
            """
            CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT, price REAL, qty INTEGER, picture BLOB,
                               added REAL, active INTEGER);
            INSERT INTO item VALUES (1, 'apple', 0.5, 10, x'0102', 0, 1);
            INSERT INTO item VALUES (2, 'pear', 1.25, NULL, NULL, 86400.5, 0);
            INSERT INTO item VALUES (3, NULL, 2, 3, x'', 1e9, 1);
            """)
    }

    @Test("columns read by index and by name, typed or as DBBValue", arguments: DatabaseKind.allCases)
    func typedReads(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            try makeFixture(db)
            let cursor = try db.fetchCursor("SELECT * FROM item ORDER BY id")
            #expect(cursor.columnNames == ["id", "name", "price", "qty", "picture", "added", "active"])

            let first = try #require(try cursor.next())
            #expect(first.count == 7)
            #expect(try first[0] as Int64 == 1)
            #expect(try first["name"] as String == "apple")
            #expect(try first["NAME"] as String? == "apple")  // names match without regard to case
            #expect(try first["price"] as Double == 0.5)
            #expect(try first["price"] as Float == 0.5)
            #expect(try first["qty"] as Int == 10)
            #expect(try first["qty"] as UInt8 == 10)
            #expect(try first["picture"] as Data == Data([1, 2]))
            #expect(try first["added"] as Date == Date(timeIntervalSince1970: 0))
            #expect(try first["active"] as Bool == true)
            #expect(try first.get(Int16.self, named: "qty") == 10)
            #expect(try first.get(String.self, at: 1) == "apple")
            #expect(first.value(at: 4) == .blob(Data([1, 2])))
            #expect(try first.value(named: "price") == .real(0.5))
            #expect(first.index(ofColumn: "Added") == 5)
            #expect(first.storageClass(at: 2) == .real)

            let second = try #require(try cursor.next())
            #expect(try second["qty"] as Int? == nil)
            #expect(try second["picture"] as Data? == nil)
            #expect(second.isNull(at: 3))
            #expect(try second["added"] as Date == Date(timeIntervalSince1970: 86400.5))
            #expect(try second["active"] as Bool == false)
            #expect(
                second.values == [.integer(2), .text("pear"), .real(1.25), .null, .null, .real(86400.5), .integer(0)])

            let third = try #require(try cursor.next())
            #expect(try third["name"] as String? == nil)
            #expect(try third["price"] as Int == 2)  // an INTEGER reads as an integer ...
            #expect(try third["price"] as Double == 2)  // ... and as a double
            #expect(try third["picture"] as Data == Data())
            #expect(third.storageClass(at: 4) == .blob)
            #expect(try cursor.next() == nil)
            #expect(try cursor.next() == nil)
        }
    }

    @Test("strict reads: NULL into a non-optional, a fraction into an integer, an overflow, a bad name")
    func strictReads() throws {
        let db = try DBBDatabase.inMemory()
        let row = try #require(
            try db.fetchCursor("SELECT NULL AS n, 2.5 AS f, 300 AS big, -1 AS negative, 'x' AS t").next())
        let null = expectDBBError { _ = try row["n"] as String }
        #expect(null?.resultCode == .mismatch)
        #expect(null?.message == "column n holds null, not text")
        #expect(expectDBBError { _ = try row["f"] as Int }?.message == "column f holds real, not a whole number")
        #expect(expectDBBError { _ = try row["big"] as Int8 }?.message == "column big holds integer, not a Int8")
        #expect(expectDBBError { _ = try row["negative"] as UInt }?.resultCode == .mismatch)
        #expect(expectDBBError { _ = try row["t"] as Double }?.resultCode == .mismatch)
        #expect(expectDBBError { _ = try row["t"] as Date }?.resultCode == .mismatch)
        let missing = expectDBBError { _ = try row["nope"] as Int }
        #expect(missing?.resultCode == .range)
        #expect(missing?.message == "the row has no column named nope")
        #expect(expectDBBError { _ = try row[5] as Int }?.resultCode == .range)
        #expect(expectDBBError { _ = try row[-1] as Int }?.resultCode == .range)
    }

    @Test("a cursor is lazy: it steps only when asked, and the rest of the table is never read")
    func lazyCursor() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE n (x INTEGER)")
        try db.inTransaction { db in
            for x in 1...1000 { try db.execute("INSERT INTO n VALUES (?)", x) }
        }
        // A failing function makes reading past row 3 an error: a lazy cursor never gets there.
        let cursor = try db.fetchCursor(
            "SELECT x, CASE WHEN x > 3 THEN abs(-9223372036854775807 - 1) END FROM n ORDER BY rowid")
        var seen: [Int] = []
        while seen.count < 3, let row = try cursor.next() { seen.append(try row[0]) }
        #expect(seen == [1, 2, 3])
        let failing = try db.fetchCursor(
            "SELECT x, CASE WHEN x > 3 THEN abs(-9223372036854775807 - 1) END FROM n ORDER BY rowid")
        var count = 0
        let error = expectDBBError { while try failing.next() != nil { count += 1 } }
        #expect(count == 3)
        #expect(error?.message == "integer overflow")
        #expect(try failing.next() == nil)
    }

    @Test("rows as dictionaries, and all rows with fetchDictionary", arguments: DatabaseKind.allCases)
    func dictionaries(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            try makeFixture(db)
            let rows = try db.fetchDictionary("SELECT id, name, qty FROM item WHERE id >= ? ORDER BY id", 2)
            #expect(
                rows == [
                    ["id": .integer(2), "name": .text("pear"), "qty": .null],
                    ["id": .integer(3), "name": .null, "qty": .integer(3)],
                ])
            let named = try db.fetchDictionary("SELECT name FROM item WHERE id = :id", arguments: ["id": 1])
            #expect(named == [["name": .text("apple")]])
            let row = try #require(try db.fetchCursor("SELECT 1 AS a, 2 AS a, 3 AS b").next())
            #expect(row.dictionary == ["a": .integer(1), "b": .integer(3)])  // the first of repeated names wins
            #expect(try db.fetchDictionary("SELECT * FROM item WHERE id > 99") == [])
        }
    }

    @Test("scalar queries and single-column lists", arguments: DatabaseKind.allCases)
    func scalars(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            try makeFixture(db)
            #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM item") == 3)
            #expect(try db.fetchValue(Double.self, "SELECT sum(price) FROM item") == 3.75)
            #expect(try db.fetchValue(String.self, "SELECT name FROM item WHERE id = ?", 2) == "pear")
            #expect(try db.fetchValue(String.self, "SELECT name FROM item WHERE id = ?", 3) == nil)
            #expect(try db.fetchValue(String.self, "SELECT name FROM item WHERE id = ?", 99) == nil)
            #expect(try db.fetchValue(DBBValue.self, "SELECT picture FROM item WHERE id = 1") == .blob(Data([1, 2])))
            #expect(try db.fetchValues(String?.self, "SELECT name FROM item ORDER BY id") == ["apple", "pear", nil])
            #expect(
                try db.fetchValues(Int.self, "SELECT id FROM item WHERE price > :p", arguments: ["p": 1]) == [2, 3])
            var names: [String] = []
            try db.forEachRow("SELECT name FROM item WHERE name IS NOT NULL ORDER BY name DESC") { row in
                names.append(try row[0])
            }
            #expect(names == ["pear", "apple"])
        }
    }

    @Test("typed reads of a UTF-16 database convert its text, keep NUL characters, and read numbers from text")
    func utf16Reads() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute("PRAGMA encoding = 'UTF-16le'")
        try db.executeStatements(
            """
            CREATE TABLE t (name TEXT, amount TEXT, stamp TEXT, bytes BLOB);
            INSERT INTO t VALUES ('Zoë 東京', '12.5', '2024-03-01 12:00:00', x'00ff');
            INSERT INTO t VALUES ('a' || char(0) || 'b', 'twelve', NULL, NULL);
            """)
        #expect(try db.fetchValue(String.self, "PRAGMA encoding") == "UTF-16le")
        let rows = try db.fetchCursor("SELECT name, amount, stamp, bytes FROM t ORDER BY rowid")
        let first = try #require(try rows.next())
        #expect(try first["name"] as String == "Zoë 東京")
        #expect(try first["name"] as Data == Data("Zoë 東京".utf8))
        #expect(first.value(at: 0) == .text("Zoë 東京"))
        #expect(try first["amount"] as Double == 12.5)
        #expect(try first["stamp"] as Date == Date(timeIntervalSince1970: 1_709_294_400))
        #expect(try first["bytes"] as Data == Data([0, 0xff]))
        let second = try #require(try rows.next())
        #expect(try second["name"] as String == "a\u{0}b")
        #expect(
            expectDBBError { _ = try second["amount"] as Double }?.message == "column amount holds text, not a number")
        #expect(try second["stamp"] as Date? == nil)
        #expect(try second["bytes"] as Data? == nil)
    }

    @Test("forEachRow and map read each row, also after SQLite re-prepared the statement for a new column")
    func forEachAndMapReadEveryRow() throws {
        let db = try DBBDatabase.inMemory()
        try db.executeStatements("CREATE TABLE n (x INTEGER); INSERT INTO n VALUES (1), (2), (3);")
        let sql = "SELECT * FROM n ORDER BY x"
        #expect(try db.fetchCursor(sql).map { try $0[0] as Int } == [1, 2, 3])
        // The cached statement now has one column; the new column makes SQLite re-prepare it at its first step.
        try db.execute("ALTER TABLE n ADD COLUMN label TEXT")
        try db.execute("UPDATE n SET label = 'item ' || x WHERE x > 1")
        var seen: [String] = []
        try db.forEachRow(sql) { row in
            #expect(row.count == 2)
            seen.append("\(try row[0] as Int):\(try row[1] as String? ?? "-")")
        }
        #expect(seen == ["1:-", "2:item 2", "3:item 3"])
        #expect(try db.fetchCursor(sql).map { try $0["label"] as String? } == [nil, "item 2", "item 3"])
        #expect(try db.fetchCursor("SELECT x FROM n WHERE x > 9").map { try $0[0] as Int } == [])
        var none = 0
        try db.forEachRow("SELECT x FROM n WHERE x > 9") { _ in none += 1 }
        #expect(none == 0)
    }

    @Test("nested queries over the same SQL each get their own statement")
    func nestedSameSQL() throws {
        let db = try DBBDatabase.inMemory()
        try db.executeStatements("CREATE TABLE n (x); INSERT INTO n VALUES (1), (2), (3);")
        var pairs: [[Int]] = []
        let sql = "SELECT x FROM n ORDER BY x"
        try db.forEachRow(sql) { outer in
            try db.forEachRow(sql) { inner in pairs.append([try outer[0], try inner[0]]) }
        }
        #expect(pairs.count == 9)
        #expect(pairs.first == [1, 1])
        #expect(pairs.last == [3, 3])
    }
}
