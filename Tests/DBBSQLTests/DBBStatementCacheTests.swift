import DBBSQL
import Foundation
import Testing

@Suite("Prepared statement cache")
struct DBBStatementCacheTests {
    @Test("the same SQL text reuses one prepared statement per connection")
    func reuse() throws {
        let db = try DBBDatabase.inMemory()
        #expect(db.cachedStatementCount == 0)
        try db.execute("CREATE TABLE t (x INTEGER)")
        let insert = "INSERT INTO t VALUES (?)"
        let first = try db.prepare(insert)
        let second = try db.prepare(insert)
        #expect(first === second)
        for x in 0..<50 { try db.execute(insert, x) }
        #expect(try db.prepare(insert) === first)
        #expect(db.cachedStatementCount == 2)
        let other = try DBBDatabase.inMemory()
        try other.execute("CREATE TABLE t (x INTEGER)")
        #expect(try other.prepare(insert) !== first)  // per connection
        db.clearStatementCache()
        #expect(db.cachedStatementCount == 0)
        #expect(try db.prepare(insert) !== first)
        #expect(try db.fetchValue(Int.self, "SELECT sum(x) FROM t") == 1225)
    }

    @Test("a statement in use by a cursor is not handed out again")
    func inUse() throws {
        let db = try DBBDatabase.inMemory()
        let sql = "SELECT 1 UNION ALL SELECT 2"
        let cursor = try db.fetchCursor(sql)
        _ = try cursor.next()
        let busy = try db.prepare(sql)
        #expect(try busy.cursor().map { try $0[0] as Int } == [1, 2])
        #expect(try cursor.next()?[0] as Int? == 2)
    }

    @Test("a statement that a cursor is stepping refuses to run again instead of resetting the cursor")
    func busyStatement() throws {
        let db = try DBBDatabase.inMemory()
        let statement = try db.prepare("SELECT 1 UNION ALL SELECT 2")
        let cursor = try statement.cursor()
        #expect(try cursor.next()?[0] as Int? == 1)
        #expect(expectDBBError { _ = try statement.cursor() }?.resultCode == .misuse)
        #expect(expectDBBError { try statement.execute() }?.resultCode == .misuse)
        #expect(try cursor.next()?[0] as Int? == 2)
        #expect(try cursor.next() == nil)
        #expect(try statement.cursor().map { try $0[0] as Int } == [1, 2])
    }

    @Test("a statement kept after its connection closed throws instead of running")
    func statementAfterClose() throws {
        let directory = try TemporaryFolder()
        let db = try DBBDatabase(path: directory.path("closed.sqlite"))
        try db.execute("CREATE TABLE t (x)")
        let insert = try db.prepare("INSERT INTO t VALUES (?)")
        try insert.execute(1)
        try db.close()
        #expect(!db.isOpen)
        let error = expectDBBError { try insert.execute(2) }
        #expect(error?.resultCode == .misuse)
        #expect(error?.message == "the database is closed")
        #expect(expectDBBError { _ = try insert.cursor() }?.resultCode == .misuse)
        let reopened = try DBBDatabase(path: directory.path("closed.sqlite"), mode: .readOnly)
        #expect(try reopened.fetchValues(Int.self, "SELECT x FROM t") == [1])
    }

    @Test("the cache survives schema changes: SQLite re-prepares statements transparently")
    func schemaChange() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE t (x)")
        try db.execute("INSERT INTO t VALUES (1)")
        let select = "SELECT * FROM t"
        #expect(try db.fetchCursor(select).next()?.count == 1)
        try db.execute("ALTER TABLE t ADD COLUMN y DEFAULT 'new'")
        let row = try #require(try db.fetchCursor(select).next())
        #expect(row.count == 2)
        #expect(try row["y"] as String == "new")
    }

    @Test("binds are natively typed: each value keeps its storage class, never turned into text")
    func nativeBinds() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE t (a, b, c, d, e)")  // no affinity, so SQLite keeps what it is given
        try db.execute("INSERT INTO t VALUES (?, ?, ?, ?, ?)", 1, 1.5, "1", Data([1]), nil)
        let types = try #require(
            try db.fetchCursor("SELECT typeof(a), typeof(b), typeof(c), typeof(d), typeof(e) FROM t").next())
        #expect(types.values == [.text("integer"), .text("real"), .text("text"), .text("blob"), .text("null")])
    }
}
