import Foundation

extension DBBManager {
    /// The number of rows in a table (a class's instance count when given its table name).
    ///
    /// - Parameter tableName: the table, for example `Person.tableName`.
    /// - Returns: the count, or 0 when the table does not exist (the reason is in ``errorMessage()``).
    public func countForTable(_ tableName: String) -> Int {
        (try? run { db in try db.fetchValue(Int.self, "SELECT count(*) FROM \(DBBIdentifier.sql(tableName))") ?? 0 })
            ?? 0
    }

    /// Rebuilds the database file to reclaim free space.
    public func vacuumDB() {
        _ = try? run { db in try db.vacuum() }
    }

    /// Drops an index.
    ///
    /// - Parameter indexName: the index's name.
    /// - Returns: whether the statement succeeded (dropping a missing index succeeds).
    @discardableResult
    public func dropIndex(named indexName: String) -> Bool {
        (try? run { db in try db.dropIndex(indexName) }) != nil
    }

    /// Compares the database's version (stored in table `DBVersion`) with the one the code expects.
    ///
    /// - Parameter currentVersion: the version the code expects.
    /// - Returns: whether the stored version is at least `currentVersion`, and the stored version (0 when
    ///   none was set).
    public func hasLatestDBVersion(currentVersion: Double) -> (hasLatest: Bool, version: Double) {
        let stored = (try? run { db in try db.fetchValue(Double.self, "SELECT MAX(version) FROM DBVersion") }) ?? nil
        guard let stored else { return (false, 0) }
        return (stored >= currentVersion, stored)
    }

    /// Sets the database's version; a version lower than (or equal to) the stored one is ignored, so
    /// the version never goes down.
    ///
    /// - Parameter version: the new version.
    public func setCurrentDBVersion(_ version: Double) {
        _ = try? run { db in
            try db.inTransaction { db in
                let stored = try db.fetchValue(Double.self, "SELECT MAX(version) FROM DBVersion")
                if let stored, stored >= version { return }
                let now = Date().timeIntervalSinceReferenceDate
                if stored == nil {
                    try db.execute(
                        "INSERT INTO DBVersion (createdTime, modifiedTime, version) VALUES (?, ?, ?)", now, now, version
                    )
                } else {
                    try db.execute("UPDATE DBVersion SET version = ?, modifiedTime = ?", version, now)
                }
            }
        }
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
