public import DBBSchema
public import Foundation

/// The parent class of every class whose instances are persisted.
///
/// Subclasses declare their properties as usual and declare their mapping once: with the `@DBBTable` macro
/// (module `DBBMacros`, re-exported by `DBBBuilder`), as a class-level ``persistenceMapping``, or, DBBBuilder's
/// form, from `required init(dbManager:)`:
///
/// ```swift
/// final class Person: DBBTableObject {
///     var name = ""
///     var age = 0
///
///     required init(dbManager: DBBManager) {
///         super.init(dbManager: dbManager)
///         dbManager.addPersistenceMapping(["name": .init(\Person.name), "age": .init(\Person.age)], for: self)
///     }
/// }
/// ```
///
/// Instances are not `Sendable`: keep each on one thread or task, and share objects between tasks by id.
open class DBBTableObject: DBBTableRepresentable {
    // The bookkeeping values skip run-time exclusivity checks: loading and saving set them on every object.
    // The public ones are stored internally and reached only through computed properties, whose get and set
    // are instantaneous accesses (an `inout` of `idNum` works on a copy), so no two accesses can overlap
    // whatever the caller does.

    /// The row id; 0 until the object is first saved.
    public var idNum: Int64 {
        @inlinable get { storedID }
        @inlinable set { storedID = newValue }
    }
    /// When the object was first saved (`nil` before, and for tables without timestamp columns).
    public var createdTime: Date? {
        @inlinable get { storedCreatedTime }
        @inlinable set { storedCreatedTime = newValue }
    }
    /// When the object was last saved.
    public var modifiedTime: Date? {
        @inlinable get { storedModifiedTime }
        @inlinable set { storedModifiedTime = newValue }
    }
    /// Whether the object has changes to save. A successful save clears it, and a fetch returns objects with
    /// it clear.
    ///
    /// A class whose ``tracksChanges`` is `true` (every `@DBBTable` class) sets it whenever a persisted
    /// property is set, and a save skips its stored objects that are not dirty. Other classes leave it to the
    /// caller (``makeDirty(_:)``), as DBBBuilder did, and their saves always write.
    public var isDirty: Bool {
        @inlinable get { storedIsDirty }
        @inlinable set { storedIsDirty = newValue }
    }
    // Unchecked: accessed only by `idNum`'s get and set, each an instantaneous access.
    @usableFromInline @exclusivity(unchecked) var storedID: Int64 = 0
    // Unchecked: accessed only by `createdTime`'s get and set, each an instantaneous access.
    @usableFromInline @exclusivity(unchecked) var storedCreatedTime: Date?
    // Unchecked: accessed only by `modifiedTime`'s get and set, each an instantaneous access.
    @usableFromInline @exclusivity(unchecked) var storedModifiedTime: Date?
    // Unchecked: accessed only by `isDirty`'s get and set, each an instantaneous access.
    @usableFromInline @exclusivity(unchecked) var storedIsDirty = false
    /// Attributes for columns, keyed by property name: `ColumnAttribute.notNull`,
    /// `ColumnAttribute.unique`, or `ColumnAttribute.cascadingDeletion` on an array of objects.
    /// Set it in `init(dbManager:)`; it is read when the class is registered.
    open var attributesDictionary: [String: String]?
    /// The manager the object is persisted through.
    public let dbManager: DBBManager

    /// Whether the object was loaded from its row or saved: an object with an `idNum` but no stored row
    /// (one whose id was set before its first save) is inserted with that id.
    // Unchecked: read and assigned by the loader and writer only, never passed `inout` nor held across a call.
    @exclusivity(unchecked) package var hasStoredRow = false
    /// What a partial fetch loaded, allocated only by one: a fully loaded object carries a single nil
    /// reference, so creating and releasing the objects of a fetch touches no other bookkeeping.
    // Unchecked: private, read and assigned whole by this class only, never passed `inout` nor held across a call.
    @exclusivity(unchecked) private var partialLoad: DBBPartialLoad?

    /// The properties a partial fetch loaded (`nil`: all of them). A save writes only these and the ones
    /// set since, so unloaded columns and join rows are left as they are.
    package var loadedProperties: Set<String>? {
        get { partialLoad?.loaded }
        set {
            if let newValue {
                partialLoad = DBBPartialLoad(loaded: newValue, unloaded: partialLoad?.unloaded ?? [:])
            } else {
                partialLoad = nil
            }
        }
    }

    /// What a partial fetch left in the properties it did not load, to detect the ones set since (empty for
    /// a fully loaded object).
    var unloadedSnapshot: [String: DBBPropertySnapshot] {
        get { partialLoad?.unloaded ?? [:] }
        set {
            guard let partialLoad else { return }
            self.partialLoad = DBBPartialLoad(loaded: partialLoad.loaded, unloaded: newValue)
        }
    }

    /// Creates an empty instance. Subclasses override it to add their persistence mapping.
    ///
    /// - Parameter dbManager: the manager that persists the object.
    public required init(dbManager: DBBManager) {
        self.dbManager = dbManager
    }

    /// The table name: the class's name without its module prefix, unless the class overrides
    /// ``tableName``.
    public var shortName: String { Self.tableName }

    /// The table the class is stored in. Override it to map a class onto an existing table with another
    /// name (DBBuilder's `overriddenTableName`).
    open class var tableName: String {
        String(describing: self).split(separator: ".").last.map(String.init) ?? String(describing: self)
    }

    /// The name of the table's integer primary key column. Default: `id`. Override it for existing tables
    /// (`"ArtistId"`), or return `"rowid"` for an existing table without an INTEGER PRIMARY KEY (a TEXT or
    /// composite key, or none): its key columns are then ordinary properties. SQLite's `VACUUM` may renumber
    /// such a table's rowids, so keep no ids of its objects across one.
    open class var idColumnName: String { "id" }

    /// Whether the table has DBBBuilder's `createdTime` and `modifiedTime` columns. Default: `true` in DBBBuilder's
    /// layout, `false` in the lean one (``layout``). Override it to return `false` for existing tables that have no
    /// such columns.
    open class var hasTimestampColumns: Bool { layout == .dbbBuilder }

    /// How the class's new table is laid out. Default: `DBBTableLayout.dbbBuilder`, which files shared with
    /// DBBBuilder on Apple platforms need. Override it (or write `@DBBTable(layout: .lean)`) for a table of a new
    /// application: see `DBBTableLayout.lean`.
    open class var layout: DBBTableLayout { .dbbBuilder }

    /// The class's persistence mapping, declared once for the class: read once when the class is
    /// registered, never per object. Default: empty (the class maps its properties from
    /// `init(dbManager:)` with ``DBBManager/addPersistenceMapping(_:for:indexer:)`` instead).
    ///
    /// The `@DBBTable` macro writes it. By hand, with direct accessors:
    ///
    /// ```swift
    /// final class Person: DBBTableObject {
    ///     var name = ""
    ///     var age = 0
    ///
    ///     override class var persistenceMapping: DBBTableMapping {
    ///         super.persistenceMapping.merging(
    ///             DBBTableMapping([
    ///                 "name": .init(get: { (person: Person) in person.name }, set: { $0.name = $1 }),
    ///                 "age": .init(get: { (person: Person) in person.age }, set: { $0.age = $1 }),
    ///             ]))
    ///     }
    /// }
    /// ```
    ///
    /// Its entries take precedence over ones of the same name from `addPersistenceMapping`, and its
    /// attributes over `attributesDictionary`.
    open class var persistenceMapping: DBBTableMapping { DBBTableMapping() }

    /// Sets every scalar property of a loaded object from its row in one call, or `nil` (the default) to set them
    /// through the mapping's closures, one per column. `@DBBTable` writes it for its class alone (it returns `nil`
    /// for a subclass), so that a load sets each property directly. Read once, when the class is registered, and
    /// used only when its properties are exactly the class's mapped ones.
    open class var dbbRowReader: DBBRowReader? { nil }

    /// Called just before the object is written. Override it to prepare values.
    open func performPreSaveActions() {}

    /// Called just after the object was written and its transaction committed.
    open func performPostSaveActions() {}

    /// Marks the object as changed (or, with `false`, unchanged).
    public func makeDirty(_ dirty: Bool = true) { isDirty = dirty }

    /// Whether objects of the class mark themselves dirty when a persisted property is set, so that a save
    /// of a stored object that is not dirty can write nothing. `@DBBTable` classes do (their properties have
    /// observers the macro writes); the default, `false`, makes every save write.
    open class var tracksChanges: Bool { false }

    /// Marks the object as unchanged.
    public func makeClean() { isDirty = false }

    /// Forgets the row a delete removed: the object is new again, and a save inserts it afresh.
    func markDeleted() {
        idNum = 0
        hasStoredRow = false
    }
}

// The observers `@DBBTable` writes call `dbbPropertyDidChange(self.property)`: the overload the property's type
// selects is where the compiler checks that the type can be stored, so that an unsupported type is reported on the
// property's own line. The autoclosure is never called, so a set reads nothing more.
extension DBBTableObject {
    /// Marks the object dirty after a scalar, enum or `Codable` property was set.
    ///
    /// - Parameter property: the property, never evaluated.
    @inlinable public final func dbbPropertyDidChange<Value: DBBPersistableValue>(
        _ property: @autoclosure () -> Value
    ) { isDirty = true }

    /// Marks the object dirty after an optional scalar, enum or `Codable` property was set.
    ///
    /// - Parameter property: the property, never evaluated.
    @inlinable public final func dbbPropertyDidChange<Value: DBBPersistableValue>(
        _ property: @autoclosure () -> Value?
    ) { isDirty = true }

    /// Marks the object dirty after an array of scalars, enums or `Codable` values was set.
    ///
    /// - Parameter property: the property, never evaluated.
    @inlinable public final func dbbPropertyDidChange<Value: DBBPersistableValue>(
        _ property: @autoclosure () -> [Value]
    ) { isDirty = true }

    /// Marks the object dirty after an optional array of scalars, enums or `Codable` values was set.
    ///
    /// - Parameter property: the property, never evaluated.
    @inlinable public final func dbbPropertyDidChange<Value: DBBPersistableValue>(
        _ property: @autoclosure () -> [Value]?
    ) { isDirty = true }

    /// Marks the object dirty after a reference to another persisted object was set.
    ///
    /// - Parameter property: the property, never evaluated.
    @inlinable public final func dbbPropertyDidChange<Object: DBBTableRepresentable>(
        _ property: @autoclosure () -> Object
    ) { isDirty = true }

    /// Marks the object dirty after an optional reference to another persisted object was set.
    ///
    /// - Parameter property: the property, never evaluated.
    @inlinable public final func dbbPropertyDidChange<Object: DBBTableRepresentable>(
        _ property: @autoclosure () -> Object?
    ) { isDirty = true }

    /// Marks the object dirty after an array of references to other persisted objects was set.
    ///
    /// - Parameter property: the property, never evaluated.
    @inlinable public final func dbbPropertyDidChange<Object: DBBTableRepresentable>(
        _ property: @autoclosure () -> [Object]
    ) { isDirty = true }

    /// Marks the object dirty after an optional array of references to other persisted objects was set.
    ///
    /// - Parameter property: the property, never evaluated.
    @inlinable public final func dbbPropertyDidChange<Object: DBBTableRepresentable>(
        _ property: @autoclosure () -> [Object]?
    ) { isDirty = true }

    /// Arrays of `Data` are not a storage type.
    @available(*, unavailable, message: "arrays of Data are not a storage type; keep each Data in an object of its own")
    public final func dbbPropertyDidChange(_ property: @autoclosure () -> [Data]) { fatalError("unavailable") }

    /// Arrays of `Data` are not a storage type.
    @available(*, unavailable, message: "arrays of Data are not a storage type; keep each Data in an object of its own")
    public final func dbbPropertyDidChange(_ property: @autoclosure () -> [Data]?) { fatalError("unavailable") }

    /// A property of a type that is not stored: chosen only when no other overload fits.
    @available(
        *, unavailable,
        message: """
            a stored property is a scalar (Bool, an integer, Float, Double, String, Date, Data), an enum with a \
            String or integer raw value declared DBBPersistableValue, a Codable value declared DBBCodableValue, \
            a DBBTableObject subclass, or an optional or array of one of these; mark other properties @Transient
            """
    )
    public final func dbbPropertyDidChange<Value>(_ property: @autoclosure () -> Value) { fatalError("unavailable") }
}

/// The state of a partly loaded object: what its fetch loaded, and what it left in the rest.
private struct DBBPartialLoad {
    var loaded: Set<String>
    var unloaded: [String: DBBPropertySnapshot]
}

@available(*, unavailable, message: "table objects are not Sendable: share them between tasks by idNum")
extension DBBTableObject: Sendable {}
