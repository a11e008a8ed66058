public import DBBSchema

extension DBBTableObject {
    /// Deletes objects of exactly this class in one transaction: the shared body of the typed and
    /// compatible forms.
    static func deleteInstances(_ instances: [DBBTableObject], manager: DBBManager) throws {
        try requireOnlyInstances(instances, manager: manager, action: "deleting")
        try delete(ids: instances.map(\.idNum).filter { $0 != 0 }, manager: manager)
        manager.rememberForRollback(instances)
        for instance in instances { instance.markDeleted() }
    }

    /// Deletes the rows with these ids, as ``DBBTableObject/delete(_:manager:)-z169`` does.
    ///
    /// - Throws: `DBBError` when the class is not registered or SQLite fails.
    public static func delete(ids: [Int64], manager: DBBManager) throws {
        try manager.requireWritable("deleting \(self) objects")
        let map = try manager.map(for: self)
        guard !ids.isEmpty else { return }
        try manager.perform(DBBDeleteWork(ids: ids, map: map, manager: manager), isWrite: true)
    }

    /// Deletes every instance of this class, as ``DBBTableObject/delete(_:manager:)-z169`` does.
    ///
    /// - Throws: `DBBError` when the class is not registered or SQLite fails.
    public static func deleteAll(manager: DBBManager) throws {
        try delete(ids: try fetchAllIDs(manager: manager), manager: manager)
    }
}

extension DBBTableRepresentable where Self: DBBTableObject {
    /// Deletes objects of this class in one transaction, with their join rows, the join rows of other
    /// classes that point at them, and cascading arrays' objects. Deleted objects get `idNum` 0; unsaved
    /// ones (`idNum` 0) are skipped.
    ///
    /// - Parameters:
    ///   - instances: instances of exactly this class.
    ///   - manager: the manager to delete through.
    /// - Throws: `DBBError` (misuse) for an object of a subclass, or when SQLite fails; nothing is deleted
    ///   then.
    public static func delete(_ instances: [Self], manager: DBBManager) throws {
        try deleteInstances(instances, manager: manager)
    }
}

extension DBBTableObject {
    /// Deletes the object's row, as ``DBBTableObject/delete(_:manager:)-z169`` does, through its own
    /// manager; the object gets `idNum` 0. An unsaved object has nothing to delete.
    ///
    /// ```swift
    /// try person.delete()
    /// ```
    ///
    /// - Throws: `DBBError` when the class is not registered or SQLite fails; nothing is deleted then.
    public func delete() throws {
        try type(of: self).deleteInstances([self], manager: dbManager)
    }
}
