public import DBBQuery
public import DBBSQL
public import DBBSchema

// The DBBBuilder-compatible names: every form that reports failure as `false`, `nil` or an empty
// array (the reason is then in `manager.errorMessage()`), and every completion-handler form. The
// throwing and async forms they wrap are the primary API.

extension DBBTableObject {
    /// Saves the object; the DBBBuilder-compatible form of `save()`.
    ///
    /// - Returns: whether the save succeeded; on failure the reason is in the manager's `errorMessage()`.
    @discardableResult
    public func saveToDB() -> Bool {
        (try? save()) != nil
    }

    /// Saves objects of this class in one transaction; the DBBBuilder-compatible form of
    /// ``DBBTableObject/save(_:manager:)-5imvk``.
    ///
    /// - Returns: whether the save succeeded; on failure the reason is in `dbManager.errorMessage()`.
    @discardableResult
    public static func saveObjects(_ objects: [DBBTableObject], dbManager: DBBManager) -> Bool {
        (try? saveInstances(objects, manager: dbManager)) != nil
    }

    /// The ids of every instance (an empty array on failure; see `manager.errorMessage()`).
    public static func allInstanceIDs(manager: DBBManager) -> [Int64] {
        (try? fetchAllIDs(manager: manager)) ?? []
    }

    /// Deletes one instance; the DBBBuilder-compatible form of ``DBBTableObject/delete()-7771x``.
    ///
    /// - Returns: whether the delete succeeded; on failure the reason is in `manager.errorMessage()`.
    @discardableResult
    public static func deleteInstance(_ instance: DBBTableObject, manager: DBBManager) -> Bool {
        (try? deleteInstances([instance], manager: manager)) != nil
    }

    /// Deletes several instances in one transaction; the DBBBuilder-compatible form of
    /// ``DBBTableObject/delete(_:manager:)-z169``.
    ///
    /// - Returns: whether the delete succeeded; on failure the reason is in `manager.errorMessage()`.
    @discardableResult
    public static func deleteMultipleInstances(_ instances: [DBBTableObject], manager: DBBManager) -> Bool {
        (try? deleteInstances(instances, manager: manager)) != nil
    }

    /// Deletes every instance; the DBBBuilder-compatible form of ``deleteAll(manager:)``.
    @discardableResult
    public static func deleteAllInstances(manager: DBBManager) -> Bool {
        (try? deleteAll(manager: manager)) != nil
    }
}

extension DBBTableRepresentable where Self: DBBTableObject {
    /// Every instance of the class; the DBBBuilder-compatible form of ``DBBTableObject/fetchAll(manager:)-6buuz``.
    ///
    /// A failure cannot be told from an empty table here: it returns an empty array and leaves the reason
    /// in `manager.errorMessage()`. Use `try fetchAll(manager:)` where a failure matters.
    ///
    /// - Returns: the instances, or an empty array on failure.
    public static func allInstances(manager: DBBManager) -> [Self] {
        (try? fetchAll(manager: manager)) ?? []
    }

    /// The instance with an id, or `nil` when there is none (or on failure; see `manager.errorMessage()`).
    public static func instanceWithIDNumber(_ id: Int64, manager: DBBManager, sparsePopulation: Bool = false) -> Self? {
        (try? fetchOne(id: id, manager: manager, sparsePopulation: sparsePopulation)) ?? nil
    }

    /// The instances with these ids (an empty array on failure; see `manager.errorMessage()`).
    public static func instancesWithIDNumbers(_ ids: [Int64], manager: DBBManager) -> [Self] {
        (try? fetch(ids: ids, manager: manager)) ?? []
    }

    /// The objects that match query options, or `nil` when the query is invalid (the reason is then in
    /// `manager.errorMessage()`).
    public static func instancesWithOptions(
        _ options: DBBQueryOptions, manager: DBBManager, sparsePopulation: Bool = false
    ) -> [Self]? {
        try? fetch(options: options, manager: manager, sparsePopulation: sparsePopulation)
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
