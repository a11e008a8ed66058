import DBBBuilder
import Foundation

// The generated database of the export benchmark (Tools/Benchmarks) and of the restore benchmark
// (Tools/PostgresBenchmarks links this file), so that both measure the same rows.
enum ExportData {
    /// One million rows over two tables: one with an INTEGER PRIMARY KEY, one without a key (so its rowids
    /// are dumped), mixing integers, doubles, text of varying length, NULLs and small BLOBs.
    static func generate(at url: URL, rowCount: Int) throws {
        let db = try DBBDatabase(path: url.path)
        try db.executeStatements(
            """
            PRAGMA journal_mode = OFF;
            PRAGMA synchronous = OFF;
            CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, quantity INTEGER, price REAL,
                               note TEXT, created TEXT, payload BLOB);
            CREATE INDEX item_name ON item (name);
            CREATE TABLE event (item_id INTEGER, kind TEXT, amount REAL, at INTEGER);
            """)
        try db.inTransaction { db in
            let words = ["alpha", "beta", "gamma", "delta", "epsilon", "zeta", "eta", "theta", "iota", "kappa"]
            let items = rowCount * 4 / 5
            var generator = SplitMix(seed: 42)
            let insertItem = try db.prepare("INSERT INTO item VALUES (?, ?, ?, ?, ?, ?, ?)")
            for id in 1...items {
                let random = generator.next()
                let name = "\(words[Int(random % 10)]) \(words[Int(random >> 8 % 10)]) \(id)"
                let note: String? =
                    random % 3 == 0
                    ? nil : String(repeating: words[Int(random >> 16 % 10)] + " ", count: Int(random >> 24 % 8))
                let payload: Data? = random % 5 == 0 ? Data((0..<Int(random >> 32 % 48)).map { UInt8($0) }) : nil
                try insertItem.execute(
                    Int64(id), name, Int64(random >> 40 % 100_000) - 50_000, Double(random % 1_000_000) / 100, note,
                    "2024-\(random % 12 + 1)-\(random % 28 + 1) 12:00:00", payload)
            }
            let insertEvent = try db.prepare("INSERT INTO event VALUES (?, ?, ?, ?)")
            for index in 0..<(rowCount - items) {
                let random = generator.next()
                try insertEvent.execute(
                    Int64(random % UInt64(items)) + 1, random % 2 == 0 ? "sale" : "return", Double(index) * 0.25,
                    Int64(1_700_000_000) + Int64(index))
            }
        }
        try db.close()
    }

    private struct SplitMix {
        var state: UInt64
        init(seed: UInt64) { state = seed }
        mutating func next() -> UInt64 {
            state &+= 0x9E37_79B9_7F4A_7C15
            var z = state
            z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
            z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
            return z ^ (z >> 31)
        }
    }

}
