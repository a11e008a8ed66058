import DBBSQL
import DBBSchema
import Foundation
import Testing

/// The expected text below is written from DESIGN §3, not copied from output: `id Integer PRIMARY KEY
/// AUTOINCREMENT`, `createdTime Real`, `modifiedTime Real`, then the scalar columns (ordered by property
/// name), each join table `<Table>_<column>(id …, <Table>_ID Integer, <column> <type>)` with its index
/// `<Table>_<property>_idx`, and the indexer's index `<Table>_<columns run together>`.
@Suite struct DBBTableDescriptionDDLTests {
    static func joinSQL(_ table: String, _ column: String, _ type: String, property: String? = nil) -> [String] {
        [
            "CREATE TABLE IF NOT EXISTS \(table)_\(column) (id Integer PRIMARY KEY AUTOINCREMENT, \(table)_ID Integer, "
                + "\(column) \(type))",
            "CREATE INDEX IF NOT EXISTS \(table)_\(property ?? column)_idx ON \(table)_\(column) (\(table)_ID)",
        ]
    }

    @Test func projectLayout() throws {
        let table = try DBBTableDescription(
            tableName: "Project", properties: Project.mapping, indexer: DBBIndexer(columnsToIndex: ["name"]))
        // projectLead and subProject are references: join tables, not columns of Project.
        let expected =
            [
                "CREATE TABLE IF NOT EXISTS Project (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, "
                    + "modifiedTime Real, budget Real, code Text, itemName Text, startDate Real)"
            ]
            + Self.joinSQL("Project", "meetings", "Integer") + Self.joinSQL("Project", "projectLead", "Integer")
            + Self.joinSQL("Project", "subProject", "Integer") + Self.joinSQL("Project", "tags", "Text")
            + ["CREATE INDEX IF NOT EXISTS Project_itemName ON Project (itemName)"]
        #expect(table.creationStatements == expected)
        #expect(table.joinTables.map(\.ownerColumn) == Array(repeating: "Project_ID", count: 4))
    }

    @Test func everyJoinedType() throws {
        let table = try DBBTableDescription(
            tableName: "Person", properties: Person.mapping,
            indexer: DBBIndexer(columnsToIndex: ["lastName", "firstName"]))
        let expected =
            [
                "CREATE TABLE IF NOT EXISTS Person (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, "
                    + "modifiedTime Real, age Integer, firstName Text, isMember Boolean, lastName Text)"
            ]
            + Self.joinSQL("Person", "answers", "Boolean") + Self.joinSQL("Person", "nicknames", "Text")
            + Self.joinSQL("Person", "photo", "BLOB") + Self.joinSQL("Person", "scores", "Real")
            + Self.joinSQL("Person", "visits", "DateTimeStamp")
            + ["CREATE INDEX IF NOT EXISTS Person_lastNamefirstName ON Person (lastName, firstName)"]
        #expect(table.creationStatements == expected)
    }

    @Test func joinTableTakesTheColumnNameAndItsIndexThePropertyName() throws {
        let table = try DBBTableDescription(
            tableName: "Project", properties: ["tags": .init(\Project.tags, columnName: "labels")])
        #expect(
            Array(table.creationStatements.dropFirst()) == Self.joinSQL("Project", "labels", "Text", property: "tags"))
    }

    @Test func existingTableWithoutTimestamps() throws {
        let table = try DBBTableDescription(
            tableName: "Artist", idColumn: "ArtistId", includesTimestamps: false,
            properties: ["name": .init(\Owner.name, columnName: "Name")])
        #expect(
            table.createTableSQL
                == "CREATE TABLE IF NOT EXISTS Artist (ArtistId Integer PRIMARY KEY AUTOINCREMENT, Name Text)")
    }

    @Test func statementsRunInSQLite() throws {
        let db = try DBBDatabase.inMemory()
        let tables = [
            try DBBTableDescription(
                tableName: "Project", properties: Project.mapping, indexer: DBBIndexer(columnsToIndex: ["name"])),
            try DBBTableDescription(
                tableName: "Person", properties: Person.mapping,
                indexer: DBBIndexer(columnsToIndex: ["age"], unique: true)),
        ]
        for statement in tables.flatMap(\.creationStatements) { try db.execute(statement) }
        // Running them again changes nothing (IF NOT EXISTS).
        for statement in tables.flatMap(\.creationStatements) { try db.execute(statement) }
        #expect(
            try db.tableNames() == [
                "Person", "Person_answers", "Person_nicknames", "Person_photo", "Person_scores", "Person_visits",
                "Project", "Project_meetings", "Project_projectLead", "Project_subProject", "Project_tags",
            ])
        // PRAGMA table_info reports SQLite's own spelling of the standard type names (INTEGER, REAL, TEXT).
        #expect(
            try db.columns(in: "Person_visits").map { "\($0.name) \($0.declaredType)" } == [
                "id INTEGER", "Person_ID INTEGER", "visits DateTimeStamp",
            ])
        #expect(try db.indexNames(in: "Project") == ["Project_itemName"])
        #expect(try db.indexNames(in: "Person") == ["Person_age"])
        #expect(try db.indexNames(in: "Project_tags") == ["Project_tags_idx"])
        #expect(
            try db.fetchValue(String.self, "SELECT sql FROM sqlite_master WHERE name = 'Person_age'")
                == "CREATE UNIQUE INDEX Person_age ON Person (age)")
    }

    // MARK: Quoting

    @Test func keywordTableAndColumns() throws {
        let table = try DBBTableDescription(
            tableName: "Order",
            properties: ["group": .init(\Person.firstName), "select": .init(\Person.nicknames)],
            indexer: DBBIndexer(columnsToIndex: ["group"]))
        #expect(
            table.creationStatements == [
                "CREATE TABLE IF NOT EXISTS \"Order\" (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, "
                    + "modifiedTime Real, \"group\" Text)",
                "CREATE TABLE IF NOT EXISTS Order_select (id Integer PRIMARY KEY AUTOINCREMENT, Order_ID Integer, "
                    + "\"select\" Text)",
                "CREATE INDEX IF NOT EXISTS Order_select_idx ON Order_select (Order_ID)",
                "CREATE INDEX IF NOT EXISTS Order_group ON \"Order\" (\"group\")",
            ])
        let spaced = try DBBTableDescription(tableName: "My Table", properties: ["tags": .init(\Person.nicknames)])
        #expect(
            spaced.creationStatements == [
                "CREATE TABLE IF NOT EXISTS \"My Table\" (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, "
                    + "modifiedTime Real)",
                "CREATE TABLE IF NOT EXISTS \"My Table_tags\" (id Integer PRIMARY KEY AUTOINCREMENT, "
                    + "\"My Table_ID\" Integer, tags Text)",
                "CREATE INDEX IF NOT EXISTS \"My Table_tags_idx\" ON \"My Table_tags\" (\"My Table_ID\")",
            ])
        let db = try DBBDatabase.inMemory()
        for statement in table.creationStatements + spaced.creationStatements { try db.execute(statement) }
        #expect(try db.tableNames() == ["My Table", "My Table_tags", "Order", "Order_select"])
        #expect(try db.columns(in: "Order").map(\.name) == ["id", "createdTime", "modifiedTime", "group"])
    }

    @Test func twoPropertiesOnOneColumnIsAnError() {
        let error = #expect(throws: DBBError.self) {
            try DBBTableDescription(
                tableName: "Person",
                properties: [
                    "a": .init(\Person.firstName, columnName: "LASTNAME"), "lastName": .init(\Person.lastName),
                ])
        }
        #expect(error?.resultCode == .misuse)
        #expect(error?.message == "property lastName maps to column lastName, which another property already uses")
        #expect(throws: DBBError.self) {
            try DBBTableDescription(
                tableName: "Person", properties: ["age": .init(\Person.age, columnName: "createdTime")])
        }
    }

    // MARK: ALTER TABLE

    static func columns(_ sql: String, table: String) throws -> [DBBColumnInfo] {
        let db = try DBBDatabase.inMemory()
        try db.execute(sql)
        return try db.columns(in: table)
    }

    @Test func alterAddsOnlyMissingColumnsWithTheirTypes() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute(
            "CREATE TABLE Person (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, modifiedTime Real, "
                + "AGE Integer, firstName Text, extra Text)")
        let table = try DBBTableDescription(
            tableName: "Person", properties: Person.mapping, attributes: ["lastName": ColumnAttribute.notNull])
        let statements = try table.alterStatements(existing: try db.columns(in: "Person"))
        // NOT NULL cannot be added to existing rows without a default, so ALTER adds the type alone.
        #expect(
            statements == [
                "ALTER TABLE Person ADD COLUMN isMember Boolean", "ALTER TABLE Person ADD COLUMN lastName Text",
            ])
        for statement in statements { try db.execute(statement) }
        #expect(
            try db.columns(in: "Person").map(\.name) == [
                "id", "createdTime", "modifiedTime", "AGE", "firstName", "extra", "isMember", "lastName",
            ])
        #expect(try table.alterStatements(existing: try db.columns(in: "Person")) == [])
    }

    @Test func alterAddsMissingTimestampsAndForeignKeyColumns() throws {
        let existing = try Self.columns("CREATE TABLE Legacy (id INTEGER PRIMARY KEY, name TEXT)", table: "Legacy")
        let table = try DBBTableDescription(
            tableName: "Legacy",
            properties: [
                "name": .init(\Owner.name), "owner": .init(\Everything.owner, columnName: "OwnerId", foreignKey: true),
            ])
        #expect(
            try table.alterStatements(existing: existing) == [
                "ALTER TABLE Legacy ADD COLUMN createdTime Real", "ALTER TABLE Legacy ADD COLUMN modifiedTime Real",
                "ALTER TABLE Legacy ADD COLUMN OwnerId Integer",
            ])
    }

    @Test func alterQuotesKeywords() throws {
        let existing = try Self.columns("CREATE TABLE \"Order\" (id INTEGER PRIMARY KEY)", table: "Order")
        let table = try DBBTableDescription(
            tableName: "Order", includesTimestamps: false, properties: ["group": .init(\Person.age)])
        #expect(try table.alterStatements(existing: existing) == ["ALTER TABLE \"Order\" ADD COLUMN \"group\" Integer"])
    }

    @Test func missingIdColumnIsAnError() throws {
        let existing = try Self.columns(
            "CREATE TABLE Person (personId INTEGER PRIMARY KEY, age INTEGER)", table: "Person")
        let table = try DBBTableDescription(tableName: "Person", properties: ["age": .init(\Person.age)])
        let error = #expect(throws: DBBError.self) { try table.alterStatements(existing: existing) }
        #expect(error?.message == "table Person has no id column id")
    }

    @Test(arguments: ["rowid", "_rowid_", "OID"])
    func theRowidCanBeTheIdOfATableWithoutAnIntegerKey(idColumn: String) throws {
        let existing = try Self.columns(
            "CREATE TABLE Person (code TEXT PRIMARY KEY, age INTEGER)", table: "Person")
        let table = try DBBTableDescription(
            tableName: "Person", idColumn: idColumn, includesTimestamps: false, properties: ["age": .init(\Person.age)])
        #expect(try table.alterStatements(existing: existing) == [])
    }

    /// Existing declared type, mapped property, whether they conflict.
    static let affinityCases: [(declared: String, property: DBBPropertyPersistence, conflicts: Bool)] = [
        ("TEXT", .init(\Person.age), true),  // Text vs Integer
        ("NVARCHAR(120)", .init(\Everything.double), true),  // Text vs Real
        ("CLOB", .init(\Person.isMember), true),  // Text vs Boolean (NUMERIC)
        ("INTEGER", .init(\Person.firstName), true),  // Integer vs Text
        ("Real", .init(\Everything.date), false),
        ("NUMERIC(10,2)", .init(\Everything.double), false),  // NUMERIC vs Real
        ("DECIMAL", .init(\Everything.float), false),
        ("INTEGER", .init(\Everything.double), false),
        ("BIGINT", .init(\Everything.uint64), false),
        ("", .init(\Person.firstName), false),  // no type: BLOB affinity stores anything
        ("", .init(\Person.age), false),
        ("BLOB", .init(\Person.firstName), false),
        ("VARCHAR(20)", .init(\Person.firstName), false),
    ]

    @Test func affinityConflicts() throws {
        for entry in Self.affinityCases {
            let existing = try Self.columns(
                "CREATE TABLE T (id INTEGER PRIMARY KEY, value \(entry.declared))", table: "T")
            let table = try DBBTableDescription(
                tableName: "T", includesTimestamps: false, properties: ["value": entry.property])
            if entry.conflicts {
                let error = #expect(throws: DBBError.self, "\(entry.declared)") {
                    try table.alterStatements(existing: existing)
                }
                #expect(error?.resultCode == .mismatch)
                #expect(
                    error?.message
                        == "column T.value is declared \(entry.declared) but property value stores "
                        + "\(entry.property.storageType.columnSQLType ?? "")")
            } else {
                #expect(try table.alterStatements(existing: existing) == [], "\(entry.declared)")
            }
        }
    }

    @Test func affinityRules() {
        let rules: [(String, DBBAffinity)] = [
            ("INTEGER", .integer), ("Integer", .integer), ("BIGINT", .integer), ("FLOATING POINT", .integer),
            ("NVARCHAR(120)", .text), ("Text", .text), ("CLOB", .text), ("BLOB", .blob), ("", .blob),
            ("Real", .real), ("DOUBLE PRECISION", .real), ("FLOAT", .real), ("Boolean", .numeric),
            ("NUMERIC(10,2)", .numeric), ("DateTimeStamp", .numeric), ("DATETIME", .numeric),
        ]
        for (declared, affinity) in rules { #expect(DBBAffinity(declaredType: declared) == affinity, "\(declared)") }
        #expect(DBBAffinity.text.conflicts(with: .integer))
        #expect(DBBAffinity.real.conflicts(with: .text))
        #expect(DBBAffinity.numeric.conflicts(with: .text))
        #expect(!DBBAffinity.numeric.conflicts(with: .real))
        #expect(!DBBAffinity.integer.conflicts(with: .real))
        #expect(!DBBAffinity.text.conflicts(with: .text))
        #expect(!DBBAffinity.blob.conflicts(with: .text))
        #expect(!DBBAffinity.integer.conflicts(with: .blob))
    }

    @Test func joinTableAlter() throws {
        let table = try DBBTableDescription(tableName: "Person", properties: ["nicknames": .init(\Person.nicknames)])
        let join = try #require(table.joinTables.first)
        // DBBBuilder on Apple platforms wrote the owner column as `Person_id`; names compare without case.
        let apple = try Self.columns(
            "CREATE TABLE Person_nicknames (id Integer PRIMARY KEY AUTOINCREMENT, Person_id Integer, nicknames Text)",
            table: "Person_nicknames")
        #expect(try DBBTableDescription.alterJoinStatements(join, existing: apple) == [])

        let partial = try Self.columns(
            "CREATE TABLE Person_nicknames (id Integer PRIMARY KEY AUTOINCREMENT)", table: "Person_nicknames")
        #expect(
            try DBBTableDescription.alterJoinStatements(join, existing: partial) == [
                "ALTER TABLE Person_nicknames ADD COLUMN Person_ID Integer",
                "ALTER TABLE Person_nicknames ADD COLUMN nicknames Text",
            ])

        let conflicting = try Self.columns(
            "CREATE TABLE Person_nicknames (id Integer PRIMARY KEY AUTOINCREMENT, Person_ID Integer, nicknames Integer)",
            table: "Person_nicknames")
        let error = #expect(throws: DBBError.self) {
            try DBBTableDescription.alterJoinStatements(join, existing: conflicting)
        }
        #expect(
            error?.message == "column Person_nicknames.nicknames is declared INTEGER but property nicknames stores Text"
        )
    }
}
