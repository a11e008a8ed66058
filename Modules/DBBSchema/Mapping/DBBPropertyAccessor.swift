public import DBBSQL
public import Foundation

/// Reads and writes one mapped property of an object whose class is known only at run time.
///
/// Each closure is built once per mapping entry, specialised for the property's root and value types where
/// the entry is written (the initializers are inlinable), so the per-row cost is one closure call; an entry
/// made from a key-path literal applies it as a direct access in an optimized build (``DBBKeyPathAccess``).
///
/// The closures take the object as `AnyObject` and downcast it to the entry's root class without a check
/// (``registered(_:as:)``): registration proves the cast once per class instead of once per value.
@usableFromInline
package enum DBBPropertyAccessor: Sendable {
    case scalar(DBBScalarAccessor)
    case values(DBBValuesAccessor)
    case object(DBBObjectAccessor)
    case objects(DBBObjectsAccessor)

    /// Whether `object` is an instance of the root class the accessors were written for, so that they may be
    /// called with it. Checked once per class and entry when a class is registered.
    ///
    /// - Parameter object: an object of the class being registered.
    package func accepts(_ object: AnyObject) -> Bool {
        switch self {
        case .scalar(let accessor): accessor.accepts(object)
        case .values(let accessor): accessor.accepts(object)
        case .object(let accessor): accessor.accepts(object)
        case .objects(let accessor): accessor.accepts(object)
        }
    }
}

/// A key-path entry's get and set closures, and its key path, made so that the optimizer can apply a key-path
/// literal directly.
///
/// Where an entry is written with a literal (`.init(\Person.name)`, whose initializer is inlined there), a
/// closure that captures the literal as its one use is specialized with the key path as a constant, and its
/// applications of the key path become direct accesses of the property; otherwise each application goes
/// through the standard library's generic projection (an allocation and metadata look-ups per property and
/// row). So the literal has exactly one use, the `access` closure, through which the accessors read, write
/// and name the property, and it is captured as its class rather than as `any … & Sendable`.
@usableFromInline
package struct DBBKeyPathAccess<Root: AnyObject, Value> {
    @usableFromInline let get: @Sendable (Root) -> Value
    @usableFromInline let set: @Sendable (Root, Value) -> Void
    /// Gives the key path; called at registration, never where the entry is written.
    @usableFromInline let keyPath: @Sendable () -> AnyKeyPath

    @inlinable @inline(__always)
    init(_ keyPath: ReferenceWritableKeyPath<Root, Value> & Sendable) {
        // Unchecked only because the class is not declared `Sendable`: the key path arrived as `Sendable` and is
        // immutable.
        nonisolated(unsafe) let path: ReferenceWritableKeyPath<Root, Value> = keyPath
        // No object: the key path. An object alone: its value. An object and a value: sets it.
        let access: @Sendable (Root?, Value?) -> (value: Value?, keyPath: AnyKeyPath?) = { root, newValue in
            guard let root else { return (nil, path) }
            guard let newValue else { return (root[keyPath: path], nil) }
            root[keyPath: path] = newValue
            return (nil, nil)
        }
        get = { access($0, nil).value! }
        set = { _ = access($0, $1) }
        // A call here would inline the closure, and the key path would have a second use.
        self.keyPath = { access(nil, nil).keyPath! }
    }
}

@usableFromInline
func wrongType(_ value: Any, _ expected: Any.Type) -> DBBError {
    DBBError.library(
        .mismatch, message: "a value of type \(type(of: value)) cannot be assigned to a \(expected) property",
        context: "assigning a property")
}

@usableFromInline
package struct DBBScalarAccessor: Sendable {
    /// Whether an object is an instance of the accessors' root class (see ``DBBPropertyAccessor``).
    @usableFromInline package let accepts: @Sendable (AnyObject) -> Bool
    /// The property's value as stored.
    @usableFromInline package let get: @Sendable (AnyObject, DBBCodingOptions) throws -> DBBValue
    /// Sets the property from a column of the current row. NULL leaves a non-optional property as it is
    /// (a column added after the row was written holds NULL).
    @usableFromInline package let read: @Sendable (AnyObject, DBBRow, Int32) throws -> Void
    /// Sets the property from a stored value (join-table rows).
    @usableFromInline package let setStored: @Sendable (AnyObject, DBBValue) throws -> Void
    /// Sets the property from a loosely typed value (`init(dictionary:manager:)`).
    @usableFromInline package let setAny: @Sendable (AnyObject, Any?) throws -> Void
}

extension DBBScalarAccessor {
    /// Accessors through direct get/set closures: no key-path projection per row.
    @inlinable
    init<Root: AnyObject, Value: DBBPersistableValue>(
        get getValue: @escaping @Sendable (Root) -> Value, set setValue: @escaping @Sendable (Root, Value) -> Void
    ) {
        accepts = { $0 is Root }
        get = { object, options in try getValue(registered(object, as: Root.self)).dbbValue(options: options) }
        read = { object, row, column in
            guard let value = try Value.readIfPresent(from: row, at: column) else { return }
            setValue(registered(object, as: Root.self), value)
        }
        setStored = { object, value in
            guard !value.isNull else { return }
            setValue(registered(object, as: Root.self), try Value.fromStoredValue(value))
        }
        setAny = { object, any in
            guard let any, !(any is NSNull) else { return }
            setValue(registered(object, as: Root.self), try convert(any, to: Value.self))
        }
    }

    /// Accessors of an optional property through direct get/set closures.
    @inlinable
    init<Root: AnyObject, Value: DBBPersistableValue>(
        optionalGet getValue: @escaping @Sendable (Root) -> Value?,
        set setValue: @escaping @Sendable (Root, Value?) -> Void
    ) {
        accepts = { $0 is Root }
        get = { object, options in try getValue(registered(object, as: Root.self)).dbbValue(options: options) }
        read = { object, row, column in
            setValue(registered(object, as: Root.self), try Value.readIfPresent(from: row, at: column))
        }
        setStored = { object, value in
            setValue(registered(object, as: Root.self), value.isNull ? nil : try Value.fromStoredValue(value))
        }
        setAny = { object, any in
            let value: Value? =
                if let any, !(any is NSNull) { try convert(any, to: Value.self) } else { nil }
            setValue(registered(object, as: Root.self), value)
        }
    }
}

/// Converts a loosely typed value to a persistable type: a value of the type itself, or a number
/// (or Bool) for a numeric property when it converts exactly. Anything else is a clear error: text never
/// becomes a number, nor a number text.
@usableFromInline
func convert<Value: DBBPersistableValue>(_ any: Any, to type: Value.Type) throws -> Value {
    if let value = any as? Value { return value }
    // An enum's raw text, or a Codable value's JSON.
    if Value.dbbStorageType == .string, Value.self != String.self, let text = any as? String {
        return try Value.fromStoredValue(.text(text))
    }
    let isNumber = any is any BinaryInteger || any is any BinaryFloatingPoint || any is Bool
    let wantsNumber = [.int, .float, .bool].contains(Value.dbbStorageType)
    guard isNumber, wantsNumber, let bindable = any as? any DBBBindable,
        let value = try? Value.fromStoredValue(try bindable.dbbValue(options: DBBCodingOptions()))
    else {
        throw wrongType(any, Value.self)
    }
    return value
}

@usableFromInline
package struct DBBValuesAccessor: Sendable {
    /// Whether an object is an instance of the accessors' root class (see ``DBBPropertyAccessor``).
    @usableFromInline package let accepts: @Sendable (AnyObject) -> Bool
    @usableFromInline package let get: @Sendable (AnyObject, DBBCodingOptions) throws -> [DBBValue]
    @usableFromInline package let set: @Sendable (AnyObject, [DBBValue]) throws -> Void
    @usableFromInline package let setAny: @Sendable (AnyObject, Any?) throws -> Void

    /// Accessors through direct get/set closures.
    @inlinable
    init<Root: AnyObject, Value: DBBPersistableValue>(
        get getValues: @escaping @Sendable (Root) -> [Value], set setValues: @escaping @Sendable (Root, [Value]) -> Void
    ) {
        accepts = { $0 is Root }
        get = { object, options in
            try getValues(registered(object, as: Root.self)).map { try $0.dbbValue(options: options) }
        }
        set = { object, values in
            setValues(registered(object, as: Root.self), try values.map(Value.fromStoredValue))
        }
        setAny = { object, any in
            guard let any, !(any is NSNull) else {
                setValues(registered(object, as: Root.self), [])
                return
            }
            guard let array = any as? [Any] else { throw wrongType(any, [Value].self) }
            setValues(registered(object, as: Root.self), try array.map { try convert($0, to: Value.self) })
        }
    }

    /// Accessors of an optional array through direct get/set closures; `nil` reads as empty.
    @inlinable
    init<Root: AnyObject, Value: DBBPersistableValue>(
        optionalGet getValues: @escaping @Sendable (Root) -> [Value]?,
        set setValues: @escaping @Sendable (Root, [Value]?) -> Void
    ) {
        accepts = { $0 is Root }
        get = { object, options in
            try (getValues(registered(object, as: Root.self)) ?? []).map { try $0.dbbValue(options: options) }
        }
        set = { object, values in
            setValues(registered(object, as: Root.self), try values.map(Value.fromStoredValue))
        }
        setAny = { object, any in
            guard let any, !(any is NSNull) else {
                setValues(registered(object, as: Root.self), nil)
                return
            }
            guard let array = any as? [Any] else { throw wrongType(any, [Value].self) }
            setValues(registered(object, as: Root.self), try array.map { try convert($0, to: Value.self) })
        }
    }
}

@usableFromInline
package struct DBBObjectAccessor: Sendable {
    /// Whether an object is an instance of the accessors' root class (see ``DBBPropertyAccessor``).
    @usableFromInline package let accepts: @Sendable (AnyObject) -> Bool
    @usableFromInline package let get: @Sendable (AnyObject) -> AnyObject?
    /// Sets the reference; `nil` leaves a non-optional reference as it is.
    @usableFromInline package let set: @Sendable (AnyObject, AnyObject?) throws -> Void

    /// Accessors through direct get/set closures.
    @inlinable
    init<Root: AnyObject, Object: DBBTableRepresentable>(
        get getObject: @escaping @Sendable (Root) -> Object, set setObject: @escaping @Sendable (Root, Object) -> Void
    ) {
        accepts = { $0 is Root }
        get = { getObject(registered($0, as: Root.self)) }
        set = { object, value in
            guard let value else { return }
            guard let typed = value as? Object else { throw wrongType(value, Object.self) }
            setObject(registered(object, as: Root.self), typed)
        }
    }

    /// Accessors of an optional reference through direct get/set closures.
    @inlinable
    init<Root: AnyObject, Object: DBBTableRepresentable>(
        optionalGet getObject: @escaping @Sendable (Root) -> Object?,
        set setObject: @escaping @Sendable (Root, Object?) -> Void
    ) {
        accepts = { $0 is Root }
        get = { getObject(registered($0, as: Root.self)) }
        set = { object, value in
            guard let value else {
                setObject(registered(object, as: Root.self), nil)
                return
            }
            guard let typed = value as? Object else { throw wrongType(value, Object.self) }
            setObject(registered(object, as: Root.self), typed)
        }
    }
}

@usableFromInline
package struct DBBObjectsAccessor: Sendable {
    /// Whether an object is an instance of the accessors' root class (see ``DBBPropertyAccessor``).
    @usableFromInline package let accepts: @Sendable (AnyObject) -> Bool
    @usableFromInline package let get: @Sendable (AnyObject) -> [AnyObject]
    @usableFromInline package let set: @Sendable (AnyObject, [AnyObject]) throws -> Void

    /// Accessors through direct get/set closures.
    @inlinable
    init<Root: AnyObject, Object: DBBTableRepresentable>(
        get getObjects: @escaping @Sendable (Root) -> [Object],
        set setObjects: @escaping @Sendable (Root, [Object]) -> Void
    ) {
        accepts = { $0 is Root }
        get = { getObjects(registered($0, as: Root.self)) }
        set = { object, values in setObjects(registered(object, as: Root.self), try Self.typed(values)) }
    }

    /// Accessors of an optional array through direct get/set closures; `nil` reads as empty.
    @inlinable
    init<Root: AnyObject, Object: DBBTableRepresentable>(
        optionalGet getObjects: @escaping @Sendable (Root) -> [Object]?,
        set setObjects: @escaping @Sendable (Root, [Object]?) -> Void
    ) {
        accepts = { $0 is Root }
        get = { getObjects(registered($0, as: Root.self)) ?? [] }
        set = { object, values in setObjects(registered(object, as: Root.self), try Self.typed(values)) }
    }

    // Inlinable, so that the casts are specialized for the element type where the entry is written.
    @inlinable
    static func typed<Object>(_ values: [AnyObject]) throws -> [Object] {
        try values.map {
            guard let typed = $0 as? Object else { throw wrongType($0, Object.self) }
            return typed
        }
    }
}

/// `object` as the root class of a mapping entry, without a run-time check (a debug build still checks).
///
/// Proof: a map accepts an entry only when an object of its class is an instance of the entry's root
/// (``DBBPropertyAccessor/accepts(_:)``, at registration), and the object layer calls a map's accessors only with
/// objects of the class the map was built for (it looks the map up by `type(of: object)`).
@inlinable @inline(__always)
func registered<Root: AnyObject>(_ object: AnyObject, as root: Root.Type) -> Root {
    unsafeDowncast(object, to: Root.self)
}
