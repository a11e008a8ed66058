import DBBSQL
import Foundation
import Testing

@Suite("Binding Swift values")
struct DBBValueBindingTests {
    /// Binds one value and returns what SQLite stored: its `typeof` and its value.
    private func stored(_ value: (any DBBBindable)?, in db: DBBDatabase) throws -> (String, DBBValue) {
        let row = try #require(try db.fetchCursor("SELECT typeof(?1), ?1", value).next())
        return (try row[0], try row[1])
    }

    @Test("nil, optionals and every scalar type bind in their natural storage class", arguments: DatabaseKind.allCases)
    func scalars(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            let none: Int? = nil
            let some: Int? = 5
            #expect(try stored(nil, in: db) == ("null", .null))
            #expect(try stored(none, in: db) == ("null", .null))
            #expect(try stored(some, in: db) == ("integer", .integer(5)))
            #expect(try stored("héllo", in: db) == ("text", .text("héllo")))
            #expect(try stored("abc".dropFirst(), in: db) == ("text", .text("bc")))
            #expect(try stored(true, in: db) == ("integer", .integer(1)))
            #expect(try stored(false, in: db) == ("integer", .integer(0)))
            #expect(try stored(Float(0.5), in: db) == ("real", .real(0.5)))
            #expect(try stored(2.75, in: db) == ("real", .real(2.75)))
            #expect(try stored(DBBValue.blob(Data([1, 2])), in: db) == ("blob", .blob(Data([1, 2]))))
        }
    }

    @Test("every signed and unsigned integer type binds as INTEGER at its extremes")
    func integerTypes() throws {
        let db = try DBBDatabase.inMemory()
        let cases: [((any DBBBindable), Int64)] = [
            (Int8.min, -128), (Int8.max, 127), (Int16.min, -32768), (Int16.max, 32767),
            (Int32.min, -2_147_483_648), (Int32.max, 2_147_483_647), (Int64.min, .min), (Int64.max, .max),
            (Int.min, .min), (Int.max, .max), (UInt8.max, 255), (UInt16.max, 65535), (UInt32.max, 4_294_967_295),
            (UInt64(Int64.max), .max), (UInt(Int64.max), .max), (UInt64(0), 0),
        ]
        for (value, expected) in cases {
            #expect(try stored(value, in: db) == ("integer", .integer(expected)), "\(type(of: value)) \(value)")
        }
    }

    @Test("a UInt64 or UInt above Int64.max is a clear error, never a wrapped number")
    func unsignedOverflow() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE t (x INTEGER)")
        for value in [UInt64(Int64.max) + 1, UInt64.max] as [any DBBBindable] + [UInt.max] {
            let error = expectDBBError { try db.execute("INSERT INTO t VALUES (?)", value) }
            #expect(error?.resultCode == .mismatch)
            #expect(error?.message.contains("Int64.max") == true)
            #expect(error?.sql == "INSERT INTO t VALUES (?)")
        }
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM t") == 0)
        // The cached statement is still usable after the failed binds.
        try db.execute("INSERT INTO t VALUES (?)", UInt64(7))
        #expect(try db.fetchValues(UInt64.self, "SELECT x FROM t") == [7])
    }

    @Test("Data binds as BLOB, and empty Data is a zero-length BLOB, not NULL", arguments: DatabaseKind.allCases)
    func data(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            try db.execute("CREATE TABLE t (b BLOB)")
            try db.execute("INSERT INTO t VALUES (?)", Data())
            try db.execute("INSERT INTO t VALUES (?)", Data([0, 255, 0]))
            let rows = try db.fetchCursor("SELECT typeof(b), length(b), b FROM t ORDER BY rowid").map {
                (try $0[0] as String, try $0[1] as Int, try $0[2] as Data)
            }
            #expect(rows.count == 2)
            #expect(rows[0] == ("blob", 0, Data()))
            #expect(rows[1] == ("blob", 3, Data([0, 255, 0])))
            #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM t WHERE b IS NULL") == 0)
            #expect(try db.fetchValue(Data.self, "SELECT b FROM t ORDER BY rowid") == Data())
        }
    }

    @Test("NaN is refused rather than silently stored as NULL")
    func notANumber() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE t (x REAL)")
        for value in [Double.nan, -Double.nan, Double.signalingNaN] as [any DBBBindable] + [Float.nan] {
            let error = expectDBBError { try db.execute("INSERT INTO t VALUES (?)", value) }
            #expect(error?.resultCode == .mismatch)
            #expect(error?.message.contains("NaN") == true)
        }
        #expect(expectDBBError { try db.execute("INSERT INTO t VALUES (?)", DBBValue.real(.nan)) } != nil)
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM t") == 0)
    }

    @Test("an empty string binds as '' and stays distinct from NULL")
    func emptyString() throws {
        let db = try DBBDatabase.inMemory()
        #expect(try stored("", in: db) == ("text", .text("")))
    }

    @Test("a URL binds as its absolute string and reads back")
    func url() throws {
        let db = try DBBDatabase.inMemory()
        let url = try #require(URL(string: "https://example.com/a%20b?q=1#top"))
        #expect(try stored(url, in: db) == ("text", .text("https://example.com/a%20b?q=1#top")))
        let relative = try #require(URL(string: "docs/x.html", relativeTo: URL(string: "https://example.com/base/")))
        #expect(try stored(relative, in: db) == ("text", .text("https://example.com/base/docs/x.html")))
        #expect(try db.fetchValue(URL.self, "SELECT ?", url) == url)
        let file = URL(fileURLWithPath: "/tmp/some file.sqlite")
        #expect(try db.fetchValue(URL.self, "SELECT ?", file) == file)
    }

    @Test("dates are seconds since 1970 as REAL by default; the strategy is settable", arguments: DatabaseKind.allCases)
    func dates(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            let date = Date(timeIntervalSince1970: 1_714_566_600.25)  // 2024-05-01 12:30:00.25 UTC
            #expect(db.codingOptions.dateStrategy == .secondsSince1970)
            #expect(try stored(date, in: db) == ("real", .real(1_714_566_600.25)))
            #expect(try db.fetchValue(Date.self, "SELECT ?", date) == date)

            db.codingOptions.dateStrategy = .secondsSinceReferenceDate
            #expect(try stored(date, in: db) == ("real", .real(1_714_566_600.25 - 978_307_200)))
            #expect(try db.fetchValue(Date.self, "SELECT ?", date) == date)

            db.codingOptions.dateStrategy = .iso8601
            #expect(try stored(date, in: db) == ("text", .text("2024-05-01T12:30:00.250Z")))
            #expect(try db.fetchValue(Date.self, "SELECT ?", date) == date)
            // SQLite's own date text reads as UTC under any strategy.
            #expect(
                try db.fetchValue(Date.self, "SELECT datetime(?, 'unixepoch')", 1_714_566_600)
                    == Date(timeIntervalSince1970: 1_714_566_600))
            #expect(
                try db.fetchValue(Date.self, "SELECT '2024-05-01'") == Date(timeIntervalSince1970: 1_714_521_600))
        }
    }

    @Test("arrays and dictionaries of JSON values bind as JSON text", arguments: DatabaseKind.allCases)
    func json(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            let tags = ["swift", "sqlite"]
            #expect(try stored(tags, in: db) == ("text", .text(#"["swift","sqlite"]"#)))
            let nested: [String: Any] = ["b": [1, 2.5, true, NSNull()], "a": "x", "c": ["k": "v"]]
            #expect(
                try stored(nested, in: db) == ("text", .text(#"{"a":"x","b":[1,2.5,true,null],"c":{"k":"v"}}"#)))
            #expect(try db.fetchValue(Int.self, "SELECT json_array_length(?)", [1, 2, 3]) == 3)
            #expect(try db.fetchValue(String.self, "SELECT json_extract(?, '$.c.k')", nested) == "v")

            db.codingOptions.jsonWritingOptions = [.sortedKeys, .prettyPrinted]
            let (_, pretty) = try stored(["a": 1], in: db)
            #expect(pretty.stringValue?.contains("\n") == true)
            #expect(try db.fetchValue(Int.self, "SELECT json_extract(?, '$.a')", ["a": 1]) == 1)
        }
    }

    @Test("a mixed [Any] binds as JSON text, as DBSQLite bound an NSArray; a non-JSON element is a clear error")
    func mixedArray() throws {
        let db = try DBBDatabase.inMemory()
        let mixed: [Any] = ["x", 1, true, 2.5, NSNull(), ["k": "v"]]
        #expect(try db.fetchValue(String.self, "SELECT ?", mixed) == #"["x",1,true,2.5,null,{"k":"v"}]"#)
        let parsed = try JSONSerialization.jsonObject(with: Data(#"[1,"two",[3]]"#.utf8))
        let array = try #require(parsed as? [Any])
        #expect(try db.fetchValue(Int.self, "SELECT json_array_length(?)", array) == 3)
        try db.execute("CREATE TABLE t (v TEXT)")
        let error = #expect(throws: DBBError.self) {
            try db.execute("INSERT INTO t VALUES (?)", ["ok", Date()] as [Any])
        }
        #expect(error?.resultCode == .mismatch)
        #expect(error?.message.contains("Date") == true)
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM t") == 0)
    }

    @Test("JSON columns read back into arrays and dictionaries with the reading options")
    func jsonReading() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE doc (body TEXT)")
        try db.execute("INSERT INTO doc VALUES (?)", ["name": "Ann", "tags": ["a", "b"], "n": 3] as [String: Any])
        try db.execute("INSERT INTO doc VALUES (?)", [1, 2, 3])
        try db.execute("INSERT INTO doc VALUES (NULL)")
        try db.execute("INSERT INTO doc VALUES ('not json')")
        let rows = try db.fetchCursor("SELECT body FROM doc ORDER BY rowid").map { $0.value(at: 0) }
        #expect(rows.count == 4)

        let cursor = try db.fetchCursor("SELECT body FROM doc ORDER BY rowid")
        let first = try #require(try cursor.next()?.jsonDictionary(at: 0))
        #expect(first["name"] as? String == "Ann")
        #expect(first["tags"] as? [String] == ["a", "b"])
        #expect(first["n"] as? Int == 3)
        let second = try #require(try cursor.next())
        #expect(try second.jsonArray(at: 0) as? [Int] == [1, 2, 3])
        #expect(expectDBBError { _ = try second.jsonDictionary(at: 0) }?.resultCode == .mismatch)
        #expect(try cursor.next()?.jsonArray(at: 0) == nil)
        let bad = try #require(try cursor.next())
        #expect(expectDBBError { _ = try bad.jsonArray(at: 0) }?.resultCode == .mismatch)

        // Bare JSON values are read only when the reading options allow fragments.
        let fragment = "SELECT '\"just text\"'"
        #expect(expectDBBError { _ = try db.fetchCursor(fragment).next()?.jsonValue(at: 0) }?.resultCode == .mismatch)
        db.codingOptions.jsonReadingOptions = [.fragmentsAllowed]
        #expect(try db.fetchCursor(fragment).next()?.jsonValue(at: 0) as? String == "just text")
        #expect(try db.fetchCursor("SELECT '[1]'").next()?.jsonValue(at: 0) as? [Int] == [1])
    }

    @Test("a dictionary holding non-JSON values is a clear error and binds nothing")
    func nonJSONValues() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE t (x)")
        let dated: [[String: Any]] = [["at": Date()]]
        let error = expectDBBError { try db.execute("INSERT INTO t VALUES (?)", dated) }
        #expect(error?.resultCode == .mismatch)
        #expect(error?.message.contains("not JSON values") == true)
        let blobs: [String: Any] = ["picture": Data([1])]
        #expect(expectDBBError { try db.execute("INSERT INTO t VALUES (?)", blobs) }?.resultCode == .mismatch)
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM t") == 0)
    }

    @Test("an array binds when its elements are JSON values, and is refused when bound otherwise")
    func arraysOfJSONElementsOnly() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE t (v TEXT)")
        #expect(try db.fetchValue(String.self, "SELECT ?", [[1], [2, 3]]) == "[[1],[2,3]]")
        #expect(try db.fetchValue(String.self, "SELECT ?", [NSNull()]) == "[null]")
        for (array, name) in [([Date()], "Date"), ([Data([1])], "Data"), ([URL(fileURLWithPath: "/")], "URL")]
            as [([Any], String)]
        {
            let error = expectDBBError { try db.execute("INSERT INTO t VALUES (?)", array) }
            #expect(error?.resultCode == .mismatch)
            #expect(error?.message.contains(name) == true)
        }
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM t") == 0)
    }

    @Test("a custom type binds through DBBBindable")
    func customType() throws {
        struct Celsius: DBBBindable {
            var degrees: Double
            func dbbValue(options: DBBCodingOptions) -> DBBValue { .real(degrees) }
        }
        let db = try DBBDatabase.inMemory()
        #expect(try stored(Celsius(degrees: -40), in: db) == ("real", .real(-40)))
    }
}
