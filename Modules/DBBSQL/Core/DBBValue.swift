public import Foundation

/// A value in one of SQLite's five storage classes.
///
/// Related SQLite documentation: https://www.sqlite.org/datatype3.html
public enum DBBValue: Hashable, Sendable, CustomStringConvertible {
    /// SQL NULL.
    case null
    /// A 64-bit signed integer.
    case integer(Int64)
    /// An IEEE 754 double.
    case real(Double)
    /// UTF-8 text. It may contain NUL characters.
    case text(String)
    /// Bytes. An empty `Data` is a zero-length BLOB, not NULL.
    case blob(Data)

    /// The storage class of this value.
    public var storageClass: DBBValue.StorageClass {
        switch self {
        case .null: .null
        case .integer: .integer
        case .real: .real
        case .text: .text
        case .blob: .blob
        }
    }

    /// Whether the value is NULL.
    public var isNull: Bool {
        if case .null = self { return true }
        return false
    }

    /// The value as an integer when it is INTEGER, or a REAL with an exact integer value.
    public var int64Value: Int64? {
        switch self {
        case .integer(let value): value
        case .real(let value): Int64(exactly: value)
        default: nil
        }
    }

    /// The value as a double when it is INTEGER or REAL.
    public var doubleValue: Double? {
        switch self {
        case .integer(let value): Double(value)
        case .real(let value): value
        default: nil
        }
    }

    /// The value as a string when it is TEXT.
    public var stringValue: String? {
        if case .text(let value) = self { return value }
        return nil
    }

    /// The value as bytes when it is BLOB (or TEXT, as its UTF-8 bytes).
    public var dataValue: Data? {
        switch self {
        case .blob(let value): value
        case .text(let value): Data(value.utf8)
        default: nil
        }
    }

    /// The value as SQL-like text for logs: `NULL`, `42`, `'text'`, `<BLOB 3 bytes>`.
    public var description: String {
        switch self {
        case .null: "NULL"
        case .integer(let value): String(value)
        case .real(let value): String(value)
        case .text(let value): "'\(value)'"
        case .blob(let value): "<BLOB \(value.count) bytes>"
        }
    }
}

/// How `Date` values are stored and read.
public enum DBBDateStrategy: Sendable, Hashable {
    /// Seconds since 1970-01-01 00:00:00 UTC as REAL, as FMDB and DBSQLite store dates (the default).
    case secondsSince1970
    /// Seconds since 2001-01-01 00:00:00 UTC as REAL, as DBBBuilder stores its date columns.
    case secondsSinceReferenceDate
    /// ISO 8601 text with fractional seconds in UTC, for example `2024-05-01T12:30:00.250Z`.
    case iso8601
}

/// Settings that govern how Swift values become SQLite values and back, per connection.
public struct DBBCodingOptions: Sendable {
    /// How dates are stored and read. Default: ``DBBDateStrategy/secondsSince1970``.
    public var dateStrategy: DBBDateStrategy = .secondsSince1970
    /// Options for writing arrays and dictionaries as JSON text. Default: sorted keys.
    public var jsonWritingOptions: JSONSerialization.WritingOptions = [.sortedKeys]
    /// Options for reading JSON text back into arrays and dictionaries. Default: none, so a column must
    /// hold an array or an object; add `.fragmentsAllowed` to read bare strings and numbers with
    /// ``DBBRow/jsonValue(at:)``.
    public var jsonReadingOptions: JSONSerialization.ReadingOptions = []

    /// Creates the default options.
    public init() {}
}

extension DBBValue {
    /// SQLite's storage classes: what kind of value a column of a row holds (`typeof()`), not how a property is
    /// laid out (that is DBBSchema's `DBBStorageType`).
    ///
    /// The raw values are the names SQLite's `typeof()` returns.
    public enum StorageClass: String, Hashable, Sendable, CaseIterable {
        /// NULL.
        case null = "null"
        /// A signed integer of up to 8 bytes.
        case integer = "integer"
        /// An 8-byte IEEE floating point number.
        case real = "real"
        /// A text string in the database encoding (UTF-8 here).
        case text = "text"
        /// Bytes, stored exactly as given.
        case blob = "blob"
    }
}
