public import DBBSQL
public import Foundation

// An enum with a raw value becomes persistable by declaring the conformance, with nothing to implement:
//
//     enum Status: String, DBBPersistableValue { case open, closed }
//
// It stores its raw value, in the raw type's column type, so conditions compare raw values.

extension DBBPersistableValue where Self: RawRepresentable, RawValue: DBBPersistableValue {
    /// The raw value's storage type.
    public static var dbbStorageType: DBBStorageType { RawValue.dbbStorageType }
    /// The raw value's array storage type.
    public static var dbbArrayStorageType: DBBStorageType { RawValue.dbbArrayStorageType }

    /// Reads a raw value and the case it names.
    ///
    /// - Throws: `DBBError` (mismatch) naming the value when no case has it.
    public static func fromStoredValue(_ value: DBBValue) throws -> Self {
        try dbbCase(RawValue.fromStoredValue(value))
    }

    /// Stores the raw value.
    public func dbbValue(options: DBBCodingOptions) throws -> DBBValue {
        try rawValue.dbbValue(options: options)
    }

    /// Binds the raw value.
    public func bind(to statement: DBBStatement, at index: Int32, options: DBBCodingOptions) throws {
        try rawValue.bind(to: statement, at: index, options: options)
    }

    /// Reads a column's raw value and the case it names.
    ///
    /// - Throws: `DBBError` (mismatch) naming the value when no case has it.
    public static func read(from row: DBBRow, at column: Int32) throws -> Self {
        try dbbCase(RawValue.read(from: row, at: column))
    }

    static func dbbCase(_ raw: RawValue) throws -> Self {
        guard let value = Self(rawValue: raw) else {
            throw DBBError.library(
                .mismatch, message: "the stored value \(String(reflecting: raw)) is not a case of \(Self.self)",
                context: "reading a stored value")
        }
        return value
    }
}

/// A `Codable` value type stored as JSON text in one column (or one join-table row per element of an array):
/// an address, an amount with its currency, a small list of settings.
///
/// Declare the conformance; there is nothing to implement:
///
/// ```swift
/// struct Address: DBBCodableValue {
///     var street = ""
///     var city = ""
/// }
/// ```
///
/// The JSON is written with sorted keys, so equal values store equal text and a condition can compare a
/// stored value with a bound one. Dates inside the value use `JSONEncoder`'s default strategy.
public protocol DBBCodableValue: DBBPersistableValue, Codable {}

extension DBBCodableValue {
    /// Text: the value's JSON.
    public static var dbbStorageType: DBBStorageType { .string }
    /// An array of text: each element's JSON.
    public static var dbbArrayStorageType: DBBStorageType { .stringArray }

    /// Decodes the value from stored JSON text.
    ///
    /// - Throws: `DBBError` (mismatch) when the value is not text or not JSON of this type; what its
    ///   `init(from:)` threw is the error's `underlyingError`.
    public static func fromStoredValue(_ value: DBBValue) throws -> Self {
        try dbbDecoded(String.fromStoredValue(value))
    }

    /// Stores the value as JSON text, its keys sorted so that equal values store equal text.
    ///
    /// - Throws: `DBBError` (mismatch) when the value cannot be encoded; what its `encode(to:)` threw is the
    ///   error's `underlyingError`.
    public func dbbValue(options: DBBCodingOptions) throws -> DBBValue {
        .text(try dbbJSONText(self))
    }

    /// Decodes the value from a column's JSON text.
    ///
    /// - Throws: `DBBError` (mismatch) when the column is not text or not JSON of this type.
    public static func read(from row: DBBRow, at column: Int32) throws -> Self {
        try dbbDecoded(String.read(from: row, at: column))
    }

    static func dbbDecoded(_ text: String) throws -> Self {
        do {
            return try JSONDecoder().decode(Self.self, from: Data(text.utf8))
        } catch {
            var failure = DBBError.library(
                .mismatch, message: "the stored text is not the JSON of a \(Self.self): \(error)",
                context: "reading a stored value")
            failure.underlyingError = error
            throw failure
        }
    }
}

/// A value's JSON text, its keys sorted.
private func dbbJSONText(_ value: some Encodable) throws -> String {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.sortedKeys, .withoutEscapingSlashes]
    do {
        return String(decoding: try encoder.encode(value), as: UTF8.self)
    } catch {
        // The value's own `encode(to:)` may have thrown: its error stays reachable, unchanged.
        var failure = DBBError.library(
            .mismatch, message: "a \(type(of: value)) cannot be stored as JSON: \(error)", context: "storing a value")
        failure.underlyingError = error
        throw failure
    }
}

// Arrays of `Data` are not a storage type (a `Data` property is a join table of its own already): these
// overloads are chosen over the generic array initializers for `[Data]`, so such a mapping does not compile
// and says why.
extension DBBPropertyPersistence {
    /// Arrays of `Data` are not a storage type.
    @available(*, unavailable, message: "arrays of Data are not a storage type; keep each Data in an object of its own")
    public init<Root: AnyObject>(
        _ keyPath: ReferenceWritableKeyPath<Root, [Data]> & Sendable, type: DBBStorageType? = nil,
        columnName: String? = nil
    ) { fatalError("unavailable") }

    /// Arrays of `Data` are not a storage type.
    @available(*, unavailable, message: "arrays of Data are not a storage type; keep each Data in an object of its own")
    public init<Root: AnyObject>(
        _ keyPath: ReferenceWritableKeyPath<Root, [Data]?> & Sendable, type: DBBStorageType? = nil,
        columnName: String? = nil
    ) { fatalError("unavailable") }

    /// Arrays of `Data` are not a storage type.
    @available(*, unavailable, message: "arrays of Data are not a storage type; keep each Data in an object of its own")
    public init<Root: AnyObject>(
        type: DBBStorageType? = nil, columnName: String? = nil, get: @escaping @Sendable (Root) -> [Data],
        set: @escaping @Sendable (Root, [Data]) -> Void
    ) { fatalError("unavailable") }

    /// Arrays of `Data` are not a storage type.
    @available(*, unavailable, message: "arrays of Data are not a storage type; keep each Data in an object of its own")
    public init<Root: AnyObject>(
        type: DBBStorageType? = nil, columnName: String? = nil, get: @escaping @Sendable (Root) -> [Data]?,
        set: @escaping @Sendable (Root, [Data]?) -> Void
    ) { fatalError("unavailable") }
}
