/// Deletes rows of a registered class with everything that belongs to them: their join rows, the join
/// rows of other classes that point at them, and, for arrays marked with
/// `ColumnAttribute.cascadingDeletion`, the referenced objects themselves.
struct DBBObjectDeleter {
    let manager: DBBManager
    let db: DBBDatabase
    private var visited: [ObjectIdentifier: Set<Int64>] = [:]

    init(manager: DBBManager, db: DBBDatabase) {
        self.manager = manager
        self.db = db
    }

    /// Deletes the rows with these ids; call inside a transaction.
    mutating func delete(ids: [Int64], of map: DBBTableMap) throws {
        let key = ObjectIdentifier(map.type)
        let newIDs = ids.filter { visited[key, default: []].insert($0).inserted }
        guard !newIDs.isEmpty else { return }
        let list = DBBTableMap.idList(newIDs)

        for join in map.joins where join.cascades {
            guard let target = join.values.target, let targetMap = manager.mapIfRegistered(target) else { continue }
            let children = try db.fetchValues(Int64.self, join.selectOwnerIDsSQL, list)
            try delete(ids: children, of: targetMap)
        }
        for join in map.joins {
            try db.execute(join.deleteOwnersSQL, list)
        }
        for other in manager.allMaps {
            for join in other.joins where join.values.target == key {
                try db.execute(join.deleteValuesSQL, list)
            }
        }
        try db.execute(map.deleteSQL, list)
    }
}
