public import CSQLite
public import Foundation

/// A Swift type that can be read from a result column.
///
/// Reads follow the column's storage class and are strict where a silent conversion would lose
/// information: a non-optional type meets NULL with an error, an integer type meets a REAL with a
/// fraction with an error. Optional types read NULL as `nil`.
public protocol DBBColumnReadable {
    /// Reads the value of a column of the current row.
    ///
    /// - Throws: ``DBBError`` (mismatch) naming the column when the value does not convert.
    static func read(from row: DBBRow, at column: Int32) throws -> Self

    /// Reads the value of a column of the current row, or `nil` when it is NULL.
    ///
    /// The library's own types look at the column's storage class once, where a NULL check followed by
    /// ``read(from:at:)`` would look twice; the default implementation does just that.
    ///
    /// - Throws: ``DBBError`` (mismatch) naming the column when a non-NULL value does not convert.
    static func readIfPresent(from row: DBBRow, at column: Int32) throws -> Self?
}

extension DBBColumnReadable {
    @inlinable
    public static func readIfPresent(from row: DBBRow, at column: Int32) throws -> Self? {
        row.columnType(column) == SQLITE_NULL ? nil : try read(from: row, at: column)
    }
}

extension Optional: DBBColumnReadable where Wrapped: DBBColumnReadable {
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> Wrapped? {
        try Wrapped.readIfPresent(from: row, at: column)
    }
}

extension DBBValue: DBBColumnReadable {
    public static func read(from row: DBBRow, at column: Int32) -> DBBValue { row.value(at: Int(column)) }
}

extension String: DBBColumnReadable {
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

extension Int64: DBBColumnReadable {
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

    @inlinable @inline(__always)
    public static func readIfPresent(from row: DBBRow, at column: Int32) throws -> Int64? {
        let value = row.columnValue(column)
        let type = sqlite3_value_type(value)
        if type == SQLITE_INTEGER { return sqlite3_value_int64(value) }
        return type == SQLITE_NULL ? nil : try read(from: row, at: column)
    }
}

extension FixedWidthInteger where Self: DBBColumnReadable {
    /// Reads an integer and checks that it fits the type.
    @inlinable
    static func readInteger(from row: DBBRow, at column: Int32) throws -> Self {
        let value = try Int64.read(from: row, at: column)
        guard let result = Self(exactly: value) else { throw row.mismatch(column, expected: "a \(Self.self)") }
        return result
    }

    @inlinable
    public static func readIfPresent(from row: DBBRow, at column: Int32) throws -> Self? {
        guard let value = try Int64.readIfPresent(from: row, at: column) else { return nil }
        guard let result = Self(exactly: value) else { throw row.mismatch(column, expected: "a \(Self.self)") }
        return result
    }
}

extension Int: DBBColumnReadable {
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> Int { try readInteger(from: row, at: column) }
}
extension Int8: DBBColumnReadable {
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> Int8 {
        try readInteger(from: row, at: column)
    }
}
extension Int16: DBBColumnReadable {
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> Int16 {
        try readInteger(from: row, at: column)
    }
}
extension Int32: DBBColumnReadable {
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> Int32 {
        try readInteger(from: row, at: column)
    }
}
extension UInt: DBBColumnReadable {
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> UInt {
        try readInteger(from: row, at: column)
    }
}
extension UInt8: DBBColumnReadable {
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> UInt8 {
        try readInteger(from: row, at: column)
    }
}
extension UInt16: DBBColumnReadable {
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> UInt16 {
        try readInteger(from: row, at: column)
    }
}
extension UInt32: DBBColumnReadable {
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> UInt32 {
        try readInteger(from: row, at: column)
    }
}
extension UInt64: DBBColumnReadable {
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> UInt64 {
        try readInteger(from: row, at: column)
    }
}

extension Double: DBBColumnReadable {
    /// Reads REAL or INTEGER; TEXT only when it is a number.
    @inline(__always)
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> Double {
        let value = row.columnValue(column)
        switch sqlite3_value_type(value) {
        case SQLITE_FLOAT, SQLITE_INTEGER:
            return sqlite3_value_double(value)
        default:
            return try row.doubleFromText(at: column)
        }
    }

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

extension Float: DBBColumnReadable {
    @inlinable
    public static func read(from row: DBBRow, at column: Int32) throws -> Float {
        Float(try Double.read(from: row, at: column))
    }

    @inlinable
    public static func readIfPresent(from row: DBBRow, at column: Int32) throws -> Float? {
        try Double.readIfPresent(from: row, at: column).map(Float.init)
    }
}

extension Bool: DBBColumnReadable {
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

extension Data: DBBColumnReadable {
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

extension URL: DBBColumnReadable {
    /// Reads TEXT holding a URL string.
    public static func read(from row: DBBRow, at column: Int32) throws -> URL {
        guard row.columnType(column) == SQLITE_TEXT, let url = URL(string: row.text(at: column)) else {
            throw row.mismatch(column, expected: "a URL string")
        }
        return url
    }
}

extension Date: DBBColumnReadable {
    /// Reads a REAL or INTEGER number of seconds (since 1970, or since 2001 under
    /// ``DBBDateStrategy/secondsSinceReferenceDate``), or ISO 8601 / SQLite date text.
    public static func read(from row: DBBRow, at column: Int32) throws -> Date {
        guard let date = try readIfPresent(from: row, at: column) else {
            throw row.mismatch(column, expected: "a date")
        }
        return date
    }

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

extension DBBRow {
    /// Reads a column holding JSON text, with the connection's JSON reading options.
    ///
    /// - Returns: the array, dictionary, or (with `.fragmentsAllowed`) bare value; `nil` when the value is NULL.
    /// - Throws: ``DBBError`` (mismatch) when the text is not JSON the options accept.
    public func jsonValue(at index: Int) throws -> Any? {
        try DBBJSON.object(from: value(at: index), options: codingOptions)
    }

    /// Reads a column holding a JSON array, with the connection's JSON reading options.
    ///
    /// - Returns: the array, or `nil` when the value is NULL.
    /// - Throws: ``DBBError`` (mismatch) when the text is not a JSON array.
    public func jsonArray(at index: Int) throws -> [Any]? {
        guard let object = try DBBJSON.object(from: value(at: index), options: codingOptions) else { return nil }
        guard let array = object as? [Any] else { throw mismatch(Int32(index), expected: "a JSON array") }
        return array
    }

    /// Reads a column holding a JSON object, with the connection's JSON reading options.
    ///
    /// - Returns: the dictionary, or `nil` when the value is NULL.
    /// - Throws: ``DBBError`` (mismatch) when the text is not a JSON object.
    public func jsonDictionary(at index: Int) throws -> [String: Any]? {
        guard let object = try DBBJSON.object(from: value(at: index), options: codingOptions) else { return nil }
        guard let dictionary = object as? [String: Any] else {
            throw mismatch(Int32(index), expected: "a JSON object")
        }
        return dictionary
    }
}

extension DBBRow {
    /// The rare case of ``Double/read(from:at:)``, kept out of line so the common case inlines small:
    /// TEXT holding a number reads as that number; anything else is a mismatch.
    @usableFromInline
    func doubleFromText(at column: Int32) throws -> Double {
        if columnType(column) == SQLITE_TEXT, let value = Double(text(at: column)) { return value }
        throw mismatch(column, expected: "a number")
    }

    /// The rare case of ``Date/readIfPresent(from:at:)``, out of line for the same reason: ISO 8601 or SQLite
    /// date text reads as that date; anything else (a BLOB, other text) is a mismatch.
    @usableFromInline
    func dateFromText(at column: Int32) throws -> Date {
        if columnType(column) == SQLITE_TEXT, let date = DBBDateFormatting.date(from: text(at: column)) { return date }
        throw mismatch(column, expected: "a date")
    }

    /// Whether numbers in date columns are seconds since 2001 (``DBBDateStrategy/secondsSinceReferenceDate``)
    /// rather than since 1970.
    @inlinable var readsSecondsSinceReferenceDate: Bool {
        cursor.database.codingOptions.dateStrategy == .secondsSinceReferenceDate
    }
}
