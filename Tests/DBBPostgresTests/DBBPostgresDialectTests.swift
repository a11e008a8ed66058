import DBBPostgres
import DBBSQL
import Foundation
import Testing

/// PostgreSQL's dialect: numbered placeholders, every name quoted, the server's column types and id lists as
/// arrays. SQL text only: no server is needed.
@Suite struct DBBPostgresDialectTests {
    @Test func postgresNumbersPlaceholdersInOrderOutsideLiteralsNamesAndComments() {
        let postgres = DBBSQLDialect.postgres
        #expect(
            postgres.numberingPlaceholders("SELECT a FROM t WHERE b > ? AND c = ?")
                == "SELECT a FROM t WHERE b > $1 AND c = $2")
        #expect(
            postgres.numberingPlaceholders(#"SELECT '?', "a?" FROM t WHERE x = ? -- why?"# + "\nAND y = ?")
                == #"SELECT '?', "a?" FROM t WHERE x = $1 -- why?"# + "\nAND y = $2")
        #expect(postgres.numberingPlaceholders("SELECT 'it''s ?' WHERE x = ?") == "SELECT 'it''s ?' WHERE x = $1")
        #expect(
            postgres.numberingPlaceholders("SELECT /* ? */ ? , $$ ? $$, $tag$ ? $tag$, ?")
                == "SELECT /* ? */ $1 , $$ ? $$, $tag$ ? $tag$, $2")
        #expect(postgres.numberingPlaceholders("SELECT 1") == "SELECT 1")
        // A `$` inside a name is part of it, not the start of a dollar-quoted string.
        #expect(postgres.numberingPlaceholders("SELECT a$b$c FROM t WHERE x = ?") == "SELECT a$b$c FROM t WHERE x = $1")
        // An unterminated literal is left for the server to report.
        #expect(postgres.numberingPlaceholders("SELECT '? WHERE x = ?") == "SELECT '? WHERE x = ?")
    }

    @Test func sqliteKeepsPlaceholders() {
        let sqlite = DBBSQLDialect.sqlite
        #expect(sqlite.numberingPlaceholders("SELECT ? FROM t WHERE '?' = ?") == "SELECT ? FROM t WHERE '?' = ?")
    }

    @Test func postgresQuotesEveryNameAndMapsTypes() {
        let postgres = DBBSQLDialect.postgres
        #expect(postgres.identifier("Project") == #""Project""#)
        #expect(postgres.identifier(#"a"b"#) == #""a""b""#)
        #expect(postgres.unlimited == "ALL")
        #expect(
            ["Integer", "Boolean", "Real", "DateTimeStamp", "Text", "BLOB"].map(postgres.columnType)
                == ["bigint", "bigint", "double precision", "double precision", "text", "bytea"])
        #expect(postgres.idListCondition(#""id""#) == #""id" = ANY(?::bigint[])"#)
    }
}
