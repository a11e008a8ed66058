internal import DBBSQL
internal import DBBSchema

/// Deletes rows of a registered class with everything that belongs to them: their join rows, the join
/// rows and foreign key columns of other classes that point at them, and, for arrays marked with
/// `ColumnAttribute.cascadingDeletion`, the referenced objects themselves.
struct DBBObjectDeleter<Connection: DBBObjectConnection> {
    let manager: DBBManager
    let db: Connection
    private var visited: [ObjectIdentifier: Set<Int64>] = [:]

    init(manager: DBBManager, db: Connection) {
        self.manager = manager
        self.db = db
    }

    /// Deletes the rows with these ids; call inside a transaction.
    mutating func delete(ids: [Int64], of map: DBBRegisteredClass) throws {
        let key = ObjectIdentifier(map.type)
        let newIDs = ids.filter { visited[key, default: []].insert($0).inserted }
        guard !newIDs.isEmpty else { return }
        let list = map.idList(newIDs)

        for join in map.joins where join.cascades {
            guard let table = join.joinTable, let target = join.target, let targetMap = manager.mapIfRegistered(target)
            else { continue }
            let children = try db.selectIDs(table.selectOwnerValuesSQL, arguments: [list])
            try delete(ids: children, of: targetMap)
        }
        for table in map.joins.compactMap(\.joinTable) {
            try db.executeUpdate(table.deleteOwnersSQL, arguments: [list])
        }
        for other in manager.allMaps {
            for join in other.joins where join.target == key {
                guard let table = join.joinTable else { continue }
                try db.executeUpdate(table.deleteValuesSQL, arguments: [list])
            }
            // A foreign key column elsewhere that points at a deleted row is cleared, so a row inserted later
            // with a reused id is not mistaken for the old one. A NOT NULL column refuses, and the delete fails
            // with the constraint error and changes nothing.
            for foreignKey in other.foreignKeys where foreignKey.target == key {
                guard let column = foreignKey.column else { continue }
                try db.executeUpdate(other.description.clearReferencesSQL(column: column), arguments: [list])
            }
        }
        try db.executeUpdate(map.deleteSQL, arguments: [list])
    }
}
