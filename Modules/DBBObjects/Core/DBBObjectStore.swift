package import DBBSQL

/// Where a manager's object work runs: the one seam between the object layer and a database engine.
///
/// A manager holds exactly one store and never asks which engine it is. SQLite's store (``DBBSQLiteObjectStore``)
/// wraps the serial queue and the reader pool; `DBBPostgres` provides PostgreSQL's. The manager writes the
/// wrappers every engine shares once (scopes, instrumentation, error recording); a store adds only what is its
/// engine's own: its connections and their queues, its transactions, whether failed work may run again, how it
/// reports commits, and how it runs a migration.
///
/// | Manager call | Store call |
/// | --- | --- |
/// | a save, fetch, count or delete (``DBBObjectWork``) | ``perform(_:isWrite:report:)`` or its `async` form |
/// | `manager.write { }`, `manager.read { }` | ``withConnection(isWrite:_:)``, then the connection's ``DBBStoreConnection/inTransaction(isWrite:_:)`` |
/// | an object call inside such a closure | ``DBBStoreConnection/perform(joining:isWrite:)`` |
/// | `manager.observe` | ``performObserved(_:tables:onChange:snapshotBegins:)`` |
/// | `DBBMigrator.migrate(_:)` | ``runMigration(_:manager:)`` |
package protocol DBBObjectStore: AnyObject, Sendable {
    /// The SQL the engine takes; every class registered with the manager writes its statements in it.
    var dialect: DBBSQLDialect { get }

    /// A description of the database for error messages, with no password (`postgres://app@127.0.0.1:5432/app`,
    /// or a file's path).
    var location: String { get }

    /// The engine's name in spans (`db.system.name`): `sqlite`, `postgresql`.
    var systemName: String { get }

    /// How SQL of one's own runs on this engine, for the refusal of a call that takes another engine's connection.
    var ownSQLAdvice: String { get }

    /// The database's name in spans (`db.namespace`): a file's name, or the server's address and database.
    var namespace: String { get }

    /// Whether reads run on reader connections beside the writer.
    var hasReaders: Bool { get }

    /// The connection whose queue the caller is on, when it is one of this store's; `nil` elsewhere. Work
    /// started from inside a `write` or `read` closure joins that connection's transaction.
    var currentConnection: (any DBBStoreConnection)? { get }

    /// Runs work in one write transaction on the writer connection, or in one read snapshot on a reader; the
    /// caller waits for it. A store may run work again when its transaction failed in a way that changed nothing.
    ///
    /// - Parameters:
    ///   - work: the work.
    ///   - isWrite: whether the work writes.
    ///   - report: what reports the operation, told when the work starts on its connection.
    /// - Throws: `DBBError` when the work or its transaction fails (a failed write changes nothing), or (misuse)
    ///   when called from one of the store's own queues outside a `write` or `read` closure, which would wait for
    ///   itself.
    func perform<Work: DBBObjectWork>(_ work: Work, isWrite: Bool, report: DBBOperationReport?) throws -> Work.Result

    /// ``perform(_:isWrite:report:)`` without blocking the calling task; the result (new objects) is handed to the
    /// caller.
    ///
    /// - Throws: as the synchronous form.
    func perform<Work: DBBObjectWork>(_ work: Work, isWrite: Bool, report: DBBOperationReport?) async throws
        -> sending Work.Result

    /// Runs `body` on the queue of a connection (the writer for writes and when there are no readers, else a
    /// reader), waiting for it. `manager.write { }` and `manager.read { }` open their transaction in it.
    ///
    /// - Parameters:
    ///   - isWrite: whether the work writes.
    ///   - body: the work, given the connection.
    /// - Throws: what `body` throws; `DBBError` when the store is closed or the caller may not wait.
    func withConnection<T>(isWrite: Bool, _ body: (any DBBStoreConnection) throws -> T) throws -> T

    /// ``withConnection(isWrite:_:)-(_,(any DBBStoreConnection)->T)`` without blocking the calling task.
    ///
    /// - Throws: as the synchronous form.
    func withConnection<T>(isWrite: Bool, _ body: @escaping @Sendable (any DBBStoreConnection) throws -> sending T)
        async throws -> sending T

    /// Runs the read of an observation in a snapshot that begins once every commit it does not hold will be
    /// reported through `onChange`: SQLite installs its writer's commit observer and begins the snapshot between
    /// two writes; a server listens for its tables' notifications first.
    ///
    /// - Parameters:
    ///   - work: the read.
    ///   - tables: the tables the read depends on, whose commits are to be reported.
    ///   - onChange: called with the lowercased names of the tables a commit changed, or with `nil` when reports
    ///     may have been lost, meaning any table may have changed.
    ///   - snapshotBegins: called right before the snapshot begins.
    /// - Throws: `DBBError` when the read fails or commits cannot be observed.
    func performObserved<Work: DBBObjectWork>(
        _ work: Work, tables: Set<String>, onChange: @escaping @Sendable (Set<String>?) -> Void,
        snapshotBegins: @escaping @Sendable () -> Void
    ) async throws -> sending Work.Result

    /// Runs one migration in one write transaction, in the engine's forms: SQLite rebuilds tables with its
    /// foreign keys switched off and checks them afterwards; a server alters tables in place and checks its own.
    /// The migration is recorded in the same transaction.
    ///
    /// - Parameters:
    ///   - migration: the migration.
    ///   - manager: the manager, which data steps use.
    /// - Throws: the error of a failing step, after which the migration changed nothing.
    func runMigration(_ migration: DBBMigrator.Migration, manager: DBBManager) throws

    /// Sets the statement logs and metrics of the store's connections, where the engine reports them itself.
    ///
    /// - Parameter instrumentation: what to report.
    /// - Throws: `DBBError` (misuse) when called from one of the store's own queues.
    func setInstrumentation(_ instrumentation: DBBInstrumentation) throws

    /// Closes the connections; later work fails with a clear error.
    ///
    /// - Throws: `DBBError` when a connection cannot be closed cleanly.
    func close() throws
}

/// One connection of a store and the serial queue it is used on, as a `write` or `read` closure uses it. Touched
/// only on that queue.
package protocol DBBStoreConnection: AnyObject {
    /// The `write` or `read` closure running on this connection, `nil` between closures.
    var scope: DBBManagerScope? { get set }

    /// Runs `body` in a transaction of its own: a write transaction, or a read-only snapshot. Committed when
    /// `body` returns, rolled back when it throws.
    ///
    /// - Parameters:
    ///   - isWrite: whether `body` writes.
    ///   - body: the work.
    /// - Throws: what `body` throws, or `DBBError` when the transaction cannot begin or commit.
    func inTransaction<T>(isWrite: Bool, _ body: () throws -> T) throws -> T

    /// Runs work inside the transaction of the `write` or `read` closure running on this connection.
    ///
    /// - Parameters:
    ///   - work: the work.
    ///   - isWrite: whether it writes.
    /// - Throws: `DBBError` when a statement fails.
    func perform<Work: DBBObjectWork>(joining work: Work, isWrite: Bool) throws -> Work.Result
}
