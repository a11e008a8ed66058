internal import CSQLite

/// The kind of lock a transaction takes when it begins.
///
/// Related SQLite documentation: https://www.sqlite.org/lang_transaction.html
public enum DBBTransactionKind: String, Sendable, Hashable {
    /// Takes no lock until the first read or write (SQLite's default).
    case deferred = "DEFERRED"
    /// Takes the write lock at once, so later writes cannot fail with `SQLITE_BUSY`.
    case immediate = "IMMEDIATE"
    /// Takes the write lock at once and, outside WAL mode, keeps readers out.
    case exclusive = "EXCLUSIVE"
}

extension DBBDatabase {
    /// Whether a transaction is open on this connection.
    public var isInTransaction: Bool { handle.map { sqlite3_get_autocommit($0) == 0 } ?? false }

    /// Begins a transaction.
    ///
    /// - Parameter kind: the lock to take. Default: ``DBBTransactionKind/deferred``.
    /// - Throws: ``DBBError`` when a transaction is already open, or the lock cannot be taken.
    public func beginTransaction(_ kind: DBBTransactionKind = .deferred) throws {
        try execute("BEGIN \(kind.rawValue) TRANSACTION")
    }

    /// Commits the open transaction.
    ///
    /// - Throws: ``DBBError`` when no transaction is open, or the commit fails (the transaction then stays open).
    public func commit() throws {
        try execute("COMMIT TRANSACTION")
    }

    /// Rolls back the open transaction. Does nothing when none is open (SQLite may have rolled it back itself).
    ///
    /// - Throws: ``DBBError`` when the rollback fails.
    public func rollback() throws {
        guard isInTransaction else { return }
        try execute("ROLLBACK TRANSACTION")
    }

    /// Runs a closure in a transaction: commits when it returns, rolls back when it throws.
    ///
    /// ```swift
    /// try db.inTransaction(.immediate) { db in
    ///     try db.execute("UPDATE account SET balance = balance - 10 WHERE id = 1")
    ///     try db.execute("UPDATE account SET balance = balance + 10 WHERE id = 2")
    /// }
    /// ```
    ///
    /// Inside an open transaction it runs as a savepoint instead, so calls nest.
    ///
    /// - Parameters:
    ///   - kind: the lock to take. Default: ``DBBTransactionKind/deferred``.
    ///   - body: the work; it receives this connection.
    /// - Returns: what the closure returns.
    /// - Throws: what the closure throws (after rolling back), or ``DBBError`` from begin or commit.
    public func inTransaction<T>(_ kind: DBBTransactionKind = .deferred, _ body: (DBBDatabase) throws -> T) throws -> T
    {
        if isInTransaction { return try inSavepoint(body) }
        try beginTransaction(kind)
        do {
            let result = try body(self)
            try commit()
            return result
        } catch {
            try? rollback()
            throw error
        }
    }

    /// Runs a closure in a read transaction whose snapshot is taken at once: every query inside sees the
    /// database as it was when the call began, whatever other connections commit meanwhile (in WAL mode
    /// they go on committing; in rollback-journal mode they wait until the snapshot ends).
    ///
    /// ```swift
    /// let (users, count) = try db.inSnapshot { db in
    ///     (try db.fetchValues(String.self, "SELECT name FROM user"), try db.fetchValue(Int.self, "SELECT count(*) FROM user"))
    /// }
    /// ```
    ///
    /// A deferred transaction takes its snapshot at its first read, so this one reads the schema first.
    /// Inside an open transaction it runs as a savepoint of that transaction, which already has its snapshot.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/isolation.html
    ///
    /// - Parameter body: the work; it receives this connection.
    /// - Returns: what the closure returns.
    /// - Throws: what the closure throws, or ``DBBError`` from beginning or ending the transaction.
    public func inSnapshot<T>(_ body: (DBBDatabase) throws -> T) throws -> T {
        try inTransaction(.deferred) { db in
            try db.startSnapshot()
            return try body(db)
        }
    }

    /// Makes the deferred transaction this connection is in take its snapshot now: SQLite takes it at the
    /// transaction's first read, not at `BEGIN`.
    ///
    /// - Throws: ``DBBError`` when the read fails.
    package func startSnapshot() throws {
        _ = try fetchValue(Int.self, "SELECT count(*) FROM sqlite_master")
    }

    /// Runs a closure inside a savepoint: released when it returns, rolled back to when it throws.
    /// Savepoints nest, and work inside or outside a transaction.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/lang_savepoint.html
    ///
    /// - Returns: what the closure returns.
    /// - Throws: what the closure throws (after rolling back to the savepoint), or ``DBBError``.
    public func inSavepoint<T>(_ body: (DBBDatabase) throws -> T) throws -> T {
        savepointDepth += 1
        let name = "dbb_savepoint_\(savepointDepth)"
        defer { savepointDepth -= 1 }
        try execute("SAVEPOINT \(name)")
        let result: T
        do {
            result = try body(self)
        } catch {
            // ROLLBACK TO keeps the savepoint open; RELEASE then closes it (and an outer transaction, if
            // the savepoint was the outermost).
            if isInTransaction {
                try? execute("ROLLBACK TO SAVEPOINT \(name)")
                try? execute("RELEASE SAVEPOINT \(name)")
            }
            throw error
        }
        try execute("RELEASE SAVEPOINT \(name)")
        return result
    }
}
