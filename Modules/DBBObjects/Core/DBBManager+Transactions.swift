public import DBBSQL
internal import Foundation

/// The transaction (``DBBManager/write(_:)-6ujxo``) or snapshot (``DBBManager/read(_:)-1s4ss``) that
/// object calls join while its closure runs. Touched only on the manager's queue.
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
    /// commit meanwhile. Writes inside are refused.
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
        if queue.isOnQueue {
            throw record(
                DBBError.misuse(
                    "manager.write and manager.read do not nest, and do not run inside the manager's queue",
                    recovery: "call object methods directly inside the closure; they join its transaction",
                    context: isWrite ? "writing" : "reading"))
        }
        do {
            return try queue.inDatabase { db in try self.runScope(in: db, isWrite: isWrite, body) }
        } catch let error as DBBError {
            throw record(error)
        }  // the closure's own errors reach the caller as they are
    }

    /// Runs a `write` or `read` closure on the queue, in its transaction, with its scope active.
    private func runScope<T>(in db: DBBDatabase, isWrite: Bool, _ body: (DBBDatabase) throws -> T) throws -> T {
        let scope = DBBManagerScope(database: db, isWrite: isWrite)
        self.scope = scope
        defer { self.scope = nil }
        do {
            if isWrite { return try db.inTransaction(.immediate, body) }
            return try db.inTransaction(.deferred) { db in
                // A deferred transaction takes its snapshot at its first read: read now, so that everything
                // inside sees one snapshot; query_only refuses writes until the end.
                _ = try db.fetchValue(Int.self, "SELECT count(*) FROM sqlite_master")
                let wasQueryOnly = try db.fetchValue(Bool.self, "PRAGMA query_only") ?? false
                try db.execute("PRAGMA query_only = ON")
                defer { if !wasQueryOnly { try? db.execute("PRAGMA query_only = OFF") } }
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
        do {
            let handOver = try await queue.inDatabase { db in
                // The closure's result is its own (`sending`); nothing on the queue keeps it.
                DBBHandOver(try self.runScope(in: db, isWrite: isWrite, body))
            }
            return handOver.take()
        } catch let error as DBBError {
            throw record(error)
        }
    }

    /// The scope whose closure is running, when the caller is that closure (on the manager's queue).
    var activeScope: DBBManagerScope? { queue.isOnQueue ? scope : nil }

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
