import DBBSQL
import Foundation
import InMemoryLogging
import Logging
import MetricsTestKit
import Testing

@Suite("Statement logs and metrics")
struct DBBDatabaseInstrumentationTests {
    private static func logger(_ handler: InMemoryLogHandler, level: Logger.Level) -> Logger {
        var logger = Logger(label: "test.database") { _ in handler }
        logger.logLevel = level
        return logger
    }

    @Test("statements are logged at .debug with their SQL and duration; bound values only when allowed, at .trace")
    func statementLog() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE person (name TEXT)")
        let handler = InMemoryLogHandler()
        db.setLogging(DBBLogging(logger: Self.logger(handler, level: .trace)))
        try db.execute("INSERT INTO person (name) VALUES (?)", "Ann Example")
        let entries = handler.entries
        #expect(entries.count == 1)
        #expect(entries.first?.level == .debug)
        #expect(entries.first?.metadata["db.query.text"] == "INSERT INTO person (name) VALUES (?)")
        #expect(entries.first?.metadata["db.query.expanded"] == nil)
        let duration = entries.first?.metadata["db.duration_ms"].flatMap { Double("\($0)") }
        #expect(duration.map { $0 >= 0 && $0 < 10_000 } == true)

        handler.clear()
        db.setLogging(DBBLogging(logger: Self.logger(handler, level: .trace), logsBoundValues: true))
        try db.execute("INSERT INTO person (name) VALUES (?)", "Bo Example")
        #expect(
            handler.entries.first?.metadata["db.query.expanded"] == "INSERT INTO person (name) VALUES ('Bo Example')")

        // Allowed, but the logger is at .debug: the values stay out.
        handler.clear()
        db.setLogging(DBBLogging(logger: Self.logger(handler, level: .debug), logsBoundValues: true))
        try db.execute("INSERT INTO person (name) VALUES (?)", "Cy Example")
        #expect(handler.entries.count == 1)
        #expect(handler.entries.first?.metadata["db.query.expanded"] == nil)
    }

    @Test("by default nothing is logged, and a logger at .info sees only slow statements, at .notice")
    func levels() throws {
        let db = try DBBDatabase.inMemory()
        let handler = InMemoryLogHandler()
        db.setLogging(
            DBBLogging(logger: Self.logger(handler, level: .info), slowStatementThreshold: .milliseconds(1)))
        _ = try db.fetchValue(Int.self, "SELECT 1")
        #expect(handler.entries.isEmpty)
        _ = try db.fetchValue(
            Int.self,
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 2000000) SELECT sum(i) FROM c")
        #expect(handler.entries.map(\.level) == [.notice])
        #expect(handler.entries.first?.message == "slow statement")

        handler.clear()
        db.setLogging(nil)
        _ = try db.fetchValue(Int.self, "SELECT 2")
        #expect(handler.entries.isEmpty)
    }

    @Test(
        "a failed statement is logged at .debug with its SQL and error, and the trace hook still works beside the log")
    func failures() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE person (name TEXT UNIQUE)")
        try db.execute("INSERT INTO person VALUES ('Ann')")
        let handler = InMemoryLogHandler()
        var traced: [String] = []
        db.setTrace { sql, _ in traced.append(sql) }
        db.setLogging(DBBLogging(logger: Self.logger(handler, level: .debug)))
        #expect(throws: DBBError.self) { try db.execute("INSERT INTO person VALUES (?)", "Ann") }
        #expect(throws: DBBError.self) { try db.execute("SELECT nothing FROM nowhere") }
        #expect(throws: DBBError.self) { try db.executeStatements("INSERT INTO person VALUES ('Bo'); BOGUS") }
        let failures = handler.entries.filter { $0.message == "statement failed" }
        #expect(failures.map(\.level) == [.debug, .debug, .debug])
        #expect(failures.first?.metadata["db.query.text"] == "INSERT INTO person VALUES (?)")
        #expect(failures.first?.metadata["db.response.status_code"].map { "\($0)" } == "2067")
        #expect(failures.last?.metadata["db.query.text"] == "BOGUS")
        #expect(traced.contains("INSERT INTO person VALUES ('Bo');"))
        // A statement that ran and failed is logged as run too; one that could not be prepared never ran.
        let ran = handler.entries.filter { $0.message == "statement" }.compactMap { $0.metadata["db.query.text"] }
        #expect(ran.map { "\($0)" } == ["INSERT INTO person VALUES (?)", "INSERT INTO person VALUES ('Bo');"])
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM person") == 2)
    }

    @Test("statements, failures and checkpoints are counted and timed, with the database's dimensions")
    func metrics() throws {
        let folder = try TemporaryFolder()
        let queue = try DBBDatabaseQueue(path: folder.path("metrics.sqlite"))
        let metrics = TestMetrics()
        try queue.inDatabase { db in
            try db.setJournalMode(.wal)
            try db.execute("PRAGMA wal_autocheckpoint = 10")
        }
        try queue.setMetrics(DBBMetrics(factory: metrics, dimensions: [("app", "test")]))
        try queue.inDatabase { db in
            try db.execute("CREATE TABLE t (x BLOB)")
            for _ in 0..<20 { try db.execute("INSERT INTO t VALUES (randomblob(8000))") }
            #expect(throws: DBBError.self) { try db.execute("INSERT INTO missing VALUES (1)") }
            try db.checkpoint(.truncate)
        }
        let dimensions = [("db.system", "sqlite"), ("db.namespace", "metrics.sqlite"), ("app", "test")]
        #expect(metrics.counterTotal(label: "dbb.statements", dimensions: dimensions) == 21)
        #expect(try metrics.expectTimer("dbb.statement.duration", dimensions).values.count == 21)
        #expect(metrics.counterTotal(label: "dbb.statement.failures", dimensions: dimensions) == 1)
        // 20 rows of two pages each pass 10 pages of log several times: automatic checkpoints, then the explicit one.
        let automatic = metrics.counterTotal(label: "dbb.checkpoints", dimensions: dimensions + [("mode", "passive")])
        #expect(automatic >= 2)
        #expect(metrics.counterTotal(label: "dbb.checkpoints", dimensions: dimensions + [("mode", "truncate")]) == 1)
        let logSize = try FileManager.default.attributesOfItem(atPath: folder.path("metrics.sqlite-wal"))[.size] as? Int
        #expect(logSize == 0)

        // Without metrics, SQLite's own automatic checkpoints come back, and nothing is recorded.
        try queue.setMetrics(nil)
        metrics.reset()
        try queue.inDatabase { db in
            for _ in 0..<20 { try db.execute("INSERT INTO t VALUES (randomblob(8000))") }
        }
        #expect(metrics.counters.isEmpty)
        let size = try FileManager.default.attributesOfItem(atPath: folder.path("metrics.sqlite-wal"))[.size] as? Int
        #expect((size ?? 0) < 20 * 8000)
    }
}
