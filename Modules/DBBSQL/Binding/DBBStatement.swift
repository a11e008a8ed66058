internal import CSQLite
internal import Foundation

// SQLite copies bound text and blobs before the bind call returns. A computed value, not a global, so
// the hot path pays no lazy-initialization check. The cast is SQLite's own SQLITE_TRANSIENT, the integer -1 as a
// destructor pointer (sqlite3.h), which the C macro does and Swift cannot import: SQLite compares it, never calls it.
@inline(__always) private var sqliteTransient: sqlite3_destructor_type {
    unsafeBitCast(-1, to: sqlite3_destructor_type.self)
}

/// A prepared SQL statement of one connection.
///
/// ``DBBDatabase`` caches statements by SQL text, so preparing the same SQL again is cheap. A statement
/// belongs to its database and, like it, must not be used from two threads at once. Keep it no longer
/// than the database: after ``DBBDatabase/close()`` running it throws, and using it after the database
/// object is released is a programming error that traps.
///
/// ```swift
/// let insert = try db.prepare("INSERT INTO point (x, y) VALUES (?, ?)")
/// for (x, y) in points { try insert.execute(x, y) }
/// ```
///
/// Related SQLite documentation: https://www.sqlite.org/c3ref/stmt.html
public final class DBBStatement {
    let handle: OpaquePointer
    package unowned let database: DBBDatabase
    /// The SQL text the statement was prepared from.
    public let sql: String
    // Exclusivity checks are skipped on the hot per-row state below: a statement is used by one thread
    // at a time and no access to it overlaps another.
    /// The number of result columns. It can change when SQLite re-prepares the statement after a schema
    /// change (`SELECT *` after `ALTER TABLE … ADD COLUMN`).
    // Unchecked, as it is read for every row: other code can only read it, and the statement only assigns it
    // whole, so every access is instantaneous and none can overlap.
    @exclusivity(unchecked) public private(set) var columnCount: Int
    /// The number of parameters (`?`, `?NNN`, `:name`, `@name`, `$name`).
    public let parameterCount: Int
    var isInUse = false
    /// The tables the statement writes directly, known when a commit observer watched it being prepared.
    let writtenTables: Set<String>

    /// Column names and name → index maps, computed once per preparation, so reading by name costs one
    /// dictionary look-up.
    private struct ColumnMetadata {
        var names: [String]
        var exactIndexes: [String: Int]
        var foldedIndexes: [String: Int]
    }
    private var metadataStorage: ColumnMetadata?
    /// SQLite's count of automatic re-preparations, last time the metadata was checked.
    private var reprepareCount: Int32 = 0

    private var metadata: ColumnMetadata {
        if let metadataStorage { return metadataStorage }
        let names = (0..<columnCount).map { String(cString: sqlite3_column_name(handle, Int32($0))) }
        let metadata = ColumnMetadata(
            names: names, exactIndexes: Self.firstIndexes(names),
            foldedIndexes: Self.firstIndexes(names.map { $0.lowercased() }))
        metadataStorage = metadata
        return metadata
    }

    /// The names of the result columns, in order.
    public var columnNames: [String] { metadata.names }

    /// Column indexes of coding keys, in the order a `Decodable` type asks for them. Every row of a query
    /// asks in the same order, so a look-up is usually one comparison of the key with the remembered one
    /// (the same string literal) instead of hashing it.
    // Unchecked, as `columnCount`: read for every decoded column.
    @exclusivity(unchecked) private var decodingKeys: [(name: String, index: Int?)] = []
    /// How many keys the row being decoded has asked for so far.
    // Unchecked, as `columnCount`: written for every decoded column.
    @exclusivity(unchecked) var decodingPosition = 0

    /// The column index of a coding key, for ``DBBRowDecoder``.
    func decodingIndex(of name: String) -> Int? {
        let position = decodingPosition
        decodingPosition += 1
        if position < decodingKeys.count {
            let remembered = decodingKeys[position]
            if remembered.name == name { return remembered.index }
            let index = columnIndex(named: name)
            decodingKeys[position] = (name, index)
            return index
        }
        let index = columnIndex(named: name)
        if position == decodingKeys.count && position < 256 { decodingKeys.append((name, index)) }
        return index
    }

    /// Drops the column metadata when SQLite re-prepared the statement (after a schema change); called
    /// once per run, after the first step.
    @inline(__always)
    func refreshColumnsIfReprepared() {
        let count = sqlite3_stmt_status(handle, SQLITE_STMTSTATUS_REPREPARE, 0)
        guard count != reprepareCount else { return }
        reprepareCount = count
        columnCount = Int(sqlite3_column_count(handle))
        metadataStorage = nil
        decodingKeys = []
    }

    init(database: DBBDatabase, sql: String, cached: Bool) throws {
        var statement: OpaquePointer?
        var holdsMore = false
        let flags = cached ? UInt32(SQLITE_PREPARE_PERSISTENT) : 0
        let tracker = database.beginPreparing()
        defer { tracker?.preparing = nil }
        let code = sql.withCString { text in
            var tail: UnsafePointer<CChar>?
            let code = sqlite3_prepare_v3(database.handle, text, -1, flags, &statement, &tail)
            // The tail points into the C string, so it is inspected before the string goes away.
            if code == SQLITE_OK, let tail { holdsMore = DBBStatement.holdsMoreSQL(tail) }
            return code
        }
        guard code == SQLITE_OK else {
            let error = DBBError.fromConnection(
                database.handle, code: code, sql: sql, context: "preparing a statement")
            database.statementFailed(error)
            throw error
        }
        guard let statement else {
            throw DBBError.misuse("the SQL text holds no statement", sql: sql, context: "preparing a statement")
        }
        if holdsMore {
            sqlite3_finalize(statement)
            throw DBBError.misuse(
                "the SQL text holds more than one statement; use executeStatements(_:) to run several",
                sql: sql, context: "preparing a statement")
        }
        self.handle = statement
        self.database = database
        self.sql = sql
        self.columnCount = Int(sqlite3_column_count(statement))
        self.parameterCount = Int(sqlite3_bind_parameter_count(statement))
        self.writtenTables = tracker?.preparing ?? []
    }

    deinit {
        sqlite3_finalize(handle)
    }

    /// Whether the rest of a SQL string holds anything but white space and comments.
    static func holdsMoreSQL(_ tail: UnsafePointer<CChar>) -> Bool {
        var pointer = tail
        while pointer.pointee != 0 {
            let character = UInt8(bitPattern: pointer.pointee)
            if character == UInt8(ascii: " ") || character == UInt8(ascii: "\n") || character == UInt8(ascii: "\t")
                || character == UInt8(ascii: "\r") || character == UInt8(ascii: ";")
            {
                pointer += 1
            } else if character == UInt8(ascii: "-") && (pointer + 1).pointee == CChar(UInt8(ascii: "-")) {
                while pointer.pointee != 0 && pointer.pointee != CChar(UInt8(ascii: "\n")) { pointer += 1 }
            } else if character == UInt8(ascii: "/") && (pointer + 1).pointee == CChar(UInt8(ascii: "*")) {
                pointer += 2
                while pointer.pointee != 0
                    && !(pointer.pointee == CChar(UInt8(ascii: "*"))
                        && (pointer + 1).pointee == CChar(UInt8(ascii: "/")))
                {
                    pointer += 1
                }
                if pointer.pointee != 0 { pointer += 2 }
            } else {
                return true
            }
        }
        return false
    }

    /// The index of a result column by name (exact first, then case-insensitive, as SQLite matches names).
    public func columnIndex(named name: String) -> Int? {
        let metadata = self.metadata
        return metadata.exactIndexes[name] ?? metadata.foldedIndexes[name.lowercased()]
    }

    /// The first index of each name: a `SELECT *` over a join can repeat a column name.
    private static func firstIndexes(_ names: [String]) -> [String: Int] {
        var indexes: [String: Int] = [:]
        for (index, name) in names.enumerated() where indexes[name] == nil { indexes[name] = index }
        return indexes
    }

    // MARK: Binding

    /// Binds positional arguments, one per parameter, so every earlier binding is replaced.
    ///
    /// - Throws: ``DBBError`` (misuse) when the count differs from ``parameterCount``, or the error of a
    ///   value that cannot be bound.
    public func bind(_ arguments: [(any DBBBindable)?]) throws {
        guard arguments.count == parameterCount else {
            throw DBBError.misuse(
                "the statement expects \(parameterCount) argument(s) but \(arguments.count) were given",
                recovery: "pass one value per parameter",
                sql: sql, context: "binding arguments")
        }
        let options = database.codingOptions
        var index: Int32 = 0
        do {
            for position in arguments.indices {
                index = Int32(truncatingIfNeeded: position + 1)
                switch arguments[position] {
                case .none: try bindNull(at: index)
                case .some(let argument): try argument.bind(to: self, at: index, options: options)
                }
            }
        } catch let error as DBBError where error.sql == nil {
            // A value that could not convert itself: say which argument and statement it was.
            throw described(error, context: "binding argument \(index)")
        }
    }

    /// Binds named arguments (`:name`, `@name` or `$name`; keys may be given with or without the prefix).
    ///
    /// - Throws: ``DBBError`` (misuse) when a parameter has no value or a value names no parameter.
    public func bind(named arguments: [String: (any DBBBindable)?]) throws {
        var used = 0
        let options = database.codingOptions
        for index in 1...max(parameterCount, 1) where parameterCount > 0 {
            guard let cName = sqlite3_bind_parameter_name(handle, Int32(index)) else {
                throw DBBError.misuse(
                    "parameter \(index) is positional; named arguments need :name parameters",
                    sql: sql, context: "binding named arguments")
            }
            let fullName = String(cString: cName)
            let bareName = String(fullName.dropFirst())
            let argument: (any DBBBindable)??
            if let found = arguments[bareName] {
                argument = found
            } else {
                argument = arguments[fullName]
            }
            guard let argument else {
                throw DBBError.misuse(
                    "no value given for parameter \(fullName)", sql: sql,
                    context: "binding named arguments")
            }
            used += 1
            do {
                if let argument {
                    try argument.bind(to: self, at: Int32(index), options: options)
                } else {
                    try bindNull(at: Int32(index))
                }
            } catch let error as DBBError where error.sql == nil {
                throw described(error, context: "binding parameter \(fullName)")
            }
        }
        if used != arguments.count {
            let names = Set(
                (0..<parameterCount).compactMap { index -> String? in
                    sqlite3_bind_parameter_name(handle, Int32(index + 1)).map {
                        String(String(cString: $0).dropFirst())
                    }
                })
            let extra = arguments.keys.filter { !names.contains($0) && !names.contains(String($0.dropFirst())) }
                .sorted()
            throw DBBError.misuse(
                "the statement has no parameter named \(extra.joined(separator: ", "))", sql: sql,
                context: "binding named arguments")
        }
    }

    /// Adds this statement's SQL and the binding step to an error a value threw while converting itself.
    private func described(_ error: DBBError, context: String) -> DBBError {
        var error = error
        if error.sql == nil { error.sql = sql }
        error.context = context + (error.context.map { " (\($0))" } ?? "")
        return error
    }

    /// Binds one value at a 1-based parameter index.
    public func bind(_ value: DBBValue, at index: Int32) throws {
        switch value {
        case .null: try bindNull(at: index)
        case .integer(let integer): try bindInt64(integer, at: index)
        case .real(let real): try bindDouble(real, at: index)
        case .text(let text): try bindText(text, at: index)
        case .blob(let data): try bindBlob(data, at: index)
        }
    }

    // MARK: Native binds (one per storage class), used by the library's own DBBBindable types

    @inline(__always)
    func bindNull(at index: Int32) throws {
        try check(sqlite3_bind_null(handle, index), index)
    }

    @inline(__always)
    func bindInt64(_ value: Int64, at index: Int32) throws {
        try check(sqlite3_bind_int64(handle, index, value), index)
    }

    @inline(__always)
    func bindDouble(_ value: Double, at index: Int32) throws {
        if value.isNaN {
            // SQLite would silently store NULL instead.
            throw DBBError.library(
                .mismatch, message: "NaN cannot be stored in SQLite, which would turn it into NULL", sql: sql,
                context: "binding parameter \(index)")
        }
        try check(sqlite3_bind_double(handle, index, value), index)
    }

    @inline(__always)
    func bindText(_ value: String, at index: Int32) throws {
        var text = value
        let code = text.withUTF8 { buffer in
            // An empty buffer may have no base address; SQLite would then bind NULL, not ''.
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
            }
            return base.withMemoryRebound(to: CChar.self, capacity: buffer.count) {
                sqlite3_bind_text64(handle, index, $0, UInt64(buffer.count), sqliteTransient, UInt8(SQLITE_UTF8))
            }
        }
        try check(code, index)
    }

    /// Binds bytes as UTF-8 TEXT, as they are: SQLite takes them without checking them.
    func bindText(bytes: Data, at index: Int32) throws {
        let code = bytes.withUnsafeBytes { buffer in
            // An empty buffer may have no base address; SQLite would then bind NULL, not ''.
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return sqlite3_bind_text(handle, index, "", 0, sqliteTransient)
            }
            return sqlite3_bind_text64(
                handle, index, base.assumingMemoryBound(to: CChar.self), UInt64(buffer.count), sqliteTransient,
                UInt8(SQLITE_UTF8))
        }
        try check(code, index)
    }

    @inline(__always)
    func bindBlob(_ value: Data, at index: Int32) throws {
        let code = value.withUnsafeBytes { buffer in
            // Empty data is a zero-length BLOB, never NULL.
            guard let base = buffer.baseAddress, buffer.count > 0 else {
                return sqlite3_bind_zeroblob(handle, index, 0)
            }
            return sqlite3_bind_blob64(handle, index, base, UInt64(buffer.count), sqliteTransient)
        }
        try check(code, index)
    }

    @inline(__always)
    private func check(_ code: Int32, _ index: Int32) throws {
        if code != SQLITE_OK { throw bindingError(code, index) }
    }

    private func bindingError(_ code: Int32, _ index: Int32) -> DBBError {
        DBBError.fromConnection(database.handle, code: code, sql: sql, context: "binding parameter \(index)")
    }

    /// Running a statement while a cursor steps it would reset the cursor under its reader.
    @inline(__always)
    private func checkNotInUse() throws {
        if isInUse {
            throw DBBError.misuse(
                "a cursor is still stepping this statement; finish it, or prepare the SQL again",
                sql: sql, context: "running a statement")
        }
    }

    /// Resets the statement so it can run again, and clears its bindings.
    public func reset() {
        sqlite3_reset(handle)
        sqlite3_clear_bindings(handle)
    }

    // MARK: Running

    /// Advances to the next row.
    ///
    /// - Returns: `true` when a row is available, `false` when the statement is done.
    /// - Throws: ``DBBError`` for any failure SQLite reports (constraint, busy, …).
    @inline(__always)
    func step() throws -> Bool {
        let code = sqlite3_step(handle)
        if code == SQLITE_ROW { return true }
        if code == SQLITE_DONE {
            if database.changeTracker != nil { database.statementDidFinish(writing: writtenTables) }
            return false
        }
        let error = DBBError.fromConnection(database.handle, code: code, sql: sql, context: "running a statement")
        sqlite3_reset(handle)
        database.statementFailed(error)
        throw error
    }

    /// Runs the statement to completion with positional arguments and resets it.
    ///
    /// - Throws: ``DBBError`` for binding or execution failures.
    public func execute(_ arguments: (any DBBBindable)?...) throws {
        try execute(arguments: DBBArguments(arguments))
    }

    /// Runs the statement to completion with positional or named arguments and resets it.
    ///
    /// - Throws: ``DBBError`` for binding or execution failures.
    public func execute(arguments: DBBArguments) throws {
        try database.checkOpen(sql)
        try checkNotInUse()
        // Every parameter is bound on each run, so old bindings need no clearing: a plain reset suffices.
        defer { sqlite3_reset(handle) }
        try bind(arguments)
        while try step() {}
    }

    /// Runs the statement to completion with one value per parameter, in order, and resets it. The values
    /// are bound as they are, without conversion.
    ///
    /// - Parameters:
    ///   - values: one value per parameter (a slice, so that the loop over them is compiled for it).
    ///   - textBytesAt: the 0-based positions in `values` of BLOB values to bind as UTF-8 TEXT with these
    ///     bytes, unchecked: in a UTF-8 database the text keeps them even when they are not valid UTF-8.
    /// - Throws: ``DBBError`` (misuse) when the count differs from ``parameterCount``, or for binding or
    ///   execution failures.
    package func execute(values: ArraySlice<DBBValue>, textBytesAt positions: [Int] = []) throws {
        try database.checkOpen(sql)
        try checkNotInUse()
        guard values.count == parameterCount else {
            throw DBBError.misuse(
                "the statement expects \(parameterCount) argument(s) but \(values.count) were given",
                recovery: "pass one value per parameter",
                sql: sql, context: "binding arguments")
        }
        defer { sqlite3_reset(handle) }
        var index: Int32 = 1
        for value in values {
            if !positions.isEmpty, positions.contains(Int(index) - 1), case .blob(let bytes) = value {
                try bindText(bytes: bytes, at: index)
            } else {
                try bind(value, at: index)
            }
            index += 1
        }
        while try step() {}
    }

    /// A lazy cursor over the rows the statement returns for these arguments.
    ///
    /// - Throws: ``DBBError`` for binding failures.
    public func cursor(arguments: DBBArguments = .none) throws -> DBBCursor {
        try database.checkOpen(sql)
        try checkNotInUse()
        reset()
        try bind(arguments)
        return DBBCursor(statement: self)
    }
}

@available(*, unavailable, message: "a statement belongs to one connection, which is used from one thread at a time")
extension DBBStatement: Sendable {}
