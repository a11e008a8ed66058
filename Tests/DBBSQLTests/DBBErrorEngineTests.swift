import DBBSQL
import Foundation
import Testing

/// An error names the engine that reported it, and none when the library found the problem itself.
@Suite("Errors named by their engine")
struct DBBErrorEngineTests {
    @Test("SQLite's errors say SQLite, a server's say its name, the library's own say no engine")
    func descriptionsNameTheEngine() throws {
        let db = try DBBDatabase.inMemory()
        let sqlite = try #require(#expect(throws: DBBError.self) { try db.execute("SELECT * FROM missing") })
        #expect(sqlite.engine == "SQLite")
        #expect(sqlite.description.hasPrefix("SQLite error 1: no such table: missing"))

        let server = DBBError.server(
            sqlState: "23505", extendedCode: DBBError.constraintUnique.rawValue, message: "duplicate key",
            engine: "PostgreSQL")
        #expect(server.description == "PostgreSQL error (SQLSTATE 23505): duplicate key")
        #expect(server.engine == "PostgreSQL")
        #expect(DBBError.constraintUnique.matches(server))

        let decoding = DBBError.library(
            .mismatch, message: #"the stored value "bogus" is not a case of Status"#, context: "loading Task")
        #expect(decoding.kind == .library)
        #expect(decoding.engine == nil)
        #expect(
            decoding.description
                == #"DBBBuilder error: the stored value "bogus" is not a case of Status — while loading Task"#)
        // The same code patterns catch it as before.
        #expect(DBBError.Code(rawValue: DBBError.ResultCode.mismatch.rawValue).matches(decoding))
        #expect(decoding.resultCode == .mismatch)

        #expect(DBBError.misuse("x").engine == nil)
        #expect(DBBError.rowDeleted("gone").engine == nil)
    }

    @Test("a value SQLite cannot hold is the library's own error, not SQLite's")
    func valuesTheLibraryRefuses() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE t (v REAL, n INTEGER)")
        let nan = try #require(
            #expect(throws: DBBError.self) { try db.execute("INSERT INTO t (v) VALUES (?)", Double.nan) })
        #expect(nan.kind == .library)
        #expect(nan.resultCode == .mismatch)
        #expect(nan.description.hasPrefix("DBBBuilder error: NaN cannot be stored"), "\(nan)")
        try db.execute("INSERT INTO t (n) VALUES ('text')")
        let read = try #require(
            #expect(throws: DBBError.self) { _ = try db.fetchOne(Int.self, "SELECT n FROM t WHERE n IS NOT NULL") })
        #expect(read.kind == .library, "\(read)")
        #expect(!read.description.contains("SQLite error"), "\(read)")
    }
}
