internal import DBBSQL
internal import DBBSchema
internal import Foundation

/// Records a migration, in the migration's transaction (on SQLite as on a server).
package struct DBBMigrationRecordWork: DBBObjectWork {
    package static var operationName: String { "schema" }
    let migration: DBBMigrator.Migration

    /// A record of `migration`.
    ///
    /// - Parameter migration: the migration that ran.
    package init(migration: DBBMigrator.Migration) { self.migration = migration }

    package func run<Connection: DBBObjectConnection>(on db: Connection) throws {
        _ = try db.executeUpdate(
            DBBMigrationStatements.insertRecordSQL(db.dialect),
            arguments: [
                .text(migration.name), .real(Date().timeIntervalSinceReferenceDate), .text(migration.checksum),
            ])
    }
}

/// Creates the record table when missing.
struct DBBMigrationRecordTableWork: DBBObjectWork {
    static var operationName: String { "schema" }

    func run<Connection: DBBObjectConnection>(on db: Connection) throws {
        _ = try db.executeUpdate(DBBMigrationStatements.createRecordTableSQL(db.dialect), arguments: [])
    }
}

/// Reads the records of the migrations that ran; none when the record table does not exist.
struct DBBMigrationRecordsWork: DBBObjectWork {
    static var operationName: String { "schema" }

    func run<Connection: DBBObjectConnection>(on db: Connection) throws -> [DBBMigrator.AppliedMigration] {
        guard try db.tableExists(DBBMigrator.recordTable) else { return [] }
        var records: [DBBMigrator.AppliedMigration] = []
        try db.forEachObjectRow(DBBMigrationStatements.selectRecordsSQL(db.dialect), arguments: []) { row in
            records.append(
                DBBMigrator.AppliedMigration(
                    name: Connection.value(in: row, at: 0).stringValue ?? "",
                    appliedAt: Date(timeIntervalSinceReferenceDate: Connection.value(in: row, at: 1).doubleValue ?? 0),
                    checksum: Connection.value(in: row, at: 2).stringValue ?? ""))
        }
        return records
    }
}
