import DBBSQL
import DBBSchema
import Testing

@Suite struct DBBIndexerTests {
    @Test func columnsToIndex() {
        let indexer = DBBIndexer(columnsToIndex: ["lastName", "firstName"])
        #expect(indexer.columnsToIndex == ["lastName", "firstName"])
        #expect(!indexer.unique)
        #expect(DBBIndexer(columnsToIndex: ["name"], unique: true).unique)
    }

    @Test func readmeColumnNamesLabel() {
        // The Swift DBBBuilder README writes `DBBIndexer(columnNames: ["name"])`.
        #expect(DBBIndexer(columnNames: ["name"]) == DBBIndexer(columnsToIndex: ["name"]))
        #expect(
            DBBIndexer(columnNames: ["a", "b"], unique: true) == DBBIndexer(columnsToIndex: ["a", "b"], unique: true))
        #expect(DBBIndexer(columnNames: ["a", "b"]) != DBBIndexer(columnsToIndex: ["b", "a"]))
    }

    @Test func columnAttributes() {
        #expect(ColumnAttribute.notNull == "NOT NULL")
        #expect(ColumnAttribute.unique == "UNIQUE")
        #expect(ColumnAttributes.notNull == ColumnAttribute.notNull)
        #expect(ColumnAttributes.unique == ColumnAttribute.unique)
    }

    @Test func attributesFollowTheColumnType() throws {
        let table = try DBBTableDescription(
            tableName: "Person", properties: ["firstName": .init(\Person.firstName), "age": .init(\Person.age)],
            attributes: ["firstName": ColumnAttributes.notNull, "age": ColumnAttribute.unique])
        #expect(
            table.createTableSQL
                == "CREATE TABLE IF NOT EXISTS Person (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, "
                + "modifiedTime Real, age Integer UNIQUE, firstName Text NOT NULL)")
    }

    @Test func cascadingDeletionAddsNoSQL() throws {
        let plain = try DBBTableDescription(
            tableName: "Everything", properties: ["owners": .init(\Everything.owners), "text": .init(\Everything.text)])
        let cascading = try DBBTableDescription(
            tableName: "Everything",
            properties: ["owners": .init(\Everything.owners), "text": .init(\Everything.text)],
            attributes: ["owners": ColumnAttribute.cascadingDeletion, "text": ColumnAttribute.cascadingDeletion])
        #expect(cascading.creationStatements == plain.creationStatements)
    }

    @Test func indexUsesColumnNamesRunTogether() throws {
        let table = try DBBTableDescription(
            tableName: "Person", properties: Person.mapping,
            indexer: DBBIndexer(columnsToIndex: ["lastName", "firstName"], unique: true))
        #expect(table.indexName == "Person_lastNamefirstName")
        #expect(
            table.createIndexSQL
                == "CREATE UNIQUE INDEX IF NOT EXISTS Person_lastNamefirstName ON Person (lastName, firstName)")

        let renamed = try DBBTableDescription(
            tableName: "Project", properties: Project.mapping, indexer: DBBIndexer(columnNames: ["name"]))
        #expect(renamed.createIndexSQL == "CREATE INDEX IF NOT EXISTS Project_itemName ON Project (itemName)")

        let timestamps = try DBBTableDescription(
            tableName: "Project", properties: Project.mapping, indexer: DBBIndexer(columnsToIndex: ["createdTime"]))
        #expect(timestamps.createIndexSQL == "CREATE INDEX IF NOT EXISTS Project_createdTime ON Project (createdTime)")

        let none = try DBBTableDescription(tableName: "Project", properties: Project.mapping)
        #expect(none.createIndexSQL == nil)
        #expect(none.indexName == nil)
    }

    @Test(arguments: ["nope", "tags", "projectLead"])
    func indexOnSomethingThatIsNotAColumnIsAnError(property: String) {
        let error = #expect(throws: DBBError.self) {
            try DBBTableDescription(
                tableName: "Project", properties: Project.mapping, indexer: DBBIndexer(columnsToIndex: [property]))
        }
        #expect(error?.resultCode == .misuse)
        #expect(error?.message == "the indexer names \(property), which is not a mapped column of Project")
    }
}
