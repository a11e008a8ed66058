import DBBBuilder
import Foundation

// Reads under writes: a serial manager (one connection) against a manager with a reader pool.
// 1. Throughput: 4 threads fetch 1,000 objects by query in a loop while 1 thread saves batches of 500.
// 2. Latency: 1 thread fetches 1,000 objects by query in a loop while another saves 200,000 objects in one
//    transaction; the latencies of the fetches that overlapped that transaction are reported (median, p99).
// Wall-clock times: the point is what runs in parallel.

/// The object the workload reads and writes.
final class PoolPerson: DBBTableObject {
    var name = ""
    var code = ""
    var age = 0

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            ["name": .init(\PoolPerson.name), "code": .init(\PoolPerson.code), "age": .init(\PoolPerson.age)],
            for: self, indexer: DBBIndexer(columnsToIndex: ["code"]))
    }
}

enum PoolBenchmark {
    /// 20 codes of 1,000 people each: a query by code fetches 1,000 objects.
    static let stored = 20_000
    static let codes = 20

    static func run() {
        runWorkload("pool") {
            let scale = BenchmarkOptions.current.scale
            print("Reads under writes: serial manager (readers: 0) vs reader pool (readers: 4), wall-clock")
            for readers in [0, 4] {
                try withTemporaryFolder("dbb-pool") { folder in
                    let manager = try makeManager(folder, readers: readers)
                    let label = readers == 0 ? "serial" : "pool(4)"
                    let (fetches, batches, seconds) = try throughput(manager, seconds: 5.0 / Double(scale))
                    print(
                        String(
                            format: "%@  throughput: %.1f fetches/s of 1,000 objects (4 threads), %.1f saves/s of 500",
                            label, Double(fetches) / seconds, Double(batches) / seconds))
                    let (latencies, writeSeconds) = try latencyDuringLongWrite(manager, objects: 200_000 / scale)
                    let sorted = latencies.sorted()
                    let median = sorted.isEmpty ? .nan : sorted[sorted.count / 2] * 1000
                    let p99 = sorted.isEmpty ? .nan : sorted[min(sorted.count - 1, sorted.count * 99 / 100)] * 1000
                    print(
                        String(
                            format:
                                "%@  during the %.2f s transaction saving %d objects: %d fetches, median %.1f ms, p99 %.1f ms",
                            label, writeSeconds, 200_000 / scale, latencies.count, median, p99))
                    try manager.close()
                }
            }
        }
    }

    static func makeManager(_ folder: URL, readers: Int) throws -> DBBManager {
        let manager = try DBBManager(databaseURL: folder.appendingPathComponent("pool.sqlite"), readers: readers)
        try manager.addTableClasses([PoolPerson.self])
        try PoolPerson.save(people(manager, count: stored, prefix: "stored"), manager: manager)
        return manager
    }

    static func people(_ manager: DBBManager, count: Int, prefix: String, code: String? = nil) -> [PoolPerson] {
        (0..<count).map { index in
            let person = PoolPerson(dbManager: manager)
            person.name = "\(prefix) \(index)"
            person.code = code ?? "C\(index % codes)"
            person.age = index % 90
            return person
        }
    }

    static func fetchByCode(_ manager: DBBManager, _ index: Int) throws {
        var options = DBBQueryOptions()
        options.addCondition("code = ?", "C\(index % codes)")
        let found = try PoolPerson.fetch(options: options, manager: manager)
        guard found.count == stored / codes else { throw RawError(message: "fetched \(found.count) objects") }
    }

    /// 4 reading threads and 1 saving thread for `seconds`; returns the fetches and saves completed.
    static func throughput(_ manager: DBBManager, seconds: Double) throws -> (Int, Int, Double) {
        let counts = Counts()
        let deadline = Date(timeIntervalSinceNow: seconds)
        let start = Date()
        // Threads of their own: a dispatch pool on 2 cores would run the five loops two at a time.
        let threads = (0..<5).map { thread in
            Thread {
                defer { counts.finished() }
                var round = 0
                while Date() < deadline {
                    do {
                        if thread == 4 {
                            // New rows in a code nobody queries, so every fetch still returns 1,000 objects.
                            try PoolPerson.save(
                                people(manager, count: 500, prefix: "w\(round)", code: "W"), manager: manager)
                            counts.add(writes: 1)
                        } else {
                            try fetchByCode(manager, thread * 7 + round)
                            counts.add(reads: 1)
                        }
                    } catch {
                        counts.fail(error)
                        return
                    }
                    round += 1
                }
            }
        }
        for thread in threads { thread.start() }
        counts.waitForAll(threads.count)
        if let failure = counts.failure { throw failure }
        return (counts.reads, counts.writes, Date().timeIntervalSince(start))
    }

    /// One thread saves `objects` objects in one transaction; another fetches meanwhile. Returns the
    /// latencies (seconds) of the fetches that overlapped the save's transaction (from its BEGIN to its
    /// COMMIT, as the writer connection's trace reports them), and how long that transaction took.
    static func latencyDuringLongWrite(_ manager: DBBManager, objects: Int) throws -> ([Double], Double) {
        let counts = Counts()
        let state = LatencyState()
        try manager.queue.inDatabase { db in
            db.setTrace { sql, _ in
                // The save's transaction is the only IMMEDIATE one; a serial manager's fetches run deferred
                // ones on the same connection, before or after it.
                if sql.hasPrefix("BEGIN IMMEDIATE") { state.setWriting(true) }
                if sql.hasPrefix("COMMIT") { state.setWriting(false) }
            }
        }
        defer { try? manager.queue.inDatabase { db in db.setTrace(nil) } }
        let writer = Thread {
            defer { counts.finished() }
            let batch = people(manager, count: objects, prefix: "long", code: "L")
            do { try PoolPerson.save(batch, manager: manager) } catch { counts.fail(error) }
        }
        writer.start()
        var round = 0
        var fetches: [(begin: Date, end: Date)] = []
        while !counts.allFinished(1) {
            let begin = Date()
            try fetchByCode(manager, round)
            fetches.append((begin, Date()))
            round += 1
        }
        if let failure = counts.failure { throw failure }
        // The fetches that overlapped the transaction: a serial manager's wait behind it counts.
        let latencies = fetches.filter { state.overlapsWrite($0.begin, $0.end) }.map {
            $0.end.timeIntervalSince($0.begin)
        }
        return (latencies, state.writeSeconds)
    }
}

/// Counters shared by the benchmark's threads.
private final class Counts: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSCondition()
    private var readCount = 0
    private var writeCount = 0
    private var finishedCount = 0
    private var firstFailure: (any Error)?
    func add(reads: Int = 0, writes: Int = 0) {
        lock.withLock {
            readCount += reads
            writeCount += writes
        }
    }
    func fail(_ error: any Error) { lock.withLock { firstFailure = firstFailure ?? error } }
    func finished() {
        lock.withLock {
            finishedCount += 1
            lock.broadcast()
        }
    }
    func allFinished(_ count: Int) -> Bool { lock.withLock { finishedCount >= count } }
    func waitForAll(_ count: Int) {
        lock.withLock { while finishedCount < count { lock.wait() } }
    }
    var reads: Int { lock.withLock { readCount } }
    var writes: Int { lock.withLock { writeCount } }
    var failure: (any Error)? { lock.withLock { firstFailure } }
}

/// When the long save's transaction was open.
private final class LatencyState: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var began: Date?
    private var ended: Date?
    func setWriting(_ value: Bool) {
        lock.withLock {
            if value, began == nil { began = Date() }
            if !value, began != nil, ended == nil { ended = Date() }
        }
    }
    /// Whether a fetch from `begin` to `end` overlapped the (ended) transaction.
    func overlapsWrite(_ begin: Date, _ end: Date) -> Bool {
        lock.withLock {
            guard let began, let ended else { return false }
            return begin < ended && end > began
        }
    }
    var writeSeconds: Double {
        lock.withLock { began.flatMap { began in ended.map { $0.timeIntervalSince(began) } } ?? 0 }
    }
}
