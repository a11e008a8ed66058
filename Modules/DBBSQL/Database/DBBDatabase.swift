internal import CSQLite
public import Foundation

/// One SQLite connection: open a file or an in-memory database, run SQL, read rows.
///
/// A connection is used from one thread at a time; to share one between threads or tasks, wrap it in a
/// ``DBBDatabaseQueue``.
///
/// ```swift
/// let db = try DBBDatabase(path: "/tmp/app.sqlite")
/// try db.execute("CREATE TABLE IF NOT EXISTS user (id INTEGER PRIMARY KEY, name TEXT)")
/// try db.execute("INSERT INTO user (name) VALUES (?)", "Ann")
/// let names = try db.fetchValues(String.self, "SELECT name FROM user")
/// ```
///
/// Related SQLite documentation: https://www.sqlite.org/c3ref/open.html
public final class DBBDatabase {
    /// How a database file is opened.
    public enum OpenMode: Sendable, Hashable {
        /// Read and write; the file is created when missing (the default).
        case readWriteCreate
        /// Read and write; the file must exist.
        case readWrite
        /// Read only; the file must exist.
        case readOnly
    }

    /// The path of the database file, or `":memory:"`.
    public let path: String
    /// The mode the connection was opened with.
    public let mode: OpenMode
    /// The date strategy and JSON options used when binding and reading values.
    public var codingOptions: DBBCodingOptions {
        @inlinable get { storedCodingOptions }
        @inlinable set { storedCodingOptions = newValue }
    }
    // Unchecked, as it is read for every date value of a row: accessed only by `codingOptions`'s get and set,
    // each an instantaneous access (an `inout` of `codingOptions` works on a copy), so none can overlap.
    @usableFromInline @exclusivity(unchecked) var storedCodingOptions = DBBCodingOptions()

    private(set) var handle: OpaquePointer?
    /// Why a connection that was never opened refuses statements (``unavailable(path:refusal:)``).
    private var refusal: DBBError?
    private var statementCache: [String: DBBStatement] = [:]
    var traceBox: DBBTraceBox?
    /// Present while commit observers are installed (``addCommitObserver(_:)``).
    var changeTracker: DBBChangeTracker?
    var savepointDepth = 0
    /// The number of cursors that are stepping a statement of this connection.
    var activeCursorCount = 0

    /// Opens (and by default creates) a database file.
    ///
    /// The file is checked to be an SQLite database before the initializer returns; a file that is not
    /// one is left untouched.
    ///
    /// - Parameters:
    ///   - path: the file's path, or `":memory:"` for a private in-memory database.
    ///   - mode: how to open it. Default: ``OpenMode/readWriteCreate``.
    ///   - busyTimeout: how long a statement waits for a lock another connection holds, in seconds, set
    ///     before the connection touches the file (so the check that it is a database waits too).
    ///     Default: 0, no waiting; ``setBusyTimeout(_:)`` changes it later.
    /// - Throws: ``DBBError`` with ``DBBError/ResultCode/cannotOpen`` when the file cannot be opened,
    ///   or ``DBBError/ResultCode/notADatabase`` when it is not an SQLite database.
    public init(path: String, mode: OpenMode = .readWriteCreate, busyTimeout: TimeInterval = 0) throws {
        self.path = path
        self.mode = mode
        var flags: Int32 = SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_URI
        switch mode {
        case .readWriteCreate: flags |= SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE
        case .readWrite: flags |= SQLITE_OPEN_READWRITE
        case .readOnly: flags |= SQLITE_OPEN_READONLY
        }
        var connection: OpaquePointer?
        let code = sqlite3_open_v2(path, &connection, flags, nil)
        guard code == SQLITE_OK, let connection else {
            var error = DBBError.fromConnection(connection, code: code, context: "opening \(path)")
            sqlite3_close_v2(connection)
            // SQLite says only that it cannot open the file; a missing folder is the usual reason.
            if code == SQLITE_CANTOPEN, !path.isEmpty, !path.hasPrefix("file:"), path != ":memory:" {
                let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
                var isFolder: ObjCBool = false
                if !FileManager.default.fileExists(atPath: folder.path, isDirectory: &isFolder) {
                    error.message = "the folder \(folder.path) does not exist (\(error.message))"
                } else if !isFolder.boolValue {
                    error.message = "\(folder.path) is not a folder (\(error.message))"
                }
            }
            throw error
        }
        handle = connection
        sqlite3_extended_result_codes(connection, 1)
        if busyTimeout > 0 {
            sqlite3_busy_timeout(connection, Int32(clamping: Int64((min(busyTimeout, 2_147_483) * 1000).rounded())))
        }
        do {
            // Opening is lazy in SQLite: reading the schema is what proves the file is a database.
            // Reading takes no write lock, so the file is never changed by this check.
            try executeStatements("SELECT count(*) FROM sqlite_master")
        } catch let error as DBBError where error.resultCode == .busy || error.resultCode == .locked {
            // Another connection holds a lock, which only a database can have: the file is one.
        } catch var error as DBBError {
            error.context = "opening \(path)"
            error.sql = nil  // the library's own probe, which means nothing to whoever gave the file
            if error.resultCode == .notADatabase {
                error.message = "the file is not an SQLite database (\(error.message))"
            }
            statementCache.removeAll()
            sqlite3_close_v2(connection)
            handle = nil
            throw error
        }
    }

    /// Opens (and by default creates) a database file at a file URL.
    ///
    /// - Throws: ``DBBError`` as ``init(path:mode:busyTimeout:)``.
    public convenience init(url: URL, mode: OpenMode = .readWriteCreate, busyTimeout: TimeInterval = 0) throws {
        try self.init(path: url.path, mode: mode, busyTimeout: busyTimeout)
    }

    /// Opens a new, private in-memory database.
    ///
    /// - Throws: ``DBBError`` if SQLite cannot allocate it.
    public static func inMemory() throws -> DBBDatabase {
        try DBBDatabase(path: ":memory:")
    }

    /// A connection that was never opened, whose every statement fails with `refusal`: what a caller is given
    /// who asks for SQLite's connection where there is none (a manager of a database server).
    private init(unavailable path: String, refusal: DBBError) {
        self.path = path
        self.mode = .readOnly
        self.refusal = refusal
    }

    /// A connection that was never opened, whose every statement fails with `refusal`.
    ///
    /// - Parameters:
    ///   - path: what the connection stands for, in messages.
    ///   - refusal: the error every statement fails with.
    /// - Returns: the connection.
    package static func unavailable(path: String, refusal: DBBError) -> DBBDatabase {
        DBBDatabase(unavailable: path, refusal: refusal)
    }

    deinit {
        statementCache.removeAll()
        if let handle { sqlite3_close_v2(handle) }
    }

    /// Whether the connection is open.
    public var isOpen: Bool { handle != nil }

    /// Closes the connection. Closing twice does nothing.
    ///
    /// - Throws: ``DBBError`` (busy) while a cursor of this connection is still open.
    public func close() throws {
        guard let handle else { return }
        if activeCursorCount > 0 {
            throw DBBError(
                .busy, message: "\(activeCursorCount) cursor(s) of this connection are still stepping",
                context: "closing \(path)")
        }
        statementCache.removeAll()
        if traceBox != nil { sqlite3_trace_v2(handle, 0, nil, nil) }
        removeChangeTracker()
        // close_v2 defers the final release until statements still referenced from Swift are finalized;
        // they can no longer run, since every run checks that the connection is open.
        let code = sqlite3_close_v2(handle)
        guard code == SQLITE_OK else {
            throw DBBError.fromConnection(handle, code: code, context: "closing \(path)")
        }
        self.handle = nil
        traceBox = nil
    }

    @inline(__always)
    func checkOpen(_ sql: String) throws {
        if handle == nil { _ = try openHandle(sql) }
    }

    func openHandle(_ sql: String? = nil) throws -> OpaquePointer {
        guard let handle else {
            if let refusal { throw refusal }
            throw DBBError.misuse(
                "the database is closed", recovery: "open a new connection to the file", sql: sql,
                context: "using \(path)")
        }
        return handle
    }

    // MARK: Statements

    /// Returns a prepared statement for the SQL, from the connection's cache when it was prepared before.
    ///
    /// The cache hands out a fresh statement when the cached one is still being stepped by an open cursor,
    /// so nested queries of the same SQL work.
    ///
    /// - Throws: ``DBBError`` for a syntax error, or when the text holds more than one statement.
    public func prepare(_ sql: String) throws -> DBBStatement {
        if let statement = statementCache[sql] {
            if !statement.isInUse { return statement }
            return try DBBStatement(database: self, sql: sql, cached: false)
        }
        _ = try openHandle(sql)
        let statement = try DBBStatement(database: self, sql: sql, cached: true)
        statementCache[sql] = statement
        return statement
    }

    /// The number of statements in the cache.
    public var cachedStatementCount: Int { statementCache.count }

    /// Empties the statement cache (for example after changing the schema in bulk).
    public func clearStatementCache() {
        statementCache = statementCache.filter(\.value.isInUse)
    }

    // MARK: Executing

    /// Runs one statement with positional arguments.
    ///
    /// ```swift
    /// try db.execute("INSERT INTO user (name, born) VALUES (?, ?)", "Ann", Date())
    /// ```
    ///
    /// - Parameters:
    ///   - sql: one SQL statement.
    ///   - arguments: one value per `?` parameter; `nil` binds NULL.
    /// - Throws: ``DBBError`` for a syntax error, a wrong argument count, a value that cannot be bound,
    ///   or a failure while running (a constraint violation, for example).
    public func execute(_ sql: String, _ arguments: (any DBBBindable)?...) throws {
        try prepare(sql).execute(arguments: DBBArguments(arguments))
    }

    /// Runs one statement with positional or named arguments.
    ///
    /// ```swift
    /// try db.execute("UPDATE user SET name = :name WHERE id = :id", arguments: ["name": "Bo", "id": 1])
    /// ```
    ///
    /// - Throws: ``DBBError`` as ``execute(_:_:)``.
    public func execute(_ sql: String, arguments: DBBArguments) throws {
        try prepare(sql).execute(arguments: arguments)
    }

    /// Runs several `;`-separated statements that take no arguments, in order.
    ///
    /// Statements before a failing one stay applied unless you run this inside a transaction.
    ///
    /// - Throws: ``DBBError`` for the first statement that fails, with its SQL.
    public func executeStatements(_ sql: String) throws {
        let handle = try openHandle(sql)
        try sql.withCString { start in
            var current: UnsafePointer<CChar>? = start
            while var position = current, position.pointee != 0 {
                // Leading white space is skipped, so traces and errors show each statement as written.
                while position.pointee == 0x20 || (0x09...0x0D).contains(position.pointee) { position += 1 }
                if position.pointee == 0 { break }
                var statement: OpaquePointer?
                var tail: UnsafePointer<CChar>?
                let tracker = beginPreparing()
                let code = sqlite3_prepare_v2(handle, position, -1, &statement, &tail)
                let written = tracker?.preparing ?? []
                tracker?.preparing = nil
                guard code == SQLITE_OK else {
                    let rest = String(cString: position)
                    let error = DBBError.fromConnection(
                        handle, code: code, sql: rest, context: "preparing one of several statements")
                    statementFailed(error)
                    throw error
                }
                defer { sqlite3_finalize(statement) }
                current = tail
                guard let statement else { continue }  // white space or a comment
                var stepCode = sqlite3_step(statement)
                while stepCode == SQLITE_ROW { stepCode = sqlite3_step(statement) }
                guard stepCode == SQLITE_DONE else {
                    let error = DBBError.fromConnection(
                        handle, code: stepCode, sql: String(cString: sqlite3_sql(statement)),
                        context: "running one of several statements")
                    statementFailed(error)
                    throw error
                }
                if tracker != nil { statementDidFinish(writing: written) }
            }
        }
    }

    // MARK: State

    /// The rowid of the most recent successful INSERT on this connection.
    public var lastInsertRowID: Int64 { handle.map { sqlite3_last_insert_rowid($0) } ?? 0 }

    /// The number of rows changed by the most recent INSERT, UPDATE or DELETE.
    public var changes: Int { handle.map { Int(sqlite3_changes64($0)) } ?? 0 }

    /// The number of rows changed since the connection opened.
    public var totalChanges: Int { handle.map { Int(sqlite3_total_changes64($0)) } ?? 0 }

    /// The primary result code of the most recent failed call on this connection (`.ok` when none failed).
    public var lastErrorCode: DBBError.ResultCode {
        DBBError.ResultCode(rawValue: handle.map { sqlite3_errcode($0) } ?? SQLITE_MISUSE)
    }

    /// The extended result code of the most recent call on this connection.
    public var lastExtendedErrorCode: Int32 { handle.map { sqlite3_extended_errcode($0) } ?? SQLITE_MISUSE }

    /// SQLite's message for the most recent call on this connection.
    public var lastErrorMessage: String {
        guard let handle else { return "the database is closed" }
        return String(cString: sqlite3_errmsg(handle))
    }

    /// Whether the connection is read-only (opened so, or the file is not writable).
    public var isReadOnly: Bool { handle.map { sqlite3_db_readonly($0, "main") == 1 } ?? true }

    /// The version of the SQLite library in use, for example `"3.40.1"`.
    public static var sqliteVersion: String { String(cString: sqlite3_libversion()) }
}

@available(*, unavailable, message: "a connection is used from one thread at a time; share it through DBBDatabaseQueue")
extension DBBDatabase: Sendable {}
