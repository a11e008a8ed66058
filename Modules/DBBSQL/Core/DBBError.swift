import CSQLite

/// The error every throwing API of DBBBuilder throws.
///
/// It carries SQLite's primary and extended result codes, SQLite's message (or the library's own
/// when the failure was caught before SQLite saw it), the SQL text involved, and what the library
/// was doing. Argument values are never included, since they may hold private data.
///
/// ```swift
/// do {
///     try db.execute("INSERT INTO person (email) VALUES (?)", "a@example.com")
/// } catch let error as DBBError where error.resultCode == .constraint {
///     print("duplicate email:", error.message)
/// }
/// ```
///
/// Related SQLite documentation: https://www.sqlite.org/rescode.html
public struct DBBError: Error, Sendable, Equatable, CustomStringConvertible {
    /// A primary SQLite result code. The static members name the ones callers usually match.
    public struct ResultCode: RawRepresentable, Hashable, Sendable, CustomStringConvertible {
        /// The numeric code, as SQLite defines it.
        public var rawValue: Int32

        /// Creates a result code from SQLite's numeric value. Extended codes are reduced to their primary code.
        public init(rawValue: Int32) { self.rawValue = rawValue & 0xFF }

        /// Success (`SQLITE_OK`).
        public static let ok = ResultCode(rawValue: SQLITE_OK)
        /// A generic error, such as an SQL syntax error or a missing table (`SQLITE_ERROR`).
        public static let error = ResultCode(rawValue: SQLITE_ERROR)
        /// An internal malfunction of SQLite (`SQLITE_INTERNAL`).
        public static let `internal` = ResultCode(rawValue: SQLITE_INTERNAL)
        /// The access mode needed is not available (`SQLITE_PERM`).
        public static let permission = ResultCode(rawValue: SQLITE_PERM)
        /// An operation was aborted, for example by a rollback (`SQLITE_ABORT`).
        public static let abort = ResultCode(rawValue: SQLITE_ABORT)
        /// Another connection holds a lock on the database file (`SQLITE_BUSY`).
        public static let busy = ResultCode(rawValue: SQLITE_BUSY)
        /// A conflict inside this connection or a shared cache (`SQLITE_LOCKED`).
        public static let locked = ResultCode(rawValue: SQLITE_LOCKED)
        /// SQLite could not allocate memory (`SQLITE_NOMEM`).
        public static let noMemory = ResultCode(rawValue: SQLITE_NOMEM)
        /// A write to a read-only database (`SQLITE_READONLY`).
        public static let readOnly = ResultCode(rawValue: SQLITE_READONLY)
        /// The operation was interrupted (`SQLITE_INTERRUPT`).
        public static let interrupt = ResultCode(rawValue: SQLITE_INTERRUPT)
        /// The operating system reported an I/O error (`SQLITE_IOERR`).
        public static let ioError = ResultCode(rawValue: SQLITE_IOERR)
        /// The database file is damaged (`SQLITE_CORRUPT`).
        public static let corrupt = ResultCode(rawValue: SQLITE_CORRUPT)
        /// An unknown file-control operation (`SQLITE_NOTFOUND`).
        public static let notFound = ResultCode(rawValue: SQLITE_NOTFOUND)
        /// The disk or the database is full (`SQLITE_FULL`).
        public static let full = ResultCode(rawValue: SQLITE_FULL)
        /// The file cannot be opened (`SQLITE_CANTOPEN`).
        public static let cannotOpen = ResultCode(rawValue: SQLITE_CANTOPEN)
        /// The schema changed under a statement (`SQLITE_SCHEMA`).
        public static let schema = ResultCode(rawValue: SQLITE_SCHEMA)
        /// A string or BLOB exceeds the size limit (`SQLITE_TOOBIG`).
        public static let tooBig = ResultCode(rawValue: SQLITE_TOOBIG)
        /// A constraint was violated: UNIQUE, NOT NULL, CHECK, FOREIGN KEY… (`SQLITE_CONSTRAINT`).
        public static let constraint = ResultCode(rawValue: SQLITE_CONSTRAINT)
        /// A value does not fit: a datatype mismatch, or a Swift value that cannot be stored or read (`SQLITE_MISMATCH`).
        public static let mismatch = ResultCode(rawValue: SQLITE_MISMATCH)
        /// The library was used incorrectly, for example with the wrong number of arguments (`SQLITE_MISUSE`).
        public static let misuse = ResultCode(rawValue: SQLITE_MISUSE)
        /// An authorizer refused an action of the statement being prepared (`SQLITE_AUTH`).
        public static let authorization = ResultCode(rawValue: SQLITE_AUTH)
        /// A parameter or column index, or a setting, is out of range (`SQLITE_RANGE`).
        public static let range = ResultCode(rawValue: SQLITE_RANGE)
        /// The file is not an SQLite database (`SQLITE_NOTADB`).
        public static let notADatabase = ResultCode(rawValue: SQLITE_NOTADB)

        /// SQLite's English description of the code, for example `"database is locked"`.
        public var description: String { String(cString: sqlite3_errstr(rawValue)) }
    }

    /// The primary result code (the low 8 bits of ``extendedCode``).
    public var resultCode: ResultCode
    /// SQLite's extended result code, for example `SQLITE_CONSTRAINT_UNIQUE` (2067).
    public var extendedCode: Int32
    /// SQLite's message, or the library's when it detected the problem itself.
    public var message: String
    /// The SQL statement involved, if any.
    public var sql: String?
    /// What the library was doing, for example `"opening /tmp/app.sqlite"` or `"binding argument 3"`.
    public var context: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - extendedCode: SQLite's extended (or primary) result code.
    ///   - message: a human-readable explanation.
    ///   - sql: the SQL text involved, if any.
    ///   - context: what the library was doing.
    public init(extendedCode: Int32, message: String, sql: String? = nil, context: String? = nil) {
        self.resultCode = ResultCode(rawValue: extendedCode)
        self.extendedCode = extendedCode
        self.message = message
        self.sql = sql
        self.context = context
    }

    /// Creates an error with a primary result code.
    public init(_ code: ResultCode, message: String, sql: String? = nil, context: String? = nil) {
        self.init(extendedCode: code.rawValue, message: message, sql: sql, context: context)
    }

    /// A one-line summary: codes, message, what the library was doing, and the SQL.
    public var description: String {
        var text = "SQLite error \(resultCode.rawValue)"
        if extendedCode != resultCode.rawValue { text += " (extended \(extendedCode))" }
        text += ": \(message)"
        if let context { text += " — while \(context)" }
        if let sql { text += " — SQL: \(sql)" }
        return text
    }

    /// Builds an error from the state of a connection after a failed call.
    static func fromConnection(
        _ handle: OpaquePointer?,
        code: Int32,
        sql: String? = nil,
        context: String? = nil
    ) -> DBBError {
        let extended = handle.map { sqlite3_extended_errcode($0) } ?? code
        // The connection's code can lag behind the call's when the call failed before touching it.
        let useConnection = handle != nil && (extended & 0xFF) == (code & 0xFF)
        let message: String =
            if useConnection, let handle, let text = sqlite3_errmsg(handle) {
                String(cString: text)
            } else {
                String(cString: sqlite3_errstr(code))
            }
        return DBBError(extendedCode: useConnection ? extended : code, message: message, sql: sql, context: context)
    }
}
