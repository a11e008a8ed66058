import DBBObjects
import Foundation
import Testing

/// What a trace of the writer connection saw: whether the first statement of a save ran, and whether its
/// COMMIT did. After the first insert, the writer waits (up to 4 minutes: a loaded CI machine once took more than
/// one to run the fetch) until the reader is done, so that the transaction is open while the reader works however
/// the threads are scheduled: a fetch that needed the writer would then wait out the 4 minutes, and see the commit.
private final class WriterProgress: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var inserted = false
    private var committed = false
    let transactionOpen = DispatchSemaphore(value: 0)
    let readerDone = DispatchSemaphore(value: 0)

    func saw(_ sql: String) {
        let isFirstInsert = lock.withLock {
            if inserted && sql.hasPrefix("COMMIT") { committed = true }
            guard !inserted && sql.hasPrefix("INSERT") && sql.contains("Person") else { return false }
            inserted = true
            return true
        }
        guard isFirstInsert else { return }
        transactionOpen.signal()
        _ = readerDone.wait(timeout: .now() + 240)
    }

    var hasCommitted: Bool { lock.withLock { committed } }
}

@Suite struct DBBManagerPoolTests {
    private static func pooledManager(_ folder: TemporaryFolder, readers: Int = 2) throws -> DBBManager {
        let manager = try DBBManager(databaseURL: folder.file("pool.sqlite"), readers: readers)
        try manager.addTableClasses(Models.all)
        return manager
    }

    @Test func aLongSaveDoesNotDelayAFetchOnAReader() async throws {
        let folder = try TemporaryFolder()
        let manager = try Self.pooledManager(folder)
        let first = Person(dbManager: manager)
        first.lastName = "Before"
        try await first.save()

        let progress = WriterProgress()
        try await manager.queue.inDatabase { db in db.setTrace { sql, _ in progress.saw(sql) } }
        let save = Task.detached {
            let people = (0..<200_000).map { index in
                let person = Person(dbManager: manager)
                person.lastName = "Bulk"
                person.age = index
                return person
            }
            try await Person.save(people, manager: manager)
        }
        await Task.detached { progress.transactionOpen.wait() }.value
        // The save's transaction is open: its first row is written, its COMMIT has not run.
        let seen = try await Person.fetch(options: .options(sortColumns: ["age"]), manager: manager)
        let countSeen = try await Person.fetchCount(manager: manager)
        let stillOpen = !progress.hasCommitted
        progress.readerDone.signal()
        try await save.value
        #expect(stillOpen, "the fetch should complete while the save's transaction is open")
        #expect(seen.count == 1 && seen.first?.lastName == "Before")
        #expect(countSeen == 1)
        #expect(try await Person.fetchCount(manager: manager) == 200_001)
        try await manager.queue.inDatabase { db in db.setTrace(nil) }
        try manager.close()
    }

    @Test func readersNeverSeeAPartialGraph() async throws {
        let folder = try TemporaryFolder()
        let manager = try Self.pooledManager(folder, readers: 3)
        let company = Company(dbManager: manager)
        company.name = "round 0"
        company.employees = (0..<5).map { _ in
            let person = Person(dbManager: manager)
            person.age = 0
            return person
        }
        try await company.save()
        let companyID = company.idNum
        let rounds = 150

        let reads = try await withThrowingTaskGroup(of: Int.self) { group in
            group.addTask {
                // Each round replaces the employees and renames the company in one save.
                for round in 1...rounds {
                    guard let company = try await Company.fetchOne(id: companyID, manager: manager) else { return 0 }
                    company.name = "round \(round)"
                    company.employees = (0..<5).map { _ in
                        let person = Person(dbManager: manager)
                        person.age = round
                        return person
                    }
                    try await company.save()
                }
                return 0
            }
            for _ in 0..<3 {
                group.addTask {
                    var reads = 0
                    var lastRound = 0
                    while lastRound < rounds || reads < 700 {
                        try Task.checkCancellation()
                        let companies = try await Company.fetchAll(manager: manager)
                        guard let company = companies.first, companies.count == 1 else {
                            throw DBBError(.error, message: "saw \(companies.count) companies")
                        }
                        let round = Int(company.name.dropFirst("round ".count)) ?? -1
                        let ages = company.employees.map(\.age)
                        // Every employee of the company belongs to the company's round, and there are five.
                        if ages != Array(repeating: round, count: 5) || round < lastRound {
                            throw DBBError(.error, message: "partial graph: \(company.name) with ages \(ages)")
                        }
                        lastRound = round
                        reads += 1
                    }
                    return reads
                }
            }
            var total = 0
            for try await reads in group { total += reads }
            return total
        }
        #expect(reads >= 2_100)
        #expect(try await Company.fetchOne(id: companyID, manager: manager)?.name == "round \(rounds)")
    }

    @Test func writeScopeFetchesSeeTheTransactionAndReadScopesRunOnReaders() throws {
        let folder = try TemporaryFolder()
        let manager = try Self.pooledManager(folder)
        let inside = try manager.write { _ in
            let person = Person(dbManager: manager)
            person.lastName = "Uncommitted"
            try person.save()
            return try Person.fetchAll(manager: manager).map(\.lastName)
        }
        #expect(inside == ["Uncommitted"])
        let error = #expect(throws: DBBError.self) {
            try manager.read { _ in try Person(dbManager: manager).save() }
        }
        #expect(error?.resultCode == .misuse)
        #expect(manager.lastFailure?.resultCode == .misuse)
        let (count, readOnly) = try manager.read { db in
            (try Person.fetchCount(manager: manager), try db.fetchValue(Bool.self, "PRAGMA query_only"))
        }
        #expect(count == 1)
        #expect(readOnly == true)  // a reader's connection
        let nested = #expect(throws: DBBError.self) { try manager.read { _ in try manager.read { _ in 0 } } }
        #expect(nested?.resultCode == .misuse)
        let unregistered = #expect(throws: DBBError.self) { try manager.rowCount(inTable: "Nowhere") }
        #expect(unregistered?.message.contains("no such table") == true)
        #expect(manager.errorMessage().contains("no such table"))
    }

    @Test func readOnlyManagerReadsOnReaders() async throws {
        let folder = try TemporaryFolder()
        do {
            let writer = try Self.pooledManager(folder)
            let person = Person(dbManager: writer)
            person.lastName = "Stored"
            try await person.save()
            try writer.close()
        }
        let reader = try DBBManager(databaseURL: folder.file("pool.sqlite"), mode: .readOnly, readers: 2)
        try reader.addTableClasses(Models.all)
        async let first = Person.fetchAll(manager: reader)
        async let second = Person.fetchCount(manager: reader)
        #expect(try await first.map(\.lastName) == ["Stored"])
        #expect(try await second == 1)
        #expect(throws: DBBError.self) { try Person(dbManager: reader).save() }
        try reader.close()
    }

    @Test func closingWaitsForReadsThenRefusesThem() async throws {
        let folder = try TemporaryFolder()
        let manager = try Self.pooledManager(folder)
        try await Person.save((0..<50).map { _ in Person(dbManager: manager) }, manager: manager)
        let finished = Counter()
        let reads = Task.detached {
            var done = 0
            while true {
                do {
                    _ = try await Person.fetchAll(manager: manager)
                    done += 1
                    finished.increment()
                } catch let error as DBBError {
                    return (done, error.resultCode)
                }
            }
        }
        // Closed while reads are under way, however slowly the machine runs them.
        while finished.value < 2 { try await Task.sleep(for: .milliseconds(1)) }
        try manager.close()
        let (done, code) = try await reads.value
        #expect(done > 0)
        #expect(code == .misuse)
        #expect(throws: DBBError.self) { try manager.rowCount(inTable: "Person") }
        #expect(
            expectNoFile(folder.file("pool.sqlite-wal")),
            "the writer, closing last, checkpoints and removes the WAL")
    }

    @Test func negativeReaderCountIsRefused() throws {
        let folder = try TemporaryFolder()
        let error = #expect(throws: DBBError.self) {
            _ = try DBBManager(databaseURL: folder.file("x.sqlite"), readers: -1)
        }
        #expect(error?.resultCode == .misuse)
        #expect(!FileManager.default.fileExists(atPath: folder.file("x.sqlite").path))
    }
}

private func expectNoFile(_ url: URL) -> Bool { !FileManager.default.fileExists(atPath: url.path) }
