internal import Foundation

/// A column of a table, as `PRAGMA table_info` describes it.
public struct DBBColumnInfo: Hashable, Sendable {
    /// The column's name.
    public var name: String
    /// The declared type, as written in `CREATE TABLE` (may be empty).
    public var declaredType: String
    /// Whether the column is `NOT NULL`.
    public var isNotNull: Bool
    /// The default value's SQL text, or `nil`.
    public var defaultValueSQL: String?
    /// The column's 1-based position in the primary key, or 0 when it is not part of it.
    public var primaryKeyIndex: Int

    /// Whether the column belongs to the primary key.
    public var isPrimaryKey: Bool { primaryKeyIndex > 0 }

    /// Creates a column description (``DBBDatabase/columns(in:)`` reads them from a table).
    ///
    /// - Parameters:
    ///   - name: the column's name.
    ///   - declaredType: the declared type, or an empty string.
    ///   - isNotNull: whether the column is `NOT NULL`.
    ///   - defaultValueSQL: the default value's SQL text, or `nil`.
    ///   - primaryKeyIndex: the 1-based position in the primary key, or 0.
    public init(
        name: String, declaredType: String, isNotNull: Bool, defaultValueSQL: String?, primaryKeyIndex: Int
    ) {
        self.name = name
        self.declaredType = declaredType
        self.isNotNull = isNotNull
        self.defaultValueSQL = defaultValueSQL
        self.primaryKeyIndex = primaryKeyIndex
    }
}

extension DBBDatabase {
    /// Whether a table (or view) of this name exists in the main schema.
    ///
    /// - Throws: ``DBBError`` if the schema cannot be read.
    public func tableExists(_ name: String) throws -> Bool {
        try fetchValue(
            Bool.self, "SELECT count(*) FROM sqlite_master WHERE type IN ('table', 'view') AND name = ? COLLATE NOCASE",
            name) ?? false
    }

    /// Whether a table has a column of this name (compared without regard to case, as SQLite does).
    ///
    /// - Throws: ``DBBError`` if the schema cannot be read.
    public func columnExists(_ column: String, in table: String) throws -> Bool {
        try columns(in: table).contains { $0.name.caseInsensitiveCompare(column) == .orderedSame }
    }

    /// The columns of a table, in order. Empty when the table does not exist.
    ///
    /// - Throws: ``DBBError`` if the schema cannot be read.
    public func columns(in table: String) throws -> [DBBColumnInfo] {
        try fetchCursor("SELECT name, type, \"notnull\", dflt_value, pk FROM pragma_table_info(?)", table).map { row in
            DBBColumnInfo(
                name: try row[0], declaredType: try row[1] as String? ?? "", isNotNull: try row[2],
                defaultValueSQL: try row[3], primaryKeyIndex: try row[4])
        }
    }

    /// The column that is the rowid of a table in the main schema: its `INTEGER PRIMARY KEY`, or `nil`
    /// when it has none.
    ///
    /// A single-column primary key declared `INTEGER` is the rowid unless SQLite backs it with an index:
    /// in a `WITHOUT ROWID` table, and for the `PRIMARY KEY DESC` quirk (such an index is listed with
    /// origin `pk`).
    ///
    /// - Throws: ``DBBError`` if the schema cannot be read.
    package func rowidAliasColumn(in table: String) throws -> String? {
        var primaryKey: [(name: String, type: String)] = []
        try forEachRow("SELECT name, type FROM pragma_table_xinfo(?, 'main') WHERE pk > 0", arguments: [table]) {
            row in
            primaryKey.append((try row[0], try row[1] as String? ?? ""))
        }
        guard primaryKey.count == 1, primaryKey[0].type.uppercased() == "INTEGER" else { return nil }
        let backedByIndex =
            try fetchValue(Int.self, "SELECT count(*) FROM pragma_index_list(?, 'main') WHERE origin = 'pk'", table)
            ?? 0
        return backedByIndex > 0 ? nil : primaryKey[0].name
    }

    /// The names of the tables in the main schema, SQLite's own (`sqlite_…`) excluded, sorted.
    ///
    /// - Throws: ``DBBError`` if the schema cannot be read.
    public func tableNames() throws -> [String] {
        try fetchValues(
            String.self,
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite\\_%' ESCAPE '\\' ORDER BY name"
        )
    }

    /// Whether a table (not a view) of exactly this name, case included, exists in the main schema.
    ///
    /// - Throws: ``DBBError`` if the schema cannot be read.
    package func hasTable(named name: String) throws -> Bool {
        try fetchValue(Int.self, "SELECT count(*) FROM sqlite_schema WHERE type = 'table' AND name = ?", name) ?? 0 > 0
    }

    /// The `CREATE TABLE` statement of a table, as the schema keeps it, or `nil` when there is no such table.
    ///
    /// - Throws: ``DBBError`` if the schema cannot be read.
    package func tableSQL(named table: String) throws -> String? {
        try fetchValue(
            String.self, "SELECT sql FROM sqlite_schema WHERE type = 'table' AND name = ? COLLATE NOCASE", table)
    }

    /// The `CREATE INDEX` statement of an index, as the schema keeps it, or `nil` when there is no such index or it
    /// is automatic (a `UNIQUE` or `PRIMARY KEY` constraint's).
    ///
    /// - Throws: ``DBBError`` if the schema cannot be read.
    package func indexSQL(named index: String) throws -> String? {
        try fetchValue(
            String.self, "SELECT sql FROM sqlite_schema WHERE type = 'index' AND name = ? COLLATE NOCASE", index)
    }

    /// The names of the indexes of a table that a statement created (automatic ones left out), in the schema's
    /// order.
    ///
    /// - Throws: ``DBBError`` if the schema cannot be read.
    package func createdIndexNames(in table: String) throws -> [String] {
        try fetchValues(
            String.self, "SELECT name FROM sqlite_schema WHERE type = 'index' AND tbl_name = ? AND sql IS NOT NULL",
            table)
    }

    /// The columns of an index, in order.
    ///
    /// - Throws: ``DBBError`` if the schema cannot be read.
    package func indexColumns(of index: String) throws -> [String] {
        try fetchValues(String.self, "SELECT name FROM pragma_index_info(?) ORDER BY seqno", index)
    }

    /// The schema objects to create again when a table is rebuilt: its indexes, then every view and trigger (a view
    /// or trigger that names the table would stop the rebuilt table's rename), each with its statement, in the
    /// schema's order.
    ///
    /// - Throws: ``DBBError`` if the schema cannot be read.
    package func dependentSchemaObjects(of table: String) throws -> [(type: String, name: String, sql: String)] {
        var objects: [(type: String, name: String, sql: String)] = []
        try forEachRow(
            "SELECT type, name, sql FROM sqlite_schema WHERE sql IS NOT NULL AND ((type = 'index' AND tbl_name = ?) "
                + "OR type IN ('view', 'trigger')) ORDER BY CASE type WHEN 'index' THEN 0 WHEN 'view' THEN 1 ELSE 2 END, "
                + "rowid", arguments: [table]
        ) { row in objects.append((try row[0], try row[1], try row[2])) }
        return objects
    }

    /// The `AUTOINCREMENT` counter of a table: the largest id it handed out, or `nil` when it has none.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/autoinc.html
    ///
    /// - Throws: ``DBBError`` if the schema cannot be read.
    package func autoincrementSequence(of table: String) throws -> Int64? {
        guard try tableExists("sqlite_sequence") else { return nil }
        return try fetchValue(Int64.self, "SELECT seq FROM sqlite_sequence WHERE name = ?", table)
    }

    /// Raises a table's `AUTOINCREMENT` counter to a value, when it is lower (a rebuilt table's counter starts
    /// from its copied rows' largest id).
    ///
    /// - Throws: ``DBBError`` if the counter cannot be written.
    package func raiseAutoincrementSequence(of table: String, to value: Int64) throws {
        try execute("UPDATE sqlite_sequence SET seq = max(seq, ?) WHERE name = ?", value, table)
    }

    /// Removes a table's `AUTOINCREMENT` counter, once its id column is no longer `AUTOINCREMENT`.
    ///
    /// - Throws: ``DBBError`` if the counter cannot be removed.
    package func removeAutoincrementSequence(of table: String) throws {
        guard try tableExists("sqlite_sequence") else { return }
        try execute("DELETE FROM sqlite_sequence WHERE name = ?", table)
    }

    /// The names of the indexes of a table (automatic ones included), sorted.
    ///
    /// - Throws: ``DBBError`` if the schema cannot be read.
    public func indexNames(in table: String) throws -> [String] {
        try fetchValues(String.self, "SELECT name FROM pragma_index_list(?) ORDER BY name", table)
    }

    /// Creates an index when one of that name does not exist yet.
    ///
    /// ```swift
    /// try db.createIndex("user_name_idx", on: "user", columns: ["lastName", "firstName"])
    /// ```
    ///
    /// - Parameters:
    ///   - name: the index name.
    ///   - table: the table to index.
    ///   - columns: the indexed columns, in order.
    ///   - unique: whether the index enforces uniqueness.
    /// - Throws: ``DBBError`` (error) for an unknown table or column or an empty column list, checked before
    ///   anything is created; (constraint) when `unique` meets duplicates.
    public func createIndex(_ name: String, on table: String, columns: [String], unique: Bool = false) throws {
        // SQLite would read an unknown "column" as a string literal and index a constant; refuse instead.
        let known = try self.columns(in: table)
        let context = "creating index \(name)"
        guard !known.isEmpty else {
            throw DBBError(.error, message: "no such table: \(table)", context: context)
        }
        guard !columns.isEmpty else {
            throw DBBError(.error, message: "an index needs at least one column", context: context)
        }
        for column in columns where !known.contains(where: { $0.name.caseInsensitiveCompare(column) == .orderedSame }) {
            throw DBBError(.error, message: "no such column: \(column) in table \(table)", context: context)
        }
        try execute(DBBSQLDialect.sqlite.createIndexSQL(name, on: table, columns: columns, unique: unique))
    }

    /// The number of rows in a table.
    ///
    /// - Parameter table: the table's name, quoted for the statement.
    /// - Returns: the number of rows.
    /// - Throws: ``DBBError`` when the table does not exist or SQLite fails.
    public func rowCount(inTable table: String) throws -> Int {
        try fetchValue(Int.self, "SELECT count(*) FROM \(Self.quoteIdentifier(table))") ?? 0
    }

    /// Drops an index when it exists.
    ///
    /// - Throws: ``DBBError`` if the statement fails.
    public func dropIndex(_ name: String) throws {
        try execute("DROP INDEX IF EXISTS \(Self.quoteIdentifier(name))")
    }

    /// Rebuilds the database file, reclaiming free pages. Not allowed inside a transaction.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/lang_vacuum.html
    ///
    /// - Throws: ``DBBError`` inside a transaction or on failure.
    public func vacuum() throws {
        try executeStatements("VACUUM")
    }
}
