internal import DBBSQL
internal import DBBSchema
internal import Foundation

extension DBBMigrator {
    /// Runs one migration on SQLite (``DBBSQLiteObjectStore/runMigration(_:manager:)``): foreign keys switched off
    /// around the transaction (they can only be switched outside one, and a table rebuild needs them off), the
    /// steps and the record in one `write` transaction, and the foreign keys checked before it commits.
    static func runOnSQLite(_ migration: Migration, manager: DBBManager) throws {
        let context = "running migration \(migration.name)"
        let operation = "migrating"
        let foreignKeys = try manager.onSQLite(operation) { db in try db.foreignKeysEnabled() }
        if foreignKeys { try manager.onSQLite(operation) { db in try db.setForeignKeysEnabled(false) } }
        defer { if foreignKeys { _ = try? manager.onSQLite(operation) { db in try db.setForeignKeysEnabled(true) } } }
        try manager.write { db in
            try migration.forEachStep { step in try step.apply(in: db, manager: manager) }
            if let violation = try db.firstForeignKeyViolation() {
                throw DBBError(
                    extendedCode: DBBError.constraintForeignKey.rawValue,
                    message: "the foreign-key check after the steps found a row of \(violation.table) that breaks its "
                        + "foreign key to \(violation.parent)", context: context)
            }
            try DBBMigrationRecordWork(migration: migration).run(on: db)
        }
    }
}

extension DBBMigrationStep {
    /// Runs the step on SQLite, inside the migration's transaction.
    func apply(in db: DBBDatabase, manager: DBBManager) throws {
        switch kind {
        case .sql(let sql):
            try db.executeStatements(sql)
        case .objects(_, let body):
            try body(manager)
        case .renameProperty(let table, let from, let to):
            try db.renameProperty(from, to: to, in: table)
        case .renameClass(let from, let to):
            try db.renameClass(from, to: to)
        case .dropProperty(let table, let name):
            try db.dropProperty(name, in: table)
        case .dropClass(let table):
            try db.requireTable(table)
            for join in try db.joinTables(of: table) { try db.execute(DBBMigrationStatements.dropTableSQL(join)) }
            try db.execute(DBBMigrationStatements.dropTableSQL(table))
        case .changeType(let table, let property, let sqlType, let transform):
            let (target, column) = try db.place(of: property, in: table)
            try db.rebuildTable(target, context: "changing the type of \(table).\(property)") { definition in
                try definition.setType(of: column, to: sqlType)
            } transform: { db, temporary in
                guard let transform else { return }
                try db.transformColumn(column, of: target, into: temporary) { id, value in
                    do {
                        return try transform(value)
                    } catch {
                        throw DBBError.wrapping(
                            error, prefix: Self.transformFailurePrefix(id: id, table: table, target: target),
                            context: "changing the type of \(table).\(property)")
                    }
                }
            }
        case .referenceToColumn(let table, let property):
            try db.moveReferenceToColumn(property, in: table)
        case .referenceToJoinTable(let table, let property):
            try db.moveReferenceToJoinTable(property, in: table)
        case .convertLayout(let table, let lean):
            try db.convertLayout(of: table, lean: lean)
        }
    }
}

/// The schema changes of migration steps on SQLite. Each runs inside the migration's transaction, so a failure
/// leaves the schema and the data as they were.
extension DBBDatabase {
    fileprivate func requireTable(_ table: String) throws {
        guard try hasTable(named: table) else {
            throw DBBError.misuse("there is no table \(table)", context: "migrating \(table)")
        }
    }

    /// The join tables of a class's table: `<Table>_<column>` tables with an owner column `<Table>_ID`.
    func joinTables(of table: String) throws -> [String] {
        let prefix = table + "_"
        return try tableNames().filter { name in
            guard name.count > prefix.count, name.lowercased().hasPrefix(prefix.lowercased()) else { return false }
            return try columnExists(table + "_ID", in: name)
        }
    }

    /// Where a property lives: `(table, column)` of its column in the class's table, or of its join table's
    /// value column.
    fileprivate func place(of property: String, in table: String) throws -> (table: String, column: String) {
        try requireTable(table)
        if try columnExists(property, in: table) { return (table, property) }
        let join = table + "_" + property
        if try isJoinTable(join, of: table) { return (join, property) }
        throw DBBError.misuse(
            "\(table) has no column \(property) and no join table \(join)", context: "migrating \(table).\(property)")
    }

    private func isJoinTable(_ name: String, of table: String) throws -> Bool {
        try tableExists(name) && columnExists(table + "_ID", in: name)
    }

    /// Whether a column of a table holds a value other than NULL in any row.
    func holdsValues(_ column: String, in table: String) throws -> Bool {
        try fetchValue(Int.self, DBBMigrationStatements.holdsValuesSQL(column, in: table)) ?? 0 > 0
    }

    fileprivate func renameProperty(_ old: String, to new: String, in table: String) throws {
        let context = "renaming \(table).\(old) to \(new)"
        let (target, _) = try place(of: old, in: table)
        if target == table {
            if try columnExists(new, in: table) {
                // Registration may have added the new, empty column before the migration ran.
                guard try !holdsValues(new, in: table) else {
                    throw DBBError.misuse("column \(table).\(new) exists and holds values", context: context)
                }
                try dropProperty(new, in: table)
            }
            let renamedIndexes = try indexerIndexes(of: table).filter {
                $0.columns.contains { $0.lowercased() == old.lowercased() }
            }
            try execute(DBBMigrationStatements.renameColumnSQL(old, to: new, in: table))
            // A DBBIndexer index is named after its columns: rename it, or registration would add a second one.
            for index in renamedIndexes {
                let columns = index.columns.map { $0.lowercased() == old.lowercased() ? new : $0 }
                try renameIndex(index.name, to: table + "_" + columns.joined())
            }
        } else {
            let newJoin = table + "_" + new
            if try tableExists(newJoin) {
                guard try rowCount(inTable: newJoin) == 0 else {
                    throw DBBError.misuse("join table \(newJoin) exists and holds rows", context: context)
                }
                try execute(DBBMigrationStatements.dropTableSQL(newJoin))
            }
            try execute(DBBMigrationStatements.renameTableSQL(target, to: newJoin))
            try execute(DBBMigrationStatements.renameColumnSQL(old, to: new, in: newJoin))
            try renameIndex(target + "_idx", to: newJoin + "_idx")
        }
    }

    /// The indexes of a table named as a `DBBIndexer` names them (`<Table>_` and its columns run together), with
    /// their columns.
    private func indexerIndexes(of table: String) throws -> [(name: String, columns: [String])] {
        var result: [(name: String, columns: [String])] = []
        for name in try createdIndexNames(in: table) {
            let columns = try indexColumns(of: name)
            if name.lowercased() == (table + "_" + columns.joined()).lowercased() { result.append((name, columns)) }
        }
        return result
    }

    /// Renames an index (SQLite has no statement for it): drops it and creates it again under the new name from
    /// its own statement. Does nothing when there is no such index.
    private func renameIndex(_ old: String, to new: String) throws {
        guard old.lowercased() != new.lowercased(), let sql = try indexSQL(named: old),
            let renamed = DBBMigrationStatements.renamedIndexSQL(sql, from: old, to: new)
        else { return }
        try execute(DBBMigrationStatements.dropIndexSQL(old))
        try execute(renamed)
    }

    fileprivate func renameClass(_ old: String, to new: String) throws {
        let context = "renaming class \(old) to \(new)"
        try requireTable(old)
        guard try !tableExists(new) else {
            throw DBBError.misuse("a table \(new) exists already", context: context)
        }
        let joins = try joinTables(of: old)
        let indexes = try createdIndexNames(in: old)
        try execute(DBBMigrationStatements.renameTableSQL(old, to: new))
        for index in indexes where index.lowercased().hasPrefix(old.lowercased() + "_") {
            try renameIndex(index, to: new + "_" + index.dropFirst(old.count + 1))
        }
        for join in joins {
            let suffix = join.dropFirst(old.count + 1)
            let newJoin = new + "_" + suffix
            let joinIndexes = try createdIndexNames(in: join)
            try execute(DBBMigrationStatements.renameTableSQL(join, to: newJoin))
            try execute(DBBMigrationStatements.renameColumnSQL(old + "_ID", to: new + "_ID", in: newJoin))
            for index in joinIndexes where index.lowercased().hasPrefix(old.lowercased() + "_") {
                try renameIndex(index, to: new + "_" + index.dropFirst(old.count + 1))
            }
        }
    }

    fileprivate func dropProperty(_ name: String, in table: String) throws {
        let (target, column) = try place(of: name, in: table)
        if target != table {
            try execute(DBBMigrationStatements.dropTableSQL(target))
            return
        }
        try rebuildTable(table, dropping: column, context: "dropping \(table).\(name)") { definition in
            try definition.removeColumn(column)
        }
    }

    fileprivate func convertLayout(of table: String, lean: Bool) throws {
        let context = "converting \(table) to the \(lean ? "lean" : "DBBBuilder") layout"
        guard let id = try rowidAliasColumn(in: table) else {
            throw DBBError.misuse("table \(table) has no INTEGER PRIMARY KEY", context: context)
        }
        let existing = Set(try columns(in: table).map { $0.name.lowercased() })
        try rebuildTable(table, context: context) { definition in
            try definition.convertLayout(lean: lean, idColumn: id, existingColumns: existing)
        }
        if lean { try removeAutoincrementSequence(of: table) }
    }

    fileprivate func moveReferenceToColumn(_ property: String, in table: String) throws {
        let context = "moving \(table).\(property) into a column"
        let (join, _) = try place(of: property, in: table)
        guard join != table else { throw DBBError.misuse("\(table).\(property) is a column already", context: context) }
        try moveReferenceToColumn(
            property, in: table, idColumn: try rowidAliasColumn(in: table) ?? "rowid", context: context)
    }

    fileprivate func moveReferenceToJoinTable(_ property: String, in table: String) throws {
        let context = "moving \(table).\(property) into a join table"
        let (place, _) = try place(of: property, in: table)
        guard place == table else {
            throw DBBError.misuse("\(table).\(property) is in a join table already", context: context)
        }
        try moveReferenceToJoinTable(
            property, in: table, idColumn: try rowidAliasColumn(in: table) ?? "rowid", context: context
        ) { try dropProperty(property, in: table) }
    }

    /// Rebuilds a table as SQLite's documentation prescribes for the changes `ALTER TABLE` cannot make: the
    /// changed definition is created under a temporary name, the rows are copied, the old table is dropped and
    /// the new one renamed, then its indexes and the schema's triggers and views are created again from their
    /// own statements. The `AUTOINCREMENT` counter is kept, so ids of deleted rows are not reused. Runs inside
    /// the caller's transaction; the migrator disables foreign keys around it and runs `foreign_key_check`
    /// before committing.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/lang_altertable.html#otheralter
    ///
    /// - Parameters:
    ///   - table: the table.
    ///   - dropping: a column the change removes: indexes on it are not recreated (a view or trigger that uses
    ///     it fails to be recreated, which fails the migration).
    ///   - context: what the rebuild is for, for errors.
    ///   - change: changes the table's definition.
    ///   - transform: rewrites values in the new table after the copy (given the new table's name).
    func rebuildTable(
        _ table: String, dropping: String? = nil, context: String, change: (inout DBBTableDefinition) throws -> Void,
        transform: (DBBDatabase, String) throws -> Void = { _, _ in }
    ) throws {
        guard let sql = try tableSQL(named: table) else {
            throw DBBError.misuse("there is no table \(table)", context: context)
        }
        var definition = try DBBTableDefinition(sql: sql)
        let oldColumns = definition.columnNames
        try change(&definition)
        let copied = definition.columnNames.filter { name in
            oldColumns.contains { $0.lowercased() == name.lowercased() }
        }
        let saved = try dependentSchemaObjects(of: table)
        let sequence = try autoincrementSequence(of: table)
        for object in saved where object.type != "index" {
            try execute(DBBMigrationStatements.dropSQL(object.type, named: object.name))
        }
        let temporary = "dbb_rebuild_" + table
        try execute(definition.createSQL(tableName: temporary))
        // Rows keep their rowids: through the INTEGER PRIMARY KEY when there is one, else copied as `rowid`.
        let keepsRowid = try rowidAliasColumn(in: table) == nil && !definition.options.uppercased().contains("WITHOUT")
        try execute(
            DBBMigrationStatements.copyRowsSQL(from: table, into: temporary, columns: copied, keepingRowid: keepsRowid))
        try transform(self, temporary)
        try execute(DBBMigrationStatements.dropTableSQL(table))
        try execute(DBBMigrationStatements.renameTableSQL(temporary, to: table))
        if let sequence { try raiseAutoincrementSequence(of: table, to: sequence) }
        for object in saved {
            if object.type == "index", let dropping, DBBTableDefinition.mentions(object.sql, dropping) { continue }
            do {
                try execute(object.sql)
                // SQLite checks a view's columns when it is used, not when it is created.
                if object.type == "view" { try execute(DBBMigrationStatements.checkViewSQL(object.name)) }
            } catch var error as DBBError {
                error.message = "\(object.type) \(object.name) cannot be created again (\(context)): \(error.message)"
                throw error
            }
        }
    }

    /// Rewrites a column of a rebuilt table with a transform of each value of the old table, matched by rowid.
    fileprivate func transformColumn(
        _ column: String, of table: String, into temporary: String,
        _ transform: (_ rowid: DBBValue, DBBValue) throws -> (any DBBBindable)?
    ) throws {
        let update = try prepare(DBBMigrationStatements.updateValueByRowidSQL(column, of: temporary))
        let rows = try fetchCursor(DBBMigrationStatements.selectValuesByRowidSQL(column, of: table))
        while let row = try rows.next() {
            let value = row.value(at: 1)
            let rowid: Int64 = try row[0]
            let newValue = try transform(.integer(rowid), value)?.dbbValue(options: codingOptions) ?? DBBValue.null
            try update.execute(newValue, rowid)
        }
    }
}
