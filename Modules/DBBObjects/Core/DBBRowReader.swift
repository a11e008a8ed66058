public import DBBSQL
public import DBBSchema

/// Makes an object of one class from a whole row of its table in one call, setting each scalar property
/// directly: what the `@DBBTable` macro writes for each class it expands (``DBBTableObject/dbbRowReader``).
///
/// A class mapped otherwise is read through its mapping's closures, one per column. A SQLite load uses the
/// reader when it loads every property of the class itself (not a subclass); a partial or sparse fetch, and
/// PostgreSQL, use the closures. Registration checks that the reader's properties are the class's mapped
/// properties, and falls back to the closures when they are not (a mapping changed at run time).
///
/// The reader may set properties that are not scalar columns only to leave them as they are: references and
/// arrays are loaded after it, as for any class.
public struct DBBRowReader: Sendable {
    /// The names of the properties the reader reads, in the order of its positions.
    public let properties: [String]
    let makeObject: @Sendable (DBBRow, DBBRowPositions, DBBManager) throws -> DBBTableObject

    /// A reader of `properties`.
    ///
    /// - Parameters:
    ///   - properties: the mapped properties, in the order in which `makeObject` reads their positions.
    ///   - makeObject: makes an object of the class with `manager` and sets each scalar property from the row's
    ///     column at the property's position (`DBBRow.dbbValue(at:as:)`); a property whose value
    ///     is NULL is left as it is when it is not optional. It throws the error of a value that does not
    ///     convert.
    public init(
        properties: [String],
        makeObject:
            @escaping @Sendable (_ row: DBBRow, _ positions: DBBRowPositions, _ manager: DBBManager) throws
            -> DBBTableObject
    ) {
        self.properties = properties
        self.makeObject = makeObject
    }

    /// A reader of nothing, never called: the loader's placeholder where a class's rows are read otherwise.
    static let none = DBBRowReader(properties: []) { _, _, manager in DBBTableObject(dbManager: manager) }
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
