public import DBBSQL
public import Foundation

/// A scalar Swift type that DBBBuilder can store in a column or a join table: `Bool`, every integer
/// type, `Float`, `Double`, `String`, `Date` and `Data`.
///
/// Values are read through `DBBColumnReadable` and written through `DBBBindable`;
/// the manager's connection stores dates as seconds since 2001-01-01, as DBBBuilder always has. The type is a
/// `SendableMetatype`, because the `@Sendable` accessors of a mapping entry use its conformance.
public protocol DBBPersistableValue: DBBBindable, DBBColumnReadable, SendableMetatype {
    /// The storage type of a property of this type.
    static var dbbStorageType: DBBStorageType { get }
    /// The storage type of an array of this type.
    static var dbbArrayStorageType: DBBStorageType { get }
    /// Converts a stored value back, with the manager's on-disk conventions.
    ///
    /// - Throws: `DBBError` (mismatch) when the value does not fit the type.
    static func fromStoredValue(_ value: DBBValue) throws -> Self
}

private func mismatch(_ value: DBBValue, _ type: Any.Type) -> DBBError {
    DBBError.library(
        .mismatch, message: "a \(value.storageClass.rawValue) value cannot be read as \(type)",
        context: "reading a stored value")
}

extension DBBPersistableValue where Self: FixedWidthInteger {
    public static var dbbStorageType: DBBStorageType { .int }
    public static var dbbArrayStorageType: DBBStorageType { .intArray }
    public static func fromStoredValue(_ value: DBBValue) throws -> Self {
        guard let integer = value.int64Value, let result = Self(exactly: integer) else {
            throw mismatch(value, Self.self)
        }
        return result
    }
}

extension Int: DBBPersistableValue {}
extension Int8: DBBPersistableValue {}
extension Int16: DBBPersistableValue {}
extension Int32: DBBPersistableValue {}
extension Int64: DBBPersistableValue {}
extension UInt: DBBPersistableValue {}
extension UInt8: DBBPersistableValue {}
extension UInt16: DBBPersistableValue {}
extension UInt32: DBBPersistableValue {}
extension UInt64: DBBPersistableValue {}

extension Bool: DBBPersistableValue {
    public static var dbbStorageType: DBBStorageType { .bool }
    public static var dbbArrayStorageType: DBBStorageType { .boolArray }
    public static func fromStoredValue(_ value: DBBValue) throws -> Bool {
        guard let number = value.doubleValue else { throw mismatch(value, Bool.self) }
        return number != 0
    }
}

extension Double: DBBPersistableValue {
    public static var dbbStorageType: DBBStorageType { .float }
    public static var dbbArrayStorageType: DBBStorageType { .floatArray }
    public static func fromStoredValue(_ value: DBBValue) throws -> Double {
        guard let number = value.doubleValue else { throw mismatch(value, Double.self) }
        return number
    }
}

extension Float: DBBPersistableValue {
    public static var dbbStorageType: DBBStorageType { .float }
    public static var dbbArrayStorageType: DBBStorageType { .floatArray }
    public static func fromStoredValue(_ value: DBBValue) throws -> Float { Float(try Double.fromStoredValue(value)) }
}

extension String: DBBPersistableValue {
    public static var dbbStorageType: DBBStorageType { .string }
    public static var dbbArrayStorageType: DBBStorageType { .stringArray }
    public static func fromStoredValue(_ value: DBBValue) throws -> String {
        switch value {
        case .text(let text): return text
        case .integer(let integer): return String(integer)
        case .real(let real): return String(real)
        default: throw mismatch(value, String.self)
        }
    }
}

extension Date: DBBPersistableValue {
    public static var dbbStorageType: DBBStorageType { .date }
    public static var dbbArrayStorageType: DBBStorageType { .dateArray }
    /// Numbers are seconds since 2001-01-01 00:00:00 UTC, DBBBuilder's on-disk convention.
    public static func fromStoredValue(_ value: DBBValue) throws -> Date {
        if let seconds = value.doubleValue { return Date(timeIntervalSinceReferenceDate: seconds) }
        if case .text(let text) = value, let date = DBBDateFormatting.date(from: text) { return date }
        throw mismatch(value, Date.self)
    }
}

extension Data: DBBPersistableValue {
    public static var dbbStorageType: DBBStorageType { .binary }
    /// Arrays of data are not a DBBBuilder storage type; a `[Data]` property is rejected at compile time.
    public static var dbbArrayStorageType: DBBStorageType { .binary }
    public static func fromStoredValue(_ value: DBBValue) throws -> Data {
        guard let data = value.dataValue else { throw mismatch(value, Data.self) }
        return data
    }
}
