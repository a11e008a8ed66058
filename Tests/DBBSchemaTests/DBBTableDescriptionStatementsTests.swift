import DBBSQL
import DBBSchema
import Foundation
import Testing

/// The statements the object layer runs, written from the on-disk layout (DESIGN §3): the id first, the two
/// timestamps next when the table has them, then the given columns; join tables keyed by `<Table>_ID`; rows
/// chosen by a JSON list of ids bound to `json_each(?)`. Names that need it are quoted.
@Suite struct DBBTableDescriptionStatementsTests {
    static func project() throws -> DBBTableDescription {
        try DBBTableDescription(tableName: "Project", properties: Project.mapping)
    }

    static func artist() throws -> DBBTableDescription {
        try DBBTableDescription(
            tableName: "Artist", idColumn: "ArtistId", includesTimestamps: false, properties: [:])
    }

    @Test func aSetBasedUpdateSetsItsColumnsThenModifiedTimeOnTheSelectedIDs() throws {
        #expect(
            try Self.project().updateSQL(columns: ["budget", "itemName"], idsSelectedBy: "SELECT id FROM Project")
                == "UPDATE Project SET budget = ?, itemName = ?, modifiedTime = ? WHERE id IN (SELECT id FROM Project)")
        #expect(
            try Self.artist().updateSQL(columns: ["Name"], idsSelectedBy: "SELECT ArtistId FROM Artist")
                == "UPDATE Artist SET Name = ? WHERE ArtistId IN (SELECT ArtistId FROM Artist)")
    }

    @Test func rowStatementsOfATableWithTimestamps() throws {
        let table = try Self.project()
        #expect(table.leadingColumnCount == 3)
        #expect(
            table.selectSQL(columns: ["budget", "itemName"])
                == "SELECT id, createdTime, modifiedTime, budget, itemName FROM Project")
        #expect(
            table.insertSQL(columns: ["budget", "itemName"])
                == "INSERT INTO Project (createdTime, modifiedTime, budget, itemName) VALUES (?, ?, ?, ?)")
        #expect(
            table.insertSQL(columns: ["budget"], withID: true)
                == "INSERT INTO Project (id, createdTime, modifiedTime, budget) VALUES (?, ?, ?, ?)")
        #expect(
            table.updateSQL(columns: ["budget", "itemName"])
                == "UPDATE Project SET modifiedTime = ?, budget = ?, itemName = ? WHERE id = ?")
        #expect(table.updateSQL(columns: []) == "UPDATE Project SET modifiedTime = ? WHERE id = ?")
        #expect(
            table.updateSQL(columns: ["lead"], touchesModifiedTime: false) == "UPDATE Project SET lead = ? WHERE id = ?"
        )
        #expect(table.deleteByIDListSQL == "DELETE FROM Project WHERE id IN (SELECT value FROM json_each(?))")
        #expect(table.byIDListSQL == " WHERE id IN (SELECT value FROM json_each(?))")
        #expect(table.orderByIDSQL == " ORDER BY id")
        #expect(table.allIDsSQL == "SELECT id FROM Project ORDER BY id")
        #expect(table.selectColumnSQL("leadId") == "SELECT leadId FROM Project")
        #expect(
            table.byIDsSQL(selectedBy: ["SELECT lead FROM Project_lead", "SELECT leadId FROM Project"])
                == " WHERE id IN (SELECT lead FROM Project_lead UNION ALL SELECT leadId FROM Project)")
        #expect(
            table.clearReferencesSQL(column: "leadId")
                == "UPDATE Project SET leadId = NULL WHERE leadId IN (SELECT value FROM json_each(?))")
    }

    @Test func rowStatementsOfAnExistingTableWithoutTimestamps() throws {
        let table = try Self.artist()
        #expect(table.leadingColumnCount == 1)
        #expect(table.selectSQL(columns: ["Name"]) == "SELECT ArtistId, Name FROM Artist")
        #expect(table.insertSQL(columns: ["Name"]) == "INSERT INTO Artist (Name) VALUES (?)")
        #expect(table.insertSQL(columns: []) == "INSERT INTO Artist DEFAULT VALUES")
        #expect(table.insertSQL(columns: [], withID: true) == "INSERT INTO Artist (ArtistId) VALUES (?)")
        #expect(table.updateSQL(columns: ["Name"]) == "UPDATE Artist SET Name = ? WHERE ArtistId = ?")
        // Nothing to set: no statement.
        #expect(table.updateSQL(columns: []) == nil)
        #expect(table.allIDsSQL == "SELECT ArtistId FROM Artist ORDER BY ArtistId")
    }

    @Test func namesThatAreKeywordsAreQuoted() throws {
        let table = try DBBTableDescription(tableName: "Order", includesTimestamps: false, properties: [:])
        #expect(table.selectSQL(columns: ["group"]) == #"SELECT id, "group" FROM "Order""#)
        #expect(table.updateSQL(columns: ["group"]) == #"UPDATE "Order" SET "group" = ? WHERE id = ?"#)
    }

    @Test func joinTableStatements() throws {
        let table = try Self.project()
        let tags = try #require(table.joinTables.first { $0.propertyName == "tags" })
        #expect(tags.insertSQL == "INSERT INTO Project_tags (Project_ID, tags) VALUES (?, ?)")
        #expect(tags.selectAllSQL == "SELECT Project_ID, tags FROM Project_tags ORDER BY Project_ID, id")
        #expect(
            tags.selectOwnersSQL
                == "SELECT Project_ID, tags FROM Project_tags WHERE Project_ID IN (SELECT value FROM json_each(?)) "
                + "ORDER BY Project_ID, id")
        #expect(
            tags.deleteOwnersSQL == "DELETE FROM Project_tags WHERE Project_ID IN (SELECT value FROM json_each(?))")
        let meetings = try #require(table.joinTables.first { $0.propertyName == "meetings" })
        #expect(meetings.selectValuesSQL == "SELECT meetings FROM Project_meetings")
        #expect(
            meetings.selectOwnerValuesSQL
                == "SELECT DISTINCT meetings FROM Project_meetings WHERE Project_ID IN (SELECT value FROM json_each(?))"
        )
        #expect(
            meetings.deleteValuesSQL
                == "DELETE FROM Project_meetings WHERE meetings IN (SELECT value FROM json_each(?))")
    }

    @Test func statementsRunInSQLite() throws {
        let table = try Self.project()
        let db = try DBBDatabase.inMemory()
        for statement in table.creationStatements { try db.execute(statement) }
        let columns = table.columns.map(\.name)
        try db.execute(table.insertSQL(columns: columns), 1.0, 2.0, 3.5, "C1", "Apollo", 4.0)
        let id = db.lastInsertRowID
        try #require(try db.fetchValue(Int.self, "SELECT count(*) FROM Project") == 1)
        try db.execute(try #require(table.updateSQL(columns: ["itemName"])), 5.0, "Gemini", id)
        let tags = try #require(table.joinTables.first { $0.propertyName == "tags" })
        try db.execute(tags.insertSQL, id, "space")
        let byID = table.selectSQL(columns: ["itemName"]) + table.byIDListSQL
        #expect(try db.fetchCursor(byID, "[\(id)]").map { try $0[3] as String } == ["Gemini"])
        #expect(try db.fetchCursor(byID, "[\(id + 1)]").map { try $0[3] as String } == [])
        #expect(try db.fetchCursor(tags.selectOwnersSQL, "[\(id)]").map { try $0[1] as String } == ["space"])
        try db.execute(tags.deleteOwnersSQL, "[\(id)]")
        try db.execute(table.deleteByIDListSQL, "[\(id)]")
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM Project") == 0)
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM Project_tags") == 0)
    }
}
