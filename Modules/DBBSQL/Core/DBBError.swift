internal import CSQLite

/// The error every throwing API of DBBBuilder throws.
///
/// It says what kind of failure happened (``kind-swift.property``): SQLite refused something (``Kind-swift.struct/sqlite``,
/// with SQLite's primary and extended result codes), the library was used in a way it does not allow
/// (``Kind-swift.struct/misuse``, with ``recoverySuggestion`` saying what to do instead), an object's row no longer
/// exists (``Kind-swift.struct/rowDeleted``), a database server such as PostgreSQL refused something or could not
/// be reached (``Kind-swift.struct/server``, with its SQLSTATE in ``sqlState`` and the nearest SQLite codes), or the
/// library found the problem itself, whichever the engine (``Kind-swift.struct/library``: a stored value it cannot
/// decode, a value that cannot be stored). ``description`` names the engine that reported the failure
/// (``engine``), and none for the library's own. It also
/// carries the message, the SQL text involved, and what the library was doing. Argument values are never included,
/// since they may hold private data, and passwords never: the message, the context and ``description`` show the
/// password of anything that looks like `user:password@` as `***` (``DBBRedaction``).
///
/// Static constants name the result codes callers usually handle, so a `catch` can match one:
///
/// ```swift
/// do {
///     try db.execute("INSERT INTO person (email) VALUES (?)", "a@example.com")
/// } catch DBBError.constraintUnique {
///     print("duplicate email")
/// } catch let error as DBBError where error.kind == .misuse {
///     print(error.message, error.recoverySuggestion ?? "")
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

    /// What kind of failure an error reports: one SQLite or a server reported, one the library found, a misuse of
    /// the library, or a deleted row.
    ///
    /// A `catch` can match a kind directly: `catch DBBError.Kind.rowDeleted { … }`.
    public struct Kind: Hashable, Sendable, CustomStringConvertible {
        private let name: String
        private init(_ name: String) { self.name = name }

        /// SQLite reported the failure; ``DBBError/resultCode`` and ``DBBError/extendedCode`` are SQLite's.
        public static let sqlite = Kind("SQLite error")
        /// The library found the problem itself, on any engine: a stored value it cannot decode (text that is no
        /// case of an enum), a value that cannot be stored (NaN, an unsigned integer above `Int64.max`), a
        /// column that does not fit its property, or a failure of the application's code that an operation ran (a
        /// migration's transform). ``DBBError/resultCode`` is the nearest SQLite code (``ResultCode/mismatch``,
        /// ``ResultCode/range``, ``ResultCode/error``), so the same ``Code`` patterns match it; no engine reported
        /// it, and ``DBBError/engine`` is `nil`.
        public static let library = Kind("DBBBuilder error")
        /// The library was called in a way it does not allow: a class that is not registered, a wrong number
        /// of arguments, a re-entrant queue call, a write through a read-only manager. Nothing was changed;
        /// ``DBBError/recoverySuggestion`` says what to do. ``DBBError/resultCode`` is
        /// ``ResultCode/misuse``.
        public static let misuse = Kind("misuse of DBBBuilder")
        /// An object's row no longer exists: it was deleted after the object was loaded. Nothing was
        /// written. ``DBBError/resultCode`` is ``ResultCode/error``.
        public static let rowDeleted = Kind("row deleted")
        /// A database server reported the failure, or could not be reached or logged in to (a backend other
        /// than SQLite, such as the PostgreSQL plugin). ``DBBError/sqlState`` is the server's SQLSTATE when it
        /// sent one; ``DBBError/resultCode`` and ``DBBError/extendedCode`` are the nearest SQLite codes (a
        /// unique violation is ``DBBError/constraintUnique``), so the same `catch` patterns work on either backend.
        public static let server = Kind("database server error")

        /// The kind's name, as ``DBBError/description`` starts.
        public var description: String { name }

        /// Matches an error of this kind, so `catch DBBError.Kind.misuse` works.
        public static func ~= (kind: Kind, error: any Error) -> Bool {
            (error as? DBBError)?.kind == kind
        }
    }

    /// What kind of failure this is.
    public var kind: Kind
    /// The primary result code (the low 8 bits of ``extendedCode``).
    public var resultCode: ResultCode
    /// SQLite's extended result code, for example `SQLITE_CONSTRAINT_UNIQUE` (2067).
    public var extendedCode: Int32
    /// SQLite's message, or the library's when it detected the problem itself. Passwords in it are shown as `***`.
    public var message: String
    /// The SQL statement involved, if any.
    public var sql: String?
    /// What the library was doing, for example `"opening /tmp/app.sqlite"` or `"binding argument 3"`.
    public var context: String?
    /// What to do about a misuse, for example "call addTableClasses([Person.self]) first".
    public var recoverySuggestion: String?
    /// The five-character SQLSTATE a database server reported, for example `"23505"`; `nil` for SQLite's errors
    /// and for failures the server did not report.
    public var sqlState: String?
    /// The database engine the failure came from, as ``description`` names it: `"SQLite"` for an error of kind
    /// ``Kind-swift.struct/sqlite``, the server's name (`"PostgreSQL"`) for one of kind
    /// ``Kind-swift.struct/server`` when the engine gave it; `nil` for the library's own errors, misuses and
    /// deleted rows, which no engine reported.
    public var engine: String?
    /// The error the application's own code threw, when that is what failed: a migration's transform or data
    /// step, a `Codable` value's encoding, a custom `DBBPersistableValue` conversion. It is the thrown
    /// value itself, unchanged, so a `catch` can match the application's own type:
    ///
    /// ```swift
    /// do {
    ///     try migrator.migrate(manager)
    /// } catch let error as DBBError where error.underlyingError is Refused {
    ///     print(error.message)   // migration v3 failed: step 1 (changeType Shelf.built), row id 7: Refused()
    /// }
    /// ```
    ///
    /// `nil` when the library or an engine found the failure itself. The error's ``message`` names where the code
    /// ran; ``description`` includes the underlying error's own description.
    public var underlyingError: (any Error)?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - extendedCode: SQLite's extended (or primary) result code.
    ///   - message: a human-readable explanation.
    ///   - sql: the SQL text involved, if any.
    ///   - context: what the library was doing.
    public init(extendedCode: Int32, message: String, sql: String? = nil, context: String? = nil) {
        self.kind = .sqlite
        self.engine = "SQLite"
        self.resultCode = ResultCode(rawValue: extendedCode)
        self.extendedCode = extendedCode
        self.message = DBBRedaction.redactingPasswords(in: message)
        self.sql = sql
        self.context = context.map { DBBRedaction.redactingPasswords(in: $0) }
    }

    /// Creates an error with a primary result code.
    public init(_ code: ResultCode, message: String, sql: String? = nil, context: String? = nil) {
        self.init(extendedCode: code.rawValue, message: message, sql: sql, context: context)
    }

    /// Creates an error for a misuse of the library: the caller asked for something the library does not
    /// allow, and nothing was changed.
    ///
    /// - Parameters:
    ///   - message: what was wrong.
    ///   - recovery: what to do instead.
    ///   - sql: the SQL text involved, if any.
    ///   - context: what the library was doing.
    /// - Returns: an error of kind ``Kind-swift.struct/misuse`` with result code ``ResultCode/misuse``.
    public static func misuse(_ message: String, recovery: String? = nil, sql: String? = nil, context: String? = nil)
        -> DBBError
    {
        var error = DBBError(.misuse, message: message, sql: sql, context: context)
        error.kind = .misuse
        error.engine = nil
        error.recoverySuggestion = recovery
        return error
    }

    /// Creates an error for an object whose row no longer exists.
    ///
    /// - Parameters:
    ///   - message: which row is missing.
    ///   - context: what the library was doing.
    /// - Returns: an error of kind ``Kind-swift.struct/rowDeleted`` with result code ``ResultCode/error``.
    public static func rowDeleted(_ message: String, context: String? = nil) -> DBBError {
        var error = DBBError(.error, message: message, context: context)
        error.kind = .rowDeleted
        error.engine = nil
        return error
    }

    /// Creates an error the library found itself, whichever the engine: a value it cannot decode or store, a
    /// column that does not fit, a failure of the application's code that an operation ran.
    ///
    /// ```swift
    /// throw DBBError.library(.mismatch, message: "the stored value \"bogus\" is not a case of Status")
    /// ```
    ///
    /// - Parameters:
    ///   - code: the nearest SQLite result code, so that ``Code`` patterns match the error.
    ///   - message: what was wrong.
    ///   - sql: the SQL text involved, if any.
    ///   - context: what the library was doing.
    /// - Returns: an error of kind ``Kind-swift.struct/library``, with no ``engine``.
    public static func library(_ code: ResultCode, message: String, sql: String? = nil, context: String? = nil)
        -> DBBError
    {
        var error = DBBError(code, message: message, sql: sql, context: context)
        error.kind = .library
        error.engine = nil
        return error
    }

    /// Creates an error for a failure of the application's own code that an operation ran (a closure, a value's
    /// encoding), which it carries unchanged in ``underlyingError``.
    ///
    /// A ``DBBError`` thrown by that code is returned as it is, with `prefix` before its message.
    ///
    /// - Parameters:
    ///   - error: what the application's code threw.
    ///   - prefix: where it ran, put before its description in ``message`` (for example `"row id 7: "`).
    ///   - context: what the library was doing.
    /// - Returns: an error of kind ``Kind-swift.struct/library`` (result code ``ResultCode/error``) whose
    ///   ``underlyingError`` is `error`, or `error` itself when it is a ``DBBError``.
    public static func wrapping(_ error: any Error, prefix: String = "", context: String? = nil) -> DBBError {
        if var error = error as? DBBError {
            error.message = prefix + error.message
            return error
        }
        var wrapped = DBBError.library(.error, message: prefix + String(describing: error), context: context)
        wrapped.underlyingError = error
        return wrapped
    }

    /// Creates an error for a failure a database server reported, or for a server that could not be reached.
    ///
    /// - Parameters:
    ///   - sqlState: the server's SQLSTATE, if it sent one.
    ///   - extendedCode: the SQLite extended (or primary) result code nearest the failure, so that the
    ///     static codes such as ``constraintUnique`` match it.
    ///   - message: the server's message, or what went wrong.
    ///   - sql: the SQL text involved, if any.
    ///   - context: what the library was doing.
    ///   - engine: the server's name, such as `"PostgreSQL"`, which ``description`` starts with; `nil` says
    ///     "database server".
    /// - Returns: an error of kind ``Kind-swift.struct/server``.
    public static func server(
        sqlState: String?, extendedCode: Int32, message: String, sql: String? = nil, context: String? = nil,
        engine: String? = nil
    ) -> DBBError {
        var error = DBBError(extendedCode: extendedCode, message: message, sql: sql, context: context)
        error.kind = .server
        error.sqlState = sqlState
        error.engine = engine
        return error
    }

    /// A one-line summary: the engine and kind (with SQLite's codes, or the server's SQLSTATE), message, what to
    /// do, what the library was doing, and the SQL. Only an error an engine reported names one: `SQLite error 19
    /// (extended 2067): …`, `PostgreSQL error (SQLSTATE 23505): …`; the library's own read `DBBBuilder error: …`,
    /// `misuse of DBBBuilder: …`.
    public var description: String {
        var text: String
        if kind == .sqlite {
            text = "SQLite error \(resultCode.rawValue)"
            if extendedCode != resultCode.rawValue { text += " (extended \(extendedCode))" }
        } else if kind == .server {
            text = engine.map { "\($0) error" } ?? kind.description
            if let sqlState { text += " (SQLSTATE \(sqlState))" }
        } else {
            text = kind.description
        }
        text += ": \(message)"
        if let recoverySuggestion { text += " — \(recoverySuggestion)" }
        if let context { text += " — while \(context)" }
        if let sql { text += " — SQL: \(sql)" }
        return DBBRedaction.redactingPasswords(in: text)
    }

    /// Whether two errors report the same failure: every field equal, and both without an underlying error or
    /// both with one that describes itself the same way (errors are not `Equatable` in general).
    public static func == (lhs: DBBError, rhs: DBBError) -> Bool {
        lhs.kind == rhs.kind && lhs.resultCode == rhs.resultCode && lhs.extendedCode == rhs.extendedCode
            && lhs.message == rhs.message && lhs.sql == rhs.sql && lhs.context == rhs.context
            && lhs.recoverySuggestion == rhs.recoverySuggestion && lhs.sqlState == rhs.sqlState
            && lhs.engine == rhs.engine
            && lhs.underlyingError.map { String(reflecting: $0) } == rhs.underlyingError.map { String(reflecting: $0) }
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

// MARK: Codes to match

// The extended codes are written as SQLite's header defines them: Swift does not import those macros.
extension DBBError {
    /// An SQLite result code to match an error against: a primary code matches every extended code under
    /// it, an extended code matches only itself. `catch DBBError.constraintUnique { … }` catches a
    /// duplicate key and nothing else; `catch DBBError.busy { … }` catches every busy variant.
    public struct Code: RawRepresentable, Hashable, Sendable {
        /// SQLite's numeric code, primary (below 256) or extended.
        public var rawValue: Int32
        /// Creates a code from SQLite's number.
        public init(rawValue: Int32) { self.rawValue = rawValue }

        /// Whether an error has this code and is one SQLite or a database server reported, or the library found
        /// (kind ``Kind-swift.struct/sqlite``, ``Kind-swift.struct/server`` or ``Kind-swift.struct/library``).
        ///
        /// - Parameter error: the error to test.
        /// - Returns: `true` when the error's extended code is this code, or, for a primary code, when its
        ///   primary code is.
        public func matches(_ error: DBBError) -> Bool {
            guard error.kind == .sqlite || error.kind == .server || error.kind == .library else { return false }
            return rawValue & ~0xFF == 0 ? error.resultCode.rawValue == rawValue : error.extendedCode == rawValue
        }

        /// Matches an error, so a code can be a `catch` pattern.
        public static func ~= (code: Code, error: any Error) -> Bool {
            (error as? DBBError).map(code.matches) ?? false
        }
    }

    /// The error's extended code as a ``Code`` (compare with `==`, or match with ``Code/matches(_:)``).
    public var code: Code { Code(rawValue: extendedCode) }

    /// Any constraint violation (`SQLITE_CONSTRAINT`).
    public static let constraint = Code(rawValue: SQLITE_CONSTRAINT)
    /// A `UNIQUE` constraint or unique index was violated (`SQLITE_CONSTRAINT_UNIQUE`).
    public static let constraintUnique = Code(rawValue: SQLITE_CONSTRAINT | 8 << 8)
    /// A `PRIMARY KEY` constraint was violated, for example a duplicate id (`SQLITE_CONSTRAINT_PRIMARYKEY`).
    public static let constraintPrimaryKey = Code(rawValue: SQLITE_CONSTRAINT | 6 << 8)
    /// A `NOT NULL` column was given NULL (`SQLITE_CONSTRAINT_NOTNULL`).
    public static let constraintNotNull = Code(rawValue: SQLITE_CONSTRAINT | 5 << 8)
    /// A `FOREIGN KEY` constraint was violated (`SQLITE_CONSTRAINT_FOREIGNKEY`).
    public static let constraintForeignKey = Code(rawValue: SQLITE_CONSTRAINT | 3 << 8)
    /// A `CHECK` constraint failed (`SQLITE_CONSTRAINT_CHECK`).
    public static let constraintCheck = Code(rawValue: SQLITE_CONSTRAINT | 1 << 8)
    /// A trigger's `RAISE` aborted the statement (`SQLITE_CONSTRAINT_TRIGGER`).
    public static let constraintTrigger = Code(rawValue: SQLITE_CONSTRAINT | 7 << 8)
    /// Another connection holds a lock (`SQLITE_BUSY`, every variant).
    public static let busy = Code(rawValue: SQLITE_BUSY)
    /// A WAL snapshot is out of date: restart the read transaction (`SQLITE_BUSY_SNAPSHOT`).
    public static let busySnapshot = Code(rawValue: SQLITE_BUSY | 2 << 8)
    /// Another connection is recovering a WAL file (`SQLITE_BUSY_RECOVERY`).
    public static let busyRecovery = Code(rawValue: SQLITE_BUSY | 1 << 8)
    /// A conflict inside this connection or a shared cache (`SQLITE_LOCKED`, every variant).
    public static let locked = Code(rawValue: SQLITE_LOCKED)
    /// A shared-cache table lock conflict (`SQLITE_LOCKED_SHAREDCACHE`).
    public static let lockedSharedCache = Code(rawValue: SQLITE_LOCKED | 1 << 8)
    /// A write to a read-only database (`SQLITE_READONLY`, every variant).
    public static let readOnly = Code(rawValue: SQLITE_READONLY)
    /// A generic error such as a syntax error or a missing table (`SQLITE_ERROR`).
    public static let sqlError = Code(rawValue: SQLITE_ERROR)
    /// The file is not an SQLite database (`SQLITE_NOTADB`).
    public static let notADatabase = Code(rawValue: SQLITE_NOTADB)
    /// The database file is damaged (`SQLITE_CORRUPT`).
    public static let corrupt = Code(rawValue: SQLITE_CORRUPT)
    /// The disk or the database is full (`SQLITE_FULL`).
    public static let full = Code(rawValue: SQLITE_FULL)
    /// The file cannot be opened (`SQLITE_CANTOPEN`).
    public static let cannotOpen = Code(rawValue: SQLITE_CANTOPEN)
}
