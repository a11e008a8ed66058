import DBBSQL
import Foundation
import Testing

/// The SQL SQLite takes: placeholders and plain names as written (PostgreSQL's dialect is tested with the
/// `DBBPostgres` module, which defines it).
@Suite struct DBBSQLDialectTests {
    @Test func sqliteKeepsPlainNames() {
        let sqlite = DBBSQLDialect.sqlite
        #expect(sqlite.identifier("Project") == "Project")
        #expect(sqlite.identifier("order") == #""order""#)
        #expect(sqlite.unlimited == "-1")
        #expect(sqlite.columnType("DateTimeStamp") == "DateTimeStamp")
    }
}
