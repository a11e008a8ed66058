internal import CSQLite

/// What a connection's commit observers learn after a transaction commits.
public struct DBBCommittedChanges: Sendable, Hashable {
    /// The tables the transaction changed, by name as SQLite reports them (`main` and attached schemas
    /// alike; `temp` tables are left out).
    public var tableNames: Set<String>

    /// Creates a change description.
    ///
    /// - Parameter tableNames: the tables a transaction changed.
    public init(tableNames: Set<String>) {
        self.tableNames = tableNames
    }

    /// Whether the transaction changed one of these tables; table names compare case-insensitively, as
    /// SQLite's do.
    ///
    /// - Parameter tables: lowercased table names.
    /// - Returns: whether one of them changed.
    public func touches(anyOf tables: Set<String>) -> Bool {
        tableNames.contains { tables.contains($0.lowercased()) }
    }
}

/// Collects the tables the open transaction changes, from SQLite's update, commit and rollback hooks and
/// from what the authorizer sees each statement write, and hands them to the observers once the
/// transaction has committed. Touched only on the connection's thread.
final class DBBChangeTracker {
    /// Tables the open transaction changed.
    var pending: Set<String> = []
    /// Tables of a transaction whose commit hook ran; delivered once the connection is back in
    /// autocommit mode (the commit really happened), dropped by a rollback.
    var committing: Set<String> = []
    /// The tables the statement being prepared writes directly (not through a trigger).
    var preparing: Set<String>?
    var observers: [Int: (DBBCommittedChanges) -> Void] = [:]
    var nextObserverID = 0

    /// Records what the authorizer sees while a statement is prepared, and turns off the truncate
    /// optimization, which deletes a whole table without telling the update hook.
    func authorize(
        _ code: Int32, _ table: UnsafePointer<CChar>?, _ schema: UnsafePointer<CChar>?, _ trigger: UnsafePointer<CChar>?
    )
        -> Int32
    {
        guard code == SQLITE_INSERT || code == SQLITE_UPDATE || code == SQLITE_DELETE, let table else {
            return SQLITE_OK
        }
        let name = String(cString: table)
        if name.hasPrefix("sqlite_") || schema.map({ String(cString: $0) == "temp" }) == true { return SQLITE_OK }
        if trigger == nil { preparing?.insert(name) }
        // SQLite: "If the action code is SQLITE_DELETE and the callback returns SQLITE_IGNORE then the
        // DELETE operation proceeds but the truncate optimization is disabled."
        return code == SQLITE_DELETE ? SQLITE_IGNORE : SQLITE_OK
    }
}

extension DBBDatabase {
    /// Calls a closure after each transaction that changed tables has committed on this connection,
    /// with the names of the tables it changed — whoever ran it: the object API, SQL of your own, a
    /// single statement outside a transaction (which commits by itself).
    ///
    /// ```swift
    /// let observer = db.addCommitObserver { changes in
    ///     if changes.tableNames.contains("user") { refreshUsers() }
    /// }
    /// try db.execute("INSERT INTO user (name) VALUES (?)", "Ann")   // refreshUsers() runs
    /// db.removeCommitObserver(observer)
    /// ```
    ///
    /// The closure runs on the connection's thread, right after the statement whose commit it reports has
    /// finished; it must not use the connection (hand the news to another task or queue instead). A
    /// transaction rolled back is not reported; a savepoint rolled back inside a transaction that commits
    /// still counts as a change of its tables. Changes are found through SQLite's update hook and, for
    /// what it does not report (`WITHOUT ROWID` tables, a `DELETE` without `WHERE`), through what each
    /// statement writes: while an observer is installed, `DELETE FROM t` deletes row by row instead of
    /// truncating. Changes to `temp` tables and SQLite's own tables are not reported.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/c3ref/update_hook.html,
    /// https://www.sqlite.org/c3ref/commit_hook.html
    ///
    /// - Parameter observer: called with the committed transaction's changes.
    /// - Returns: a token for ``removeCommitObserver(_:)``.
    /// - Throws: ``DBBError`` (misuse) when the connection is closed.
    @discardableResult
    public func addCommitObserver(_ observer: @escaping (DBBCommittedChanges) -> Void) throws -> Int {
        let handle = try openHandle()
        let tracker = changeTracker ?? installChangeTracker(handle)
        tracker.nextObserverID += 1
        tracker.observers[tracker.nextObserverID] = observer
        return tracker.nextObserverID
    }

    /// Removes a commit observer; once none is left, the hooks are removed too.
    ///
    /// - Parameter token: what ``addCommitObserver(_:)`` returned.
    public func removeCommitObserver(_ token: Int) {
        guard let tracker = changeTracker else { return }
        tracker.observers[token] = nil
        if tracker.observers.isEmpty { removeChangeTracker() }
    }

    private func installChangeTracker(_ handle: OpaquePointer) -> DBBChangeTracker {
        let tracker = DBBChangeTracker()
        changeTracker = tracker
        let context = Unmanaged.passUnretained(tracker).toOpaque()
        sqlite3_update_hook(
            handle,
            { context, _, schema, table, _ in
                guard let context, let table, schema.map({ String(cString: $0) == "temp" }) != true else { return }
                Unmanaged<DBBChangeTracker>.fromOpaque(context).takeUnretainedValue().pending.insert(
                    String(cString: table))
            }, context)
        sqlite3_commit_hook(
            handle,
            { context in
                guard let context else { return 0 }
                let tracker = Unmanaged<DBBChangeTracker>.fromOpaque(context).takeUnretainedValue()
                tracker.committing.formUnion(tracker.pending)
                tracker.pending = []
                return 0  // 0 lets the commit proceed
            }, context)
        sqlite3_rollback_hook(
            handle,
            { context in
                guard let context else { return }
                let tracker = Unmanaged<DBBChangeTracker>.fromOpaque(context).takeUnretainedValue()
                tracker.pending = []
                tracker.committing = []
            }, context)
        installTrackingAuthorizer(handle)
        // Statements prepared before the tracker existed did not tell it what they write.
        clearStatementCache()
        return tracker
    }

    func installTrackingAuthorizer(_ handle: OpaquePointer) {
        guard let tracker = changeTracker else {
            sqlite3_set_authorizer(handle, nil, nil)
            return
        }
        sqlite3_set_authorizer(
            handle,
            { context, code, first, _, schema, trigger in
                guard let context else { return SQLITE_OK }
                return Unmanaged<DBBChangeTracker>.fromOpaque(context).takeUnretainedValue().authorize(
                    code, first, schema, trigger)
            }, Unmanaged.passUnretained(tracker).toOpaque())
    }

    func removeChangeTracker() {
        guard changeTracker != nil else { return }
        if let handle {
            sqlite3_update_hook(handle, nil, nil)
            sqlite3_commit_hook(handle, nil, nil)
            sqlite3_rollback_hook(handle, nil, nil)
            sqlite3_set_authorizer(handle, nil, nil)
        }
        changeTracker = nil
    }

    /// Begins collecting the tables a statement about to be prepared writes; returns nil when nobody
    /// observes commits.
    @inline(__always)
    func beginPreparing() -> DBBChangeTracker? {
        guard let tracker = changeTracker else { return nil }
        tracker.preparing = []
        return tracker
    }

    /// Called when a statement has run to its end: adds the tables it wrote that the update hook could not
    /// see, and delivers a transaction that committed.
    func statementDidFinish(writing tables: Set<String>) {
        guard let tracker = changeTracker, let handle else { return }
        if !tables.isEmpty, sqlite3_changes64(handle) > 0 {
            // The update hook reports rowid tables; a table it did not report is a WITHOUT ROWID one.
            // Adding a table the hook did report changes nothing.
            if sqlite3_get_autocommit(handle) != 0 {
                tracker.committing.formUnion(tables)
            } else {
                tracker.pending.formUnion(tables)
            }
        }
        guard !tracker.committing.isEmpty, sqlite3_get_autocommit(handle) != 0 else { return }
        let changes = DBBCommittedChanges(tableNames: tracker.committing)
        tracker.committing = []
        for observer in tracker.observers.sorted(by: { $0.key < $1.key }) { observer.value(changes) }
    }
}
