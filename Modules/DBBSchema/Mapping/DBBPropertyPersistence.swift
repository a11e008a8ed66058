internal import DBBSQL
internal import Foundation

/// How one property of a `DBBTableObject` subclass is persisted: its key path, its storage type
/// (inferred from the key path's value type), and optionally a custom column name.
///
/// ```swift
/// dbManager.addPersistenceMapping([
///     "name": .init(\Project.name, columnName: "itemName"),
///     "budget": .init(\Project.budget),
///     "tags": .init(\Project.tags),
///     "projectLead": .init(\Project.projectLead),
/// ], for: self)
/// ```
///
/// The initializers exist only for supported value types, so a property of any other type does not
/// compile. Passing `type:` is allowed; a type that differs from the inferred one is reported as an
/// error when the class is registered.
///
/// An entry is `Sendable`, so its key path is a `Sendable` one and its `get:`/`set:` closures are `@Sendable`.
/// A key-path literal written in the call is `Sendable`; a key path kept in a variable needs a type declared
/// `ReferenceWritableKeyPath<Root, Value> & Sendable`.
public struct DBBPropertyPersistence: Sendable {
    // The members an entry's inlinable initializers use are usable from inlinable code, so that its accessors
    // are specialized for the property's class and type where the entry is written.

    /// The storage type.
    public let storageType: DBBStorageType
    /// The custom column name, or `nil` to use the property name.
    public let columnName: String?
    /// Whether an object reference is stored as an id column of the class's own table (a foreign key, as
    /// existing databases and DBBuilder lay it out) instead of a join table.
    public let isForeignKeyColumn: Bool
    /// The type the caller declared with `type:` when it differs from the inferred one.
    @usableFromInline package let declaredTypeMismatch: DBBStorageType?
    /// Reads and writes the property.
    @usableFromInline package let accessor: DBBPropertyAccessor
    /// The key path: registration checks that the mapping key names its property, and typed conditions
    /// find the property a key path names. `nil` for an entry made of closures alone, whose key is its name.
    package var keyPath: AnyKeyPath? { keyPathSource?() }
    /// Gives ``keyPath``: a closure, so that a key-path entry's literal keeps its one use (``DBBKeyPathAccess``).
    @usableFromInline package let keyPathSource: (@Sendable () -> AnyKeyPath)?

    @usableFromInline
    init(
        keyPath: (@Sendable () -> AnyKeyPath)?, inferred: DBBStorageType, declared: DBBStorageType?,
        columnName: String?,
        foreignKey: Bool,
        accessor: DBBPropertyAccessor
    ) {
        self.keyPathSource = keyPath
        self.storageType = inferred
        self.columnName = columnName
        self.isForeignKeyColumn = foreignKey
        self.declaredTypeMismatch = declared.flatMap { $0 == inferred ? nil : $0 }
        self.accessor = accessor
    }

    /// Maps a scalar property (`Bool`, integers, `Float`, `Double`, `String`, `Date`, or `Data` as `.binary`).
    ///
    /// - Parameters:
    ///   - keyPath: the property.
    ///   - type: the storage type, checked against the inferred one at registration. Optional.
    ///   - columnName: the column's name when it differs from the property's. Optional.
    @inlinable @inline(__always)
    public init<Root: AnyObject, Value: DBBPersistableValue>(
        _ keyPath: ReferenceWritableKeyPath<Root, Value> & Sendable, type: DBBStorageType? = nil,
        columnName: String? = nil
    ) {
        // Inlined where the entry is written, so that a key-path literal reaches `DBBKeyPathAccess`.
        let access = DBBKeyPathAccess(keyPath)
        self.init(
            keyPath: access.keyPath, inferred: Value.dbbStorageType, declared: type, columnName: columnName,
            foreignKey: false,
            accessor: .scalar(DBBScalarAccessor(get: access.get, set: access.set)))
    }

    /// Maps an optional scalar property; `nil` is stored as NULL.
    ///
    /// - Parameters:
    ///   - keyPath: the property.
    ///   - type: the storage type, checked against the inferred one at registration. Optional.
    ///   - columnName: the column's name when it differs from the property's. Optional.
    @inlinable @inline(__always)
    public init<Root: AnyObject, Value: DBBPersistableValue>(
        _ keyPath: ReferenceWritableKeyPath<Root, Value?> & Sendable, type: DBBStorageType? = nil,
        columnName: String? = nil
    ) {
        // Inlined where the entry is written, so that a key-path literal reaches `DBBKeyPathAccess`.
        let access = DBBKeyPathAccess(keyPath)
        self.init(
            keyPath: access.keyPath, inferred: Value.dbbStorageType, declared: type, columnName: columnName,
            foreignKey: false,
            accessor: .scalar(DBBScalarAccessor(optionalGet: access.get, set: access.set)))
    }

    /// Maps a scalar property, reading and writing it through direct closures instead of the key path.
    ///
    /// The result is the same mapping as the key-path-only initializer; only the speed differs. A key-path
    /// entry applies its key path on every row (see "How fast each form is" in `Docs/Mapping.md` for the
    /// measured cost); a closure written for the property is compiled for its type. `dbb-codegen` can
    /// write these.
    ///
    /// ```swift
    /// "name": .init(\Project.name, get: { $0.name }, set: { $0.name = $1 }),
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: the property; it names the property and gives its type. `get` and `set` must access it.
    ///   - type: the storage type, checked against the inferred one at registration. Optional.
    ///   - columnName: the column's name when it differs from the property's. Optional.
    ///   - get: returns the property's value.
    ///   - set: sets the property.
    @inlinable
    public init<Root: AnyObject, Value: DBBPersistableValue>(
        _ keyPath: ReferenceWritableKeyPath<Root, Value> & Sendable, type: DBBStorageType? = nil,
        columnName: String? = nil,
        get: @escaping @Sendable (Root) -> Value, set: @escaping @Sendable (Root, Value) -> Void
    ) {
        self.init(
            keyPath: { keyPath }, inferred: Value.dbbStorageType, declared: type, columnName: columnName,
            foreignKey: false, accessor: .scalar(DBBScalarAccessor(get: get, set: set)))
    }

    /// Maps an optional scalar property through direct closures (see the non-optional form); `nil` is
    /// stored as NULL.
    ///
    /// - Parameters:
    ///   - keyPath: the property; it names the property and gives its type. `get` and `set` must access it.
    ///   - type: the storage type, checked against the inferred one at registration. Optional.
    ///   - columnName: the column's name when it differs from the property's. Optional.
    ///   - get: returns the property's value.
    ///   - set: sets the property.
    @inlinable
    public init<Root: AnyObject, Value: DBBPersistableValue>(
        _ keyPath: ReferenceWritableKeyPath<Root, Value?> & Sendable, type: DBBStorageType? = nil,
        columnName: String? = nil,
        get: @escaping @Sendable (Root) -> Value?, set: @escaping @Sendable (Root, Value?) -> Void
    ) {
        self.init(
            keyPath: { keyPath }, inferred: Value.dbbStorageType, declared: type, columnName: columnName,
            foreignKey: false, accessor: .scalar(DBBScalarAccessor(optionalGet: get, set: set)))
    }

    /// Maps an array of scalars, kept in a join table in array order.
    ///
    /// - Parameters:
    ///   - keyPath: the property.
    ///   - type: the storage type, checked against the inferred one at registration. Optional.
    ///   - columnName: the join table's value column when it differs from the property's name. Optional.
    @inlinable @inline(__always)
    public init<Root: AnyObject, Value: DBBPersistableValue>(
        _ keyPath: ReferenceWritableKeyPath<Root, [Value]> & Sendable, type: DBBStorageType? = nil,
        columnName: String? = nil
    ) {
        // Inlined where the entry is written, so that a key-path literal reaches `DBBKeyPathAccess`.
        let access = DBBKeyPathAccess(keyPath)
        self.init(
            keyPath: access.keyPath, inferred: Value.dbbArrayStorageType, declared: type, columnName: columnName,
            foreignKey: false,
            accessor: .values(DBBValuesAccessor(get: access.get, set: access.set)))
    }

    /// Maps an optional array of scalars; `nil` and an empty array both store no rows, and load as empty.
    @inlinable @inline(__always)
    public init<Root: AnyObject, Value: DBBPersistableValue>(
        _ keyPath: ReferenceWritableKeyPath<Root, [Value]?> & Sendable, type: DBBStorageType? = nil,
        columnName: String? = nil
    ) {
        // Inlined where the entry is written, so that a key-path literal reaches `DBBKeyPathAccess`.
        let access = DBBKeyPathAccess(keyPath)
        self.init(
            keyPath: access.keyPath, inferred: Value.dbbArrayStorageType, declared: type, columnName: columnName,
            foreignKey: false,
            accessor: .values(DBBValuesAccessor(optionalGet: access.get, set: access.set)))
    }

    /// Maps a reference to another persisted object.
    ///
    /// - Parameters:
    ///   - keyPath: the property.
    ///   - type: the storage type, checked against the inferred one at registration. Optional.
    ///   - columnName: the column (join table value column, or foreign key column) name. Optional.
    ///   - foreignKey: `true` to store the referenced id in a column of this class's table (how existing
    ///     databases are usually built) instead of a join table. Default: `false`.
    @inlinable @inline(__always)
    public init<Root: AnyObject, Object: DBBTableRepresentable>(
        _ keyPath: ReferenceWritableKeyPath<Root, Object?> & Sendable, type: DBBStorageType? = nil,
        columnName: String? = nil,
        foreignKey: Bool = false
    ) {
        // Inlined where the entry is written, so that a key-path literal reaches `DBBKeyPathAccess`.
        let access = DBBKeyPathAccess(keyPath)
        self.init(
            keyPath: access.keyPath, inferred: .dbbObject(objectType: Object.self), declared: type,
            columnName: columnName,
            foreignKey: foreignKey, accessor: .object(DBBObjectAccessor(optionalGet: access.get, set: access.set)))
    }

    /// Maps a non-optional reference to another persisted object.
    @inlinable @inline(__always)
    public init<Root: AnyObject, Object: DBBTableRepresentable>(
        _ keyPath: ReferenceWritableKeyPath<Root, Object> & Sendable, type: DBBStorageType? = nil,
        columnName: String? = nil,
        foreignKey: Bool = false
    ) {
        // Inlined where the entry is written, so that a key-path literal reaches `DBBKeyPathAccess`.
        let access = DBBKeyPathAccess(keyPath)
        self.init(
            keyPath: access.keyPath, inferred: .dbbObject(objectType: Object.self), declared: type,
            columnName: columnName,
            foreignKey: foreignKey, accessor: .object(DBBObjectAccessor(get: access.get, set: access.set)))
    }

    /// Maps an array of references to other persisted objects, kept in a join table in array order.
    @inlinable @inline(__always)
    public init<Root: AnyObject, Object: DBBTableRepresentable>(
        _ keyPath: ReferenceWritableKeyPath<Root, [Object]> & Sendable, type: DBBStorageType? = nil,
        columnName: String? = nil
    ) {
        // Inlined where the entry is written, so that a key-path literal reaches `DBBKeyPathAccess`.
        let access = DBBKeyPathAccess(keyPath)
        self.init(
            keyPath: access.keyPath, inferred: .dbbObjectArray(objectType: Object.self), declared: type,
            columnName: columnName,
            foreignKey: false, accessor: .objects(DBBObjectsAccessor(get: access.get, set: access.set)))
    }

    /// Maps an optional array of references; `nil` stores no rows and loads as an empty array.
    @inlinable @inline(__always)
    public init<Root: AnyObject, Object: DBBTableRepresentable>(
        _ keyPath: ReferenceWritableKeyPath<Root, [Object]?> & Sendable, type: DBBStorageType? = nil,
        columnName: String? = nil
    ) {
        // Inlined where the entry is written, so that a key-path literal reaches `DBBKeyPathAccess`.
        let access = DBBKeyPathAccess(keyPath)
        self.init(
            keyPath: access.keyPath, inferred: .dbbObjectArray(objectType: Object.self), declared: type,
            columnName: columnName,
            foreignKey: false, accessor: .objects(DBBObjectsAccessor(optionalGet: access.get, set: access.set)))
    }
}

// MARK: Direct accessors

extension DBBPropertyPersistence {
    /// Maps a scalar property through direct closures alone, with no key path: the form a class-level
    /// ``DBBTableMapping`` (and the `@DBBTable` macro) uses. The property's name is the mapping's key.
    ///
    /// ```swift
    /// "name": .init(get: { (person: Person) in person.name }, set: { $0.name = $1 }),
    /// ```
    ///
    /// - Parameters:
    ///   - type: the storage type, checked against the inferred one at registration. Optional.
    ///   - columnName: the column's name when it differs from the property's. Optional.
    ///   - get: returns the property's value.
    ///   - set: sets the property.
    @inlinable
    public init<Root: AnyObject, Value: DBBPersistableValue>(
        type: DBBStorageType? = nil, columnName: String? = nil, get: @escaping @Sendable (Root) -> Value,
        set: @escaping @Sendable (Root, Value) -> Void
    ) {
        self.init(
            keyPath: nil, inferred: Value.dbbStorageType, declared: type, columnName: columnName, foreignKey: false,
            accessor: .scalar(DBBScalarAccessor(get: get, set: set)))
    }

    /// Maps an optional scalar property through direct closures; `nil` is stored as NULL.
    ///
    /// - Parameters:
    ///   - type: the storage type, checked against the inferred one at registration. Optional.
    ///   - columnName: the column's name when it differs from the property's. Optional.
    ///   - get: returns the property's value.
    ///   - set: sets the property.
    @inlinable
    public init<Root: AnyObject, Value: DBBPersistableValue>(
        type: DBBStorageType? = nil, columnName: String? = nil, get: @escaping @Sendable (Root) -> Value?,
        set: @escaping @Sendable (Root, Value?) -> Void
    ) {
        self.init(
            keyPath: nil, inferred: Value.dbbStorageType, declared: type, columnName: columnName, foreignKey: false,
            accessor: .scalar(DBBScalarAccessor(optionalGet: get, set: set)))
    }

    /// Maps an array of scalars through direct closures, kept in a join table in array order.
    ///
    /// - Parameters:
    ///   - type: the storage type, checked against the inferred one at registration. Optional.
    ///   - columnName: the join table's value column when it differs from the property's name. Optional.
    ///   - get: returns the property's value.
    ///   - set: sets the property.
    @inlinable
    public init<Root: AnyObject, Value: DBBPersistableValue>(
        type: DBBStorageType? = nil, columnName: String? = nil, get: @escaping @Sendable (Root) -> [Value],
        set: @escaping @Sendable (Root, [Value]) -> Void
    ) {
        self.init(
            keyPath: nil, inferred: Value.dbbArrayStorageType, declared: type, columnName: columnName,
            foreignKey: false,
            accessor: .values(DBBValuesAccessor(get: get, set: set)))
    }

    /// Maps an optional array of scalars through direct closures; `nil` and an empty array both store no
    /// rows, and load as empty.
    ///
    /// - Parameters:
    ///   - type: the storage type, checked against the inferred one at registration. Optional.
    ///   - columnName: the join table's value column when it differs from the property's name. Optional.
    ///   - get: returns the property's value.
    ///   - set: sets the property.
    @inlinable
    public init<Root: AnyObject, Value: DBBPersistableValue>(
        type: DBBStorageType? = nil, columnName: String? = nil, get: @escaping @Sendable (Root) -> [Value]?,
        set: @escaping @Sendable (Root, [Value]?) -> Void
    ) {
        self.init(
            keyPath: nil, inferred: Value.dbbArrayStorageType, declared: type, columnName: columnName,
            foreignKey: false,
            accessor: .values(DBBValuesAccessor(optionalGet: get, set: set)))
    }

    /// Maps an optional reference to another persisted object through direct closures.
    ///
    /// - Parameters:
    ///   - type: the storage type, checked against the inferred one at registration. Optional.
    ///   - columnName: the column (join table value column, or foreign key column) name. Optional.
    ///   - foreignKey: `true` to store the referenced id in a column of this class's table instead of a
    ///     join table. Default: `false`.
    ///   - get: returns the property's value.
    ///   - set: sets the property.
    @inlinable
    public init<Root: AnyObject, Object: DBBTableRepresentable>(
        type: DBBStorageType? = nil, columnName: String? = nil, foreignKey: Bool = false,
        get: @escaping @Sendable (Root) -> Object?, set: @escaping @Sendable (Root, Object?) -> Void
    ) {
        self.init(
            keyPath: nil, inferred: .dbbObject(objectType: Object.self), declared: type, columnName: columnName,
            foreignKey: foreignKey, accessor: .object(DBBObjectAccessor(optionalGet: get, set: set)))
    }

    /// Maps a non-optional reference to another persisted object through direct closures.
    ///
    /// - Parameters:
    ///   - type: the storage type, checked against the inferred one at registration. Optional.
    ///   - columnName: the column (join table value column, or foreign key column) name. Optional.
    ///   - foreignKey: `true` to store the referenced id in a column of this class's table instead of a
    ///     join table. Default: `false`.
    ///   - get: returns the property's value.
    ///   - set: sets the property.
    @inlinable
    public init<Root: AnyObject, Object: DBBTableRepresentable>(
        type: DBBStorageType? = nil, columnName: String? = nil, foreignKey: Bool = false,
        get: @escaping @Sendable (Root) -> Object, set: @escaping @Sendable (Root, Object) -> Void
    ) {
        self.init(
            keyPath: nil, inferred: .dbbObject(objectType: Object.self), declared: type, columnName: columnName,
            foreignKey: foreignKey, accessor: .object(DBBObjectAccessor(get: get, set: set)))
    }

    /// Maps an array of references to other persisted objects through direct closures, kept in a join
    /// table in array order.
    ///
    /// - Parameters:
    ///   - type: the storage type, checked against the inferred one at registration. Optional.
    ///   - columnName: the join table's value column when it differs from the property's name. Optional.
    ///   - get: returns the property's value.
    ///   - set: sets the property.
    @inlinable
    public init<Root: AnyObject, Object: DBBTableRepresentable>(
        type: DBBStorageType? = nil, columnName: String? = nil, get: @escaping @Sendable (Root) -> [Object],
        set: @escaping @Sendable (Root, [Object]) -> Void
    ) {
        self.init(
            keyPath: nil, inferred: .dbbObjectArray(objectType: Object.self), declared: type, columnName: columnName,
            foreignKey: false, accessor: .objects(DBBObjectsAccessor(get: get, set: set)))
    }

    /// Maps an optional array of references through direct closures; `nil` stores no rows and loads as an
    /// empty array.
    ///
    /// - Parameters:
    ///   - type: the storage type, checked against the inferred one at registration. Optional.
    ///   - columnName: the join table's value column when it differs from the property's name. Optional.
    ///   - get: returns the property's value.
    ///   - set: sets the property.
    @inlinable
    public init<Root: AnyObject, Object: DBBTableRepresentable>(
        type: DBBStorageType? = nil, columnName: String? = nil, get: @escaping @Sendable (Root) -> [Object]?,
        set: @escaping @Sendable (Root, [Object]?) -> Void
    ) {
        self.init(
            keyPath: nil, inferred: .dbbObjectArray(objectType: Object.self), declared: type, columnName: columnName,
            foreignKey: false, accessor: .objects(DBBObjectsAccessor(optionalGet: get, set: set)))
    }
}

extension DBBPropertyPersistence {
    /// A property of a type that is not stored: chosen only when no other initializer fits, so that the
    /// compiler names what is supported instead of a protocol a requirement failed on.
    @available(
        *, unavailable,
        message: """
            a stored property is a scalar (Bool, an integer, Float, Double, String, Date, Data), an enum with a \
            String or integer raw value declared DBBPersistableValue, a Codable value declared DBBCodableValue, \
            a DBBTableObject subclass, or an optional or array of one of these
            """
    )
    public init<Root: AnyObject, Value>(
        type: DBBStorageType? = nil, columnName: String? = nil, get: @escaping @Sendable (Root) -> Value,
        set: @escaping @Sendable (Root, Value) -> Void
    ) { fatalError("unavailable") }
}

extension DBBPropertyPersistence {
    /// This entry with its property's key path, so that a typed condition (`\Book.title == "x"`) finds the
    /// entry by the key path itself, whatever the run time can tell of the key path's property (a property
    /// with observers, such as those `@DBBTable` writes, is described only by its accessor). `@DBBTable`
    /// writes it on each entry of closures.
    ///
    /// - Parameter keyPath: the key path of the property the entry maps.
    /// - Returns: the entry, with the key path.
    public func keyed(by keyPath: AnyKeyPath & Sendable) -> DBBPropertyPersistence {
        DBBPropertyPersistence(
            keyPath: { keyPath }, inferred: storageType, declared: declaredTypeMismatch, columnName: columnName,
            foreignKey: isForeignKeyColumn, accessor: accessor)
    }
}

extension DBBPropertyPersistence {
    /// The name of the property the key path leads to, when the run time can tell it; `nil` otherwise.
    ///
    /// Swift has no public API for a key path's property name. On Linux (no Objective-C, so no
    /// `_kvcKeyPathString`) a key path's description names a stored property of a final class, read from
    /// its reflection metadata: `\Book.title`. A property reached through an accessor (a computed
    /// property, or a stored one of a non-final class, which subclasses may override) is described as
    /// `\Book.<computed 0x… (String)>`, and a binary built without reflection metadata describes offsets:
    /// for those the name is unknown, and the mapping key is taken as it is.
    package var keyPathPropertyName: String? { keyPath.flatMap(Self.propertyName(of:)) }

    /// The name of the stored property a key path leads straight to, when its description names one (see
    /// ``keyPathPropertyName``); `nil` otherwise.
    @usableFromInline
    package static func propertyName(of keyPath: AnyKeyPath) -> String? {
        guard let name = describedComponents(of: keyPath), let first = name.first, first.isLetter || first == "_",
            name.allSatisfy({ $0.isLetter || $0.isNumber || $0 == "_" })
        else { return nil }
        return name
    }

    /// A key path's description without its root type (`\Book.title` → `title`), and without the `?` that ends
    /// an optional chain; `nil` when the description does not start with the root type's name.
    package static func describedComponents(of keyPath: AnyKeyPath) -> String? {
        let description = String(describing: keyPath)
        let root = "\\" + String(describing: type(of: keyPath).rootType) + "."
        guard description.hasPrefix(root) else { return nil }
        var components = description.dropFirst(root.count)
        if components.hasSuffix("?") { components = components.dropLast() }
        return String(components)
    }

    /// Checks that mapping keys name their key paths' properties: a key that does not would silently make
    /// a column of its own name (`"titel": .init(\Book.title)` a column `titel`).
    ///
    /// - Parameters:
    ///   - properties: the mapping, keyed by property name.
    ///   - tableName: the class's table, for the error's context.
    /// - Throws: `DBBError` (misuse) naming the first key whose key path leads to another property.
    package static func checkKeys(_ properties: [String: DBBPropertyPersistence], tableName: String) throws {
        for (key, property) in properties.sorted(by: { $0.key < $1.key }) {
            guard let propertyName = property.keyPathPropertyName, propertyName != key else { continue }
            throw DBBError.misuse(
                "mapping key \(key) does not name its key path's property, \(propertyName)",
                recovery: "use \"\(propertyName)\" as the key; for a column of another name, pass columnName:",
                context: "registering \(tableName)")
        }
    }
}
