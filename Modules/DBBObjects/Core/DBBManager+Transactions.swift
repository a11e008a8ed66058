public import DBBSQL

/// The transaction (``DBBManager/write(_:)-6ujxo``) or snapshot (``DBBManager/read(_:)-1s4ss``) that
/// object calls join while its closure runs. Touched only on the queue of its connection.
final class DBBManagerScope {
    let database: DBBDatabase
    let isWrite: Bool
    /// Restores the objects a save or delete inside the transaction changed, should it roll back.
    var undo: [() -> Void] = []

    init(database: DBBDatabase, isWrite: Bool) {
        self.database = database
        self.isWrite = isWrite
    }
}

/// Where the scope of one connection lives while its closure runs; touched only on that connection's queue.
final class DBBManagerScopeSlot {
    var scope: DBBManagerScope?
}

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

    private func inScope<T>(isWrite: Bool, _ body: (DBBDatabase) throws -> T) throws -> T {
        try requireLocalDatabase(isWrite ? "manager.write" : "manager.read")
        if queue.isOnQueue || pool?.currentReaderIndex != nil {
            throw record(
                DBBError.misuse(
                    "manager.write and manager.read do not nest, and do not run inside the manager's queue",
                    recovery: "call object methods directly inside the closure; they join its transaction",
                    context: isWrite ? "writing" : "reading"))
        }
        do {
            if !isWrite, let pool {
                return try pool.unsafeRead { db in try self.runScope(in: db, isWrite: false, body) }
            }
            return try queue.inDatabase { db in try self.runScope(in: db, isWrite: isWrite, body) }
        } catch let error as DBBError {
            throw record(error)
        }  // the closure's own errors reach the caller as they are
    }

    /// The slot of the connection whose queue the caller is on: the writer's, or a reader's.
    private var currentSlot: DBBManagerScopeSlot? {
        if queue.isOnQueue { return writerScope }
        if let index = pool?.currentReaderIndex { return readerScopes[index] }
        return nil
    }

    /// Runs a `write` or `read` closure on its connection's queue, in its transaction, with its scope active.
    private func runScope<T>(in db: DBBDatabase, isWrite: Bool, _ body: (DBBDatabase) throws -> T) throws -> T {
        let scope = DBBManagerScope(database: db, isWrite: isWrite)
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
        do {
            let work: @Sendable (DBBDatabase) throws -> sending DBBHandOver<T> = { db in
                // The closure's result is its own (`sending`); nothing on the queue keeps it.
                DBBHandOver(try self.runScope(in: db, isWrite: isWrite, body))
            }
            let handOver: DBBHandOver<T>
            if !isWrite, let pool {
                handOver = try await pool.unsafeRead(work)
            } else {
                handOver = try await queue.inDatabase(work)
            }
            return handOver.take()
        } catch let error as DBBError {
            throw record(error)
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
