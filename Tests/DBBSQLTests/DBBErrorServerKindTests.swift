import DBBSQL
import Testing

/// Errors of a database server (the PostgreSQL plugin's) match the same `catch` patterns as SQLite's.
struct DBBErrorServerKindTests {
    @Test func aServerErrorMatchesTheNearestSQLiteCode() {
        let error = DBBError.server(
            sqlState: "23505", extendedCode: DBBError.constraintUnique.rawValue,
            message: #"duplicate key value violates unique constraint "person_email_key""#,
            sql: "INSERT INTO person (email) VALUES ($1)", context: "executing a statement")
        #expect(error.kind == .server)
        #expect(error.sqlState == "23505")
        #expect(DBBError.constraintUnique.matches(error))
        #expect(DBBError.constraint.matches(error))
        #expect(!DBBError.constraintNotNull.matches(error))
        #expect(error.resultCode == .constraint)
        #expect(
            error.description
                == #"database server error (SQLSTATE 23505): duplicate key value violates unique constraint "#
                + #""person_email_key" — while executing a statement — SQL: INSERT INTO person (email) VALUES ($1)"#)
        do {
            throw error
        } catch DBBError.constraintUnique {
        } catch {
            Issue.record("not caught as a unique violation: \(error)")
        }
    }

    @Test func sqliteErrorsHaveNoSQLState() throws {
        let db = try DBBDatabase.inMemory()
        let error = try #require(#expect(throws: DBBError.self) { try db.execute("SELECT * FROM missing") })
        #expect(error.kind == .sqlite)
        #expect(error.sqlState == nil)
        let unreachable = DBBError.server(
            sqlState: nil, extendedCode: DBBError.cannotOpen.rawValue, message: "could not connect")
        #expect(unreachable.description == "database server error: could not connect")
    }
}
