public import CSQLite
public import Foundation

// The standard library's and Foundation's scalar types, each conforming in one extension: how it binds
// (``DBBBindable``) and how it reads (``DBBColumnReadable``) side by side.

// MARK: - Integers

extension DBBBindable where Self: FixedWidthInteger {
    /// An integer is stored as INTEGER.
    ///
    /// - Throws: ``DBBError`` (mismatch) for an unsigned value above `Int64.max`, which SQLite cannot store;
    ///   the value is never wrapped into a negative number.
    public func dbbValue(options: DBBCodingOptions) throws -> DBBValue { .integer(try storedInteger()) }

    /// Binds the value as INTEGER.
    public func bind(to statement: DBBStatement, at index: Int32, options: DBBCodingOptions) throws {
        try statement.bindInt64(try storedInteger(), at: index)
    }

    /// The value as SQLite's 64-bit integer.
    func storedInteger() throws -> Int64 {
        guard let value = Int64(exactly: self) else {
            throw DBBError.library(
                .mismatch,
                message: "an unsigned integer above Int64.max (9223372036854775807) cannot be stored in SQLite",
                context: "binding a \(Self.self)")
        }
        return value
    }
}

extension DBBColumnReadable where Self: FixedWidthInteger {
    /// Reads INTEGER, or REAL holding a whole number, and checks that it fits the type.
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> Self {
        let value = try Int64.read(from: row, at: column)
        guard let result = Self(exactly: value) else { throw row.mismatch(column, expected: "a \(Self.self)") }
        return result
    }

    /// Reads as ``read(from:at:)`` does; `nil` for NULL.
    @inlinable
    public static func readIfPresent(from row: DBBRow, at column: Int32) throws -> Self? {
        guard let value = try Int64.readIfPresent(from: row, at: column) else { return nil }
        guard let result = Self(exactly: value) else { throw row.mismatch(column, expected: "a \(Self.self)") }
        return result
    }
}

extension Int: DBBBindable, DBBColumnReadable {}
extension Int8: DBBBindable, DBBColumnReadable {}
extension Int16: DBBBindable, DBBColumnReadable {}
extension Int32: DBBBindable, DBBColumnReadable {}
extension UInt: DBBBindable, DBBColumnReadable {}
extension UInt8: DBBBindable, DBBColumnReadable {}
extension UInt16: DBBBindable, DBBColumnReadable {}
extension UInt32: DBBBindable, DBBColumnReadable {}
extension UInt64: DBBBindable, DBBColumnReadable {}

extension Int64: DBBBindable, DBBColumnReadable {
    /// SQLite's own integer: stored as it is.
    public func dbbValue(options: DBBCodingOptions) -> DBBValue { .integer(self) }

    /// Binds the value as INTEGER.
    public func bind(to statement: DBBStatement, at index: Int32, options: DBBCodingOptions) throws {
        try statement.bindInt64(self, at: index)
    }

    /// Reads INTEGER, or REAL holding a whole number.
    @inlinable @inline(__always)
    public static func read(from row: DBBRow, at column: Int32) throws -> Int64 {
        let value = row.columnValue(column)
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER:
            return sqlite3_value_int64(value)
        case SQLITE_FLOAT:
            if let integer = Int64(exactly: sqlite3_value_double(value)) { return integer }
            throw row.mismatch(column, expected: "a whole number")
        default:
            throw row.mismatch(column, expected: "an integer")
        }
    }

    /// Reads as ``read(from:at:)`` does; `nil` for NULL.
    @inlinable @inline(__always)
    public static func readIfPresent(from row: DBBRow, at column: Int32) throws -> Int64? {
        let value = row.columnValue(column)
        let type = sqlite3_value_type(value)
        if type == SQLITE_INTEGER { return sqlite3_value_int64(value) }
        return type == SQLITE_NULL ? nil : try read(from: row, at: column)
    }
}

// MARK: - Booleans and floating point

extension Bool: DBBBindable, DBBColumnReadable {
    /// A boolean is stored as INTEGER 1 or 0.
    public func dbbValue(options: DBBCodingOptions) -> DBBValue { .integer(self ? 1 : 0) }

    /// Binds the value as INTEGER 1 or 0.
    public func bind(to statement: DBBStatement, at index: Int32, options: DBBCodingOptions) throws {
        try statement.bindInt64(self ? 1 : 0, at: index)
    }

    /// Reads INTEGER or REAL: zero is `false`, anything else `true`.
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> Bool {
        let value = row.columnValue(column)
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return sqlite3_value_int64(value) != 0
        case SQLITE_FLOAT: return sqlite3_value_double(value) != 0
        default: throw row.mismatch(column, expected: "a boolean")
        }
    }

    /// Reads as ``read(from:at:)`` does; `nil` for NULL.
    @inlinable
    public static func readIfPresent(from row: DBBRow, at column: Int32) throws -> Bool? {
        let value = row.columnValue(column)
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return sqlite3_value_int64(value) != 0
        case SQLITE_NULL: return nil
        default: return try read(from: row, at: column)
        }
    }
}

extension Double: DBBBindable, DBBColumnReadable {
    /// A double is stored as REAL.
    public func dbbValue(options: DBBCodingOptions) -> DBBValue { .real(self) }

    /// Binds the value as REAL.
    public func bind(to statement: DBBStatement, at index: Int32, options: DBBCodingOptions) throws {
        try statement.bindDouble(self, at: index)
    }

    /// Reads REAL or INTEGER; TEXT only when it is a number.
    @inlinable @inline(__always)
    public static func read(from row: DBBRow, at column: Int32) throws -> Double {
        let value = row.columnValue(column)
        switch sqlite3_value_type(value) {
        case SQLITE_FLOAT, SQLITE_INTEGER:
            return sqlite3_value_double(value)
        default:
            return try row.doubleFromText(at: column)
        }
    }

    /// Reads as ``read(from:at:)`` does; `nil` for NULL.
    @inlinable @inline(__always)
    public static func readIfPresent(from row: DBBRow, at column: Int32) throws -> Double? {
        let value = row.columnValue(column)
        switch sqlite3_value_type(value) {
        case SQLITE_FLOAT, SQLITE_INTEGER: return sqlite3_value_double(value)
        case SQLITE_NULL: return nil
        default: return try row.doubleFromText(at: column)
        }
    }
}

extension Float: DBBBindable, DBBColumnReadable {
    /// A float is stored as REAL.
    public func dbbValue(options: DBBCodingOptions) -> DBBValue { .real(Double(self)) }

    /// Binds the value as REAL.
    public func bind(to statement: DBBStatement, at index: Int32, options: DBBCodingOptions) throws {
        try statement.bindDouble(Double(self), at: index)
    }

    /// Reads a column as `Double` does.
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> Float {
        Float(try Double.read(from: row, at: column))
    }

    /// Reads as ``read(from:at:)`` does; `nil` for NULL.
    @inlinable
    public static func readIfPresent(from row: DBBRow, at column: Int32) throws -> Float? {
        try Double.readIfPresent(from: row, at: column).map(Float.init)
    }
}

// `CGFloat` (Foundation's, on Linux a wrapper around `Double`) is stored as REAL, like `Double`.
extension CGFloat: DBBBindable, DBBColumnReadable {
    /// A `CGFloat` is stored as REAL.
    public func dbbValue(options: DBBCodingOptions) -> DBBValue { .real(Double(self)) }

    /// Binds the value as REAL.
    public func bind(to statement: DBBStatement, at index: Int32, options: DBBCodingOptions) throws {
        try statement.bindDouble(Double(self), at: index)
    }

    /// Reads a column as `Double` does.
    public static func read(from row: DBBRow, at column: Int32) throws -> CGFloat {
        CGFloat(try Double.read(from: row, at: column))
    }
}

// MARK: - Text, bytes, URLs and dates

extension String: DBBBindable, DBBColumnReadable {
    /// A string is stored as TEXT.
    public func dbbValue(options: DBBCodingOptions) -> DBBValue { .text(self) }

    /// Binds the value as TEXT.
    public func bind(to statement: DBBStatement, at index: Int32, options: DBBCodingOptions) throws {
        try statement.bindText(self, at: index)
    }

    /// Reads TEXT; INTEGER and REAL are read as SQLite writes them as text, BLOB as UTF-8.
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> String {
        // sqlite3_column_text gives no pointer exactly for NULL (or when out of memory): no type check needed.
        guard let text = row.textIfPresent(at: column) else { throw row.mismatch(column, expected: "text") }
        return text
    }

    /// Reads TEXT (or a number or BLOB as ``read(from:at:)`` does); `nil` for NULL.
    @inlinable
    public static func readIfPresent(from row: DBBRow, at column: Int32) -> String? {
        // Only NULL (or a failed allocation, which the NULL check of other types would miss as well) gives
        // no pointer.
        row.textIfPresent(at: column)
    }
}

extension Substring: DBBBindable {
    /// A substring is stored as TEXT.
    public func dbbValue(options: DBBCodingOptions) -> DBBValue { .text(String(self)) }
}

extension Data: DBBBindable, DBBColumnReadable {
    /// Data is stored as a BLOB.
    public func dbbValue(options: DBBCodingOptions) -> DBBValue { .blob(self) }

    /// Binds the value as a BLOB.
    public func bind(to statement: DBBStatement, at index: Int32, options: DBBCodingOptions) throws {
        try statement.bindBlob(self, at: index)
    }

    /// Reads BLOB (a zero-length BLOB is empty data), or TEXT as its UTF-8 bytes.
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> Data {
        let value = row.columnValue(column)
        switch sqlite3_value_type(value) {
        case SQLITE_BLOB: return DBBRow.blob(of: value)
        case SQLITE_TEXT: return Data((DBBRow.text(of: value) ?? "").utf8)
        default: throw row.mismatch(column, expected: "a blob")
        }
    }
}

extension URL: DBBBindable, DBBColumnReadable {
    /// A URL is stored as its absolute string.
    public func dbbValue(options: DBBCodingOptions) -> DBBValue { .text(absoluteString) }

    /// Reads TEXT holding a URL string.
    public static func read(from row: DBBRow, at column: Int32) throws -> URL {
        guard row.columnType(column) == SQLITE_TEXT, let url = URL(string: row.text(at: column)) else {
            throw row.mismatch(column, expected: "a URL string")
        }
        return url
    }
}

extension Date: DBBBindable, DBBColumnReadable {
    /// A date is stored according to ``DBBCodingOptions/dateStrategy``.
    public func dbbValue(options: DBBCodingOptions) -> DBBValue {
        switch options.dateStrategy {
        case .secondsSince1970: .real(timeIntervalSince1970)
        case .secondsSinceReferenceDate: .real(timeIntervalSinceReferenceDate)
        case .iso8601: .text(DBBDateFormatting.iso8601String(from: self))
        }
    }

    /// Reads a REAL or INTEGER number of seconds (since 1970, or since 2001 under
    /// ``DBBDateStrategy/secondsSinceReferenceDate``), or ISO 8601 / SQLite date text.
    public static func read(from row: DBBRow, at column: Int32) throws -> Date {
        guard let date = try readIfPresent(from: row, at: column) else {
            throw row.mismatch(column, expected: "a date")
        }
        return date
    }

    /// Reads as ``read(from:at:)`` does; `nil` for NULL.
    @inlinable
    public static func readIfPresent(from row: DBBRow, at column: Int32) throws -> Date? {
        let value = row.columnValue(column)
        switch sqlite3_value_type(value) {
        case SQLITE_FLOAT, SQLITE_INTEGER:
            let seconds = sqlite3_value_double(value)
            return row.readsSecondsSinceReferenceDate
                ? Date(timeIntervalSinceReferenceDate: seconds) : Date(timeIntervalSince1970: seconds)
        case SQLITE_NULL:
            return nil
        default:
            return try row.dateFromText(at: column)
        }
    }
}

// MARK: - SQLite values

extension DBBValue: DBBBindable, DBBColumnReadable {
    /// The value itself.
    public func dbbValue(options: DBBCodingOptions) -> DBBValue { self }

    /// Reads the column's value in its storage class.
    public static func read(from row: DBBRow, at column: Int32) -> DBBValue { row.value(at: Int(column)) }
}
