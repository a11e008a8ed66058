internal import DBBObjects
internal import DBBSQL
internal import DBBSchema
internal import Foundation
internal import Synchronization

extension DBBPostgresObjectStore {
    /// Runs one migration in one transaction of the writer connection (a `manager.write` scope, which the object
    /// calls of data steps join): the steps in PostgreSQL's own `ALTER TABLE` forms, then the migration's record.
    /// The server checks foreign keys itself. A migration may add or drop a check at commit; the writer reads
    /// again whether there is one (``checksAtCommitSQL``), in the migration's transaction, and keeps what it read
    /// once that commits.
    func runMigration(_ migration: DBBMigrator.Migration, manager: DBBManager) throws {
        let context = "running migration \(migration.name)"
        // Each step may change what a prepared statement returns: connections prepare theirs again after it.
        defer { schema.advance() }
        let checksAtCommit = try manager.write {
            try migration.forEachStep { step in
                schema.advance()
                if case .objects(_, let body) = step.kind {
                    try body(manager)
                } else {
                    try manager.perform(DBBPostgresMigrationStepWork(step: step, context: context), isWrite: true)
                }
            }
            try manager.perform(DBBMigrationRecordWork(migration: migration), isWrite: true)
            guard let connection = scopedConnection else {
                throw DBBError.library(.internal, message: "a migration ran outside its transaction", context: context)
            }
            let found = try Self.hasChecksAtCommit(on: connection, schema: configuration.schema)
            // A save waiting for the writer runs as soon as the commit frees it, before the store below: a check
            // the migration adds protects it already (one it drops makes that save a transaction, no more).
            if found { writer.checksAtCommit.store(true, ordering: .relaxed) }
            return found
        }
        writer.checksAtCommit.store(checksAtCommit, ordering: .relaxed)
    }
}

/// Runs one step of a migration on PostgreSQL, in the migration's transaction.
struct DBBPostgresMigrationStepWork: DBBObjectWork {
    static var operationName: String { "schema" }
    let step: DBBMigrationStep
    let context: String

    func run<Connection: DBBObjectConnection>(on db: Connection) throws {
        try step.apply(onPostgres: db, context: context)
    }
}

extension DBBMigrationStep {
    /// Runs the step on PostgreSQL, inside the migration's transaction, with PostgreSQL's own `ALTER TABLE` forms.
    func apply<Connection: DBBObjectConnection>(onPostgres db: Connection, context: String) throws {
        let q = db.dialect.identifier
        func run(_ sql: String) throws { _ = try db.executeUpdate(sql, arguments: []) }
        func hasColumn(_ column: String, in table: String) throws -> Bool {
            let key = db.dialect.columnNameKey
            return try db.columns(in: table).contains { key($0.name) == key(column) }
        }
        func renameIndex(_ old: String, to new: String) throws {
            try run("ALTER INDEX IF EXISTS \(q(old)) RENAME TO \(q(new))")
        }
        func requireTable(_ table: String) throws {
            guard try db.tableExists(table) else {
                throw DBBError.misuse("there is no table \(table)", context: context)
            }
        }
        /// The join tables of a class's table: tables `<Table>_…` with an owner column `<Table>_ID`.
        func joinTables(of table: String) throws -> [String] {
            var tables: [String] = []
            try db.forEachObjectRow(
                "SELECT table_name FROM information_schema.columns WHERE table_schema = current_schema() "
                    + "AND column_name = ? ORDER BY table_name", arguments: [.text(table + "_ID")]
            ) { row in
                if let name = Connection.value(in: row, at: 0).stringValue, name.hasPrefix(table + "_") {
                    tables.append(name)
                }
            }
            return tables
        }
        switch kind {
        case .sql(let sql):
            try run(sql)
        case .renameProperty(let table, let old, let new):
            try requireTable(table)
            if try hasColumn(old, in: table) {
                try run("ALTER TABLE \(q(table)) RENAME COLUMN \(q(old)) TO \(q(new))")
                try renameIndex("\(table)_\(old)", to: "\(table)_\(new)")
            } else if try db.tableExists("\(table)_\(old)") {
                try run("ALTER TABLE \(q("\(table)_\(old)")) RENAME TO \(q("\(table)_\(new)"))")
                try run("ALTER TABLE \(q("\(table)_\(new)")) RENAME COLUMN \(q(old)) TO \(q(new))")
                try renameIndex("\(table)_\(old)_idx", to: "\(table)_\(new)_idx")
            } else {
                throw DBBError.misuse(
                    "\(table) has no column \(old) and no join table \(table)_\(old)", context: context)
            }
        case .renameClass(let old, let new):
            try requireTable(old)
            let joins = try joinTables(of: old)
            var indexes: [String] = []
            try db.forEachObjectRow(
                "SELECT indexname FROM pg_indexes WHERE schemaname = current_schema() AND indexname LIKE ?",
                arguments: [.text(old.replacingOccurrences(of: "_", with: "\\_") + "\\_%")]
            ) { row in
                if let name = Connection.value(in: row, at: 0).stringValue { indexes.append(name) }
            }
            try run("ALTER TABLE \(q(old)) RENAME TO \(q(new))")
            for join in joins {
                let renamed = new + join.dropFirst(old.count)
                try run("ALTER TABLE \(q(join)) RENAME TO \(q(renamed))")
                try run("ALTER TABLE \(q(renamed)) RENAME COLUMN \(q(old + "_ID")) TO \(q(new + "_ID"))")
            }
            for index in indexes { try renameIndex(index, to: new + index.dropFirst(old.count)) }
        case .dropProperty(let table, let name):
            try requireTable(table)
            if try hasColumn(name, in: table) {
                try run("ALTER TABLE \(q(table)) DROP COLUMN \(q(name))")
            } else if try db.tableExists("\(table)_\(name)") {
                try run("DROP TABLE \(q("\(table)_\(name)"))")
            } else {
                throw DBBError.misuse(
                    "\(table) has no column \(name) and no join table \(table)_\(name)", context: context)
            }
        case .dropClass(let table):
            try requireTable(table)
            for join in try joinTables(of: table) { try run("DROP TABLE \(q(join))") }
            try run("DROP TABLE \(q(table))")
        case .changeType(let table, let property, let sqlType, let transform):
            try requireTable(table)
            let target = try hasColumn(property, in: table) ? table : "\(table)_\(property)"
            try requireTable(target)
            let type = db.dialect.columnType(sqlType)
            guard let transform else {
                try run(
                    "ALTER TABLE \(q(target)) ALTER COLUMN \(q(property)) TYPE \(type) USING \(q(property))::\(type)")
                return
            }
            // The new values are computed here, then stored in a new column that takes the old one's place.
            var values: [(id: DBBValue, value: DBBValue)] = []
            let idColumn = try db.primaryKeyColumn(of: target, context: context)
            try db.forEachObjectRow(
                "SELECT \(q(idColumn)), \(q(property)) FROM \(q(target)) WHERE \(q(property)) IS NOT NULL",
                arguments: []
            ) { row in
                let (id, stored) = (Connection.value(in: row, at: 0), Connection.value(in: row, at: 1))
                let transformed: (any DBBBindable)?
                do {
                    transformed = try transform(stored)
                } catch {
                    throw DBBError.wrapping(
                        error, prefix: Self.transformFailurePrefix(id: id, table: table, target: target),
                        context: context)
                }
                values.append((id, try transformed?.dbbValue(options: .objectLayout) ?? .null))
            }
            let temporary = property + "_dbb_new"
            try run("ALTER TABLE \(q(target)) ADD COLUMN \(q(temporary)) \(type)")
            for (id, value) in values {
                _ = try db.executeUpdate(
                    "UPDATE \(q(target)) SET \(q(temporary)) = ? WHERE \(q(idColumn)) = ?", arguments: [value, id])
            }
            try run("ALTER TABLE \(q(target)) DROP COLUMN \(q(property))")
            try run("ALTER TABLE \(q(target)) RENAME COLUMN \(q(temporary)) TO \(q(property))")
        case .referenceToColumn(let table, let property):
            try requireTable(table)
            guard try !hasColumn(property, in: table) else {
                throw DBBError.misuse("\(table).\(property) is a column already", context: context)
            }
            guard try db.tableExists("\(table)_\(property)") else {
                throw DBBError.misuse("\(table) has no join table \(table)_\(property)", context: context)
            }
            try db.moveReferenceToColumn(
                property, in: table, idColumn: try db.primaryKeyColumn(of: table, context: context), context: context)
        case .referenceToJoinTable(let table, let property):
            try requireTable(table)
            guard try hasColumn(property, in: table) else {
                throw DBBError.misuse("\(table) has no column \(property)", context: context)
            }
            try db.moveReferenceToJoinTable(
                property, in: table, idColumn: try db.primaryKeyColumn(of: table, context: context), context: context
            ) { try run("ALTER TABLE \(q(table)) DROP COLUMN \(q(property))") }
        case .convertLayout(let table, let lean):
            try requireTable(table)
            // The layouts differ on a server by the timestamp columns alone: both number rows with an identity
            // column, which never hands out an id twice (there is no AUTOINCREMENT to add or remove).
            let timestamps = ["createdTime", "modifiedTime"].map(q)
            try run(
                "ALTER TABLE \(q(table)) "
                    + timestamps.map {
                        lean ? "DROP COLUMN IF EXISTS \($0)" : "ADD COLUMN IF NOT EXISTS \($0) double precision"
                    }.joined(separator: ", "))
            try db.makeIdentity(try db.primaryKeyColumn(of: table, context: context), of: table)
        case .objects:
            // The migrator runs data steps itself, through the manager, in the same transaction.
            throw DBBError.library(
                .internal, message: "a data step reached PostgreSQL's schema steps", context: context)
        }
    }
}

extension DBBObjectConnection {
    /// The one column of a table's primary key.
    ///
    /// - Throws: `DBBError` (misuse) when the primary key is missing or has several columns.
    fileprivate func primaryKeyColumn(of table: String, context: String) throws -> String {
        var names: [String] = []
        try forEachObjectRow(
            "SELECT a.attname::text FROM pg_index i JOIN pg_attribute a ON a.attrelid = i.indrelid "
                + "AND a.attnum = ANY(i.indkey) WHERE i.indrelid = ?::regclass AND i.indisprimary",
            arguments: [.text(dialect.identifier(table))]
        ) { row in
            if let name = Self.value(in: row, at: 0).stringValue { names.append(name) }
        }
        guard names.count == 1, let name = names.first else {
            throw DBBError.misuse("table \(table) has no one-column primary key", context: context)
        }
        return name
    }

    /// Makes a table's id column an identity when it is none (a table another program created), starting
    /// after the largest id, so that the object layer's inserts, which take ids from the column's sequence,
    /// work on it. A column with a sequence already (an identity, or `serial`) is left as it is.
    fileprivate func makeIdentity(_ column: String, of table: String) throws {
        let q = dialect.identifier
        var sequence: String?
        try forEachObjectRow(
            "SELECT pg_get_serial_sequence(?, ?)", arguments: [.text(q(table)), .text(column)]
        ) { row in sequence = Self.value(in: row, at: 0).stringValue }
        guard sequence == nil else { return }
        let next = try selectIDs("SELECT COALESCE(max(\(q(column))), 0) + 1 FROM \(q(table))", arguments: []).first ?? 1
        try executeUpdate(
            "ALTER TABLE \(q(table)) ALTER COLUMN \(q(column)) ADD GENERATED BY DEFAULT AS IDENTITY (START WITH \(next))",
            arguments: [])
    }
}
