public import DBBSQL
internal import Tracing

/// The transaction (``DBBManager/write(_:)-6ujxo``) or snapshot (``DBBManager/read(_:)-1s4ss``) that
/// object calls join while its closure runs. Touched only on the queue of its connection.
package final class DBBManagerScope {
    /// Whether the scope is a `write` closure's transaction (else a `read` closure's snapshot).
    package let isWrite: Bool
    /// Restores the objects a save or delete inside the transaction changed, should it roll back.
    var undo: [() -> Void] = []
    /// The span of the closure, when the manager reports spans: the parent of the operations inside.
    var serviceContext: ServiceContext?

    init(isWrite: Bool) {
        self.isWrite = isWrite
    }
}

// swift-format-ignore: AmbiguousTrailingClosureOverload
// `write` and `read` are overloaded on the closure's parameter list, which tells them apart: `{ db in … }` takes
// SQLite's connection, `{ … }` runs on either engine.
extension DBBManager {
    /// Runs a closure in one `IMMEDIATE` transaction in which object saves, deletes, fetches and the
    /// connection's own SQL all take part: committed when the closure returns, rolled back as a whole when
    /// it throws — and then the objects saved or deleted inside get back the ids and state they had.
    ///
    /// ```swift
    /// try manager.write { db in
    ///     try author.save()
    ///     try book.save()
    ///     try db.execute("UPDATE Shelf SET bookCount = bookCount + 1")
    /// }
    /// ```
    ///
    /// Object calls inside use the closure's transaction instead of queueing behind it. Call it from outside
    /// the manager's queue; `write` and `read` do not nest.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/lang_transaction.html
    ///
    /// - Parameter body: the work; it receives the connection for SQL of its own.
    /// - Returns: what the closure returns.
    /// - Throws: what the closure throws (after rolling back), `DBBError` (misuse) on a read-only manager or
    ///   when nested, or SQLite's errors beginning or committing.
    public func write<T>(_ body: (DBBDatabase) throws -> T) throws -> T {
        try requireWritable("writing")
        let sqlite = try sqliteStore("manager.write")
        return try inScope(isWrite: true) { connection in try body(try sqlite.database(of: connection)) }
    }

    /// Runs a closure that reads in one snapshot: object fetches and counts and the connection's own
    /// queries inside all see the database as it was when the closure began, whatever other connections
    /// commit meanwhile. Writes inside are refused. With readers (``init(databaseURL:mode:readers:)``) it
    /// runs on a reader, in parallel with other reads and with the writer.
    ///
    /// ```swift
    /// let (projects, meetings) = try manager.read { _ in
    ///     (try Project.fetchAll(manager: manager), try Meeting.fetchCount(manager: manager))
    /// }
    /// ```
    ///
    /// - Parameter body: the work; it receives the connection for queries of its own.
    /// - Returns: what the closure returns.
    /// - Throws: what the closure throws, `DBBError` (misuse) when nested or for an object write inside, or
    ///   SQLite's errors.
    public func read<T>(_ body: (DBBDatabase) throws -> T) throws -> T {
        let sqlite = try sqliteStore("manager.read")
        return try inScope(isWrite: false) { connection in try body(try sqlite.database(of: connection)) }
    }

    /// Runs a closure in one write transaction in which object saves, deletes and fetches all take part,
    /// on either engine: an `IMMEDIATE` transaction on SQLite (as ``write(_:)-6ujxo``), one transaction on
    /// the writer connection of a server. Committed when the closure returns; rolled back as a whole when it
    /// throws, and then the objects saved or deleted inside get back the ids and state they had.
    ///
    /// ```swift
    /// try manager.write {
    ///     try author.save()
    ///     try book.save()
    /// }
    /// ```
    ///
    /// On a server the closure runs on the writer connection's own thread while the caller waits; a
    /// transaction whose connection ends is reported, never run again (the closure may have done more than
    /// save plain data). For SQL of the engine's own in the transaction, use ``write(_:)-6ujxo`` on SQLite,
    /// or the connection `DBBPostgres` gives inside the closure.
    ///
    /// - Parameter body: the work.
    /// - Returns: what the closure returns.
    /// - Throws: what the closure throws (after rolling back), `DBBError` (misuse) on a read-only manager or
    ///   when nested, or the engine's errors beginning or committing.
    public func write<T>(_ body: () throws -> T) throws -> T {
        try requireWritable("writing")
        return try inScope(isWrite: true) { _ in try body() }
    }

    /// Runs a closure that reads in one snapshot on either engine: object fetches and counts inside all see
    /// the database as it was when the closure began. On SQLite as ``read(_:)``; on a server in one
    /// `REPEATABLE READ`, read-only transaction on a reader connection. Writes inside are refused.
    ///
    /// - Parameter body: the work.
    /// - Returns: what the closure returns.
    /// - Throws: what the closure throws, `DBBError` (misuse) when nested or for an object write inside, or
    ///   the engine's errors.
    public func read<T>(_ body: () throws -> T) throws -> T {
        try inScope(isWrite: false) { _ in try body() }
    }

    /// ``write(_:)-(()->T)`` without blocking the calling task. The closure runs on the connection's
    /// queue, so it is `@Sendable`: it fetches the objects it changes (by id) rather than capturing the
    /// caller's, and its result is handed back as a `sending` value.
    ///
    /// - Parameter body: the work.
    /// - Returns: what the closure returns.
    /// - Throws: as the synchronous form.
    public func write<T>(_ body: @escaping @Sendable () throws -> sending T) async throws -> sending T {
        try requireWritable("writing")
        return try await inScope(isWrite: true) { _ in try body() }
    }

    /// ``read(_:)-(()->T)`` without blocking the calling task; the closure is `@Sendable`, as for the async
    /// `write { }`.
    ///
    /// - Parameter body: the work.
    /// - Returns: what the closure returns.
    /// - Throws: as the synchronous form.
    public func read<T>(_ body: @escaping @Sendable () throws -> sending T) async throws -> sending T {
        try await inScope(isWrite: false) { _ in try body() }
    }

    /// Runs a `write` or `read` closure on a connection of the store, in its transaction or snapshot, waiting for
    /// it: the one wrapper of every engine's closures, which reports them, records their failures, and undoes
    /// what a rolled-back transaction did to objects.
    private func inScope<T>(isWrite: Bool, _ body: (any DBBStoreConnection) throws -> T) throws -> T {
        if store.currentConnection != nil {
            throw record(
                DBBError.misuse(
                    "manager.write and manager.read do not nest, and do not run inside the manager's queue",
                    recovery: "call object methods directly inside the closure; they join its transaction",
                    context: isWrite ? "writing" : "reading"))
        }
        let report = beginTransaction(isWrite: isWrite, onReader: !isWrite && store.hasReaders)
        do {
            let result = try store.withConnection(isWrite: isWrite) { connection in
                try self.runScope(on: connection, isWrite: isWrite, report: report, body)
            }
            report?.end(nil)
            return result
        } catch let error as DBBError {
            report?.end(error)
            throw record(error)
        } catch {
            report?.end(error)
            throw error  // the closure's own errors reach the caller as they are
        }
    }

    /// ``inScope(isWrite:_:)-(_,(any DBBStoreConnection)->T)`` without blocking the calling task.
    private func inScope<T>(isWrite: Bool, _ body: @escaping @Sendable (any DBBStoreConnection) throws -> sending T)
        async throws -> sending T
    {
        let report = beginTransaction(isWrite: isWrite, onReader: !isWrite && store.hasReaders)
        do {
            let result = try await store.withConnection(isWrite: isWrite) { connection in
                DBBResultTransfer(try self.runScope(on: connection, isWrite: isWrite, report: report, body))
            }.take()
            report?.end(nil)
            return result
        } catch let error as DBBError {
            report?.end(error)
            throw record(error)
        } catch {
            report?.end(error)
            throw error
        }
    }

    /// Runs a `write` or `read` closure on its connection's queue, in its transaction, with its scope active so
    /// that object calls inside join it.
    private func runScope<T>(
        on connection: any DBBStoreConnection, isWrite: Bool, report: DBBTransactionReport?,
        _ body: (any DBBStoreConnection) throws -> T
    ) throws -> T {
        report?.started()
        let scope = DBBManagerScope(isWrite: isWrite)
        scope.serviceContext = report?.operation.span?.context
        connection.scope = scope
        defer { connection.scope = nil }
        do {
            return try connection.inTransaction(isWrite: isWrite) { try body(connection) }
        } catch {
            for undo in scope.undo.reversed() { undo() }
            throw error
        }
    }

    /// ``write(_:)-6ujxo`` without blocking the calling task. The closure runs on the manager's queue, so it
    /// is `@Sendable`: it fetches the objects it changes (by id) rather than capturing the caller's, and its
    /// result is handed back as a `sending` value.
    ///
    /// - Parameter body: the work; it receives the connection for SQL of its own.
    /// - Returns: what the closure returns.
    /// - Throws: as ``write(_:)-6ujxo``.
    public func write<T>(_ body: @escaping @Sendable (DBBDatabase) throws -> sending T) async throws -> sending T {
        try requireWritable("writing")
        let sqlite = try sqliteStore("manager.write")
        return try await inScope(isWrite: true) { connection in try body(try sqlite.database(of: connection)) }
    }

    /// ``read(_:)`` without blocking the calling task; the closure is `@Sendable`, as for the async
    /// ``write(_:)-6ujxo``.
    ///
    /// - Parameter body: the work; it receives the connection for queries of its own.
    /// - Returns: what the closure returns.
    /// - Throws: as ``read(_:)``.
    public func read<T>(_ body: @escaping @Sendable (DBBDatabase) throws -> sending T) async throws -> sending T {
        let sqlite = try sqliteStore("manager.read")
        return try await inScope(isWrite: false) { connection in try body(try sqlite.database(of: connection)) }
    }

    /// The scope whose closure is running, when the caller is that closure (on the queue of its connection).
    var activeScope: DBBManagerScope? { store.currentConnection?.scope }

    /// Remembers objects' persistence state before a save or delete inside ``write(_:)-6ujxo`` changes it, so a
    /// rollback of the whole transaction restores it.
    func rememberForRollback(_ objects: [DBBTableObject]) {
        guard let scope = activeScope else { return }
        let states = objects.map { object in
            (
                object, object.idNum, object.hasStoredRow, object.createdTime, object.modifiedTime, object.isDirty,
                object.loadedProperties, object.unloadedSnapshot
            )
        }
        scope.undo.append {
            for (object, id, stored, created, modified, dirty, loaded, snapshot) in states {
                object.idNum = id
                object.hasStoredRow = stored
                object.createdTime = created
                object.modifiedTime = modified
                object.isDirty = dirty
                object.loadedProperties = loaded
                object.unloadedSnapshot = snapshot
            }
        }
    }
}
