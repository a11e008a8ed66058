internal import CSQLite

/// What SQLite asks an authorizer about while it prepares a statement.
///
/// Related SQLite documentation: https://www.sqlite.org/c3ref/c_alter_table.html
public struct DBBAuthorizerAction: RawRepresentable, Hashable, Sendable {
    /// The numeric action code, as SQLite defines it.
    public var rawValue: Int32

    /// Creates an action from SQLite's numeric code.
    public init(rawValue: Int32) { self.rawValue = rawValue }

    /// `CREATE TABLE` in a main or attached schema; the request names the table.
    public static let createTable = DBBAuthorizerAction(rawValue: SQLITE_CREATE_TABLE)
    /// `CREATE TEMP TABLE`.
    public static let createTempTable = DBBAuthorizerAction(rawValue: SQLITE_CREATE_TEMP_TABLE)
    /// `CREATE INDEX`; the request names the index, then its table.
    public static let createIndex = DBBAuthorizerAction(rawValue: SQLITE_CREATE_INDEX)
    /// `CREATE INDEX` on a temporary table.
    public static let createTempIndex = DBBAuthorizerAction(rawValue: SQLITE_CREATE_TEMP_INDEX)
    /// `CREATE VIEW`.
    public static let createView = DBBAuthorizerAction(rawValue: SQLITE_CREATE_VIEW)
    /// `CREATE TEMP VIEW`.
    public static let createTempView = DBBAuthorizerAction(rawValue: SQLITE_CREATE_TEMP_VIEW)
    /// `CREATE TRIGGER`; the request names the trigger, then its table.
    public static let createTrigger = DBBAuthorizerAction(rawValue: SQLITE_CREATE_TRIGGER)
    /// `CREATE TEMP TRIGGER`, or a trigger on a temporary table.
    public static let createTempTrigger = DBBAuthorizerAction(rawValue: SQLITE_CREATE_TEMP_TRIGGER)
    /// `CREATE VIRTUAL TABLE`; the request names the table, then its module.
    public static let createVirtualTable = DBBAuthorizerAction(rawValue: SQLITE_CREATE_VTABLE)
    /// `ATTACH DATABASE`.
    public static let attach = DBBAuthorizerAction(rawValue: SQLITE_ATTACH)
    /// `DETACH DATABASE`.
    public static let detach = DBBAuthorizerAction(rawValue: SQLITE_DETACH)
    /// A `PRAGMA`.
    public static let pragma = DBBAuthorizerAction(rawValue: SQLITE_PRAGMA)
    /// `BEGIN`, `COMMIT` or `ROLLBACK`.
    public static let transaction = DBBAuthorizerAction(rawValue: SQLITE_TRANSACTION)
    /// An `INSERT` into the named table (SQLite also asks this for its own schema table when creating).
    public static let insert = DBBAuthorizerAction(rawValue: SQLITE_INSERT)
    /// An `UPDATE` of the named table and column.
    public static let update = DBBAuthorizerAction(rawValue: SQLITE_UPDATE)
    /// A `DELETE` from the named table.
    public static let delete = DBBAuthorizerAction(rawValue: SQLITE_DELETE)
    /// A read of the named table and column.
    public static let read = DBBAuthorizerAction(rawValue: SQLITE_READ)
    /// A `SELECT`.
    public static let select = DBBAuthorizerAction(rawValue: SQLITE_SELECT)
    /// A call of the named SQL function.
    public static let function = DBBAuthorizerAction(rawValue: SQLITE_FUNCTION)
}

/// One question SQLite asks an authorizer while it prepares a statement.
public struct DBBAuthorizerRequest: Sendable, Hashable {
    /// What the statement would do.
    public var action: DBBAuthorizerAction
    /// The action's first detail: usually the object's name (see ``DBBAuthorizerAction``).
    public var first: String?
    /// The action's second detail: usually the table or module.
    public var second: String?
    /// The schema (`main`, `temp`, an attached name), when the action has one.
    public var database: String?
    /// The innermost trigger or view that causes the action, if any.
    public var trigger: String?

    /// Creates a request.
    public init(
        action: DBBAuthorizerAction, first: String? = nil, second: String? = nil, database: String? = nil,
        trigger: String? = nil
    ) {
        self.action = action
        self.first = first
        self.second = second
        self.database = database
        self.trigger = trigger
    }
}

/// An authorizer's answer.
public enum DBBAuthorizerDecision: Sendable, Hashable {
    /// Allow the action.
    case allow
    /// Refuse it: preparing the statement fails with an authorization error.
    case deny
    /// Allow the statement but treat the action as a no-op (reads give NULL).
    case ignore
}

/// Holds the Swift closure the C callback calls.
private final class AuthorizerBox {
    let authorize: (DBBAuthorizerRequest) -> DBBAuthorizerDecision
    /// The connection's change tracker, which also learns what an allowed statement writes.
    let tracker: DBBChangeTracker?
    init(_ authorize: @escaping (DBBAuthorizerRequest) -> DBBAuthorizerDecision, tracker: DBBChangeTracker?) {
        self.authorize = authorize
        self.tracker = tracker
    }
}

extension DBBDatabase {
    /// Prepares a statement while an authorizer watches what SQLite's parser finds in it, without running it.
    ///
    /// SQLite's own parser decides what the statement does (`CREATE TEMP TRIGGER`, an `ATTACH`, a
    /// function call), so a caller can check untrusted SQL by what it is rather than by how it is spelled.
    /// The statement is prepared fresh (not from the cache), and the authorizer is removed before this
    /// method returns, so running the statement later is not watched.
    ///
    /// ```swift
    /// var created: [String] = []
    /// let statement = try db.prepare("CREATE TABLE t (a)") { request in
    ///     if request.action == .createTable, let name = request.first { created.append(name) }
    ///     return request.action == .attach ? .deny : .allow
    /// }
    /// try statement.execute()
    /// ```
    ///
    /// - Parameters:
    ///   - sql: one SQL statement.
    ///   - authorizer: called for each action SQLite finds, in order.
    /// - Returns: the prepared statement.
    /// - Throws: ``DBBError`` for a syntax error, several statements, or an action the authorizer denied
    ///   (``DBBError/ResultCode/authorization``).
    ///
    /// Related SQLite documentation: https://www.sqlite.org/c3ref/set_authorizer.html
    public func prepare(
        _ sql: String, authorizer: @escaping (DBBAuthorizerRequest) -> DBBAuthorizerDecision
    ) throws -> DBBStatement {
        let handle = try openHandle(sql)
        let box = Unmanaged.passRetained(AuthorizerBox(authorizer, tracker: changeTracker))
        defer {
            // Back to the commit observers' authorizer, if they have one.
            installTrackingAuthorizer(handle)
            box.release()
        }
        let callback:
            @convention(c) (
                UnsafeMutableRawPointer?, Int32, UnsafePointer<CChar>?, UnsafePointer<CChar>?, UnsafePointer<CChar>?,
                UnsafePointer<CChar>?
            ) -> Int32 = { context, code, first, second, database, trigger in
                guard let context else { return SQLITE_DENY }
                let box = Unmanaged<AuthorizerBox>.fromOpaque(context).takeUnretainedValue()
                let request = DBBAuthorizerRequest(
                    action: DBBAuthorizerAction(rawValue: code), first: first.map { String(cString: $0) },
                    second: second.map { String(cString: $0) }, database: database.map { String(cString: $0) },
                    trigger: trigger.map { String(cString: $0) })
                switch box.authorize(request) {
                case .allow: return box.tracker?.authorize(code, first, database, trigger) ?? SQLITE_OK
                case .deny: return SQLITE_DENY
                case .ignore: return SQLITE_IGNORE
                }
            }
        sqlite3_set_authorizer(handle, callback, box.toOpaque())
        return try DBBStatement(database: self, sql: sql, cached: false)
    }

    /// The largest string or BLOB, in bytes, this connection accepts (`SQLITE_LIMIT_LENGTH`).
    ///
    /// Setting it lowers the limit (or raises it, up to SQLite's compiled-in maximum, which a larger value is
    /// clamped to). A statement that would read or build a longer value, or write a longer row, then fails
    /// with ``DBBError/ResultCode/tooBig`` before SQLite allocates it, so lowering the limit bounds the memory
    /// one value can take.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/limits.html
    public var maximumValueLength: Int {
        get { handle.map { Int(sqlite3_limit($0, SQLITE_LIMIT_LENGTH, -1)) } ?? 1_000_000_000 }
        set {
            guard let handle else { return }
            sqlite3_limit(handle, SQLITE_LIMIT_LENGTH, Int32(clamping: max(newValue, 0)))
        }
    }
}
