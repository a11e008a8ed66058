import Foundation

extension DBBTableObject {
    /// Builds the fetch a set of query options asks for; a distinct fetch first selects one id per
    /// distinct combination of the loaded properties, a grouped fetch one id per group.
    static func request(
        for options: DBBQueryOptions, map: DBBTableMap, sparse: Bool, manager: DBBManager
    ) throws -> (request: DBBFetchRequest, distinct: DBBQueryPlan?) {
        let plan = try DBBQueryPlan(
            options: options, table: map.description, schema: DBBManagerQuerySchema(manager: manager))
        var request = DBBFetchRequest()
        request.tail = plan.whereSQL + plan.orderSQL + plan.limitSQL
        request.arguments = plan.arguments
        request.properties = plan.properties
        request.joinProperties = plan.joinProperties
        request.sparse = sparse
        request.isAll = plan.whereSQL.isEmpty && plan.limitSQL.isEmpty
        return (request, plan.distinctColumns == nil && plan.groupColumns == nil ? nil : plan)
    }

    /// Runs a fetch built from query options; call on the manager's queue. Its statements (the rows, then
    /// each join property and the referenced objects) read one snapshot: they run in one transaction.
    static func run(
        _ request: DBBFetchRequest, distinct: DBBQueryPlan?, map: DBBTableMap, manager: DBBManager, db: DBBDatabase
    ) throws -> [DBBTableObject] {
        try db.inTransaction { db in
            try runInSnapshot(request, distinct: distinct, map: map, manager: manager, db: db)
        }
    }

    private static func runInSnapshot(
        _ request: DBBFetchRequest, distinct: DBBQueryPlan?, map: DBBTableMap, manager: DBBManager, db: DBBDatabase
    ) throws -> [DBBTableObject] {
        var request = request
        if let distinct, let columns = distinct.groupColumns ?? distinct.distinctColumns {
            let id = DBBIdentifier.sql(map.idColumn)
            let groups = columns.map(DBBIdentifier.sql).joined(separator: ", ")
            let ids = try db.fetchValues(
                Int64.self,
                "SELECT MIN(\(id)) AS \(id) FROM \(DBBIdentifier.sql(map.tableName))\(distinct.whereSQL) "
                    + "GROUP BY \(groups)\(distinct.orderSQL)\(distinct.limitSQL)",
                arguments: DBBArguments(distinct.arguments))
            request.tail = map.byIDsSQL + distinct.orderSQL
            request.arguments = [.text(DBBTableMap.idList(ids))]
            request.isAll = false
            // Distinct combinations of the chosen properties: the objects carry those properties only.
            if distinct.distinctColumns != nil {
                request.properties =
                    request.properties ?? Set(map.scalars.map(\.name) + map.foreignKeys.map(\.name))
            }
        }
        return try DBBObjectLoader(manager: manager, db: db).fetch(map, request)
    }
}

extension DBBTableObject {
    /// The `SELECT count(*)` that counts what a fetch with these options returns.
    static func countQuery(_ options: DBBQueryOptions, manager: DBBManager) throws -> (String, [DBBValue]) {
        let map = try manager.map(for: self)
        let plan = try DBBQueryPlan(
            options: options, table: map.description, schema: DBBManagerQuerySchema(manager: manager))
        let table = DBBIdentifier.sql(map.tableName)
        let sql: String
        if let columns = plan.groupColumns ?? plan.distinctColumns {
            let groups = columns.map(DBBIdentifier.sql).joined(separator: ", ")
            sql = "SELECT count(*) FROM (SELECT 1 FROM \(table)\(plan.whereSQL) GROUP BY \(groups)\(plan.limitSQL))"
        } else if plan.limitSQL.isEmpty {
            sql = "SELECT count(*) FROM \(table)\(plan.whereSQL)"
        } else {
            sql = "SELECT count(*) FROM (SELECT 1 FROM \(table)\(plan.whereSQL)\(plan.limitSQL))"
        }
        return (sql, plan.arguments)
    }
}

extension DBBTableRepresentable where Self: DBBTableObject {
    /// The objects that match query options.
    ///
    /// ```swift
    /// let options = DBBQueryOptions.options(withConditions: ["budget > 1000", "tags = 'urgent'"], sortColumns: ["name"])
    /// let projects = try Project.fetch(options: options, manager: manager)
    /// ```
    ///
    /// - Parameters:
    ///   - options: conditions, sorting, properties to load, distinctness, paging.
    ///   - manager: the manager to read through.
    ///   - sparsePopulation: load only id and timestamps. Default: `false`.
    /// - Throws: `DBBError` when the options are invalid (an unknown property, a syntax error in a
    ///   condition, a wrong number of bound values) or the class is not registered.
    public static func fetch(options: DBBQueryOptions, manager: DBBManager, sparsePopulation: Bool = false) throws
        -> [Self]
    {
        do {
            let map = try manager.map(for: self)
            let (request, distinct) = try request(for: options, map: map, sparse: sparsePopulation, manager: manager)
            return try manager.run { db in
                try run(request, distinct: distinct, map: map, manager: manager, db: db).map { $0 as! Self }
            }
        } catch {
            throw manager.record(error)
        }
    }

    /// The number of objects that match query options, counted by one `SELECT count(*)` (no object is
    /// built). With `distinct`, distinct combinations of the chosen properties are counted; `limit` and
    /// `offset` apply as they do to a fetch.
    ///
    /// ```swift
    /// let adults = try Person.fetchCount(options: .options(withConditions: ["age >= 18"]), manager: manager)
    /// ```
    ///
    /// - Parameters:
    ///   - options: the conditions to match. Default: every object.
    ///   - manager: the manager to read through.
    /// - Returns: the number of matching objects.
    /// - Throws: `DBBError` as ``DBBTableObject/fetch(options:manager:sparsePopulation:)-2rueh``.
    public static func fetchCount(options: DBBQueryOptions = DBBQueryOptions(), manager: DBBManager) throws -> Int {
        do {
            let (sql, arguments) = try countQuery(options, manager: manager)
            return try manager.run { db in try db.fetchValue(Int.self, sql, arguments: DBBArguments(arguments)) ?? 0 }
        } catch {
            throw manager.record(error)
        }
    }

    /// The objects that match query options, or `nil` when the query is invalid (the reason is then in
    /// `manager.errorMessage()`).
    public static func instancesWithOptions(
        _ options: DBBQueryOptions, manager: DBBManager, sparsePopulation: Bool = false
    ) -> [Self]? {
        try? fetch(options: options, manager: manager, sparsePopulation: sparsePopulation)
    }
}

// MARK: Async

/// Carries objects a fetch built on the manager's queue to the task that asked for them.
///
/// @unchecked: the objects are new, and nothing on the queue keeps a reference to them once the fetch
/// returns (the loader and its identity map are local to the fetch), so the caller owns them alone.
struct DBBHandOver<Value>: @unchecked Sendable {
    private let value: Value
    init(_ value: Value) { self.value = value }
    func take() -> sending Value {
        nonisolated(unsafe) let value = value
        return value
    }
}

extension DBBTableRepresentable where Self: DBBTableObject {
    /// Fetches on the manager's queue without blocking the calling task; the objects are new and handed
    /// to the caller.
    static func fetchAsync(
        manager: DBBManager, _ build: @escaping @Sendable (DBBTableMap) throws -> (DBBFetchRequest, DBBQueryPlan?)
    ) async throws -> sending [Self] {
        do {
            let map = try manager.map(for: self)
            let (request, distinct) = try build(map)
            let handOver = try await manager.queue.inDatabase { db in
                DBBHandOver(
                    try run(request, distinct: distinct, map: map, manager: manager, db: db).map { $0 as! Self })
            }
            return handOver.take()
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
        return DBBTableMap.ordered(objects, by: ids)
    }

    /// The ids of every instance, ascending.
    ///
    /// - Throws: `DBBError` when the class is not registered.
    public static func fetchAllIDs(manager: DBBManager) async throws -> [Int64] {
        do {
            let map = try manager.map(for: self)
            return try await manager.queue.inDatabase { db in try db.fetchValues(Int64.self, map.allIDsSQL) }
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
            let (sql, arguments) = try countQuery(options, manager: manager)
            return try await manager.queue.inDatabase { db in
                try db.fetchValue(Int.self, sql, arguments: DBBArguments(arguments)) ?? 0
            }
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
            try await manager.queue.inDatabase { db in try map.deleteRows(ids: ids, manager: manager, db: db) }
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
        let (manager, id) = (dbManager, idNum)
        do {
            try await manager.queue.inDatabase { db in try map.deleteRows(ids: [id], manager: manager, db: db) }
        } catch {
            throw manager.record(error)
        }
        markDeleted()
    }
}

// MARK: Completion handlers

// The DBBBuilder-compatible forms: each runs its async twin in a detached task and calls the completion
// handler on a background thread. Fetched objects are new and handed to the handler as `sending` values,
// so the handler may pass them on to an actor or a task of its own.

extension DBBTableRepresentable where Self: DBBTableObject {
    /// Fetches every instance in the background and passes them to a completion handler (on a
    /// background thread). On failure the array is empty and `manager.errorMessage()` says why.
    public static func getAllInstancesFromQueue(
        manager: DBBManager, completion: @escaping @Sendable (sending [Self]) -> Void
    ) {
        Task.detached { completion((try? await fetchAll(manager: manager)) ?? []) }
    }

    /// Fetches the objects that match query options in the background and passes them, or the error,
    /// to a completion handler (on a background thread).
    public static func getInstancesFromQueue(
        withOptions options: DBBQueryOptions, manager: DBBManager, sparsePopulation: Bool = false,
        completion: @escaping @Sendable (sending [Self], DBBError?) -> Void
    ) {
        Task.detached {
            do {
                completion(try await fetch(options: options, manager: manager, sparsePopulation: sparsePopulation), nil)
            } catch {
                completion([], manager.record(error))
            }
        }
    }

    /// Fetches the instance with an id in the background and passes it to a completion handler.
    public static func getQueuedInstanceWithIDNumber(
        _ id: Int64, manager: DBBManager, completion: @escaping @Sendable (sending Self?) -> Void,
        sparsePopulation: Bool = false
    ) {
        Task.detached {
            completion((try? await fetchOne(id: id, manager: manager, sparsePopulation: sparsePopulation)) ?? nil)
        }
    }

    /// Fetches the instances with these ids in the background and passes them to a completion handler.
    public static func getInstancesWithIDNumbersFromQueue(
        ids: [Int64], manager: DBBManager, completion: @escaping @Sendable (sending [Self]) -> Void
    ) {
        Task.detached { completion((try? await fetch(ids: ids, manager: manager)) ?? []) }
    }

    /// Fetches the ids of every instance in the background and passes them to a completion handler.
    public static func fetchAllInstanceIDsFromQueue(
        manager: DBBManager, completion: @escaping @Sendable ([Int64]) -> Void
    ) {
        Task.detached { completion((try? await fetchAllIDs(manager: manager)) ?? []) }
    }

    /// Deletes instances in the background and reports success to a completion handler. The instances
    /// are handed over: they get `idNum` 0 when the delete succeeded.
    public static func deleteMultipleInstancesOnQueue(
        _ instances: sending [Self], manager: DBBManager, completion: @escaping @Sendable (Bool) -> Void
    ) {
        Task.detached {
            do {
                try await delete(instances, manager: manager)
                completion(true)
            } catch {
                completion(false)
            }
        }
    }

    /// Saves instances in the background, in one transaction, and reports success to a completion
    /// handler. The instances are handed over to the save.
    public static func saveObjectsOnQueue(
        _ objects: sending [Self], dbManager: DBBManager, completion: @escaping @Sendable (Bool) -> Void
    ) {
        Task.detached {
            do {
                try await save(objects, manager: dbManager)
                completion(true)
            } catch {
                completion(false)
            }
        }
    }
}
