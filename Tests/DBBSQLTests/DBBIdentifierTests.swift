import DBBSQL
import Testing

@Suite struct DBBIdentifierTests {
    @Test func plainNamesStayAsTheyAreAndOddOnesAreQuoted() {
        #expect(DBBIdentifier.sql("Project") == "Project")
        #expect(DBBIdentifier.sql("_private1") == "_private1")
        #expect(DBBIdentifier.sql("Project_ID") == "Project_ID")
        #expect(DBBIdentifier.sql("order") == "\"order\"")
        #expect(DBBIdentifier.sql("Select") == "\"Select\"")
        #expect(DBBIdentifier.sql("my table") == "\"my table\"")
        #expect(DBBIdentifier.sql("1st") == "\"1st\"")
        #expect(DBBIdentifier.sql("a\"b") == "\"a\"\"b\"")
        #expect(DBBIdentifier.sql("naïve") == "\"naïve\"")
        #expect(DBBIdentifier.sql("") == "\"\"")
    }

    @Test func quotingAlwaysQuotesAndDoublesQuotes() {
        #expect(DBBDatabase.quoteIdentifier("Project") == "\"Project\"")
        #expect(DBBDatabase.quoteIdentifier("my \"table\"") == "\"my \"\"table\"\"\"")
        #expect(DBBDatabase.quoteIdentifier("") == "\"\"")
    }

    @Test func keywordsAreThoseOfSQLite() {
        #expect(DBBDatabase.isKeyword("SELECT"))
        #expect(DBBDatabase.isKeyword("order"))
        #expect(DBBDatabase.isKeyword("Group"))
        #expect(!DBBDatabase.isKeyword("Project"))
        #expect(!DBBDatabase.isKeyword("select1"))
    }

    @Test(arguments: DatabaseKind.allCases)
    func aQuotedNameNamesTheSameTableInSQLite(kind: DatabaseKind) throws {
        try withDatabase(kind) { db in
            for name in ["order", "my \"odd\" table", "naïve", "Plain"] {
                try db.execute("CREATE TABLE \(DBBIdentifier.sql(name)) (\(DBBIdentifier.sql("group")) TEXT)")
                try db.execute("INSERT INTO \(DBBDatabase.quoteIdentifier(name)) VALUES ('x')")
                #expect(try db.fetchValue(String.self, "SELECT \"group\" FROM \(DBBIdentifier.sql(name))") == "x")
            }
            #expect(try db.tableExists("my \"odd\" table"))
            #expect(try db.tableExists("naïve"))
        }
    }
}
