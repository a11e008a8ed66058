import CSQLite
import DBBBuilder
import Foundation

/// Inserts 100,000 six-column rows in one transaction and reads them back into Swift values, once by hand
/// with the sqlite3 C API and once through DBBSQL, and prints both times and the ratio DBBSQL / raw.
enum SQLBenchmark {
    // DBB_BENCH_ROWS and DBB_BENCH_REPETITIONS make short runs for profiling (valgrind --tool=callgrind).
    static let rowCount = ProcessInfo.processInfo.environment["DBB_BENCH_ROWS"].flatMap(Int.init) ?? 100_000
    static let repetitions = ProcessInfo.processInfo.environment["DBB_BENCH_REPETITIONS"].flatMap(Int.init) ?? 7

    /// One row of the workload, as an application would hold it.
    struct Item: Decodable, Equatable {
        var id: Int64
        var name: String
        var score: Double
        var quantity: Int
        var payload: Data
        var note: String?
    }

    static let createSQL = """
        CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT NOT NULL, score REAL NOT NULL,
                           quantity INTEGER NOT NULL, payload BLOB NOT NULL, note TEXT)
        """
    static let insertSQL = "INSERT INTO item (id, name, score, quantity, payload, note) VALUES (?, ?, ?, ?, ?, ?)"
    static let selectSQL = "SELECT id, name, score, quantity, payload, note FROM item ORDER BY id"

    static func makeItems() -> [Item] {
        (0..<rowCount).map { index in
            Item(
                id: Int64(index + 1),
                name: "item number \(index) with a longer name",
                score: Double(index) * 0.25 - 1000,
                quantity: index % 1000,
                payload: Data((0..<16).map { UInt8(truncatingIfNeeded: index &+ $0) }),
                note: index.isMultiple(of: 3) ? nil : "note \(index % 97)")
        }
    }

    static func run() {
        runWorkload("sql") { try withTemporaryFolder("dbb-benchmarks", runMeasurements) }
    }

    private static func runMeasurements(in directory: URL) throws {
        let items = makeItems()

        print(
            "sql: \(rowCount) rows × 6 columns (INTEGER, TEXT, REAL, INTEGER, BLOB, TEXT/NULL), best of \(repetitions)")
        print("     SQLite \(DBBDatabase.sqliteVersion), file database in WAL mode, synchronous = NORMAL")

        // Every repetition times both sides back to back, so the ratio of one repetition compares runs made
        // under the same machine load; the median of those ratios is printed next to the ratio of the bests.
        var times = [String: [Double]]()
        for repetition in 0..<repetitions {
            // Alternate the order so neither side always runs on a warmer cache.
            let order = repetition.isMultiple(of: 2) ? [true, false] : [false, true]
            for raw in order {
                let url = directory.appendingPathComponent("bench-\(raw ? "raw" : "dbb")-\(repetition).sqlite")
                if raw {
                    let result = try RawSQLite.run(url: url, items: items)
                    times["insert raw", default: []].append(result.insert)
                    times["read raw", default: []].append(result.read)
                } else {
                    let result = try runDBBSQL(url: url, items: items)
                    times["insert dbb", default: []].append(result.insert)
                    times["read dbb", default: []].append(result.read)
                    times["decode dbb", default: []].append(result.decode)
                }
            }
        }

        func line(_ label: String, raw rawName: String, dbb dbbName: String) {
            let raw = times[rawName] ?? []
            let dbb = times[dbbName] ?? []
            guard let bestRaw = raw.min(), let bestDBB = dbb.min() else { return }
            let ratios = zip(dbb, raw).map { $0 / $1 }.sorted()
            let median = ratios[ratios.count / 2]
            print(
                "  \(label.padding(toLength: 15, withPad: " ", startingAt: 0)) raw \(format(bestRaw))   "
                    + "DBBSQL \(format(bestDBB))   ratio \(String(format: "%.2f", bestDBB / bestRaw))× "
                    + "(median of paired runs \(String(format: "%.2f", median))×)")
        }
        line("insert", raw: "insert raw", dbb: "insert dbb")
        line("typed read", raw: "read raw", dbb: "read dbb")
        line("Decodable read", raw: "read raw", dbb: "decode dbb")
    }

    private static func format(_ seconds: Double) -> String {
        String(format: "%7.1f ms", seconds * 1e3)
    }

    private static func runDBBSQL(url: URL, items: [Item]) throws -> (insert: Double, read: Double, decode: Double) {
        let db = try DBBDatabase(path: url.path)
        try db.setJournalMode(.wal)
        try db.setSynchronous(.normal)
        try db.execute(createSQL)

        let insert = try wallTime {
            try db.inTransaction { db in
                let statement = try db.prepare(insertSQL)
                for item in items {
                    try statement.execute(item.id, item.name, item.score, item.quantity, item.payload, item.note)
                }
            }
        }

        var read: [Item] = []
        let readTime = try wallTime {
            read.reserveCapacity(rowCount)
            let cursor = try db.fetchCursor(selectSQL)
            while let row = try cursor.next() {
                read.append(
                    Item(
                        id: try row[0], name: try row[1], score: try row[2], quantity: try row[3], payload: try row[4],
                        note: try row[5]))
            }
        }
        precondition(read == items, "DBBSQL read back different rows")

        var decoded: [Item] = []
        let decodeTime = try wallTime { decoded = try db.fetchAll(Item.self, selectSQL) }
        precondition(decoded == items, "DBBSQL decoded different rows")
        try db.close()
        return (insert, readTime, decodeTime)
    }
}

/// The same work written by hand against the sqlite3 C API: the physical limit.
enum RawSQLite {
    static func run(url: URL, items: [SQLBenchmark.Item]) throws -> (insert: Double, read: Double) {
        let db = try RawDatabase(url)
        try db.execute(SQLBenchmark.createSQL)

        let insert = try wallTime {
            try db.execute("BEGIN")
            let statement = try db.prepare(SQLBenchmark.insertSQL)
            defer { sqlite3_finalize(statement) }
            for item in items {
                sqlite3_bind_int64(statement, 1, item.id)
                var name = item.name
                name.withUTF8 { buffer in
                    buffer.withMemoryRebound(to: CChar.self) {
                        _ = sqlite3_bind_text(statement, 2, $0.baseAddress, Int32($0.count), sqliteTransient)
                    }
                }
                sqlite3_bind_double(statement, 3, item.score)
                sqlite3_bind_int64(statement, 4, Int64(item.quantity))
                item.payload.withUnsafeBytes { buffer in
                    _ = sqlite3_bind_blob(statement, 5, buffer.baseAddress, Int32(buffer.count), sqliteTransient)
                }
                if var note = item.note {
                    note.withUTF8 { buffer in
                        buffer.withMemoryRebound(to: CChar.self) {
                            _ = sqlite3_bind_text(statement, 6, $0.baseAddress, Int32($0.count), sqliteTransient)
                        }
                    }
                } else {
                    sqlite3_bind_null(statement, 6)
                }
                guard sqlite3_step(statement) == SQLITE_DONE else { throw db.error() }
                sqlite3_reset(statement)
            }
            try db.execute("COMMIT")
        }

        var read: [SQLBenchmark.Item] = []
        let readTime = try wallTime {
            read.reserveCapacity(SQLBenchmark.rowCount)
            try db.forEachRow(SQLBenchmark.selectSQL) { row in
                let payload = Data(bytes: sqlite3_column_blob(row, 4)!, count: Int(sqlite3_column_bytes(row, 4)))
                let note = sqlite3_column_type(row, 5) == SQLITE_NULL ? nil : text(row, 5)
                read.append(
                    SQLBenchmark.Item(
                        id: sqlite3_column_int64(row, 0), name: text(row, 1), score: sqlite3_column_double(row, 2),
                        quantity: Int(sqlite3_column_int64(row, 3)), payload: payload, note: note))
            }
        }
        precondition(read == items, "raw sqlite3 read back different rows")
        return (insert, readTime)
    }
}
