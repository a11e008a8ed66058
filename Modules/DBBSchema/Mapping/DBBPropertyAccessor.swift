public import DBBSQL
public import Foundation

#if canImport(Darwin)
    internal import Darwin
#else
    internal import Glibc
#endif

/// Reads and writes one mapped property of an object whose class is known only at run time.
///
/// Each closure is built once per mapping entry, specialised for the property's root and value types where
/// the entry is written (the initializers are inlinable), so the per-row cost is one closure call, plus one key-path access for an entry made from a key path alone.
@usableFromInline
package enum DBBPropertyAccessor: Sendable {
    case scalar(DBBScalarAccessor)
    case values(DBBValuesAccessor)
    case object(DBBObjectAccessor)
    case objects(DBBObjectsAccessor)
}

@usableFromInline
func wrongType(_ value: Any, _ expected: Any.Type) -> DBBError {
    DBBError(
        .mismatch, message: "a value of type \(type(of: value)) cannot be assigned to a \(expected) property",
        context: "assigning a property")
}

@usableFromInline
package struct DBBScalarAccessor: Sendable {
    /// The property's value as stored.
    @usableFromInline package let get: @Sendable (AnyObject, DBBCodingOptions) throws -> DBBValue
    /// Sets the property from a column of the current row. NULL leaves a non-optional property as it is
    /// (a column added after the row was written holds NULL).
    @usableFromInline package let read: @Sendable (AnyObject, DBBRow, Int32) throws -> Void
    /// Sets the property from a stored value (join-table rows).
    @usableFromInline package let setStored: @Sendable (AnyObject, DBBValue) throws -> Void
    /// Sets the property from a loosely typed value (`init(dictionary:manager:)`).
    @usableFromInline package let setAny: @Sendable (AnyObject, Any?) throws -> Void
    @inlinable
    init<Root: AnyObject, Value: DBBPersistableValue>(_ keyPath: ReferenceWritableKeyPath<Root, Value> & Sendable) {
        self.init(
            get: { (root: Root) in root[keyPath: keyPath] },
            set: { (root: Root, value: Value) in root[keyPath: keyPath] = value })
    }

    @inlinable
    init<Root: AnyObject, Value: DBBPersistableValue>(
        optional keyPath: ReferenceWritableKeyPath<Root, Value?> & Sendable
    ) {
        self.init(
            optionalGet: { (root: Root) in root[keyPath: keyPath] },
            set: { (root: Root, value: Value?) in root[keyPath: keyPath] = value })
    }
}

/// The offset of the stored property a key path names inside an object of its class, or `nil` when the key
/// path does not lead straight to a stored property of a final class (a computed property, an observed or
/// overridable one, a path of several components).
///
/// Swift has no API for the offset of a class's property (`MemoryLayout.offset(of:)` answers only for
/// structs). A key path whose description names its property is one stored component (computed, observed and
/// overridable properties are described as `<computed …>`), and projecting it yields the property's own
/// storage, whose distance from the object's start is the offset; a projection through accessors would yield
/// a temporary far outside the object, which the bounds check refuses too. Each class is laid out once, so the
/// offset holds for every object of the class.
@usableFromInline
package func storedPropertyOffset<Root: AnyObject, Value>(
    of keyPath: ReferenceWritableKeyPath<Root, Value>, in prototype: AnyObject
) -> Int? {
    guard let root = prototype as? Root, type(of: root) == Root.self,
        DBBPropertyPersistence.propertyName(of: keyPath) != nil
    else { return nil }
    let base = UnsafeMutableRawPointer(Unmanaged.passUnretained(root).toOpaque())
    let offset = withUnsafeMutablePointer(to: &root[keyPath: keyPath]) { UnsafeMutableRawPointer($0) - base }
    // Past the object header (metadata and reference counts), aligned, and inside the object's own allocation:
    // a temporary that a projection through accessors yields is another allocation, often a near one.
    guard offset >= 2 * MemoryLayout<Int>.size, offset % MemoryLayout<Value>.alignment == 0,
        offset + MemoryLayout<Value>.size <= allocationSize(of: base) ?? 1 << 16
    else { return nil }
    return offset
}

/// The usable size of the heap block at `pointer` (an object's start), or `nil` when the C library does not
/// say; read once from `malloc_usable_size` (glibc) or `malloc_size` (Darwin).
package func allocationSize(of pointer: UnsafeMutableRawPointer) -> Int? {
    #if canImport(Darwin)
        return malloc_size(pointer)
    #else
        return mallocUsableSize.map { Int($0(pointer)) }
    #endif
}

#if !canImport(Darwin)
    /// `malloc_usable_size`, looked up at run time because the C library's module map leaves out `malloc.h`.
    private let mallocUsableSize: (@convention(c) (UnsafeMutableRawPointer?) -> Int)? = {
        guard let symbol = dlsym(nil, "malloc_usable_size") else { return nil }
        return unsafeBitCast(symbol, to: (@convention(c) (UnsafeMutableRawPointer?) -> Int).self)
    }()
#endif

/// The storage of a property at `offset` in an object (see ``storedPropertyOffset(of:in:)``). Reads and
/// writes through it skip the run-time exclusivity check, as the library's bookkeeping properties do: an
/// object is used from one thread or task at a time.
@inlinable @inline(__always)
package func storage<Value>(of object: AnyObject, at offset: Int, as type: Value.Type) -> UnsafeMutablePointer<Value> {
    (UnsafeMutableRawPointer(Unmanaged.passUnretained(object).toOpaque()) + offset).assumingMemoryBound(to: type)
}

/// For an entry made from a key path alone: given an object of the class, the entry's accessors built on
/// closures that read and write the property's storage (`nil` when the key path names no stored property of a
/// final class). Applying a key path allocates on every write; reading storage costs a load.
///
/// - Parameters:
///   - keyPath: the entry's key path.
///   - make: builds the accessors from a getter and a setter of the property.
@inlinable
func storageAccessors<Root: AnyObject, Value: SendableMetatype>(
    _ keyPath: ReferenceWritableKeyPath<Root, Value> & Sendable,
    _ make:
        @escaping @Sendable (
            _ get: @escaping @Sendable (Root) -> Value, _ set: @escaping @Sendable (Root, Value) -> Void
        ) -> DBBPropertyAccessor
) -> @Sendable (AnyObject) -> DBBPropertyAccessor? {
    { prototype in
        storedPropertyOffset(of: keyPath, in: prototype).map { offset in
            make(
                { root in storage(of: root, at: offset, as: Value.self).pointee },
                { root, value in storage(of: root, at: offset, as: Value.self).pointee = value })
        }
    }
}

extension DBBScalarAccessor {
    /// Accessors through direct get/set closures: no key-path projection per row.
    @inlinable
    init<Root: AnyObject, Value: DBBPersistableValue>(
        get getValue: @escaping @Sendable (Root) -> Value, set setValue: @escaping @Sendable (Root, Value) -> Void
    ) {
        get = { object, options in try getValue(unsafeDowncast(object, to: Root.self)).dbbValue(options: options) }
        read = { object, row, column in
            guard let value = try Value.readIfPresent(from: row, at: column) else { return }
            setValue(unsafeDowncast(object, to: Root.self), value)
        }
        setStored = { object, value in
            guard !value.isNull else { return }
            setValue(unsafeDowncast(object, to: Root.self), try Value.fromStoredValue(value))
        }
        setAny = { object, any in
            guard let any, !(any is NSNull) else { return }
            setValue(unsafeDowncast(object, to: Root.self), try convert(any, to: Value.self))
        }
    }

    /// Accessors of an optional property through direct get/set closures.
    @inlinable
    init<Root: AnyObject, Value: DBBPersistableValue>(
        optionalGet getValue: @escaping @Sendable (Root) -> Value?,
        set setValue: @escaping @Sendable (Root, Value?) -> Void
    ) {
        get = { object, options in try getValue(unsafeDowncast(object, to: Root.self)).dbbValue(options: options) }
        read = { object, row, column in
            setValue(unsafeDowncast(object, to: Root.self), try Value.readIfPresent(from: row, at: column))
        }
        setStored = { object, value in
            setValue(unsafeDowncast(object, to: Root.self), value.isNull ? nil : try Value.fromStoredValue(value))
        }
        setAny = { object, any in
            let value: Value? =
                if let any, !(any is NSNull) { try convert(any, to: Value.self) } else { nil }
            setValue(unsafeDowncast(object, to: Root.self), value)
        }
    }
}

/// Converts a loosely typed value to a persistable type: a value of the type itself, or a number
/// (or Bool) for a numeric property when it converts exactly. Anything else is a clear error: text never
/// becomes a number, nor a number text.
@usableFromInline
func convert<Value: DBBPersistableValue>(_ any: Any, to type: Value.Type) throws -> Value {
    if let value = any as? Value { return value }
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
    @usableFromInline package let get: @Sendable (AnyObject, DBBCodingOptions) throws -> [DBBValue]
    @usableFromInline package let set: @Sendable (AnyObject, [DBBValue]) throws -> Void
    @usableFromInline package let setAny: @Sendable (AnyObject, Any?) throws -> Void

    @inlinable
    init<Root: AnyObject, Value: DBBPersistableValue>(_ keyPath: ReferenceWritableKeyPath<Root, [Value]> & Sendable) {
        self.init(
            get: { (root: Root) in root[keyPath: keyPath] },
            set: { (root: Root, values: [Value]) in root[keyPath: keyPath] = values })
    }

    @inlinable
    init<Root: AnyObject, Value: DBBPersistableValue>(
        optional keyPath: ReferenceWritableKeyPath<Root, [Value]?> & Sendable
    ) {
        self.init(
            optionalGet: { (root: Root) in root[keyPath: keyPath] },
            set: { (root: Root, values: [Value]?) in root[keyPath: keyPath] = values })
    }

    /// Accessors through direct get/set closures.
    @inlinable
    init<Root: AnyObject, Value: DBBPersistableValue>(
        get getValues: @escaping @Sendable (Root) -> [Value], set setValues: @escaping @Sendable (Root, [Value]) -> Void
    ) {
        get = { object, options in
            try getValues(unsafeDowncast(object, to: Root.self)).map { try $0.dbbValue(options: options) }
        }
        set = { object, values in
            setValues(unsafeDowncast(object, to: Root.self), try values.map(Value.fromStoredValue))
        }
        setAny = { object, any in
            guard let any, !(any is NSNull) else {
                setValues(unsafeDowncast(object, to: Root.self), [])
                return
            }
            guard let array = any as? [Any] else { throw wrongType(any, [Value].self) }
            setValues(unsafeDowncast(object, to: Root.self), try array.map { try convert($0, to: Value.self) })
        }
    }

    /// Accessors of an optional array through direct get/set closures; `nil` reads as empty.
    @inlinable
    init<Root: AnyObject, Value: DBBPersistableValue>(
        optionalGet getValues: @escaping @Sendable (Root) -> [Value]?,
        set setValues: @escaping @Sendable (Root, [Value]?) -> Void
    ) {
        get = { object, options in
            try (getValues(unsafeDowncast(object, to: Root.self)) ?? []).map { try $0.dbbValue(options: options) }
        }
        set = { object, values in
            setValues(unsafeDowncast(object, to: Root.self), try values.map(Value.fromStoredValue))
        }
        setAny = { object, any in
            guard let any, !(any is NSNull) else {
                setValues(unsafeDowncast(object, to: Root.self), nil)
                return
            }
            guard let array = any as? [Any] else { throw wrongType(any, [Value].self) }
            setValues(unsafeDowncast(object, to: Root.self), try array.map { try convert($0, to: Value.self) })
        }
    }
}

@usableFromInline
package struct DBBObjectAccessor: Sendable {
    @usableFromInline package let get: @Sendable (AnyObject) -> AnyObject?
    /// Sets the reference; `nil` leaves a non-optional reference as it is.
    @usableFromInline package let set: @Sendable (AnyObject, AnyObject?) throws -> Void

    @inlinable
    init<Root: AnyObject, Object: DBBTableRepresentable>(_ keyPath: ReferenceWritableKeyPath<Root, Object> & Sendable) {
        self.init(
            get: { (root: Root) in root[keyPath: keyPath] },
            set: { (root: Root, value: Object) in root[keyPath: keyPath] = value })
    }

    @inlinable
    init<Root: AnyObject, Object: DBBTableRepresentable>(
        optional keyPath: ReferenceWritableKeyPath<Root, Object?> & Sendable
    ) {
        self.init(
            optionalGet: { (root: Root) in root[keyPath: keyPath] },
            set: { (root: Root, value: Object?) in root[keyPath: keyPath] = value })
    }

    /// Accessors through direct get/set closures.
    @inlinable
    init<Root: AnyObject, Object: DBBTableRepresentable>(
        get getObject: @escaping @Sendable (Root) -> Object, set setObject: @escaping @Sendable (Root, Object) -> Void
    ) {
        get = { getObject(unsafeDowncast($0, to: Root.self)) }
        set = { object, value in
            guard let value else { return }
            guard let typed = value as? Object else { throw wrongType(value, Object.self) }
            setObject(unsafeDowncast(object, to: Root.self), typed)
        }
    }

    /// Accessors of an optional reference through direct get/set closures.
    @inlinable
    init<Root: AnyObject, Object: DBBTableRepresentable>(
        optionalGet getObject: @escaping @Sendable (Root) -> Object?,
        set setObject: @escaping @Sendable (Root, Object?) -> Void
    ) {
        get = { getObject(unsafeDowncast($0, to: Root.self)) }
        set = { object, value in
            guard let value else {
                setObject(unsafeDowncast(object, to: Root.self), nil)
                return
            }
            guard let typed = value as? Object else { throw wrongType(value, Object.self) }
            setObject(unsafeDowncast(object, to: Root.self), typed)
        }
    }
}

@usableFromInline
package struct DBBObjectsAccessor: Sendable {
    @usableFromInline package let get: @Sendable (AnyObject) -> [AnyObject]
    @usableFromInline package let set: @Sendable (AnyObject, [AnyObject]) throws -> Void

    @inlinable
    init<Root: AnyObject, Object: DBBTableRepresentable>(_ keyPath: ReferenceWritableKeyPath<Root, [Object]> & Sendable)
    {
        self.init(
            get: { (root: Root) in root[keyPath: keyPath] },
            set: { (root: Root, objects: [Object]) in root[keyPath: keyPath] = objects })
    }

    @inlinable
    init<Root: AnyObject, Object: DBBTableRepresentable>(
        optional keyPath: ReferenceWritableKeyPath<Root, [Object]?> & Sendable
    ) {
        self.init(
            optionalGet: { (root: Root) in root[keyPath: keyPath] },
            set: { (root: Root, objects: [Object]?) in root[keyPath: keyPath] = objects })
    }

    /// Accessors through direct get/set closures.
    @inlinable
    init<Root: AnyObject, Object: DBBTableRepresentable>(
        get getObjects: @escaping @Sendable (Root) -> [Object],
        set setObjects: @escaping @Sendable (Root, [Object]) -> Void
    ) {
        get = { getObjects(unsafeDowncast($0, to: Root.self)) }
        set = { object, values in setObjects(unsafeDowncast(object, to: Root.self), try Self.typed(values)) }
    }

    /// Accessors of an optional array through direct get/set closures; `nil` reads as empty.
    @inlinable
    init<Root: AnyObject, Object: DBBTableRepresentable>(
        optionalGet getObjects: @escaping @Sendable (Root) -> [Object]?,
        set setObjects: @escaping @Sendable (Root, [Object]?) -> Void
    ) {
        get = { getObjects(unsafeDowncast($0, to: Root.self)) ?? [] }
        set = { object, values in setObjects(unsafeDowncast(object, to: Root.self), try Self.typed(values)) }
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
