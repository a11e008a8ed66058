internal import DBBSQL
public import DBBSchema

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

    /// Saves objects of exactly this class in one transaction: the shared body of the typed and
    /// compatible forms.
    static func saveInstances(_ objects: [DBBTableObject], manager: DBBManager) throws {
        try requireOnlyInstances(objects, manager: manager, action: "saving")
        try DBBObjectWriter(manager: manager).save(objects)
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

/// What a save of a new object does when a row with the same unique values exists already.
public enum DBBConflictResolution: Sendable {
    /// The existing row is updated with the object's values (and join rows), and the object takes its id.
    case update
    /// The existing row is kept as it is, and the object takes its id.
    case ignore
}

extension DBBTableRepresentable where Self: DBBTableObject {
    /// Saves objects of this class in one transaction, each new one with one `INSERT … ON CONFLICT` statement:
    /// when a row holds the same values of the unique properties, it is updated (`DBBConflictResolution/update`)
    /// or kept (`DBBConflictResolution/ignore`), and the object takes that row's id. Stored objects are updated as
    /// by `save(_:manager:)`; the unsaved objects they reference are inserted.
    ///
    /// ```swift
    /// let tag = Tag(dbManager: manager)
    /// tag.name = "swift"                     // `name` is UNIQUE
    /// try Tag.save([tag], onConflict: .ignore, manager: manager)
    /// ```
    ///
    /// An object whose row existed keeps the `createdTime` of this save until it is fetched again.
    ///
    /// - Parameters:
    ///   - objects: instances of exactly this class.
    ///   - resolution: what to do with an existing row.
    ///   - properties: the properties of the unique constraint or index that decides (stored in columns); `nil`
    ///     (the default) for the class's one `UNIQUE` property or unique index.
    ///   - manager: the manager to save through.
    /// - Throws: `DBBError` (misuse) for a subclass's object, or when the class has no single unique property and
    ///   none is named, or a named one has no column; SQLite's error when no unique constraint or index has those
    ///   columns; nothing is written then.
    public static func save(
        _ objects: [Self], onConflict resolution: DBBConflictResolution, of properties: [String]? = nil,
        manager: DBBManager
    ) throws {
        try requireOnlyInstances(objects, manager: manager, action: "saving")
        try DBBObjectWriter(manager: manager).save(
            objects, conflict: DBBSaveConflict(resolution: resolution, properties: properties))
    }

    /// `save(_:onConflict:of:manager:)` without blocking the calling task.
    ///
    /// - Parameters:
    ///   - objects: instances of exactly this class.
    ///   - resolution: what to do with an existing row.
    ///   - properties: the properties of the unique constraint or index that decides.
    ///   - manager: the manager to save through.
    /// - Throws: as `save(_:onConflict:of:manager:)`.
    public static func save(
        _ objects: [Self], onConflict resolution: DBBConflictResolution, of properties: [String]? = nil,
        manager: DBBManager
    ) async throws {
        try requireOnlyInstances(objects, manager: manager, action: "saving")
        try await DBBObjectWriter(manager: manager).save(
            objects, conflict: DBBSaveConflict(resolution: resolution, properties: properties))
    }
}

extension DBBTableObject {
    /// Saves the object with one `INSERT … ON CONFLICT` when it is new, as
    /// `DBBTableRepresentable/save(_:onConflict:of:manager:)` saves a batch.
    ///
    /// - Parameters:
    ///   - resolution: what to do with an existing row.
    ///   - properties: the properties of the unique constraint or index that decides.
    /// - Throws: as `DBBTableRepresentable/save(_:onConflict:of:manager:)`.
    public func save(onConflict resolution: DBBConflictResolution, of properties: [String]? = nil) throws {
        try DBBObjectWriter(manager: dbManager).save(
            [self], conflict: DBBSaveConflict(resolution: resolution, properties: properties))
    }

    /// `save(onConflict:of:)` without blocking the calling task.
    ///
    /// - Parameters:
    ///   - resolution: what to do with an existing row.
    ///   - properties: the properties of the unique constraint or index that decides.
    /// - Throws: as `save(onConflict:of:)`.
    public func save(onConflict resolution: DBBConflictResolution, of properties: [String]? = nil) async throws {
        try await DBBObjectWriter(manager: dbManager).save(
            [self], conflict: DBBSaveConflict(resolution: resolution, properties: properties))
    }
}
