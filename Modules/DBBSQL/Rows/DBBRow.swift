public import CSQLite
public import Foundation

/// The current row of a running statement.
///
/// A row is a view onto its statement: it reads the current row until the cursor advances. Copy what
/// you need (``dictionary``, ``values``, or typed reads) before moving on. A row keeps its cursor alive,
/// so `try db.fetchCursor(sql).next()` can be read safely.
///
/// ```swift
/// let cursor = try db.fetchCursor("SELECT Name, Milliseconds FROM Track")
/// while let row = try cursor.next() {
///     let name: String = try row["Name"]
///     let length: Int64 = try row[1]
/// }
/// ```
public struct DBBRow {
    // The cursor is kept alive so the statement is not reset under the row. The handle and column count
    // are copied in, so typed reads (inlined into the caller) touch no class state.
    @usableFromInline let cursor: DBBCursor
    @usableFromInline let handle: OpaquePointer
    @usableFromInline let columnCount: Int

    init(cursor: DBBCursor, statement: DBBStatement) {
        self.cursor = cursor
        self.handle = statement.handle
        self.columnCount = statement.columnCount
    }

    @inline(__always) var statement: DBBStatement { cursor.statement }

    /// The number of columns.
    @inlinable public var count: Int { columnCount }

    /// The column names, in order.
    public var columnNames: [String] { statement.columnNames }

    /// The coding options of the connection (date strategy, JSON options).
    public var codingOptions: DBBCodingOptions { cursor.database.codingOptions }

    /// The index of a column by name, or `nil` when the row has no such column.
    public func index(ofColumn name: String) -> Int? { statement.columnIndex(named: name) }

    /// The storage class of a column's value in this row.
    public func storageClass(at index: Int) -> DBBValue.StorageClass {
        switch sqlite3_column_type(handle, Int32(index)) {
        case SQLITE_INTEGER: .integer
        case SQLITE_FLOAT: .real
        case SQLITE_TEXT: .text
        case SQLITE_BLOB: .blob
        default: .null
        }
    }

    /// Whether a column's value is NULL.
    @inlinable public func isNull(at index: Int) -> Bool { sqlite3_column_type(handle, Int32(index)) == SQLITE_NULL }

    /// A column's value, in its storage class.
    public func value(at index: Int) -> DBBValue {
        let value = columnValue(Int32(index))
        switch sqlite3_value_type(value) {
        case SQLITE_INTEGER: return .integer(sqlite3_value_int64(value))
        case SQLITE_FLOAT: return .real(sqlite3_value_double(value))
        case SQLITE_TEXT: return .text(Self.text(of: value) ?? "")
        case SQLITE_BLOB: return .blob(Self.blob(of: value))
        default: return .null
        }
    }

    /// A column's value by name.
    ///
    /// - Throws: ``DBBError`` (range) when the row has no such column.
    public func value(named name: String) throws -> DBBValue {
        try value(at: requireIndex(name))
    }

    /// Reads a column as a Swift type: `let name: String = try row[0]`.
    ///
    /// - Throws: ``DBBError`` (mismatch) when the value is NULL for a non-optional type or cannot be
    ///   converted; (range) for an index out of bounds.
    @inlinable
    public subscript<T: DBBColumnReadable>(index: Int) -> T {
        get throws {
            guard index >= 0 && index < columnCount else { throw outOfRange(index) }
            return try T.read(from: self, at: Int32(index))
        }
    }

    /// Reads a column by name as a Swift type: `let name: String? = try row["Name"]`.
    ///
    /// - Throws: ``DBBError`` (range) when the row has no such column, (mismatch) as the index form.
    public subscript<T: DBBColumnReadable>(name: String) -> T {
        get throws { try T.read(from: self, at: Int32(requireIndex(name))) }
    }

    /// Reads a column as a given type: `try row.get(Int64.self, at: 0)`.
    public func get<T: DBBColumnReadable>(_ type: T.Type, at index: Int) throws -> T { try self[index] }

    /// Reads a column by name as a given type: `try row.get(Date?.self, named: "birthday")`.
    public func get<T: DBBColumnReadable>(_ type: T.Type, named name: String) throws -> T { try self[name] }

    /// Every column's value, in order.
    public var values: [DBBValue] { (0..<count).map(value(at:)) }

    /// The row as a dictionary from column name to value (the first column wins where names repeat).
    public var dictionary: [String: DBBValue] {
        var result: [String: DBBValue] = [:]
        result.reserveCapacity(count)
        for (index, name) in columnNames.enumerated() where result[name] == nil {
            result[name] = value(at: index)
        }
        return result
    }

    /// Decodes the row into a `Decodable` type, matching column names to coding keys.
    ///
    /// Give the type `CodingKeys` with raw values to map columns whose names differ from the properties
    /// (`case firstName = "first_name"`). Dates follow the connection's date strategy, URLs are read
    /// from text, `Data` from BLOBs, and other nested `Decodable` values from JSON text.
    ///
    /// - Throws: ``DBBError`` (mismatch) naming the column when a value does not fit its property.
    public func decode<T: Decodable>(_ type: T.Type) throws -> T {
        try DBBRowDecoder.decode(type, from: self)
    }

    // MARK: Raw readers

    /// A column's value as SQLite stores it, as bytes: a BLOB's bytes, or a TEXT value's bytes in the
    /// database's text encoding, unchecked (so text that is not valid UTF-8 keeps its bytes in a UTF-8
    /// database); numbers as their text. Read it before any other read of the column in a UTF-16 database,
    /// which converts the text.
    package func storedBytes(at index: Int) -> Data {
        blob(at: Int32(index))
    }

    // The typed reads take a column's value once (`sqlite3_column_value`) and read it with the `sqlite3_value_*`
    // functions: each `sqlite3_column_*` call enters and leaves the connection's mutex and checks for a failed
    // allocation again, where a value function does neither (`Docs/Mapping.md`, "How fast each form is"). SQLite
    // calls the value "unprotected" (no mutex is held while it is read), which only matters for a connection with
    // a mutex: the library opens every connection with SQLITE_OPEN_NOMUTEX and uses it from one thread at a time,
    // where protected and unprotected values are the same. The value is valid until the cursor steps or another
    // read converts the column.

    /// A column's value in the current row, for the `sqlite3_value_*` readers.
    @inlinable @inline(__always) func columnValue(_ column: Int32) -> OpaquePointer {
        sqlite3_column_value(handle, column)
    }

    @inlinable @inline(__always) func text(at column: Int32) -> String {
        textIfPresent(at: column) ?? ""
    }

    @inlinable @inline(__always) func textIfPresent(at column: Int32) -> String? {
        Self.text(of: columnValue(column))
    }

    /// A value's text (a number as SQLite writes it, a BLOB's bytes as UTF-8), or `nil` for NULL (or when SQLite
    /// cannot allocate the converted text).
    @inlinable @inline(__always) static func text(of value: OpaquePointer) -> String? {
        guard let pointer = sqlite3_value_text(value) else { return nil }
        let length = Int(sqlite3_value_bytes(value))
        // Decoding with an explicit length keeps NUL characters inside the text.
        return String(decoding: UnsafeBufferPointer(start: pointer, count: length), as: UTF8.self)
    }

    @inlinable @inline(__always) func blob(at column: Int32) -> Data {
        Self.blob(of: columnValue(column))
    }

    @inlinable @inline(__always) static func blob(of value: OpaquePointer) -> Data {
        // SQLite's advice: ask for the pointer first, then the length.
        let pointer = sqlite3_value_blob(value)
        let length = Int(sqlite3_value_bytes(value))
        guard length > 0, let pointer else { return Data() }
        return Data(bytes: pointer, count: length)
    }

    @inlinable @inline(__always) func columnType(_ column: Int32) -> Int32 { sqlite3_column_type(handle, column) }

    func requireIndex(_ name: String) throws -> Int {
        guard let index = statement.columnIndex(named: name) else {
            throw DBBError.library(
                .range, message: "the row has no column named \(name)", sql: statement.sql, context: "reading a row")
        }
        return index
    }

    @usableFromInline func outOfRange(_ index: Int) -> DBBError {
        DBBError.library(
            .range, message: "column index \(index) is out of range (the row has \(count) columns)",
            sql: statement.sql, context: "reading a row")
    }

    @usableFromInline func mismatch(_ column: Int32, expected: String) -> DBBError {
        let name = column < statement.columnCount ? statement.columnNames[Int(column)] : "#\(column)"
        return DBBError.library(
            .mismatch, message: "column \(name) holds \(storageClass(at: Int(column)).rawValue), not \(expected)",
            sql: statement.sql, context: "reading a row")
    }
}

@available(*, unavailable, message: "a row is a view onto a statement of one connection")
extension DBBRow: Sendable {}
