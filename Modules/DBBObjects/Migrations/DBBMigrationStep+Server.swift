internal import DBBSQL
internal import DBBSchema
internal import Foundation

/// Runs one migration on a database server, in one transaction of its writer connection: the steps in the
/// server's own `ALTER TABLE` forms, then the migration's record. The server checks foreign keys itself.
struct DBBServerMigrationWork: DBBObjectWork {
    static var operationName: String { "schema" }
    let migration: DBBMigrator.Migration

    func run<Connection: DBBObjectConnection>(on db: Connection) throws {
        for step in migration.steps { try step.apply(onServer: db, context: "running migration \(migration.name)") }
        let q = db.dialect.identifier
        _ = try db.executeUpdate(
            "INSERT INTO \(q(DBBMigrator.recordTable)) (\(q("name")), \(q("appliedTime")), \(q("checksum"))) "
                + "VALUES (?, ?, ?)",
            arguments: [
                .text(migration.name), .real(Date().timeIntervalSinceReferenceDate), .text(migration.checksum),
            ])
    }
}

/// Creates the record table on a server when missing, and reads the records.
struct DBBServerMigrationRecordsWork: DBBObjectWork {
    static var operationName: String { "schema" }

    func run<Connection: DBBObjectConnection>(on db: Connection) throws -> [DBBMigrator.AppliedMigration] {
        let dialect = db.dialect
        let q = dialect.identifier
        let table = q(DBBMigrator.recordTable)
        _ = try db.executeUpdate(
            "CREATE TABLE IF NOT EXISTS \(table) (\(q("id")) \(dialect.idColumnDefinition), \(q("name")) "
                + "\(dialect.columnType("Text")) NOT NULL UNIQUE, \(q("appliedTime")) \(dialect.columnType("Real")), "
                + "\(q("checksum")) \(dialect.columnType("Text")))", arguments: [])
        var records: [DBBMigrator.AppliedMigration] = []
        try db.forEachObjectRow(
            "SELECT \(q("name")), \(q("appliedTime")), \(q("checksum")) FROM \(table) ORDER BY \(q("id"))",
            arguments: []
        ) { row in
            records.append(
                DBBMigrator.AppliedMigration(
                    name: Connection.value(in: row, at: 0).stringValue ?? "",
                    appliedAt: Date(timeIntervalSinceReferenceDate: Connection.value(in: row, at: 1).doubleValue ?? 0),
                    checksum: Connection.value(in: row, at: 2).stringValue ?? ""))
        }
        return records
    }
}

extension DBBMigrationStep {
    /// Runs the step on a server, inside the migration's transaction, with the server's own `ALTER TABLE` forms.
    func apply<Connection: DBBObjectConnection>(onServer db: Connection, context: String) throws {
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
            try db.forEachObjectRow(
                "SELECT \(q("id")), \(q(property)) FROM \(q(target)) WHERE \(q(property)) IS NOT NULL", arguments: []
            ) { row in
                let stored = Connection.value(in: row, at: 1)
                values.append(
                    (Connection.value(in: row, at: 0), try transform(stored)?.dbbValue(options: .objectLayout) ?? .null)
                )
            }
            let temporary = property + "_dbb_new"
            try run("ALTER TABLE \(q(target)) ADD COLUMN \(q(temporary)) \(type)")
            for (id, value) in values {
                _ = try db.executeUpdate(
                    "UPDATE \(q(target)) SET \(q(temporary)) = ? WHERE \(q("id")) = ?", arguments: [value, id])
            }
            try run("ALTER TABLE \(q(target)) DROP COLUMN \(q(property))")
            try run("ALTER TABLE \(q(target)) RENAME COLUMN \(q(temporary)) TO \(q(property))")
        case .objects, .referenceToColumn, .referenceToJoinTable, .convertLayout:
            throw DBBError.misuse(
                "the step \(summary) runs on SQLite only", recovery: "write it as .sql steps for the server",
                context: context)
        }
    }
}
