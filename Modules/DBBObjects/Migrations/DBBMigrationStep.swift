public import DBBSQL
public import DBBSchema

/// One change a migration makes, in the model's terms: a property or class renamed or dropped, a property's
/// type changed, objects changed through the object API, or SQL of your own.
///
/// Names are the ones stored on disk: a class by its table name (`Book.tableName`, usually the class's name), a
/// property by its column name (the property's name unless its mapping gives `columnName:`). Each step on a
/// property finds where the property lives: a column of the class's table, or its join table
/// `<Table>_<column>` (arrays, references, `Data`), and changes that, with its `<Table>_ID` owner column and
/// its index.
///
/// ```swift
/// migrator.registerMigration("v2: published year as text", [
///     .renameProperty("year", to: "published", in: "Book"),
///     .changeType(of: "published", in: "Book", to: .string) { value in value.int64Value.map(String.init) },
/// ])
/// ```
public struct DBBMigrationStep: Sendable {
    package enum Kind: Sendable {
        case sql(String)
        case objects(label: String, body: @Sendable (DBBManager) throws -> Void)
        case renameProperty(table: String, from: String, to: String)
        case renameClass(from: String, to: String)
        case dropProperty(table: String, name: String)
        case dropClass(table: String)
        case changeType(
            table: String, property: String, sqlType: String,
            transform: (@Sendable (DBBValue) throws -> (any DBBBindable)?)?)
        case referenceToColumn(table: String, property: String)
        case referenceToJoinTable(table: String, property: String)
        case convertLayout(table: String, lean: Bool)
    }

    package let kind: Kind

    /// What the step does, as text: the migrator's checksum of a migration is computed from these, so a
    /// migration whose steps were edited after it ran is reported. A closure's code is not part of it; its
    /// label is.
    public var summary: String {
        switch kind {
        case .sql(let sql): "sql \(sql)"
        case .objects(let label, _): "objects \(label)"
        case .renameProperty(let table, let from, let to): "renameProperty \(table).\(from) \(to)"
        case .renameClass(let from, let to): "renameClass \(from) \(to)"
        case .dropProperty(let table, let name): "dropProperty \(table).\(name)"
        case .dropClass(let table): "dropClass \(table)"
        case .changeType(let table, let property, let sqlType, let transform):
            "changeType \(table).\(property) \(sqlType)\(transform == nil ? "" : " transformed")"
        case .referenceToColumn(let table, let property): "referenceToColumn \(table).\(property)"
        case .referenceToJoinTable(let table, let property): "referenceToJoinTable \(table).\(property)"
        case .convertLayout(let table, let lean): "convertLayout \(table) \(lean ? "lean" : "dbbBuilder")"
        }
    }

    /// What the error of a failing migration calls the step: its kind and what it changes, such as
    /// `changeType Shelf.built`, `objects "fill in the slugs"` or `sql UPDATE Shelf SET built = …`.
    var failureName: String {
        switch kind {
        case .sql(let sql):
            // The statements on one line, shortened: the failing statement itself is the error's `sql`.
            let text = sql.split(whereSeparator: \.isWhitespace).joined(separator: " ")
            return "sql " + (text.count > 48 ? text.prefix(47) + "…" : text)
        case .objects(let label, _): return "objects \"\(label)\""
        case .renameProperty(let table, let from, _): return "renameProperty \(table).\(from)"
        case .renameClass(let from, _): return "renameClass \(from)"
        case .dropProperty(let table, let name): return "dropProperty \(table).\(name)"
        case .dropClass(let table): return "dropClass \(table)"
        case .changeType(let table, let property, _, _): return "changeType \(table).\(property)"
        case .referenceToColumn(let table, let property): return "moveReferenceToColumn \(table).\(property)"
        case .referenceToJoinTable(let table, let property): return "moveReferenceToJoinTable \(table).\(property)"
        case .convertLayout(let table, _): return "convertLayout \(table)"
        }
    }

    /// The prefix of the error of a transform that failed on one row: the row's id, and the join table when the
    /// property lives in one.
    package static func transformFailurePrefix(id: DBBValue, table: String, target: String) -> String {
        let id = id.int64Value.map { "\($0)" } ?? "\(id)"
        return target == table ? "row id \(id): " : "row id \(id) of \(target): "
    }

    /// The tables the step changes (the class's table; join tables follow it), or none for SQL and objects.
    var tables: [String] {
        switch kind {
        case .sql, .objects: []
        case .renameProperty(let table, _, _), .dropProperty(let table, _), .dropClass(let table),
            .changeType(let table, _, _, _), .referenceToColumn(let table, _), .referenceToJoinTable(let table, _),
            .convertLayout(let table, _):
            [table]
        case .renameClass(let from, let to): [from, to]
        }
    }

    /// SQL of your own, run as it is (several statements separated by `;` are allowed).
    ///
    /// - Parameter statements: the SQL.
    public static func sql(_ statements: String) -> DBBMigrationStep {
        DBBMigrationStep(kind: .sql(statements))
    }

    /// A data migration through the object API: the closure fetches, changes, saves and deletes objects with the
    /// manager it receives, inside the migration's transaction (so its saves are undone with the migration if a
    /// later step fails). Classes it uses are registered by it (`addTableClasses`), inside the transaction too.
    /// On a server the closure runs on the writer connection's own thread, and its object calls join the
    /// migration's transaction there, as they do in `manager.write { }`.
    ///
    /// Classes change from release to release, and a migration runs with the classes of the release that runs
    /// it: a data migration that must still work after the class changes again is best written with SQL, or
    /// with a class of its own mapped onto the table (`DBBTableObject/tableName`).
    ///
    /// - Parameters:
    ///   - label: what the closure does; part of the migration's checksum, which cannot see the closure's code.
    ///   - body: the work. An error it throws fails the migration, whose `DBBError` names the migration and the
    ///     step and carries the thrown error unchanged as its `underlyingError` (a `DBBError` it throws keeps its
    ///     kind and codes, its message prefixed).
    public static func objects(_ label: String, _ body: @escaping @Sendable (DBBManager) throws -> Void)
        -> DBBMigrationStep
    {
        DBBMigrationStep(kind: .objects(label: label, body: body))
    }

    /// Renames a property: its column (indexes, triggers and views follow, and a `DBBIndexer` index named
    /// after the column is renamed with it), or its join table `<Table>_<old>` to `<Table>_<new>` with its
    /// value column and its index.
    ///
    /// When the new name already exists but holds nothing — the class was registered with the renamed property
    /// before this migration ran, which added an empty column or join table — the empty one is dropped first.
    ///
    /// - Parameters:
    ///   - old: the property's stored name before.
    ///   - new: its name after.
    ///   - table: the class's table.
    public static func renameProperty(_ old: String, to new: String, in table: String) -> DBBMigrationStep {
        DBBMigrationStep(kind: .renameProperty(table: table, from: old, to: new))
    }

    /// Renames a class: its table, its indexes named `<Table>_…`, its join tables `<Table>_<column>` with their
    /// owner columns `<Table>_ID` and indexes. References to it from other classes store ids only (in their own
    /// join tables or foreign-key columns), so they need no change; SQLite rewrites views, triggers and
    /// `REFERENCES` clauses that name the table.
    ///
    /// - Parameters:
    ///   - old: the table's name before.
    ///   - new: its name after (the class's new `tableName`).
    public static func renameClass(_ old: String, to new: String) -> DBBMigrationStep {
        DBBMigrationStep(kind: .renameClass(from: old, to: new))
    }

    /// Drops a property: its column (the table is rebuilt without it, keeping the other columns' constraints,
    /// its other indexes, its triggers and views; indexes on the column go with it), or its join table.
    ///
    /// - Parameters:
    ///   - name: the property's stored name.
    ///   - table: the class's table.
    public static func dropProperty(_ name: String, in table: String) -> DBBMigrationStep {
        DBBMigrationStep(kind: .dropProperty(table: table, name: name))
    }

    /// Drops a class's table and its join tables (the tables `<Table>_<column>` with an owner column
    /// `<Table>_ID`).
    ///
    /// - Parameter table: the class's table.
    public static func dropClass(_ table: String) -> DBBMigrationStep {
        DBBMigrationStep(kind: .dropClass(table: table))
    }

    /// Changes a property's stored type, converting each stored value: the table (or the property's join table)
    /// is rebuilt as SQLite's documentation prescribes (a new table, the rows copied, the old table dropped, the
    /// new one renamed, indexes, triggers and views recreated), so every constraint is kept.
    ///
    /// ```swift
    /// .changeType(of: "price", in: "Track", to: .float)                     // Int → Double: SQLite converts
    /// .changeType(of: "released", in: "Album", to: .date) { value in       // String → Date
    ///     value.stringValue.flatMap { formatter.date(from: $0) }
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - property: the property's stored name.
    ///   - table: the class's table.
    ///   - type: the new storage type: a scalar (`.bool`, `.int`, `.float`, `.string`, `.date`), or for a join
    ///     table the array's type (`.intArray`, …).
    ///   - transform: turns each stored non-NULL value into the new one (return `nil` for NULL; dates are stored
    ///     as the object layer stores them, so return a `Date`). Without it the column's new type converts the
    ///     values as SQLite's type affinity does (an integer becomes a real; text that reads as a number a
    ///     number). A throw fails the migration, which then changes nothing: its `DBBError` names the migration,
    ///     the step and the row's id, and carries the thrown error unchanged as its `underlyingError`.
    public static func changeType(
        of property: String, in table: String, to type: DBBStorageType,
        transform: (@Sendable (DBBValue) throws -> (any DBBBindable)?)? = nil
    ) -> DBBMigrationStep {
        let sqlType = type.columnSQLType ?? type.joinSQLType ?? "Integer"
        return DBBMigrationStep(
            kind: .changeType(table: table, property: property, sqlType: sqlType, transform: transform))
    }

    /// Moves a reference stored in its join table `<Table>_<property>` (DBBBuilder's layout) into an `Integer`
    /// column of the class's table (a mapping with `foreignKey: true`), then drops the join table. On
    /// PostgreSQL the column is a `bigint` added with `ALTER TABLE … ADD COLUMN`.
    ///
    /// - Parameters:
    ///   - property: the reference's stored name.
    ///   - table: the class's table.
    /// - Note: an owner with more than one row in the join table (an array, not a reference) fails the migration.
    public static func moveReferenceToColumn(_ property: String, in table: String) -> DBBMigrationStep {
        DBBMigrationStep(kind: .referenceToColumn(table: table, property: property))
    }

    /// Moves a reference stored in a column of the class's table into a join table `<Table>_<property>`
    /// (DBBBuilder's layout, with its owner column `<Table>_ID` and its index), then drops the column (on SQLite
    /// by the table rebuild, on PostgreSQL with `ALTER TABLE … DROP COLUMN`).
    ///
    /// - Parameters:
    ///   - property: the reference's stored name.
    ///   - table: the class's table.
    public static func moveReferenceToJoinTable(_ property: String, in table: String) -> DBBMigrationStep {
        DBBMigrationStep(kind: .referenceToJoinTable(table: table, property: property))
    }

    /// Converts a class's table to another layout (`DBBTableLayout`), keeping every row and id: to the lean
    /// layout it drops `createdTime` and `modifiedTime` and `AUTOINCREMENT`; to DBBBuilder's it adds them back
    /// (the timestamps of existing rows stay NULL). Join tables keep their layout.
    ///
    /// On SQLite the table is rebuilt. On PostgreSQL, where both layouts number rows with an identity column, the
    /// timestamp columns are dropped or added (at the end of the table) with `ALTER TABLE`, and an id column
    /// that is no identity yet (a table another program created) becomes one, starting after the largest id.
    ///
    /// - Parameters:
    ///   - table: the class's table.
    ///   - layout: the layout the class now declares.
    public static func convertLayout(of table: String, to layout: DBBTableLayout) -> DBBMigrationStep {
        DBBMigrationStep(kind: .convertLayout(table: table, lean: layout == .lean))
    }
}
