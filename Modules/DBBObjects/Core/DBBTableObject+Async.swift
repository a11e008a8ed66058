public import DBBQuery
internal import DBBSQL
public import DBBSchema

/// Carries what work built on a connection's queue (new objects) to the task that asked for it, and work to
/// that queue.
///
/// @unchecked: the objects are new and nothing on the queue keeps them (the loader is local), so the caller owns them.
package struct DBBResultTransfer<Value>: @unchecked Sendable {
    private let value: Value
    package init(_ value: Value) { self.value = value }
    package func take() -> sending Value {
        // Safe for the reason the type is @unchecked: one side holds the value at a time.
        nonisolated(unsafe) let value = value
        return value
    }
}

extension DBBTableRepresentable where Self: DBBTableObject {
    /// Fetches on the manager's queue without blocking the calling task; the objects are new and handed
    /// to the caller.
    static func fetchAsync(
        manager: DBBManager,
        _ build: @escaping @Sendable (DBBRegisteredClass) throws -> (DBBFetchRequest, DBBQueryPlan?)
    ) async throws -> sending [Self] {
        do {
            let map = try manager.map(for: self)
            let (request, distinct) = try build(map)
            let objects = try await manager.perform(
                DBBFetchWork(request: request, distinct: distinct, map: map, manager: manager), isWrite: false)
            return map.typed(objects, as: Self.self)
        } catch {
            throw manager.record(error)
        }
    }

    /// Every instance, fully populated, in id order.
    ///
    /// - Throws: `DBBError` when the class is not registered or a row does not fit the mapping.
    public static func fetchAll(manager: DBBManager) async throws -> sending [Self] {
        try await fetchAsync(manager: manager) { map in (map.allRowsRequest, nil) }
    }

    /// The objects that match query options.
    ///
    /// - Throws: `DBBError` as ``DBBTableObject/fetch(options:manager:sparsePopulation:)-2rueh``.
    public static func fetch(options: DBBQueryOptions, manager: DBBManager, sparsePopulation: Bool = false)
        async throws -> sending [Self]
    {
        try await fetchAsync(manager: manager) { map in
            try request(for: options, map: map, sparse: sparsePopulation, manager: manager)
        }
    }

    /// The instance with an id, or `nil`.
    ///
    /// - Throws: `DBBError` when the class is not registered or the row does not fit the mapping.
    public static func fetchOne(id: Int64, manager: DBBManager, sparsePopulation: Bool = false) async throws
        -> sending Self?
    {
        try await fetchAsync(manager: manager) { map in (map.rowsRequest(ids: [id], sparse: sparsePopulation), nil) }
            .first
    }

    /// The instances with these ids, in the order of the ids.
    ///
    /// - Throws: `DBBError` when the class is not registered or a row does not fit the mapping.
    public static func fetch(ids: [Int64], manager: DBBManager, sparsePopulation: Bool = false) async throws
        -> sending [Self]
    {
        let objects = try await fetchAsync(manager: manager) { map in
            (map.rowsRequest(ids: ids, sparse: sparsePopulation), nil)
        }
        return DBBRegisteredClass.ordered(objects, by: ids)
    }

    /// The ids of every instance, ascending.
    ///
    /// - Throws: `DBBError` when the class is not registered.
    public static func fetchAllIDs(manager: DBBManager) async throws -> [Int64] {
        do {
            let map = try manager.map(for: self)
            return try await manager.perform(DBBIDsWork(sql: map.allIDsSQL, arguments: []), isWrite: false)
        } catch {
            throw manager.record(error)
        }
    }

    /// The number of objects that match query options, without blocking the calling task.
    ///
    /// - Throws: `DBBError` as ``fetchCount(options:manager:)``.
    public static func fetchCount(options: DBBQueryOptions = DBBQueryOptions(), manager: DBBManager) async throws
        -> Int
    {
        do {
            return try await manager.perform(try countWork(options, manager: manager), isWrite: false)
        } catch {
            throw manager.record(error)
        }
    }

    /// Saves objects of this class in one transaction without blocking the calling task.
    ///
    /// - Throws: `DBBError` as ``DBBTableObject/save(_:manager:)-5imvk``.
    public static func save(_ objects: [Self], manager: DBBManager) async throws {
        try requireOnlyInstances(objects, manager: manager, action: "saving")
        try await DBBObjectWriter(manager: manager).save(objects)
    }

    /// Deletes the rows with these ids without blocking the calling task.
    ///
    /// - Throws: `DBBError` when the class is not registered or SQLite fails.
    public static func delete(ids: [Int64], manager: DBBManager) async throws {
        do {
            try manager.requireWritable("deleting \(self) objects")
            let map = try manager.map(for: self)
            guard !ids.isEmpty else { return }
            try await manager.perform(DBBDeleteWork(ids: ids, map: map, manager: manager), isWrite: true)
        } catch {
            throw manager.record(error)
        }
    }

    /// Deletes objects of this class without blocking the calling task; they get `idNum` 0.
    ///
    /// - Throws: `DBBError` when the class is not registered or SQLite fails.
    public static func delete(_ instances: [Self], manager: DBBManager) async throws {
        try requireOnlyInstances(instances, manager: manager, action: "deleting")
        try await delete(ids: instances.map(\.idNum).filter { $0 != 0 }, manager: manager)
        for instance in instances { instance.markDeleted() }
    }

    /// Deletes every instance without blocking the calling task.
    ///
    /// - Throws: `DBBError` when the class is not registered or SQLite fails.
    public static func deleteAll(manager: DBBManager) async throws {
        try await delete(ids: try await fetchAllIDs(manager: manager), manager: manager)
    }
}

extension DBBTableObject {
    /// Saves the object (and the unsaved objects it references) without blocking the calling task.
    ///
    /// - Throws: `DBBError` as `save()`.
    public func save() async throws {
        try await DBBObjectWriter(manager: dbManager).save([self])
    }

    /// Deletes the object's row without blocking the calling task; the object gets `idNum` 0.
    ///
    /// - Throws: `DBBError` as `delete()`.
    public func delete() async throws {
        guard idNum != 0 else { return }
        try dbManager.requireWritable("deleting \(type(of: self)) objects")
        let map = try dbManager.map(for: type(of: self))
        try await dbManager.perform(DBBDeleteWork(ids: [idNum], map: map, manager: dbManager), isWrite: true)
        markDeleted()
    }
}
