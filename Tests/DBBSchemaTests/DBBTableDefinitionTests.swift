import DBBSQL
import DBBSchema
import Testing

@Suite struct DBBTableDefinitionTests {
    static let sql = """
        CREATE TABLE "Order Line" (
            id INTEGER PRIMARY KEY AUTOINCREMENT,
            "unit price" DECIMAL(10, 2) NOT NULL DEFAULT 0, -- a comment, with a comma
            note Text COLLATE NOCASE CHECK (note <> 'a,b'),
            [qty] Integer,
            product Integer REFERENCES Product(id),
            UNIQUE (product, qty)
        ) STRICT
        """

    @Test func splitsColumnsAndConstraintsKeepingCommasInsideGroupsAndStrings() throws {
        let definition = try DBBTableDefinition(sql: Self.sql)
        #expect(definition.columnNames == ["id", "unit price", "note", "qty", "product"])
        #expect(definition.items.count == 6)
        #expect(definition.items[5].columnName == nil)
        #expect(definition.options == "STRICT")
    }

    @Test func changesATypeKeepingTheConstraints() throws {
        var definition = try DBBTableDefinition(sql: Self.sql)
        try definition.setType(of: "unit price", to: "Real")
        try definition.setType(of: "qty", to: "Text")
        #expect(
            definition.createSQL(tableName: "T")
                == "CREATE TABLE T (id INTEGER PRIMARY KEY AUTOINCREMENT, \"unit price\" Real NOT NULL DEFAULT 0, "
                + "note Text COLLATE NOCASE CHECK (note <> 'a,b'), [qty] Text, product Integer REFERENCES Product (id), "
                + "UNIQUE (product, qty)) STRICT")
    }

    @Test func removesAColumnUnlessATableConstraintNamesIt() throws {
        var definition = try DBBTableDefinition(sql: Self.sql)
        try definition.removeColumn("note")
        #expect(definition.columnNames == ["id", "unit price", "qty", "product"])
        #expect(throws: DBBError.self) { try definition.removeColumn("qty") }
        #expect(throws: DBBError.self) { try definition.removeColumn("missing") }
        #expect(throws: DBBError.self) { try DBBTableDefinition(sql: "CREATE TABLE T AS SELECT 1") }
    }

    @Test func findsNamesAsWholeWordsOnly() {
        #expect(DBBTableDefinition.mentions("CREATE INDEX Book_year ON Book (year)", "year"))
        #expect(!DBBTableDefinition.mentions("CREATE INDEX Book_year ON Book (published)", "year"))
        #expect(DBBTableDefinition.mentions("SELECT b.\"year\" FROM Book b", "year"))
    }
}
