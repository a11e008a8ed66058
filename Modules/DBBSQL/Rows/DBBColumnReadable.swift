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
