public import DBBSQL
public import DBBSchema

/// Sets every scalar property of a loaded object from its row in one call, each directly: what the `@DBBTable`
/// macro writes for each class it expands (``DBBTableObject/dbbRowReader``).
///
/// A class mapped otherwise is read through its mapping's closures, one per column. A SQLite load uses the reader
/// where it reads every scalar column of an object of the reader's class; a fetch that leaves out scalar
/// properties, a sparse fetch and PostgreSQL use the closures. The load makes the object and sets its id and
/// timestamps first, as for any class, and then calls the reader. Registration uses a reader only when its
/// properties are exactly the class's mapped properties, and falls back to the closures otherwise (a mapping
/// changed at run time, a subclass that maps more).
///
/// The reader sets the properties in the order of ``properties``; the macro lists them by name, the order in
/// which the closures set them. It leaves references and arrays as they are: they are loaded after it.
public struct DBBRowReader: Sendable {
    /// The names of the properties the reader reads, in the order of its positions.
    public let properties: [String]
    /// Whether an object is of the reader's class (or a subclass): checked once, with the class's prototype, when
    /// a class is registered.
    let accepts: @Sendable (DBBTableObject) -> Bool
    let read: @Sendable (DBBTableObject, DBBRow, DBBRowPositions) throws -> Void

    /// A reader of `properties` of objects of `type`.
    ///
    /// - Parameters:
    ///   - type: the class of the objects the reader sets; a class that is not `type` or a subclass of it does not
    ///     use the reader.
    ///   - properties: the mapped properties, in the order in which `read` reads their positions.
    ///   - read: casts the object to `type` (throwing ``wrongClass(_:expected:)`` when it is not one, which
    ///     registration rules out) and sets each scalar property from the row's column at the property's position
    ///     (`DBBRow.dbbValue(at:as:)`); a property whose value is NULL is left as it is when it is not optional.
    ///     It throws the error of a value that does not convert.
    public init<Object: DBBTableObject>(
        _ type: Object.Type, properties: [String],
        read:
            @escaping @Sendable (_ object: DBBTableObject, _ row: DBBRow, _ positions: DBBRowPositions) throws
            -> Void
    ) {
        self.properties = properties
        accepts = { $0 is Object }
        self.read = read
    }

    /// The error of a reader handed an object of another class than its own.
    ///
    /// - Parameters:
    ///   - object: the object.
    ///   - expected: the reader's class.
    public static func wrongClass(_ object: DBBTableObject, expected: DBBTableObject.Type) -> DBBError {
        DBBError.misuse(
            "the row reader of \(expected) was handed an object of \(Swift.type(of: object))",
            context: "loading objects")
    }
}

/// Where each property of a ``DBBRowReader`` is in the rows of a load: a column index, or -1 for a property
/// that has no scalar column (a reference or an array).
public struct DBBRowPositions: Sendable {
    @usableFromInline let columns: ContiguousArray<Int32>

    init(_ columns: ContiguousArray<Int32>) { self.columns = columns }

    /// The column of the reader's property at `index`.
    @inlinable public subscript(index: Int) -> Int32 { columns[index] }
}

// What a `DBBRowReader` written by the macro calls for each property: the overload the property's type selects
// reads its column, or, for a reference or an array (loaded later), nothing. The argument names the type only. Each
// is declared `throws`, so that the macro writes the same call for every property.
extension DBBRow {
    /// The value of a scalar property's column, or `nil` to leave the property as it is (NULL, or no column).
    ///
    /// - Parameters:
    ///   - column: the column (``DBBRowPositions``).
    ///   - property: the property, never evaluated: it gives the type.
    /// - Throws: `DBBError` (mismatch) when the value does not convert.
    @inlinable @inline(__always)
    public func dbbValue<Value: DBBPersistableValue>(at column: Int32, as property: @autoclosure () -> Value)
        throws -> Value?
    {
        guard column >= 0 else { return nil }
        return try Value.readIfPresent(from: self, at: column)
    }

    /// The value of an optional scalar property's column (`.some(nil)` for NULL), or `nil` when it has no column.
    ///
    /// - Parameters:
    ///   - column: the column (``DBBRowPositions``).
    ///   - property: the property, never evaluated: it gives the type.
    /// - Throws: `DBBError` (mismatch) when the value does not convert.
    @inlinable @inline(__always)
    public func dbbValue<Value: DBBPersistableValue>(at column: Int32, as property: @autoclosure () -> Value?)
        throws -> Value??
    {
        guard column >= 0 else { return nil }
        return .some(try Value.readIfPresent(from: self, at: column))
    }

    /// `nil`: an array of scalars is kept in a join table, loaded after the row.
    ///
    /// - Parameters:
    ///   - column: ignored.
    ///   - property: the property, never evaluated.
    @inlinable @inline(__always)
    public func dbbValue<Value: DBBPersistableValue>(at column: Int32, as property: @autoclosure () -> [Value])
        throws -> [Value]?
    { nil }

    /// `nil`: an array of scalars is kept in a join table, loaded after the row.
    ///
    /// - Parameters:
    ///   - column: ignored.
    ///   - property: the property, never evaluated.
    @inlinable @inline(__always)
    public func dbbValue<Value: DBBPersistableValue>(at column: Int32, as property: @autoclosure () -> [Value]?)
        throws -> [Value]??
    { nil }

    /// `nil`: a reference is loaded after the row.
    ///
    /// - Parameters:
    ///   - column: ignored.
    ///   - property: the property, never evaluated.
    @inlinable @inline(__always)
    public func dbbValue<Object: DBBTableRepresentable>(at column: Int32, as property: @autoclosure () -> Object)
        throws -> Object?
    { nil }

    /// `nil`: a reference is loaded after the row.
    ///
    /// - Parameters:
    ///   - column: ignored.
    ///   - property: the property, never evaluated.
    @inlinable @inline(__always)
    public func dbbValue<Object: DBBTableRepresentable>(at column: Int32, as property: @autoclosure () -> Object?)
        throws -> Object??
    { nil }

    /// `nil`: references are loaded after the row.
    ///
    /// - Parameters:
    ///   - column: ignored.
    ///   - property: the property, never evaluated.
    @inlinable @inline(__always)
    public func dbbValue<Object: DBBTableRepresentable>(at column: Int32, as property: @autoclosure () -> [Object])
        throws -> [Object]?
    { nil }

    /// `nil`: references are loaded after the row.
    ///
    /// - Parameters:
    ///   - column: ignored.
    ///   - property: the property, never evaluated.
    @inlinable @inline(__always)
    public func dbbValue<Object: DBBTableRepresentable>(
        at column: Int32, as property: @autoclosure () -> [Object]?
    ) throws -> [Object]?? { nil }

    /// A property of a type that is not stored: chosen only when no other overload fits, as for the observer the
    /// macro writes (`DBBTableObject.dbbPropertyDidChange(_:)`).
    @available(
        *, unavailable,
        message: """
            a stored property is a scalar (Bool, an integer, Float, Double, String, Date, Data), an enum with a \
            String or integer raw value declared DBBPersistableValue, a Codable value declared DBBCodableValue, \
            a DBBTableObject subclass, or an optional or array of one of these; mark other properties @Transient
            """
    )
    public func dbbValue<Value>(at column: Int32, as property: @autoclosure () -> Value) throws -> Value? {
        fatalError("unavailable")
    }
}
