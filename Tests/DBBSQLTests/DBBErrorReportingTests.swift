import DBBSQL
import Foundation
import Testing

@Suite("Errors")
struct DBBErrorReportingTests {
    private func makeDatabase() throws -> DBBDatabase {
        let db = try DBBDatabase.inMemory()
        try db.execute(
            "CREATE TABLE person (id INTEGER PRIMARY KEY, email TEXT NOT NULL UNIQUE, age INTEGER CHECK (age >= 0))")
        try db.execute("INSERT INTO person (email, age) VALUES ('a@example.com', 30)")
        return db
    }

    @Test("a syntax error carries the code, SQLite's message and the SQL")
    func syntaxError() throws {
        let db = try makeDatabase()
        let error = expectDBBError { try db.execute("SELEC * FROM person") }
        #expect(error?.resultCode == .error)
        #expect(error?.extendedCode == 1)
        #expect(error?.message == #"near "SELEC": syntax error"#)
        #expect(error?.sql == "SELEC * FROM person")
        #expect(error?.context == "preparing a statement")
        #expect(error?.description.contains("SQL: SELEC * FROM person") == true)
        #expect(db.cachedStatementCount == 2)  // the failed text is not cached
    }

    @Test("constraint violations carry their extended codes and change nothing")
    func constraints() throws {
        let db = try makeDatabase()
        let unique = expectDBBError { try db.execute("INSERT INTO person (email) VALUES (?)", "a@example.com") }
        #expect(unique?.resultCode == .constraint)
        #expect(unique?.extendedCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(unique?.message == "UNIQUE constraint failed: person.email")
        #expect(unique?.sql == "INSERT INTO person (email) VALUES (?)")
        #expect(unique?.description.contains("a@example.com") == false)  // argument values stay private

        let notNull = expectDBBError { try db.execute("INSERT INTO person (email) VALUES (?)", nil) }
        #expect(notNull?.extendedCode == 1299)  // SQLITE_CONSTRAINT_NOTNULL
        let check = expectDBBError { try db.execute("INSERT INTO person (email, age) VALUES (?, ?)", "b@x", -1) }
        #expect(check?.extendedCode == 275)  // SQLITE_CONSTRAINT_CHECK
        let primaryKey = expectDBBError { try db.execute("INSERT INTO person (id, email) VALUES (1, 'c@x')") }
        #expect(primaryKey?.extendedCode == 1555)  // SQLITE_CONSTRAINT_PRIMARYKEY
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM person") == 1)
    }

    @Test("a wrong argument count is an error before anything runs")
    func argumentCount() throws {
        let db = try makeDatabase()
        let tooFew = expectDBBError { try db.execute("INSERT INTO person (email, age) VALUES (?, ?)", "b@x") }
        #expect(tooFew?.resultCode == .misuse)
        #expect(tooFew?.message == "the statement expects 2 argument(s) but 1 were given")
        #expect(tooFew?.sql == "INSERT INTO person (email, age) VALUES (?, ?)")
        let tooMany = expectDBBError { try db.execute("SELECT 1", 1) }
        #expect(tooMany?.message == "the statement expects 0 argument(s) but 1 were given")
        #expect(expectDBBError { _ = try db.fetchCursor("SELECT ?") }?.resultCode == .misuse)
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM person") == 1)
    }

    @Test("a value that cannot be bound is an error naming the argument, and nothing is written")
    func unbindable() throws {
        let db = try makeDatabase()
        let error = expectDBBError {
            try db.execute("INSERT INTO person (email, age) VALUES (?, ?)", "b@x", UInt64.max)
        }
        #expect(error?.resultCode == .mismatch)
        #expect(error?.context?.hasPrefix("binding argument 2") == true)
        #expect(error?.sql == "INSERT INTO person (email, age) VALUES (?, ?)")
        let named = expectDBBError {
            try db.execute(
                "INSERT INTO person (email, age) VALUES (:e, :a)",
                arguments: ["e": ["at": Date()] as [String: Any], "a": 1])
        }
        #expect(named?.resultCode == .mismatch)
        #expect(named?.context?.hasPrefix("binding parameter :e") == true)
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM person") == 1)
    }

    @Test("result codes compare by their primary code and describe themselves")
    func resultCodes() {
        #expect(DBBError.ResultCode(rawValue: 2067) == .constraint)
        #expect(DBBError.ResultCode.busy.description == "database is locked")
        let error = DBBError(extendedCode: 2067, message: "m", sql: "s", context: "c")
        #expect(error.resultCode == .constraint)
        #expect(error.description == "SQLite error 19 (extended 2067): m — while c — SQL: s")
        #expect(DBBError(.misuse, message: "x").description == "SQLite error 21: x")
    }

    @Test("a catch clause matches one extended code, or every code under a primary one")
    func catchingCodes() throws {
        let db = try makeDatabase()
        func caught(_ sql: String) -> String {
            do {
                try db.execute(sql)
                return "nothing"
            } catch DBBError.constraintNotNull {
                return "not null"
            } catch DBBError.constraintUnique {
                return "unique"
            } catch DBBError.constraint {
                return "other constraint"
            } catch {
                return "other"
            }
        }
        #expect(caught("INSERT INTO person (email) VALUES ('a@example.com')") == "unique")
        #expect(caught("INSERT INTO person (email) VALUES (NULL)") == "not null")
        #expect(caught("INSERT INTO person (email, age) VALUES ('b@x', -1)") == "other constraint")
        #expect(caught("INSERT INTO nowhere VALUES (1)") == "other")
        let primaryKey = expectDBBError { try db.execute("INSERT INTO person (id, email) VALUES (1, 'c@x')") }
        #expect(primaryKey?.code == DBBError.constraintPrimaryKey)
        #expect(primaryKey.map(DBBError.constraint.matches) == true)
        #expect(primaryKey.map(DBBError.constraintForeignKey.matches) == false)
        #expect(primaryKey?.kind == .sqlite)
    }

    @Test("busy and locked constants match their variants")
    func busyVariants() {
        let snapshot = DBBError(extendedCode: 517, message: "m")  // SQLITE_BUSY_SNAPSHOT
        #expect(DBBError.busy.matches(snapshot))
        #expect(DBBError.busySnapshot.matches(snapshot))
        #expect(!DBBError.busyRecovery.matches(snapshot))
        #expect(!DBBError.locked.matches(snapshot))
        #expect(DBBError.lockedSharedCache.matches(DBBError(extendedCode: 262, message: "m")))
        #expect(DBBError.readOnly.matches(DBBError(extendedCode: 1032, message: "m")))  // SQLITE_READONLY_DBMOVED
    }

    @Test("a misuse of the library is its own kind, says what to do, and is not described as an SQLite error")
    func misuseKind() throws {
        let db = try makeDatabase()
        let error = try #require(
            expectDBBError { try db.execute("INSERT INTO person (email, age) VALUES (?, ?)", "b@x") })
        #expect(error.kind == .misuse)
        #expect(error.recoverySuggestion == "pass one value per parameter")
        #expect(error.description.hasPrefix("misuse of DBBBuilder: the statement expects 2 argument(s)"))
        #expect(!error.description.contains("SQLite error"))
        // A misuse never matches an SQLite code, not even SQLite's own misuse code.
        #expect(!DBBError.Code(rawValue: 21).matches(error))
        var kindCaught = false
        do { try db.execute("SELECT ?") } catch DBBError.Kind.misuse { kindCaught = true } catch {}
        #expect(kindCaught)
        let built = DBBError.misuse("x", recovery: "do y", context: "z")
        #expect(built.description == "misuse of DBBBuilder: x — do y — while z")
        #expect(DBBError.rowDeleted("gone").description == "row deleted: gone")
        #expect(DBBError.rowDeleted("gone").kind == .rowDeleted)
    }
}
