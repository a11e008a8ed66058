import DBBSQL
import Dispatch
import Foundation
import Testing

@Suite("DBBDatabaseQueue")
struct DBBDatabaseQueueConcurrencyTests {
    private static func makeQueue(_ kind: DatabaseKind, in directory: TemporaryFolder) throws -> DBBDatabaseQueue {
        let queue =
            kind == .inMemory ? try DBBDatabaseQueue.inMemory() : try DBBDatabaseQueue(path: directory.path("q.sqlite"))
        // These tests are about serialization, not durability: skip the fsyncs to keep them quick.
        try queue.inDatabase { db in try db.setSynchronous(.off) }
        try queue.inDatabase { db in try db.execute("CREATE TABLE counter (n INTEGER)") }
        try queue.inDatabase { db in try db.execute("INSERT INTO counter VALUES (0)") }
        return queue
    }

    @Test("closures from many threads run one at a time: no increment is lost", arguments: DatabaseKind.allCases)
    func serializedFromThreads(kind: DatabaseKind) throws {
        let directory = try TemporaryFolder()
        let queue = try Self.makeQueue(kind, in: directory)
        DispatchQueue.concurrentPerform(iterations: 200) { _ in
            // A read-then-write in two statements: without serialization, updates would be lost.
            try? queue.inDatabase { db in
                let n = try db.fetchValue(Int.self, "SELECT n FROM counter") ?? 0
                try db.execute("UPDATE counter SET n = ?", n + 1)
            }
        }
        #expect(try queue.inDatabase { db in try db.fetchValue(Int.self, "SELECT n FROM counter") } == 200)
    }

    @Test("async forms run serialized too, from many tasks", arguments: DatabaseKind.allCases)
    func serializedFromTasks(kind: DatabaseKind) async throws {
        let directory = try TemporaryFolder()
        let queue = try Self.makeQueue(kind, in: directory)
        try await withThrowingTaskGroup(of: Void.self) { group in
            for index in 0..<100 {
                group.addTask {
                    if index.isMultiple(of: 2) {
                        try await queue.inTransaction(.immediate) { db in
                            let n = try db.fetchValue(Int.self, "SELECT n FROM counter") ?? 0
                            try db.execute("UPDATE counter SET n = ?", n + 1)
                        }
                    } else {
                        try await queue.inDatabase { db in
                            let n = try db.fetchValue(Int.self, "SELECT n FROM counter") ?? 0
                            try db.execute("UPDATE counter SET n = ?", n + 1)
                        }
                    }
                }
            }
            try await group.waitForAll()
        }
        let total = try await queue.inDatabase { db in try db.fetchValue(Int.self, "SELECT n FROM counter") }
        #expect(total == 100)
    }

    @Test("inTransaction commits on return and rolls back on a thrown error, sync and async")
    func transactions() async throws {
        struct Abort: Error {}
        let queue = try DBBDatabaseQueue.inMemory()
        try await queue.inTransaction { db in try db.execute("CREATE TABLE t (x)") }
        #expect(throws: Abort.self) {
            try queue.inTransaction { db in
                try db.execute("INSERT INTO t VALUES (1)")
                throw Abort()
            }
        }
        await #expect(throws: Abort.self) {
            try await queue.inTransaction { db in
                try db.execute("INSERT INTO t VALUES (2)")
                throw Abort()
            }
        }
        let inserted = try await queue.inTransaction { db -> Int64 in
            try db.execute("INSERT INTO t VALUES (3)")
            return db.lastInsertRowID
        }
        #expect(inserted == 1)
        #expect(try await queue.inDatabase { db in try db.fetchValues(Int.self, "SELECT x FROM t") } == [3])
        #expect(try await queue.inDatabase { db in db.isInTransaction } == false)
    }

    @Test("a re-entrant call from the queue's own closure fails with a clear message instead of deadlocking")
    func reentrancy() throws {
        let queue = try DBBDatabaseQueue.inMemory()
        #expect(!queue.isOnQueue)
        let error = try queue.inDatabase { db -> DBBError? in
            #expect(queue.isOnQueue)
            return expectDBBError { try queue.inDatabase { _ in () } }
        }
        #expect(error?.resultCode == .misuse)
        #expect(error?.message.contains("from inside one of its own closures") == true)
        #expect(error?.kind == .misuse)
        #expect(error?.recoverySuggestion == "use the database the closure receives")
        let inTransaction = try queue.inDatabase { _ in
            expectDBBError { try queue.inTransaction { _ in () } }
        }
        #expect(inTransaction?.resultCode == .misuse)
        // Another queue may be used from inside this one.
        let other = try DBBDatabaseQueue.inMemory()
        #expect(
            try queue.inDatabase { _ in try other.inDatabase { db in try db.fetchValue(Int.self, "SELECT 7") } } == 7)
    }

    @Test("the queue is Sendable and owns its connection; it closes it on request")
    func sendableAndClose() async throws {
        let directory = try TemporaryFolder()
        let queue = try DBBDatabaseQueue(path: directory.path("owned.sqlite"))
        #expect(queue.path == directory.path("owned.sqlite"))
        let task = Task.detached {
            try queue.inDatabase { db in try db.fetchValue(String.self, "SELECT 'from a task'") }
        }
        #expect(try await task.value == "from a task")
        try queue.close()
        #expect(try await queue.inDatabase { db in db.isOpen } == false)
        let wrapped = DBBDatabaseQueue(database: try DBBDatabase.inMemory())
        #expect(try await wrapped.inDatabase { db in db.path } == ":memory:")
    }
}
