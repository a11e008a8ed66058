import DBBSQL
import DBBSchema
import Testing

/// Existing date columns (NUMERIC affinity by SQLite's rules) that hold text may be mapped to `String`.
@Suite struct DBBTableDescriptionDateColumnTests {
    final class Row {
        var text = ""
        var number = 0.0
    }

    static func alter(declared: String, property: DBBPropertyPersistence) throws -> [String] {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE T (id INTEGER PRIMARY KEY, value \(declared))")
        let table = try DBBTableDescription(tableName: "T", includesTimestamps: false, properties: ["value": property])
        return try table.alterStatements(existing: try db.columns(in: "T"))
    }

    @Test(arguments: ["DATETIME", "DATE", "TIMESTAMP", "datetime", "TIME"])
    func textMapsOntoADateColumn(declared: String) throws {
        #expect(try Self.alter(declared: declared, property: .init(\Row.text)) == [])
        #expect(try Self.alter(declared: declared, property: .init(\Row.number)) == [])
    }

    @Test(arguments: ["NUMERIC(10,2)", "DECIMAL", "BOOLEAN", "INTEGER", "REAL"])
    func textStillConflictsWithOtherNumericColumns(declared: String) throws {
        let error = #expect(throws: DBBError.self) { try Self.alter(declared: declared, property: .init(\Row.text)) }
        #expect(error?.resultCode == .mismatch)
        #expect(error?.message == "column T.value is declared \(declared) but property value stores Text")
    }
}
