import DBBSQL
import DBBSchema
import Foundation
import Testing

/// The statements migrations run, as text, without a database: the record table's, renames and drops, a
/// reference's move between its join table and a column, and SQLite's table rebuild.
@Suite struct DBBMigrationStatementsTests {
    @Test func theRecordTableIsCreatedWrittenAndReadInTheDialect() {
        #expect(
            DBBMigrationStatements.createRecordTableSQL(.sqlite)
                == "CREATE TABLE IF NOT EXISTS DBBMigrations (id Integer PRIMARY KEY AUTOINCREMENT, name Text NOT NULL "
                + "UNIQUE, appliedTime Real, checksum Text)")
        #expect(
            DBBMigrationStatements.insertRecordSQL(.sqlite)
                == "INSERT INTO DBBMigrations (name, appliedTime, checksum) VALUES (?, ?, ?)")
        #expect(
            DBBMigrationStatements.selectRecordsSQL(.sqlite)
                == "SELECT name, appliedTime, checksum FROM DBBMigrations ORDER BY id")
    }

    @Test func renamesAndDropsQuoteNamesThatNeedIt() {
        #expect(DBBMigrationStatements.dropTableSQL("Book_tags") == "DROP TABLE Book_tags")
        #expect(DBBMigrationStatements.dropIndexSQL("order") == #"DROP INDEX "order""#)
        #expect(DBBMigrationStatements.dropSQL("trigger", named: "t1") == "DROP TRIGGER t1")
        #expect(DBBMigrationStatements.renameTableSQL("Book", to: "Novel") == "ALTER TABLE Book RENAME TO Novel")
        #expect(
            DBBMigrationStatements.renameColumnSQL("year", to: "published", in: "Book")
                == "ALTER TABLE Book RENAME COLUMN year TO published")
        #expect(
            DBBMigrationStatements.holdsValuesSQL("year", in: "Book")
                == "SELECT count(*) FROM (SELECT 1 FROM Book WHERE year IS NOT NULL LIMIT 1)")
    }

    @Test func aReferenceMovesBetweenItsJoinTableAndAColumn() {
        let join = DBBMigrationStatements.referenceJoinTable("lead", of: "Team", dialect: .sqlite)
        #expect(join.tableName == "Team_lead" && join.ownerColumn == "Team_ID" && join.sqlType == "Integer")
        #expect(
            DBBMigrationStatements.ownerWithSeveralRowsSQL(join)
                == "SELECT 1 FROM Team_lead GROUP BY Team_ID HAVING count(*) > 1 LIMIT 1")
        #expect(
            DBBMigrationStatements.addColumnSQL("lead", sqlType: "Integer", to: "Team", dialect: .sqlite)
                == "ALTER TABLE Team ADD COLUMN lead Integer")
        #expect(
            DBBMigrationStatements.copyJoinValuesSQL(join, into: "Team", idColumn: "id")
                == "UPDATE Team SET lead = (SELECT j.lead FROM Team_lead j WHERE j.Team_ID = Team.id)")
        #expect(
            DBBMigrationStatements.copyColumnValuesSQL(join, from: "Team", idColumn: "id")
                == "INSERT INTO Team_lead (Team_ID, lead) SELECT id, lead FROM Team WHERE lead IS NOT NULL ORDER BY id")
    }

    @Test func aRebuiltTableGetsTheRowsAndIndexesOfTheOldOne() {
        #expect(
            DBBMigrationStatements.copyRowsSQL(
                from: "t", into: "dbb_rebuild_t", columns: ["a", "order"], keepingRowid: true)
                == #"INSERT INTO dbb_rebuild_t (rowid, a, "order") SELECT rowid, a, "order" FROM t"#)
        #expect(
            DBBMigrationStatements.renamedIndexSQL(
                #"CREATE INDEX "Book_year" ON Book (year)"#, from: "book_year", to: "Book_published")
                == "CREATE INDEX Book_published ON Book (year)")
        #expect(DBBMigrationStatements.renamedIndexSQL("CREATE INDEX a ON t (x)", from: "b", to: "c") == nil)
        #expect(DBBMigrationStatements.checkViewSQL("v") == "SELECT * FROM v LIMIT 0")
        #expect(
            DBBMigrationStatements.selectValuesByRowidSQL("year", of: "Book")
                == "SELECT rowid, year FROM Book WHERE year IS NOT NULL")
        #expect(
            DBBMigrationStatements.updateValueByRowidSQL("year", of: "dbb_rebuild_Book")
                == "UPDATE dbb_rebuild_Book SET year = ? WHERE rowid = ?")
    }

    @Test func aTableIsConvertedBetweenTheLayouts() throws {
        var lean = try DBBTableDefinition(
            sql: "CREATE TABLE t (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, modifiedTime Real, a Text)")
        try lean.convertLayout(lean: true, idColumn: "id", existingColumns: ["id", "createdtime", "modifiedtime", "a"])
        #expect(lean.createSQL(tableName: "t") == "CREATE TABLE t (id Integer PRIMARY KEY, a Text)")
        var full = try DBBTableDefinition(sql: "CREATE TABLE t (id Integer PRIMARY KEY, a Text)")
        try full.convertLayout(lean: false, idColumn: "id", existingColumns: ["id", "a"])
        #expect(
            full.createSQL(tableName: "t")
                == "CREATE TABLE t (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, modifiedTime Real, a Text)")
    }
}
