import Foundation

// MARK: Saving

extension DBBTableObject {
    /// A class's batch operations take instances of exactly that class: a subclass lives in its own table.
    ///
    /// - Throws: ``DBBError`` (misuse) naming the first instance of another class.
    static func requireOnlyInstances(_ objects: [DBBTableObject], manager: DBBManager, action: String) throws {
        if let stranger = objects.first(where: { type(of: $0) != self }) {
            throw manager.record(
                DBBError.misuse(
                    "\(action) \(self) objects takes instances of \(self) only; found a \(type(of: stranger))",
                    recovery: "call it on each object's own class, since each class has its own table",
                    context: "\(action) \(self) objects"))
        }
    }

    /// Saves the object (insert or update), its join rows, and every unsaved object it references, in one
    /// transaction. On success the object gets its id and timestamps and is clean.
    ///
    /// - Throws: `DBBError` when the class is not registered or SQLite fails; nothing is written
    ///   then, and the objects keep their ids.
    public func save() throws {
        try DBBObjectWriter(manager: dbManager).save([self])
    }

    /// Saves the object; the DBBBuilder-compatible form of `save()`.
    ///
    /// - Returns: whether the save succeeded; on failure the reason is in the manager's `errorMessage()`.
    @discardableResult
    public func saveToDB() -> Bool {
        (try? save()) != nil
    }

    /// Saves objects of exactly this class in one transaction: the shared body of the typed and
    /// compatible forms.
    static func saveInstances(_ objects: [DBBTableObject], manager: DBBManager) throws {
        try requireOnlyInstances(objects, manager: manager, action: "saving")
        try DBBObjectWriter(manager: manager).save(objects)
    }

    /// Saves objects of this class in one transaction; the DBBBuilder-compatible form of
    /// ``DBBTableObject/save(_:manager:)-5imvk``.
    ///
    /// - Returns: whether the save succeeded; on failure the reason is in `dbManager.errorMessage()`.
    @discardableResult
    public static func saveObjects(_ objects: [DBBTableObject], dbManager: DBBManager) -> Bool {
        (try? saveInstances(objects, manager: dbManager)) != nil
    }
}

extension DBBTableRepresentable where Self: DBBTableObject {
    /// Saves objects of this class in one transaction, all or nothing — their join rows and the unsaved
    /// objects they reference included.
    ///
    /// ```swift
    /// try Person.save([ada, grace], manager: manager)
    /// ```
    ///
    /// - Parameters:
    ///   - objects: instances of exactly this class (a subclass lives in a table of its own).
    ///   - manager: the manager to save through.
    /// - Throws: `DBBError` (misuse) when an object is of a subclass, or when SQLite fails; nothing is
    ///   written then.
    public static func save(_ objects: [Self], manager: DBBManager) throws {
        try saveInstances(objects, manager: manager)
    }
}

// MARK: Loading

extension DBBTableObject {
    static func fetch(_ request: DBBFetchRequest, manager: DBBManager) throws -> [DBBTableObject] {
        let map = try manager.map(for: self)
        return try manager.run { db in try run(request, distinct: nil, map: map, manager: manager, db: db) }
    }

    /// The ids of every instance, ascending.
    ///
    /// - Throws: `DBBError` when the class is not registered.
    public static func fetchAllIDs(manager: DBBManager) throws -> [Int64] {
        let map = try manager.map(for: self)
        return try manager.run { db in try db.fetchValues(Int64.self, map.allIDsSQL) }
    }

    /// The ids of every instance (an empty array on failure; see `manager.errorMessage()`).
    public static func allInstanceIDs(manager: DBBManager) -> [Int64] {
        (try? fetchAllIDs(manager: manager)) ?? []
    }
}

extension DBBTableRepresentable where Self: DBBTableObject {
    /// Every instance of the class, fully populated, in id order.
    ///
    /// ```swift
    /// let people: [Person] = try Person.fetchAll(manager: manager)
    /// ```
    ///
    /// - Parameter manager: the manager to read through.
    /// - Returns: the instances.
    /// - Throws: `DBBError` when the class is not registered or a row does not fit the mapping.
    public static func fetchAll(manager: DBBManager) throws -> [Self] {
        try fetch(try manager.map(for: self).allRowsRequest, manager: manager).map { $0 as! Self }
    }

    /// Every instance of the class; the DBBBuilder-compatible form of ``DBBTableObject/fetchAll(manager:)-6buuz``.
    ///
    /// A failure cannot be told from an empty table here: it returns an empty array and leaves the reason
    /// in `manager.errorMessage()`. Use `try fetchAll(manager:)` where a failure matters.
    ///
    /// - Returns: the instances, or an empty array on failure.
    public static func allInstances(manager: DBBManager) -> [Self] {
        (try? fetchAll(manager: manager)) ?? []
    }

    /// The instance with an id, or `nil` when there is none.
    ///
    /// - Parameters:
    ///   - id: the id.
    ///   - manager: the manager to read through.
    ///   - sparsePopulation: load only id and timestamps. Default: `false`.
    /// - Throws: `DBBError` when the class is not registered or the row does not fit the mapping.
    public static func fetchOne(id: Int64, manager: DBBManager, sparsePopulation: Bool = false) throws -> Self? {
        let map = try manager.map(for: self)
        return try fetch(map.rowsRequest(ids: [id], sparse: sparsePopulation), manager: manager).first as? Self
    }

    /// The instance with an id, or `nil` when there is none (or on failure; see `manager.errorMessage()`).
    public static func instanceWithIDNumber(_ id: Int64, manager: DBBManager, sparsePopulation: Bool = false) -> Self? {
        (try? fetchOne(id: id, manager: manager, sparsePopulation: sparsePopulation)) ?? nil
    }

    /// The instances with these ids, in the order of the ids; missing ids are skipped.
    ///
    /// - Throws: `DBBError` when the class is not registered or a row does not fit the mapping.
    public static func fetch(ids: [Int64], manager: DBBManager, sparsePopulation: Bool = false) throws -> [Self] {
        let map = try manager.map(for: self)
        let objects = try fetch(map.rowsRequest(ids: ids, sparse: sparsePopulation), manager: manager)
        return DBBTableMap.ordered(objects.map { $0 as! Self }, by: ids)
    }

    /// The instances with these ids (an empty array on failure; see `manager.errorMessage()`).
    public static func instancesWithIDNumbers(_ ids: [Int64], manager: DBBManager) -> [Self] {
        (try? fetch(ids: ids, manager: manager)) ?? []
    }
}

// MARK: Deleting

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
        try manager.run { db in try map.deleteRows(ids: ids, manager: manager, db: db) }
    }

    /// Deletes every instance of this class, as ``DBBTableObject/delete(_:manager:)-z169`` does.
    ///
    /// - Throws: `DBBError` when the class is not registered or SQLite fails.
    public static func deleteAll(manager: DBBManager) throws {
        try delete(ids: try fetchAllIDs(manager: manager), manager: manager)
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

// MARK: Dictionaries

extension DBBTableObject {
    /// Creates an instance with property values taken from a dictionary keyed by property name
    /// (DBBuilder's `initWithDictionary:manager:`). Unknown keys are ignored; references take objects.
    ///
    /// - Throws: `DBBError` (mismatch) naming the property when a value has the wrong type, or
    ///   (misuse) when the class is not registered.
    public convenience init(dictionary: [String: Any], manager: DBBManager) throws {
        self.init(dbManager: manager)
        try populate(from: dictionary)
    }

    func populate(from dictionary: [String: Any]) throws {
        let manager = dbManager
        let map = try manager.map(for: type(of: self))
        for (key, value) in dictionary {
            do {
                try map.setAny(key, value, on: self)
            } catch var error as DBBError {
                error.message = "property \(key): \(error.message)"
                throw manager.record(error)
            }
        }
    }
}

extension DBBTableMap {
    func setAny(_ property: String, _ value: Any, on object: DBBTableObject) throws {
        switch accessorsByName[property] {
        case .scalar(let accessor): try accessor.setAny(object, value)
        case .values(let accessor): try accessor.setAny(object, value)
        case .object(let accessor): try accessor.set(object, value is NSNull ? nil : value as AnyObject)
        case .objects(let accessor):
            guard let array = value as? [Any] else { throw wrongType(value, [AnyObject].self) }
            try accessor.set(object, array.map { $0 as AnyObject })
        case nil:
            if property == "idNum", let id = value as? Int64 { object.idNum = id }
        }
    }

    private func wrongType(_ value: Any, _ expected: Any.Type) -> DBBError {
        DBBError(.mismatch, message: "a \(Swift.type(of: value)) is not a \(expected)", context: "assigning a property")
    }
}

extension DBBTableRepresentable where Self: DBBTableObject {
    /// Creates an instance from a dictionary and saves it (DBBuilder's `savedInstanceWithValues:manager:`).
    ///
    /// - Returns: the saved instance, with its id.
    /// - Throws: what `init(dictionary:manager:)` and `save()` throw.
    public static func savedInstance(values: [String: Any], manager: DBBManager) throws -> Self {
        let object = self.init(dbManager: manager)
        try object.populate(from: values)
        try object.save()
        return object
    }
}
