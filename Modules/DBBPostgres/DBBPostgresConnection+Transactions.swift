internal import DBBSQL

extension DBBPostgresConnection {
    /// A transaction's isolation level.
    ///
    /// Related PostgreSQL documentation: https://www.postgresql.org/docs/current/transaction-iso.html
    public enum IsolationLevel: String, Sendable, Hashable {
        /// Each statement sees what was committed before it began (PostgreSQL's default).
        case readCommitted = "READ COMMITTED"
        /// Every statement sees one snapshot, taken at the first statement.
        case repeatableRead = "REPEATABLE READ"
        /// As if the transactions ran one after another; a conflict fails with SQLSTATE `40001`, to be retried.
        case serializable = "SERIALIZABLE"
    }

    static func beginSQL(isolation: IsolationLevel?, readOnly: Bool) -> String {
        var sql = "BEGIN"
        if let isolation { sql += " ISOLATION LEVEL \(isolation.rawValue)" }
        if readOnly { sql += " READ ONLY" }
        return sql
    }

    /// Starts a transaction, waiting on the calling thread.
    ///
    /// - Parameters:
    ///   - isolation: the isolation level, or `nil` for the server's default (read committed).
    ///   - readOnly: whether the transaction refuses writes.
    /// - Throws: `DBBError`: the server's error, or a misuse (a call on an event-loop thread or in a task).
    public func begin(isolation: IsolationLevel? = nil, readOnly: Bool = false) throws {
        try run(Self.beginSQL(isolation: isolation, readOnly: readOnly), [], context: "beginning a transaction")
    }

    /// Commits the transaction, waiting on the calling thread.
    ///
    /// - Throws: `DBBError`: the server's error (a serialization failure is SQLSTATE `40001`), or of kind
    ///   `DBBError.Kind.server` with result code `DBBError.ResultCode.abort` when the server
    ///   rolled the transaction back instead because a statement in it had failed.
    public func commit() throws {
        let result = try run("COMMIT", [], context: "committing a transaction")
        try Self.checkCommitted(result)
    }

    /// Rolls the transaction back, waiting on the calling thread.
    ///
    /// - Throws: `DBBError`: the server's error, or a misuse (a call on an event-loop thread or in a task).
    public func rollback() throws {
        try run("ROLLBACK", [], context: "rolling back a transaction")
    }

    /// Runs `body` in a transaction, waiting on the calling thread: commits when it returns, rolls back when
    /// it throws.
    ///
    /// ```swift
    /// try db.inTransaction { db in
    ///     try db.execute("UPDATE account SET balance = balance - 10 WHERE id = $1", [.integer(1)])
    ///     try db.execute("UPDATE account SET balance = balance + 10 WHERE id = $1", [.integer(2)])
    /// }
    /// ```
    ///
    /// - Parameters:
    ///   - isolation: the isolation level, or `nil` for the server's default (read committed).
    ///   - readOnly: whether the transaction refuses writes.
    ///   - body: the work, given this connection.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws (after the rollback), or `DBBError` when beginning or committing fails.
    public func inTransaction<T>(
        isolation: IsolationLevel? = nil, readOnly: Bool = false, _ body: (DBBPostgresConnection) throws -> T
    ) throws -> T {
        try begin(isolation: isolation, readOnly: readOnly)
        let value: T
        do {
            value = try body(self)
        } catch {
            try? rollback()
            throw error
        }
        try commit()
        return value
    }

    /// Starts a transaction, suspending the calling task.
    ///
    /// - Parameters:
    ///   - isolation: the isolation level, or `nil` for the server's default (read committed).
    ///   - readOnly: whether the transaction refuses writes.
    /// - Throws: `DBBError`: the server's error.
    public func begin(isolation: IsolationLevel? = nil, readOnly: Bool = false) async throws {
        try await run(Self.beginSQL(isolation: isolation, readOnly: readOnly), [], context: "beginning a transaction")
    }

    /// Commits the transaction, suspending the calling task.
    ///
    /// - Throws: `DBBError`, as the synchronous ``commit()`` does.
    public func commit() async throws {
        let result = try await run("COMMIT", [], context: "committing a transaction")
        try Self.checkCommitted(result)
    }

    /// Rolls the transaction back, suspending the calling task.
    ///
    /// - Throws: `DBBError`: the server's error.
    public func rollback() async throws {
        try await run("ROLLBACK", [], context: "rolling back a transaction")
    }

    /// Runs `body` in a transaction, suspending the calling task: commits when it returns, rolls back when it
    /// throws.
    ///
    /// - Parameters:
    ///   - isolation: the isolation level, or `nil` for the server's default (read committed).
    ///   - readOnly: whether the transaction refuses writes.
    ///   - body: the work, given this connection.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws (after the rollback), or `DBBError` when beginning or committing fails.
    public func inTransaction<T>(
        isolation: IsolationLevel? = nil, readOnly: Bool = false, _ body: (DBBPostgresConnection) async throws -> T
    ) async throws -> T {
        try await begin(isolation: isolation, readOnly: readOnly)
        let value: T
        do {
            value = try await body(self)
        } catch {
            try? await rollback()
            throw error
        }
        try await commit()
        return value
    }

    /// PostgreSQL answers `COMMIT` in a failed transaction with a rollback and no error; that is an error here.
    private static func checkCommitted(_ result: DBBPostgresResult) throws {
        if result.command == "ROLLBACK" {
            throw DBBError.server(
                sqlState: "25P02", extendedCode: DBBError.ResultCode.abort.rawValue,
                message: "the server rolled the transaction back instead of committing it, because a statement in "
                    + "it had failed", sql: "COMMIT", context: "committing a transaction")
        }
    }
}
