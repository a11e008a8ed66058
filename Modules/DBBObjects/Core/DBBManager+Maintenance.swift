internal import DBBSQL
internal import DBBSchema
internal import Foundation

// MARK: Throwing forms

extension DBBManager {
    /// The number of rows in a table (a class's instance count when given its table name).
    ///
    /// ```swift
    /// let people = try manager.rowCount(inTable: Person.tableName)
    /// ```
    ///
    /// - Parameter tableName: the table, for example `Person.tableName`.
    /// - Returns: the number of rows.
    /// - Throws: `DBBError` when the table does not exist (SQLite's "no such table") or SQLite fails.
    public func rowCount(inTable tableName: String) throws -> Int {
        try onSQLite("counting rows", onReader: true) { db in try db.rowCount(inTable: tableName) }
    }

    /// The number of rows in a table, counted on the manager's queue (or a reader) without blocking the calling
    /// task.
    ///
    /// ```swift
    /// let people = try await manager.rowCount(inTable: Person.tableName)
    /// ```
    ///
    /// - Parameter tableName: the table, for example `Person.tableName`.
    /// - Returns: the number of rows.
    /// - Throws: `DBBError` when the table does not exist (SQLite's "no such table") or SQLite fails.
    public func rowCount(inTable tableName: String) async throws -> Int {
        try await onSQLite("counting rows", onReader: true) { db in try db.rowCount(inTable: tableName) }
    }

    /// Rebuilds the database file to reclaim free space.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/lang_vacuum.html
    ///
    /// - Throws: `DBBError` when SQLite cannot vacuum (for example inside a transaction, or on a full disk).
    public func vacuum() throws {
        try requireWritable("vacuuming")
        try onSQLite("vacuuming") { db in try db.vacuum() }
    }

    /// Drops an index; dropping an index that does not exist does nothing.
    ///
    /// - Parameter indexName: the index's name.
    /// - Throws: `DBBError` when SQLite refuses, for example for an index that belongs to a `UNIQUE`
    ///   constraint.
    public func dropIndex(_ indexName: String) throws {
        try requireWritable("dropping an index")
        try onSQLite("dropping an index") { db in try db.dropIndex(indexName) }
    }

    /// The database's version, stored in table `DBVersion`: 0 when none was set.
    ///
    /// ```swift
    /// if try manager.databaseVersion() < 2 { try migrateToVersion2(manager) }
    /// ```
    ///
    /// - Returns: the stored version, or 0.
    /// - Throws: `DBBError` when the version cannot be read.
    public func databaseVersion() throws -> Double {
        try onSQLite("reading the database version", onReader: true) { db in
            try db.fetchValue(Double.self, DBBVersionStatements.selectVersion)
        } ?? 0
    }

    /// Sets the database's version; a version lower than (or equal to) the stored one is ignored, so the
    /// version never goes down.
    ///
    /// - Parameter version: the new version.
    /// - Throws: `DBBError` when the version cannot be written; the stored version is then unchanged.
    public func setDatabaseVersion(_ version: Double) throws {
        try requireWritable("setting the database version")
        try onSQLite("setting the database version") { db in
            try db.inTransaction(.immediate) { db in
                let stored = try db.fetchValue(Double.self, DBBVersionStatements.selectVersion)
                if let stored, stored >= version { return }
                let now = Date().timeIntervalSinceReferenceDate
                if stored == nil {
                    try db.execute(DBBVersionStatements.insertVersion, now, now, version)
                } else {
                    try db.execute(DBBVersionStatements.updateVersion, version, now)
                }
            }
        }
    }
}

// MARK: DBBBuilder-compatible forms

extension DBBManager {
    /// The number of rows in a table; the DBBBuilder-compatible form of ``rowCount(inTable:)-32lvj``.
    ///
    /// - Parameter tableName: the table, for example `Person.tableName`.
    /// - Returns: the count. A missing table is an error, which this form can only report as 0 with the
    ///   reason in ``errorMessage()``; use ``rowCount(inTable:)-32lvj`` to tell the two apart.
    public func countForTable(_ tableName: String) -> Int {
        (try? rowCount(inTable: tableName)) ?? 0
    }

    /// Rebuilds the database file; the DBBBuilder-compatible form of ``vacuum()``. A failure is recorded
    /// for ``errorMessage()``.
    public func vacuumDB() {
        _ = try? vacuum()
    }

    /// Drops an index; the DBBBuilder-compatible form of ``dropIndex(_:)``.
    ///
    /// - Parameter indexName: the index's name.
    /// - Returns: whether the statement succeeded (dropping a missing index succeeds); on failure the
    ///   reason is in ``errorMessage()``.
    @discardableResult
    public func dropIndex(named indexName: String) -> Bool {
        (try? dropIndex(indexName)) != nil
    }

    /// Compares the database's version with the one the code expects; the DBBBuilder-compatible form of
    /// ``databaseVersion()``.
    ///
    /// - Parameter currentVersion: the version the code expects.
    /// - Returns: whether the stored version is at least `currentVersion`, and the stored version (0 when
    ///   none was set, or when it could not be read: the reason is then in ``errorMessage()``).
    public func hasLatestDBVersion(currentVersion: Double) -> (hasLatest: Bool, version: Double) {
        guard let stored = try? databaseVersion(), stored > 0 else { return (false, 0) }
        return (stored >= currentVersion, stored)
    }

    /// Sets the database's version, never lowering it; the DBBBuilder-compatible form of
    /// ``setDatabaseVersion(_:)``. A failure is recorded for ``errorMessage()``.
    ///
    /// - Parameter version: the new version.
    public func setCurrentDBVersion(_ version: Double) {
        _ = try? setDatabaseVersion(version)
    }
}

/// The table that holds the database version (`DBVersion`, one row).
final class DBVersion: DBBTableObject {
    var version: Double = 0

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["version": .init(\DBVersion.version)], for: self)
    }
}
