public import DBBSQL
internal import Tracing

/// The transaction (``DBBManager/write(_:)-6ujxo``) or snapshot (``DBBManager/read(_:)-1s4ss``) that
/// object calls join while its closure runs. Touched only on the queue of its connection.
package final class DBBManagerScope {
    /// The SQLite connection of the transaction; `nil` on a server, whose engine joins its own lane's.
    let database: DBBDatabase?
    /// Whether the scope is a `write` closure's transaction (else a `read` closure's snapshot).
    package let isWrite: Bool
    /// Restores the objects a save or delete inside the transaction changed, should it roll back.
    var undo: [() -> Void] = []
    /// The span of the closure, when the manager reports spans: the parent of the operations inside.
    var serviceContext: ServiceContext?

    init(database: DBBDatabase?, isWrite: Bool) {
        self.database = database
        self.isWrite = isWrite
    }
}

/// Where the scope of one connection lives while its closure runs; touched only on that connection's queue.
package final class DBBManagerScopeSlot {
    /// The running closure's scope, `nil` between closures.
    package var scope: DBBManagerScope?

    package init() {}
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
        return try inScope(isWrite: true, body)
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
        try inScope(isWrite: false, body)
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
        if server != nil { return try inServerScope(isWrite: true, body) }
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
        if server != nil { return try inServerScope(isWrite: false, body) }
        return try inScope(isWrite: false) { _ in try body() }
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
        return try await inAnyScope(isWrite: true, body)
    }

    /// ``read(_:)-(()->T)`` without blocking the calling task; the closure is `@Sendable`, as for the async
    /// `write { }`.
    ///
    /// - Parameter body: the work.
    /// - Returns: what the closure returns.
    /// - Throws: as the synchronous form.
    public func read<T>(_ body: @escaping @Sendable () throws -> sending T) async throws -> sending T {
        return try await inAnyScope(isWrite: false, body)
    }

    /// Runs an `async` `write` or `read` closure without a connection parameter on the manager's engine.
    private func inAnyScope<T>(isWrite: Bool, _ body: @escaping @Sendable () throws -> sending T)
        async throws -> sending T
    {
        guard let server else { return try await inScope(isWrite: isWrite) { _ in try body() } }
        let probe = beginTransaction(isWrite: isWrite, onReader: false)
        do {
            let result = try await server.withLane(isWrite: isWrite) { lane in
                DBBHandOver(try self.runServerScope(on: lane, isWrite: isWrite, probe: probe, body))
            }.take()
            probe?.end(nil)
            return result
        } catch let error as DBBError {
            probe?.end(error)
            throw record(error)
        } catch {
            probe?.end(error)
            throw error
        }
    }

    /// Runs a `write` or `read` closure of a server manager on a connection of its engine, waiting for it.
    private func inServerScope<T>(isWrite: Bool, _ body: () throws -> T) throws -> T {
        guard let server else { preconditionFailure("a server scope on a manager of a file") }
        if server.currentLane != nil {
            throw record(
                DBBError.misuse(
                    "manager.write and manager.read do not nest, and do not run inside the manager's queue",
                    recovery: "call object methods directly inside the closure; they join its transaction",
                    context: isWrite ? "writing" : "reading"))
        }
        let probe = beginTransaction(isWrite: isWrite, onReader: false)
        do {
            let result = try server.withLane(isWrite: isWrite) { lane in
                try self.runServerScope(on: lane, isWrite: isWrite, probe: probe, body)
            }
            probe?.end(nil)
            return result
        } catch let error as DBBError {
            probe?.end(error)
            throw record(error)
        } catch {
            probe?.end(error)
            throw error  // the closure's own errors reach the caller as they are
        }
    }

    /// Runs a closure in a transaction (or a read-only snapshot) on a server's connection, with its scope
    /// active so that object calls inside join it; call on the connection's queue.
    private func runServerScope<T>(
        on lane: any DBBServerLane, isWrite: Bool, probe: DBBTransactionProbe?, _ body: () throws -> T
    ) throws -> T {
        probe?.started()
        let scope = DBBManagerScope(database: nil, isWrite: isWrite)
        scope.serviceContext = probe?.probe.span?.context
        lane.scopeSlot.scope = scope
        defer { lane.scopeSlot.scope = nil }
        do {
            try lane.begin(isWrite: isWrite)
            do {
                let result = try body()
                try lane.commit()
                return result
            } catch {
                lane.rollback()
                throw error
            }
        } catch {
            for undo in scope.undo.reversed() { undo() }
            throw error
        }
    }

    private func inScope<T>(isWrite: Bool, _ body: (DBBDatabase) throws -> T) throws -> T {
        try requireLocalDatabase(isWrite ? "manager.write" : "manager.read")
        if queue.isOnQueue || pool?.currentReaderIndex != nil {
            throw record(
                DBBError.misuse(
                    "manager.write and manager.read do not nest, and do not run inside the manager's queue",
                    recovery: "call object methods directly inside the closure; they join its transaction",
                    context: isWrite ? "writing" : "reading"))
        }
        let probe = beginTransaction(isWrite: isWrite, onReader: !isWrite && pool != nil)
        do {
            let result: T
            if !isWrite, let pool {
                result = try pool.unsafeRead { db in try self.runScope(in: db, isWrite: false, probe: probe, body) }
            } else {
                result = try queue.inDatabase { db in try self.runScope(in: db, isWrite: isWrite, probe: probe, body) }
            }
            probe?.end(nil)
            return result
        } catch let error as DBBError {
            probe?.end(error)
            throw record(error)
        } catch {
            probe?.end(error)
            throw error  // the closure's own errors reach the caller as they are
        }
    }

    /// The slot of the connection whose queue the caller is on: the writer's, or a reader's.
    private var currentSlot: DBBManagerScopeSlot? {
        if let server { return server.currentLane?.scopeSlot }
        if queue.isOnQueue { return writerScope }
        if let index = pool?.currentReaderIndex { return readerScopes[index] }
        return nil
    }

    /// Runs a `write` or `read` closure on its connection's queue, in its transaction, with its scope active.
    private func runScope<T>(
        in db: DBBDatabase, isWrite: Bool, probe: DBBTransactionProbe?, _ body: (DBBDatabase) throws -> T
    ) throws -> T {
        probe?.started()
        let scope = DBBManagerScope(database: db, isWrite: isWrite)
        scope.serviceContext = probe?.probe.span?.context
        let slot = currentSlot ?? writerScope
        slot.scope = scope
        defer { slot.scope = nil }
        do {
            if isWrite { return try db.inTransaction(.immediate, body) }
            return try db.inSnapshot { db in
                // query_only refuses writes until the end (readers of a pool are query_only already).
                let wasQueryOnly = try db.isQueryOnly()
                try db.setQueryOnly(true)
                defer { if !wasQueryOnly { try? db.setQueryOnly(false) } }
                return try body(db)
            }
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
        return try await inScope(isWrite: true, body)
    }

    /// ``read(_:)`` without blocking the calling task; the closure is `@Sendable`, as for the async
    /// ``write(_:)-6ujxo``.
    ///
    /// - Parameter body: the work; it receives the connection for queries of its own.
    /// - Returns: what the closure returns.
    /// - Throws: as ``read(_:)``.
    public func read<T>(_ body: @escaping @Sendable (DBBDatabase) throws -> sending T) async throws -> sending T {
        try await inScope(isWrite: false, body)
    }

    private func inScope<T>(isWrite: Bool, _ body: @escaping @Sendable (DBBDatabase) throws -> sending T)
        async throws -> sending T
    {
        try requireLocalDatabase(isWrite ? "manager.write" : "manager.read")
        let probe = beginTransaction(isWrite: isWrite, onReader: !isWrite && pool != nil)
        do {
            let work: @Sendable (DBBDatabase) throws -> sending DBBHandOver<T> = { db in
                // The closure's result is its own (`sending`); nothing on the queue keeps it.
                DBBHandOver(try self.runScope(in: db, isWrite: isWrite, probe: probe, body))
            }
            let handOver: DBBHandOver<T>
            if !isWrite, let pool {
                handOver = try await pool.unsafeRead(work)
            } else {
                handOver = try await queue.inDatabase(work)
            }
            probe?.end(nil)
            return handOver.take()
        } catch let error as DBBError {
            probe?.end(error)
            throw record(error)
        } catch {
            probe?.end(error)
            throw error
        }
    }

    /// The scope whose closure is running, when the caller is that closure (on the queue of its connection).
    var activeScope: DBBManagerScope? { currentSlot?.scope }

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
