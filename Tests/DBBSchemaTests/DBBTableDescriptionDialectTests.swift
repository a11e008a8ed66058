import DBBSQL
import DBBSchema
import Foundation
import Testing

/// One description of a class gives the statements of its dialect's engine; SQLite's are DBBBuilder's layout, with
/// id lists bound as JSON arrays. (PostgreSQL's statements are tested with the `DBBPostgres` module, which defines
/// its dialect.)
@Suite struct DBBTableDescriptionDialectTests {
    static func project(_ dialect: DBBSQLDialect) throws -> DBBTableDescription {
        var table = try DBBTableDescription(
            tableName: "Project", properties: Project.mapping, indexer: DBBIndexer(columnsToIndex: ["name"]))
        table.dialect = dialect
        return table
    }

    @Test func sqliteBindsIDListsAsJSONArrays() {
        #expect(DBBSQLDialect.sqlite.idListArgument([3, 1, -2]) == .text("[3,1,-2]"))
        #expect(DBBSQLDialect.sqlite.idListArgument([]) == .text("[]"))
        #expect(
            DBBSQLDialect.sqlite.idListArgument([Int64.min, 0, Int64.max]) == .text("[\(Int64.min),0,\(Int64.max)]"))
    }

    @Test func anExistingColumnOnSQLiteMatchesWhateverTheCaseOfItsName() throws {
        let existing = [
            DBBColumnInfo(
                name: "id", declaredType: "INTEGER", isNotNull: true, defaultValueSQL: nil, primaryKeyIndex: 1),
            DBBColumnInfo(
                name: "createdTime", declaredType: "REAL", isNotNull: false, defaultValueSQL: nil, primaryKeyIndex: 0),
            DBBColumnInfo(
                name: "modifiedTime", declaredType: "REAL", isNotNull: false, defaultValueSQL: nil, primaryKeyIndex: 0),
            DBBColumnInfo(
                name: "itemname", declaredType: "TEXT", isNotNull: false, defaultValueSQL: nil, primaryKeyIndex: 0),
        ]
        let sqlite = try Self.project(.sqlite).alterStatements(existing: existing)
        #expect(!sqlite.contains { $0.contains("itemName") })
    }
}
