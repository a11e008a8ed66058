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
