import DBBSQL
import Foundation
import Testing

/// Collects what a connection's commit observer reports.
private final class CommitLog {
    var commits: [Set<String>] = []
}

@Suite("DBBDatabase commit observers")
struct DBBDatabaseCommitObserverTests {
    private static func observed(_ kind: DatabaseKind, _ body: (DBBDatabase, CommitLog) throws -> Void) throws {
        try withDatabase(kind) { db in
            try db.executeStatements(
                """
                CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT);
                CREATE TABLE tag (name TEXT PRIMARY KEY, count INTEGER) WITHOUT ROWID;
                CREATE TABLE audit (id INTEGER PRIMARY KEY, what TEXT);
                CREATE TRIGGER item_audit AFTER INSERT ON item BEGIN INSERT INTO audit (what) VALUES (new.name); END;
                """)
            let log = CommitLog()
            try db.addCommitObserver { log.commits.append($0.tableNames) }
            try body(db, log)
        }
    }

    @Test(
        "a statement outside a transaction is reported once it commits, with the tables its triggers wrote",
        arguments: DatabaseKind.allCases)
    func autocommitStatement(kind: DatabaseKind) throws {
        try Self.observed(kind) { db, log in
            try db.execute("INSERT INTO item (name) VALUES (?)", "a")
            #expect(log.commits == [["item", "audit"]])
            try db.execute("UPDATE item SET name = 'b' WHERE id = 99")  // no row: still a commit, of nothing
            #expect(log.commits == [["item", "audit"]])
        }
    }

    @Test(
        "a transaction is reported after COMMIT, not before, and a rolled back one never",
        arguments: DatabaseKind.allCases)
    func transactions(kind: DatabaseKind) throws {
        try Self.observed(kind) { db, log in
            try db.beginTransaction()
            try db.execute("INSERT INTO item (name) VALUES ('a')")
            try db.execute("INSERT INTO tag (name, count) VALUES ('x', 1)")
            #expect(log.commits.isEmpty)
            try db.commit()
            #expect(log.commits == [["item", "audit", "tag"]])

            try db.beginTransaction()
            try db.execute("UPDATE item SET name = 'c'")
            try db.rollback()
            #expect(log.commits.count == 1)
            try db.inTransaction { db in try db.execute("DELETE FROM audit WHERE id = 1") }
            #expect(log.commits.last == ["audit"])
        }
    }

    @Test(
        "what the update hook misses is reported too: WITHOUT ROWID tables and DELETE without WHERE",
        arguments: DatabaseKind.allCases)
    func hookBlindSpots(kind: DatabaseKind) throws {
        try Self.observed(kind) { db, log in
            try db.execute("INSERT INTO tag (name, count) VALUES ('x', 1)")
            try db.execute("UPDATE tag SET count = 2")
            try db.execute("UPDATE tag SET count = 3 WHERE name = 'none'")  // changes nothing
            try db.execute("INSERT INTO item (name) VALUES ('a')")
            try db.execute("DELETE FROM audit")
            try db.executeStatements("DELETE FROM item; DELETE FROM tag")
            #expect(log.commits == [["tag"], ["tag"], ["item", "audit"], ["audit"], ["item"], ["tag"]])
            #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM item") == 0)
            #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM tag") == 0)
        }
    }

    @Test("temp tables are not reported; a removed observer hears nothing more", arguments: DatabaseKind.allCases)
    func tempTablesAndRemoval(kind: DatabaseKind) throws {
        try withDatabase(kind) { db in
            try db.execute("CREATE TABLE item (id INTEGER PRIMARY KEY, name TEXT)")
            try db.execute("CREATE TEMP TABLE scratch (n INTEGER)")
            let log = CommitLog()
            let token = try db.addCommitObserver { log.commits.append($0.tableNames) }
            try db.execute("INSERT INTO scratch VALUES (1)")
            try db.execute("DELETE FROM scratch")
            #expect(log.commits.isEmpty)
            try db.execute("INSERT INTO item (name) VALUES ('a')")
            db.removeCommitObserver(token)
            try db.execute("INSERT INTO item (name) VALUES ('b')")
            #expect(log.commits == [["item"]])
        }
    }

    @Test("a statement prepared with an authorizer is tracked, and the tracking authorizer comes back after it")
    func authorizerTogether() throws {
        try Self.observed(.file) { db, log in
            var actions: [DBBAuthorizerAction] = []
            let statement = try db.prepare("DELETE FROM tag") { request in
                actions.append(request.action)
                return .allow
            }
            try db.execute("INSERT INTO tag (name, count) VALUES ('x', 1)")
            try statement.execute()
            #expect(actions.contains(.delete))
            try db.execute("DELETE FROM item")  // prepared after: the tracker's authorizer is back
            #expect(log.commits == [["tag"], ["tag"]])
            try db.execute("INSERT INTO item (name) VALUES ('a')")
            try db.execute("DELETE FROM item")
            #expect(log.commits.suffix(2) == [["item", "audit"], ["item"]])
        }
    }
}
