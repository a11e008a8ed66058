import DBBSQL
import Foundation
import Testing

@Suite("Round-tripping every storage class")
struct DBBValueRoundTripTests {
    static let values: [DBBValue] = [
        .null,
        .integer(0), .integer(1), .integer(-1), .integer(Int64.max), .integer(Int64.min),
        .integer(Int64(Int32.max) + 1), .integer(1 << 53 + 1),
        .real(0.0), .real(-0.0), .real(.infinity), .real(-.infinity), .real(.pi), .real(14.0),
        .real(.leastNonzeroMagnitude), .real(.greatestFiniteMagnitude), .real(-1e-300), .real(0.1 + 0.2),
        .text(""), .text("plain ASCII"), .text("a\u{0}b\u{0}"), .text("\u{0}"), .text("Grüße, Łódź, Ελληνικά, 日本語"),
        .text("non-BMP: 😀 𝄞 𐐷 🏳️‍🌈"), .text("line\nbreak\r\ttab"), .text(String(repeating: "long ", count: 10_000)),
        .blob(Data()), .blob(Data([0])), .blob(Data([0, 0, 0])), .blob(Data([0xFF, 0x00, 0xD8, 0x00])),
        .blob(Data((0..<65_536).map { UInt8(truncatingIfNeeded: $0 &* 31) })),
    ]

    @Test("values survive being written, closed and reopened from a file")
    func roundTripThroughFile() throws {
        let directory = try TemporaryFolder()
        let path = directory.path("values.sqlite")
        do {
            let db = try DBBDatabase(path: path)
            try db.execute("CREATE TABLE v (id INTEGER PRIMARY KEY, value)")
            try db.inTransaction { db in
                for value in Self.values { try db.execute("INSERT INTO v (value) VALUES (?)", value) }
            }
            try db.close()
        }
        let db = try DBBDatabase(path: path, mode: .readOnly)
        try check(db)
    }

    @Test("values round-trip on an in-memory database and through typed reads", arguments: DatabaseKind.allCases)
    func roundTripSameConnection(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            try db.execute("CREATE TABLE v (id INTEGER PRIMARY KEY, value)")
            for value in Self.values { try db.execute("INSERT INTO v (value) VALUES (?)", value) }
            try check(db)
        }
    }

    private func check(_ db: DBBDatabase) throws {
        let rows = try db.fetchCursor("SELECT typeof(value), length(value), value FROM v ORDER BY id").map {
            (try $0[0] as String, try $0[1] as Int?, $0.value(at: 2))
        }
        #expect(rows.count == Self.values.count)
        for (expected, (typeName, length, actual)) in zip(Self.values, rows) {
            #expect(typeName == expected.storageClass.rawValue)
            #expect(actual.storageClass == expected.storageClass)
            switch (expected, actual) {
            case (.real(let a), .real(let b)):
                #expect(a.bitPattern == b.bitPattern, "\(a) came back as \(b)")
            case (.text(let a), .text(let b)):
                #expect(Array(a.utf8) == Array(b.utf8))
                // SQLite's length() counts characters up to the first NUL.
                #expect(length == a.unicodeScalars.prefix { $0 != "\u{0}" }.count)
            case (.blob(let a), _):
                #expect(actual == .blob(a))
                #expect(length == a.count)
            default:
                #expect(actual == expected)
            }
        }
        // -0.0 keeps its sign bit, and SQLite still compares it equal to 0.
        let negativeZero = try #require(
            try db.fetchValue(
                Double.self,
                "SELECT value FROM v WHERE typeof(value) = 'real' AND value = 0 ORDER BY id LIMIT 1 OFFSET 1"))
        #expect(negativeZero.sign == .minus)
        #expect(negativeZero == 0)
        #expect(try db.fetchValue(Double.self, "SELECT max(value) FROM v WHERE typeof(value) = 'real'") == .infinity)
        #expect(try db.fetchValue(Double.self, "SELECT min(value) FROM v WHERE typeof(value) = 'real'") == -.infinity)
        #expect(try db.fetchValue(Int64.self, "SELECT max(value) FROM v WHERE typeof(value) = 'integer'") == .max)
        #expect(try db.fetchValue(Int64.self, "SELECT min(value) FROM v WHERE typeof(value) = 'integer'") == .min)
        // Text with NUL characters keeps them in both the typed and the DBBValue reads.
        let withNUL = try db.fetchValues(
            String.self,
            "SELECT value FROM v WHERE typeof(value) = 'text' AND instr(CAST(value AS BLOB), x'00') > 0 ORDER BY id")
        #expect(withNUL == ["a\u{0}b\u{0}", "\u{0}"])
        #expect(
            try db.fetchValue(Int.self, "SELECT length(CAST(value AS BLOB)) FROM v WHERE value = ?", "a\u{0}b\u{0}")
                == 4)
        // Non-BMP characters are stored as 4-byte UTF-8 sequences.
        let emoji = "non-BMP: 😀 𝄞 𐐷 🏳️‍🌈"
        #expect(
            try db.fetchValue(Int.self, "SELECT length(CAST(value AS BLOB)) FROM v WHERE value = ?", emoji)
                == emoji.utf8.count)
        #expect(
            try db.fetchValue(String.self, "SELECT hex(substr(value, 10, 1)) FROM v WHERE value = ?", emoji)
                == "F09F9880")
        // Typed reads of the extremes.
        #expect(try db.fetchValue(Int64.self, "SELECT ?", Int64.min) == .min)
        #expect(try db.fetchValue(UInt64.self, "SELECT ?", Int64.max) == UInt64(Int64.max))
        #expect(try db.fetchValue(Data.self, "SELECT ?", Data([0, 1, 0])) == Data([0, 1, 0]))
        #expect(try db.fetchValue(String.self, "SELECT ?", "") == "")
    }

    @Test("DBBValue's accessors convert only where nothing is lost")
    func accessors() {
        #expect(DBBValue.integer(7).int64Value == 7)
        #expect(DBBValue.real(7.0).int64Value == 7)
        #expect(DBBValue.real(7.5).int64Value == nil)
        #expect(DBBValue.text("7").int64Value == nil)
        #expect(DBBValue.integer(2).doubleValue == 2)
        #expect(DBBValue.null.doubleValue == nil)
        #expect(DBBValue.text("a").stringValue == "a")
        #expect(DBBValue.blob(Data([1])).stringValue == nil)
        #expect(DBBValue.text("é").dataValue == Data([0xC3, 0xA9]))
        #expect(DBBValue.null.isNull)
        #expect(!DBBValue.text("").isNull)
        #expect(
            [DBBValue.null, .integer(-3), .real(0.5), .text("x"), .blob(Data(count: 3))].map(\.description) == [
                "NULL", "-3", "0.5", "'x'", "<BLOB 3 bytes>",
            ])
        #expect(DBBValue.StorageClass.allCases.map(\.rawValue) == ["null", "integer", "real", "text", "blob"])
    }
}
