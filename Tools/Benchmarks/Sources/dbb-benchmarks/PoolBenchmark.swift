import DBBBuilder
import Foundation

// Reads under writes: a serial manager (one connection) against a manager with a reader pool.
// 1. Throughput: 4 threads fetch 1,000 objects by query in a loop while 1 thread saves batches of 500.
// 2. Latency: 1 thread fetches 1,000 objects by query in a loop while another saves 200,000 objects in one
//    transaction; the latencies of the fetches that began during that save are reported (median, p99).
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
                            format: "%@  during a %.2f s save of %d objects: %d fetches, median %.1f ms, p99 %.1f ms",
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
        DispatchQueue.concurrentPerform(iterations: 5) { thread in
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
        if let failure = counts.failure { throw failure }
        return (counts.reads, counts.writes, Date().timeIntervalSince(start))
    }

    /// One thread saves `objects` objects in one transaction; another fetches meanwhile. Returns the
    /// latencies (seconds) of the fetches that began while the save ran, and how long the save took.
    static func latencyDuringLongWrite(_ manager: DBBManager, objects: Int) throws -> ([Double], Double) {
        let counts = Counts()
        let writing = DispatchSemaphore(value: 0)
        let state = LatencyState()
        let writer = Thread {
            let batch = people(manager, count: objects, prefix: "long", code: "L")
            let started = Date()
            state.setWriting(true)
            writing.signal()
            do { try PoolPerson.save(batch, manager: manager) } catch { counts.fail(error) }
            state.setWriting(false)
            state.setWriteSeconds(Date().timeIntervalSince(started))
        }
        writer.start()
        writing.wait()
        var round = 0
        while state.isWriting {
            let begin = Date()
            try fetchByCode(manager, round)
            if state.isWriting || state.wasWritingAt(begin) { state.add(Date().timeIntervalSince(begin)) }
            round += 1
        }
        while state.writeSeconds == nil { usleep(1000) }
        if let failure = counts.failure { throw failure }
        return (state.latencies, state.writeSeconds ?? 0)
    }
}

/// Counters shared by the benchmark's threads.
private final class Counts: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var readCount = 0
    private var writeCount = 0
    private var firstFailure: (any Error)?
    func add(reads: Int = 0, writes: Int = 0) {
        lock.withLock {
            readCount += reads
            writeCount += writes
        }
    }
    func fail(_ error: any Error) { lock.withLock { firstFailure = firstFailure ?? error } }
    var reads: Int { lock.withLock { readCount } }
    var writes: Int { lock.withLock { writeCount } }
    var failure: (any Error)? { lock.withLock { firstFailure } }
}

/// Whether the long save runs, when it ended, and the fetch latencies measured meanwhile.
private final class LatencyState: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var writing = false
    private var ended: Date?
    private var seconds: Double?
    private var measured: [Double] = []
    func setWriting(_ value: Bool) {
        lock.withLock {
            writing = value
            if !value { ended = Date() }
        }
    }
    func setWriteSeconds(_ value: Double) { lock.withLock { seconds = value } }
    var isWriting: Bool { lock.withLock { writing } }
    /// Whether the save was still running at `date`.
    func wasWritingAt(_ date: Date) -> Bool { lock.withLock { ended.map { date < $0 } ?? writing } }
    var writeSeconds: Double? { lock.withLock { seconds } }
    func add(_ latency: Double) { lock.withLock { measured.append(latency) } }
    var latencies: [Double] { lock.withLock { measured } }
}
