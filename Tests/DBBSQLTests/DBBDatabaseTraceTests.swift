import DBBSQL
import Foundation
import Testing

@Suite("SQL trace hook")
struct DBBDatabaseTraceTests {
    @Test(
        "the hook receives each statement's text and a duration, and can be removed", arguments: DatabaseKind.allCases)
    func trace(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            var traced: [(String, Duration)] = []
            db.setTrace { sql, duration in traced.append((sql, duration)) }
            try db.execute("CREATE TABLE t (x)")
            try db.execute("INSERT INTO t VALUES (?)", 1)
            try db.executeStatements("INSERT INTO t VALUES (2); DELETE FROM t WHERE x = 2")
            _ = try db.fetchValue(Int.self, "SELECT count(*) FROM t")
            #expect(
                traced.map(\.0) == [
                    "CREATE TABLE t (x)", "INSERT INTO t VALUES (?)", "INSERT INTO t VALUES (2);",
                    "DELETE FROM t WHERE x = 2", "SELECT count(*) FROM t",
                ])
            #expect(traced.allSatisfy { $0.1 >= .zero && $0.1 < .seconds(10) })

            db.setTrace(nil)
            try db.execute("DELETE FROM t")
            #expect(traced.count == 5)
        }
    }

    @Test("a slow statement reports a duration that reflects its work")
    func duration() throws {
        let db = try DBBDatabase.inMemory()
        var durations: [Duration] = []
        db.setTrace { _, duration in durations.append(duration) }
        _ = try db.fetchValue(
            Int.self,
            "WITH RECURSIVE c(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM c WHERE i < 300000) SELECT sum(i) FROM c")
        _ = try db.fetchValue(Int.self, "SELECT 1")
        #expect(durations.count == 2)
        #expect(durations[0] > durations[1])
        #expect(durations[0] > .microseconds(100))
    }

    @Test("schema helpers can be checked by the SQL they ran")
    func helperSQL() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE t (x)")
        let recorder = SQLRecorder(db)
        try db.createIndex("t_x", on: "t", columns: ["x"], unique: true)
        try db.beginTransaction(.immediate)
        try db.commit()
        #expect(
            recorder.statements.last(where: { $0.hasPrefix("CREATE") })
                == "CREATE UNIQUE INDEX IF NOT EXISTS t_x ON t (x)")
        #expect(Array(recorder.statements.suffix(2)) == ["BEGIN IMMEDIATE TRANSACTION", "COMMIT TRANSACTION"])
    }
}
