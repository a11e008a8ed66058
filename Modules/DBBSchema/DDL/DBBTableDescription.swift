public import DBBSQL

/// Everything needed to lay out one class on disk: its table, its join tables and its indexes.
///
/// Built from a class's persistence mapping; produces DBBBuilder's DDL as text:
///
/// ```sql
/// CREATE TABLE IF NOT EXISTS Project (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, modifiedTime Real, budget Real, code Text)
/// CREATE TABLE IF NOT EXISTS Project_tags (id Integer PRIMARY KEY AUTOINCREMENT, Project_ID Integer, tags Text)
/// CREATE INDEX IF NOT EXISTS Project_tags_idx ON Project_tags (Project_ID)
/// CREATE INDEX IF NOT EXISTS Project_name ON Project (name)
/// ```
public struct DBBTableDescription: Sendable {
    /// A scalar column (or a foreign key column) of the class's table.
    public struct Column: Sendable, Hashable {
        /// The property it maps.
        public package(set) var propertyName: String
        /// The column's name.
        public package(set) var name: String
        /// The declared SQL type (`Boolean`, `Integer`, `Real`, `Text`).
        public package(set) var sqlType: String
        /// Attributes that follow the type (`NOT NULL`, `UNIQUE`).
        public package(set) var attributes: [String]
    }

    /// A join table holding an array, an object reference or binary data.
    public struct JoinTable: Sendable, Hashable {
        /// The property it maps.
        public package(set) var propertyName: String
        /// The value column's name (the property's column name).
        public package(set) var columnName: String
        /// The join table's name: `<Table>_<column>`.
        public package(set) var tableName: String
        /// The column holding the owner's id: `<Table>_ID`.
        public package(set) var ownerColumn: String
        /// The declared SQL type of the value column.
        public package(set) var sqlType: String
        /// The index on the owner column: `<Table>_<property>_idx`.
        public package(set) var indexName: String
        /// The SQL dialect its statements are written in.
        public package(set) var dialect: DBBSQLDialect = .sqlite

        /// The join table of a property of a class's table, named as DBBBuilder's layout names it.
        ///
        /// - Parameters:
        ///   - propertyName: the property.
        ///   - columnName: the value column's name (the property's column name).
        ///   - table: the class's table.
        ///   - sqlType: the declared SQL type of the value column.
        ///   - dialect: the SQL dialect of its statements.
        package init(
            propertyName: String, columnName: String, of table: String, sqlType: String,
            dialect: DBBSQLDialect = .sqlite
        ) {
            self.propertyName = propertyName
            self.columnName = columnName
            self.tableName = "\(table)_\(columnName)"
            self.ownerColumn = "\(table)_ID"
            self.sqlType = sqlType
            self.indexName = "\(table)_\(propertyName)_idx"
            self.dialect = dialect
        }
    }

    /// The table's name.
    public package(set) var tableName: String
    /// The id column (`id` for tables DBBBuilder creates).
    public package(set) var idColumn: String
    /// Whether the table has `createdTime` and `modifiedTime` columns.
    public package(set) var includesTimestamps: Bool
    /// Whether the id column is `AUTOINCREMENT` (DBBBuilder's layout; the lean layout's is not).
    public package(set) var autoincrement = true
    /// The scalar columns, ordered by property name.
    public package(set) var columns: [Column]
    /// The join tables, ordered by property name.
    public package(set) var joinTables: [JoinTable]
    /// One index per indexer (a class chain may declare several): the indexed column names, in order, and
    /// whether the index is unique.
    public package(set) var indexes: [(columns: [String], unique: Bool)]

    /// The SQL dialect the description's statements are written in: SQLite's unless the class is registered
    /// with a manager on another engine.
    public package(set) var dialect: DBBSQLDialect = .sqlite {
        didSet {
            for index in joinTables.indices { joinTables[index].dialect = dialect }
        }
    }

    /// The names of the indexers' indexes: `<Table>_` and the column names run together.
    package var indexNames: [String] { indexes.map { tableName + "_" + $0.columns.joined() } }

    /// The name of the first indexer's index.
    package var indexName: String? { indexNames.first }

    /// Describes a class's table from its mapping.
    ///
    /// - Parameters:
    ///   - tableName: the table's name.
    ///   - idColumn: the id column's name. Default: `id`.
    ///   - includesTimestamps: whether the table has `createdTime`/`modifiedTime`. Default: `true`.
    ///   - properties: the mapping, keyed by property name.
    ///   - attributes: the class's `attributesDictionary` (property name → attribute).
    ///   - indexer: the properties to index.
    /// - Throws: `DBBError` (mismatch) when a declared `type:` differs from the property's type,
    ///   (misuse) when an indexed name is not a mapped scalar property or two properties share a column.
    public init(
        tableName: String, idColumn: String = "id", includesTimestamps: Bool = true,
        properties: [String: DBBPropertyPersistence], attributes: [String: String] = [:], indexer: DBBIndexer? = nil
    ) throws {
        try self.init(
            tableName: tableName, idColumn: idColumn, includesTimestamps: includesTimestamps, properties: properties,
            attributes: attributes, indexers: indexer.map { [$0] } ?? [])
    }

    /// Describes a class's table from its mapping, with one index per indexer (the indexers of a class chain).
    ///
    /// - Parameters:
    ///   - tableName: the table's name.
    ///   - idColumn: the id column's name. Default: `id`.
    ///   - includesTimestamps: whether the table has `createdTime`/`modifiedTime`. Default: `true`.
    ///   - properties: the mapping, keyed by property name.
    ///   - attributes: the class's `attributesDictionary` (property name → attribute).
    ///   - indexers: the indexers, in order.
    /// - Throws: `DBBError` as ``init(tableName:idColumn:includesTimestamps:properties:attributes:indexer:)``.
    public init(
        tableName: String, idColumn: String = "id", includesTimestamps: Bool = true,
        properties: [String: DBBPropertyPersistence], attributes: [String: String] = [:], indexers: [DBBIndexer]
    ) throws {
        self.tableName = tableName
        self.idColumn = idColumn
        self.includesTimestamps = includesTimestamps
        var columns: [Column] = []
        var joins: [JoinTable] = []
        var usedNames: Set<String> = [idColumn.lowercased()]
        var joinNames: Set<String> = []
        if includesTimestamps { usedNames.formUnion(["createdtime", "modifiedtime"]) }
        for (name, property) in properties.sorted(by: { $0.key < $1.key }) {
            if let declared = property.declaredTypeMismatch {
                throw DBBError.library(
                    .mismatch,
                    message: "property \(name) is declared as \(declared) but its type maps to \(property.storageType)",
                    context: "registering \(tableName)")
            }
            let columnName = property.columnName ?? name
            // Two properties on one column, or on one join table, would overwrite each other's values.
            let isColumn = property.isForeignKeyColumn || !property.storageType.isJoined
            guard (isColumn ? usedNames : joinNames).contains(columnName.lowercased()) == false else {
                throw DBBError.misuse(
                    "property \(name) maps to \(isColumn ? "column" : "join table") \(isColumn ? columnName : "\(tableName)_\(columnName)"), "
                        + "which another property already uses",
                    context: "registering \(tableName)")
            }
            if isColumn { usedNames.insert(columnName.lowercased()) } else { joinNames.insert(columnName.lowercased()) }
            let attribute = attributes[name].map { [$0] } ?? []
            let sqlAttributes = attribute.filter { $0 != ColumnAttribute.cascadingDeletion }
            if property.isForeignKeyColumn {
                columns.append(
                    Column(propertyName: name, name: columnName, sqlType: "Integer", attributes: sqlAttributes))
            } else if let sqlType = property.storageType.columnSQLType {
                columns.append(
                    Column(propertyName: name, name: columnName, sqlType: sqlType, attributes: sqlAttributes))
            } else if let sqlType = property.storageType.joinSQLType {
                joins.append(
                    JoinTable(propertyName: name, columnName: columnName, of: tableName, sqlType: sqlType))
            }
        }
        self.columns = columns
        self.joinTables = joins
        indexes = try indexers.filter { !$0.columnsToIndex.isEmpty }.map { indexer in
            let indexColumns = try indexer.columnsToIndex.map { propertyName -> String in
                if let column = columns.first(where: { $0.propertyName == propertyName }) { return column.name }
                if let column = columns.first(where: { $0.name == propertyName }) { return column.name }
                if propertyName == idColumn
                    || (includesTimestamps && ["createdTime", "modifiedTime"].contains(propertyName))
                {
                    return propertyName
                }
                throw DBBError.misuse(
                    "the indexer names \(propertyName), which is not a mapped column of \(tableName)",
                    context: "registering \(tableName)")
            }
            return (indexColumns, indexer.unique)
        }
    }

    /// A name as the table's dialect writes it; the statements of this file and of its `+Statements` file use it.
    func q(_ name: String) -> String { dialect.identifier(name) }

    /// `CREATE TABLE IF NOT EXISTS …` for the class's table.
    package var createTableSQL: String {
        var items = ["\(q(idColumn)) \(dialect.idColumnDefinition(autoincrement: autoincrement))"]
        if includesTimestamps {
            let real = dialect.columnType("Real")
            items += ["\(q("createdTime")) \(real)", "\(q("modifiedTime")) \(real)"]
        }
        items += columns.map(columnDefinition)
        return "CREATE TABLE IF NOT EXISTS \(q(tableName)) (\(items.joined(separator: ", ")))"
    }

    private func columnDefinition(_ column: Column) -> String {
        ([q(column.name), dialect.columnType(column.sqlType)] + column.attributes).joined(separator: " ")
    }

    /// `CREATE TABLE IF NOT EXISTS …` for a join table, in the join table's dialect.
    package static func createJoinTableSQL(_ join: JoinTable) -> String {
        let dialect = join.dialect
        let q = dialect.identifier
        return "CREATE TABLE IF NOT EXISTS \(q(join.tableName)) (\(q("id")) \(dialect.idColumnDefinition), "
            + "\(q(join.ownerColumn)) \(dialect.columnType("Integer")), \(q(join.columnName)) "
            + "\(dialect.columnType(join.sqlType)))"
    }

    /// `CREATE INDEX IF NOT EXISTS <Table>_<property>_idx ON <join table> (<Table>_ID)`, in the join table's
    /// dialect.
    package static func createJoinIndexSQL(_ join: JoinTable) -> String {
        join.dialect.createIndexSQL(join.indexName, on: join.tableName, columns: [join.ownerColumn])
    }

    /// `CREATE [UNIQUE] INDEX IF NOT EXISTS …` for each indexer.
    package var createIndexStatements: [String] {
        zip(indexes, indexNames).map { index, name in
            dialect.createIndexSQL(name, on: tableName, columns: index.columns, unique: index.unique)
        }
    }

    /// `CREATE [UNIQUE] INDEX IF NOT EXISTS …` for the first indexer, or `nil` without one.
    package var createIndexSQL: String? { createIndexStatements.first }

    /// Every statement that lays out a new database for the class, in order.
    public var creationStatements: [String] {
        [createTableSQL] + joinTables.flatMap { [Self.createJoinTableSQL($0), Self.createJoinIndexSQL($0)] }
            + createIndexStatements
    }

    /// The `ALTER TABLE … ADD COLUMN …` statements that bring an existing table up to the mapping.
    /// Nothing is ever dropped; columns the mapping does not know are left alone.
    ///
    /// - Parameter existing: the table's current columns.
    /// - Throws: `DBBError` (mismatch) naming the column when an existing column's declared type
    ///   conflicts with the mapping (text against numbers), or when the id column is missing. The id may
    ///   be the rowid itself (`rowid`, `_rowid_` or `oid`), for an existing table without an INTEGER
    ///   PRIMARY KEY.
    public func alterStatements(existing: [DBBColumnInfo]) throws -> [String] {
        var byName: [String: DBBColumnInfo] = [:]
        let key = dialect.columnNameKey
        for column in existing { byName[key(column.name)] = column }
        // An existing table without an INTEGER PRIMARY KEY (a TEXT or composite key, or none) can be mapped
        // through its rowid, which is no column of its own.
        let isRowid = Self.rowidNames.contains(idColumn.lowercased())
        guard byName[key(idColumn)] != nil || isRowid else {
            throw DBBError.library(
                .mismatch, message: "table \(tableName) has no id column \(idColumn)",
                context: "registering \(tableName)")
        }
        var statements: [String] = []
        var wanted = columns
        if includesTimestamps {
            wanted.insert(
                contentsOf: [
                    Column(propertyName: "createdTime", name: "createdTime", sqlType: "Real", attributes: []),
                    Column(propertyName: "modifiedTime", name: "modifiedTime", sqlType: "Real", attributes: []),
                ], at: 0)
        }
        for column in wanted {
            if let current = byName[key(column.name)] {
                if Self.conflicts(existing: current.declaredType, stores: column.sqlType) {
                    var error = DBBError.library(
                        .mismatch,
                        message: "column \(tableName).\(current.name) is declared \(current.declaredType) but property "
                            + "\(column.propertyName) stores \(column.sqlType)",
                        context: "registering \(tableName)")
                    error.recoverySuggestion =
                        "if the property's type changed, run a migration first: "
                        + ".changeType(of: \"\(current.name)\", in: \"\(tableName)\", to: …)"
                    throw error
                }
            } else {
                // ADD COLUMN cannot add UNIQUE or NOT NULL without a default; the type alone keeps old rows valid.
                statements.append(
                    "ALTER TABLE \(q(tableName)) ADD COLUMN \(q(column.name)) "
                        + dialect.columnType(column.sqlType))
            }
        }
        return statements
    }

    /// The names SQLite gives a rowid table's rowid when no column takes them.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/lang_createtable.html#rowid
    static let rowidNames: Set<String> = ["rowid", "_rowid_", "oid"]

    /// Whether an existing column of the class's table cannot hold what a property stores (see
    /// ``DBBAffinity/conflicts(with:)``). SQLite has no date type, and the date columns of existing databases
    /// (declared `DATETIME`, `DATE`, `TIMESTAMP`: NUMERIC affinity) usually hold text such as
    /// `2021-01-01 00:00:00`, which SQLite keeps as text; so a `Text` property may map onto a column whose
    /// declared type names a date or time.
    static func conflicts(existing declaredType: String, stores sqlType: String) -> Bool {
        let existing = DBBAffinity(declaredType: declaredType)
        let stored = DBBAffinity(declaredType: sqlType)
        if existing == .numeric && stored == .text && DBBAffinity.namesDateOrTime(declaredType) { return false }
        return existing.conflicts(with: stored)
    }

    /// The `ALTER TABLE … ADD COLUMN …` statements that complete an existing join table.
    ///
    /// - Throws: `DBBError` (mismatch) when the value column's type conflicts with the mapping.
    package static func alterJoinStatements(_ join: JoinTable, existing: [DBBColumnInfo]) throws -> [String] {
        let q = join.dialect.identifier
        let key = join.dialect.columnNameKey
        let names = Dictionary(existing.map { (key($0.name), $0) }, uniquingKeysWith: { first, _ in first })
        var statements: [String] = []
        if names[key(join.ownerColumn)] == nil {
            statements.append(
                "ALTER TABLE \(q(join.tableName)) ADD COLUMN \(q(join.ownerColumn)) \(join.dialect.columnType("Integer"))"
            )
        }
        if let current = names[key(join.columnName)] {
            if DBBAffinity(declaredType: current.declaredType).conflicts(with: DBBAffinity(declaredType: join.sqlType))
            {
                throw DBBError.library(
                    .mismatch,
                    message:
                        "column \(join.tableName).\(current.name) is declared \(current.declaredType) but property "
                        + "\(join.propertyName) stores \(join.sqlType)",
                    context: "registering \(join.tableName)")
            }
        } else {
            statements.append(
                "ALTER TABLE \(q(join.tableName)) ADD COLUMN \(q(join.columnName)) \(join.dialect.columnType(join.sqlType))"
            )
        }
        return statements
    }
}

/// SQLite's column affinity, derived from a declared type by SQLite's own rules.
///
/// Related SQLite documentation: https://www.sqlite.org/datatype3.html#determination_of_column_affinity
public enum DBBAffinity: String, Sendable {
    case integer = "INTEGER"
    case text = "TEXT"
    case blob = "BLOB"
    case real = "REAL"
    case numeric = "NUMERIC"

    /// The affinity of a declared type.
    public init(declaredType: String) {
        let type = declaredType.uppercased()
        if type.contains("INT") {
            self = .integer
        } else if type.contains("CHAR") || type.contains("CLOB") || type.contains("TEXT") {
            self = .text
        } else if type.contains("BLOB") || type.isEmpty {
            self = .blob
        } else if type.contains("REAL") || type.contains("FLOA") || type.contains("DOUB") {
            self = .real
        } else {
            self = .numeric
        }
    }

    /// Whether a declared type names a date or a time (`DATE`, `DATETIME`, `TIMESTAMP`, `TIME`: NUMERIC
    /// affinity unless the name also matches another rule). SQLite has no date type, and such columns of
    /// existing databases usually hold text such as `2021-01-01 00:00:00`, which SQLite keeps as text: they
    /// are best read and written as text.
    public static func namesDateOrTime(_ declaredType: String) -> Bool {
        let type = declaredType.uppercased()
        return type.contains("DATE") || type.contains("TIME")
    }

    /// Whether values of one affinity would be changed or misread in a column of the other: text against
    /// any numeric affinity. BLOB (no affinity) stores anything as given.
    public func conflicts(with other: DBBAffinity) -> Bool {
        if self == .blob || other == .blob { return false }
        return (self == .text) != (other == .text)
    }
}
