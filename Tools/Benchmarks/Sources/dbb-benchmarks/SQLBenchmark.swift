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
        do {
            try runMeasurements()
        } catch {
            print("sql benchmark failed: \(error)")
            exit(1)
        }
    }

    private static func runMeasurements() throws {
        let items = makeItems()
        let directory = FileManager.default.temporaryDirectory
            .appendingPathComponent("dbb-benchmarks-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: directory) }

        print(
            "sql: \(rowCount) rows × 6 columns (INTEGER, TEXT, REAL, INTEGER, BLOB, TEXT/NULL), best of \(repetitions)")
        print("     SQLite \(DBBDatabase.sqliteVersion), file database in WAL mode, synchronous = NORMAL")

        // Every repetition times both sides back to back, so the ratio of one repetition compares runs made
        // under the same machine load; the median of those ratios is printed next to the ratio of the bests.
        var times = [String: [Duration]]()
        for repetition in 0..<repetitions {
            // Alternate the order so neither side always runs on a warmer cache.
            let order = repetition.isMultiple(of: 2) ? [true, false] : [false, true]
            for raw in order {
                let path = directory.appendingPathComponent("bench-\(raw ? "raw" : "dbb")-\(repetition).sqlite").path
                if raw {
                    let result = try RawSQLite.run(path: path, items: items)
                    times["insert raw", default: []].append(result.insert)
                    times["read raw", default: []].append(result.read)
                } else {
                    let result = try runDBBSQL(path: path, items: items)
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

    private static func format(_ duration: Duration) -> String {
        String(
            format: "%7.1f ms",
            Double(duration.components.attoseconds) / 1e15 + Double(duration.components.seconds) * 1e3)
    }

    private static func runDBBSQL(path: String, items: [Item]) throws -> (
        insert: Duration, read: Duration, decode: Duration
    ) {
        let db = try DBBDatabase(path: path)
        try db.setJournalMode(.wal)
        try db.setSynchronous(.normal)
        try db.execute(createSQL)
        let clock = ContinuousClock()

        let insert = try clock.measure {
            try db.inTransaction { db in
                let statement = try db.prepare(insertSQL)
                for item in items {
                    try statement.execute(item.id, item.name, item.score, item.quantity, item.payload, item.note)
                }
            }
        }

        var read: [Item] = []
        let readTime = try clock.measure {
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
        let decodeTime = try clock.measure { decoded = try db.fetchAll(Item.self, selectSQL) }
        precondition(decoded == items, "DBBSQL decoded different rows")
        try db.close()
        return (insert, readTime, decodeTime)
    }
}

/// The same work written by hand against the sqlite3 C API: the physical limit.
enum RawSQLite {
    private static let transient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

    static func run(path: String, items: [SQLBenchmark.Item]) throws -> (insert: Duration, read: Duration) {
        var db: OpaquePointer?
        guard
            sqlite3_open_v2(path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
                == SQLITE_OK
        else { throw RawError(message: "open failed") }
        defer { sqlite3_close(db) }
        try exec(db, "PRAGMA journal_mode = WAL")
        try exec(db, "PRAGMA synchronous = NORMAL")
        try exec(db, SQLBenchmark.createSQL)
        let clock = ContinuousClock()

        let insert = try clock.measure {
            try exec(db, "BEGIN")
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, SQLBenchmark.insertSQL, -1, &statement, nil) == SQLITE_OK else {
                throw RawError(message: "prepare failed")
            }
            defer { sqlite3_finalize(statement) }
            for item in items {
                sqlite3_bind_int64(statement, 1, item.id)
                var name = item.name
                name.withUTF8 { buffer in
                    buffer.withMemoryRebound(to: CChar.self) {
                        _ = sqlite3_bind_text(statement, 2, $0.baseAddress, Int32($0.count), transient)
                    }
                }
                sqlite3_bind_double(statement, 3, item.score)
                sqlite3_bind_int64(statement, 4, Int64(item.quantity))
                item.payload.withUnsafeBytes { buffer in
                    _ = sqlite3_bind_blob(statement, 5, buffer.baseAddress, Int32(buffer.count), transient)
                }
                if var note = item.note {
                    note.withUTF8 { buffer in
                        buffer.withMemoryRebound(to: CChar.self) {
                            _ = sqlite3_bind_text(statement, 6, $0.baseAddress, Int32($0.count), transient)
                        }
                    }
                } else {
                    sqlite3_bind_null(statement, 6)
                }
                guard sqlite3_step(statement) == SQLITE_DONE else { throw RawError(message: "insert failed") }
                sqlite3_reset(statement)
            }
            try exec(db, "COMMIT")
        }

        var read: [SQLBenchmark.Item] = []
        let readTime = try clock.measure {
            read.reserveCapacity(SQLBenchmark.rowCount)
            var statement: OpaquePointer?
            guard sqlite3_prepare_v2(db, SQLBenchmark.selectSQL, -1, &statement, nil) == SQLITE_OK else {
                throw RawError(message: "prepare failed")
            }
            defer { sqlite3_finalize(statement) }
            while sqlite3_step(statement) == SQLITE_ROW {
                let name = String(
                    decoding: UnsafeBufferPointer(
                        start: sqlite3_column_text(statement, 1), count: Int(sqlite3_column_bytes(statement, 1))),
                    as: UTF8.self)
                let blob = sqlite3_column_blob(statement, 4)
                let payload = Data(bytes: blob!, count: Int(sqlite3_column_bytes(statement, 4)))
                var note: String?
                if sqlite3_column_type(statement, 5) != SQLITE_NULL {
                    note = String(
                        decoding: UnsafeBufferPointer(
                            start: sqlite3_column_text(statement, 5), count: Int(sqlite3_column_bytes(statement, 5))),
                        as: UTF8.self)
                }
                read.append(
                    SQLBenchmark.Item(
                        id: sqlite3_column_int64(statement, 0), name: name, score: sqlite3_column_double(statement, 2),
                        quantity: Int(sqlite3_column_int64(statement, 3)), payload: payload, note: note))
            }
        }
        precondition(read == items, "raw sqlite3 read back different rows")
        return (insert, readTime)
    }

    struct RawError: Error { var message: String }

    private static func exec(_ db: OpaquePointer?, _ sql: String) throws {
        guard sqlite3_exec(db, sql, nil, nil, nil) == SQLITE_OK else {
            throw RawError(message: "\(sql): \(String(cString: sqlite3_errmsg(db)))")
        }
    }
}
