import DBBSQL
import Dispatch
import Foundation
import Testing

@Suite("DBBDatabasePool")
struct DBBDatabasePoolTests {
    private static func makePool(_ folder: TemporaryFolder, readers: Int = 2) throws -> DBBDatabasePool {
        let pool = try DBBDatabasePool(path: folder.path("pool.sqlite"), readers: readers)
        try pool.write { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute("INSERT INTO item (name) VALUES ('a')")
        }
        return pool
    }

    @Test("a read runs while a write transaction is open, and sees the state before it")
    func readDuringWrite() throws {
        let folder = try TemporaryFolder()
        let pool = try Self.makePool(folder)
        let writeOpen = DispatchSemaphore(value: 0)
        let readDone = DispatchSemaphore(value: 0)
        let writer = Thread {
            try? pool.write { db in
                try db.execute("INSERT INTO item (name) VALUES ('b')")
                writeOpen.signal()
                // The transaction stays open until the read has finished: the read cannot have waited for it.
                readDone.wait()
            }
        }
        writer.start()
        writeOpen.wait()
        let names = try pool.read { db in try db.fetchValues(String.self, "SELECT name FROM item ORDER BY id") }
        readDone.signal()
        #expect(names == ["a"])
        // The write commits; a read that begins afterwards sees it.
        while try pool.read({ db in try db.fetchValue(Int.self, "SELECT count(*) FROM item") }) != 2 { usleep(1000) }
        try pool.close()
    }

    @Test("readers run in parallel: two reads are inside their closures at the same time")
    func parallelReaders() async throws {
        let folder = try TemporaryFolder()
        let pool = try Self.makePool(folder, readers: 2)
        let first = DispatchSemaphore(value: 0)
        let second = DispatchSemaphore(value: 0)
        // Each read signals the other and waits for it: with one connection at a time they would deadlock.
        async let a: Int? = try await pool.read { db in
            first.signal()
            second.wait()
            return try db.fetchValue(Int.self, "SELECT count(*) FROM item")
        }
        async let b: Int? = try await pool.read { db in
            second.signal()
            first.wait()
            return try db.fetchValue(Int.self, "SELECT count(*) FROM item")
        }
        let (countA, countB) = try await (a, b)
        #expect(countA == 1 && countB == 1)
        try pool.close()
    }

    @Test("a read in a snapshot sees one state throughout, whatever the writer commits meanwhile")
    func snapshot() throws {
        let folder = try TemporaryFolder()
        let pool = try Self.makePool(folder)
        let counts = try pool.read { db in
            let before = try db.fetchValue(Int.self, "SELECT count(*) FROM item")
            try pool.write { db in try db.execute("INSERT INTO item (name) VALUES ('b')") }
            return [before, try db.fetchValue(Int.self, "SELECT count(*) FROM item")]
        }
        #expect(counts == [1, 1])
        #expect(try pool.unsafeRead { db in try db.fetchValue(Int.self, "SELECT count(*) FROM item") } == 2)
    }

    @Test("readers refuse writes; misuse is refused with a clear error")
    func misuse() throws {
        let folder = try TemporaryFolder()
        let pool = try Self.makePool(folder)
        let write = expectDBBError { try pool.read { db in try db.execute("DELETE FROM item") } }
        #expect(write?.resultCode == .readOnly)
        let nested = expectDBBError { _ = try pool.read { _ in try pool.read { _ in 0 } } }
        #expect(nested?.resultCode == .misuse)
        #expect(try pool.read { db in try db.fetchValue(Int.self, "SELECT count(*) FROM item") } == 1)
        #expect(expectDBBError { _ = try DBBDatabasePool(path: ":memory:") }?.resultCode == .misuse)
        #expect(
            expectDBBError { _ = try DBBDatabasePool(path: folder.path("other.sqlite"), readers: 0) }?.resultCode
                == .misuse)
        try pool.close()
        #expect(expectDBBError { _ = try pool.read { _ in 0 } }?.resultCode == .misuse)
    }

    @Test("with every reader busy, an async read waits for one, then runs")
    func waitsForFreeReader() async throws {
        let folder = try TemporaryFolder()
        let pool = try Self.makePool(folder, readers: 1)
        let holding = DispatchSemaphore(value: 0)
        let release = DispatchSemaphore(value: 0)
        let holder = Task.detached {
            try await pool.read { _ in
                holding.signal()
                release.wait()
            }
        }
        await Task.detached { holding.wait() }.value
        let waiting = Task.detached { try await pool.read { db in try db.fetchValue(Int.self, "SELECT 42") } }
        release.signal()
        try await holder.value
        #expect(try await waiting.value == 42)
    }

    @Test("concurrentRead's snapshot holds exactly what the writer committed before onWriter ran")
    func concurrentReadSnapshot() async throws {
        let folder = try TemporaryFolder()
        let pool = try Self.makePool(folder)
        let seen = try await pool.concurrentRead(
            onWriter: { db in
                try db.execute("INSERT INTO item (name) VALUES ('b')")  // committed before the snapshot begins
            },
            { db in try db.fetchValue(Int.self, "SELECT count(*) FROM item") })
        #expect(seen == 2)
        try pool.close()
    }
}
