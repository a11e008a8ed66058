internal import DBBQuery
package import DBBSQL

/// A unit of object work (a fetch, a save, a delete, a class's schema) that runs on any engine's connection.
///
/// The work is generic over the connection, so that on SQLite it runs specialised for `DBBDatabase` and on a
/// server on that server's connection, through the same writer, loader and deleter.
package protocol DBBObjectWork: Sendable, SendableMetatype {
    /// What the work returns.
    associatedtype Result

    /// Whether the work reads with several statements, which must see one state: a read of one statement
    /// needs no transaction of its own on SQLite.
    static var readsSeveralStatements: Bool { get }

    /// Whether the work runs exactly one statement, which is a transaction by itself: a server runs it without
    /// `BEGIN` and `COMMIT`, two round trips fewer.
    var isSingleStatement: Bool { get }

    /// Runs the work on a connection, inside the transaction or snapshot its engine opened for it.
    ///
    /// - Parameter db: the connection.
    /// - Throws: `DBBError` when a statement fails.
    func run<Connection: DBBObjectConnection>(on db: Connection) throws -> Result

    /// The operation's name in spans and metrics (`db.operation.name`): `save`, `fetch`, `delete`, …
    static var operationName: String { get }

    /// The table the operation is about (`db.collection.name`), when it is about one.
    var collectionName: String? { get }

    /// The SQL text that selects the rows, for a span that may show it (`db.query.text`).
    var queryText: String? { get }
}

/// The engine of a manager on a database server: where its object work runs, in which transactions.
/// `DBBPostgres` provides PostgreSQL's; a manager without one runs on SQLite through ``DBBManager/queue``.
package protocol DBBServerStore: AnyObject, Sendable {
    /// The SQL the server takes; every class registered with the manager writes its statements in it.
    var dialect: DBBSQLDialect { get }

    /// A description of the server for error messages, with no password (`postgres://app@127.0.0.1:5432/app`).
    var location: String { get }

    /// Runs work in one write transaction on the writer connection, or in one read-only snapshot on a
    /// reader; the caller waits for it.
    ///
    /// - Parameters:
    ///   - work: the work.
    ///   - isWrite: whether the work writes.
    /// - Throws: `DBBError` when the work or the transaction fails; a failed write changes nothing.
    func perform<Work: DBBObjectWork>(_ work: Work, isWrite: Bool) throws -> Work.Result

    /// ``perform(_:isWrite:)`` without blocking the calling task: the work runs on the connection's own queue
    /// and its result (new objects) is handed to the caller.
    ///
    /// - Throws: as ``perform(_:isWrite:)``.
    func performAsync<Work: DBBObjectWork>(_ work: Work, isWrite: Bool) async throws -> sending Work.Result

    /// The connection whose queue the caller is on, when it is one of this engine's; `nil` elsewhere.
    var currentLane: (any DBBServerLane)? { get }

    /// Runs `body` on the queue of a connection (the writer for writes and when there are no readers, else
    /// a reader), waiting for it; ``DBBManager/write(_:)-(()->T)`` runs its transaction in it. Work
    /// ``perform(_:isWrite:)`` is given from inside `body` runs on that connection, in its transaction.
    ///
    /// - Parameters:
    ///   - isWrite: whether the work writes.
    ///   - body: the work, given the connection.
    /// - Throws: what `body` throws; `DBBError` when the engine is closed or the caller may not wait.
    func withLane<T>(isWrite: Bool, _ body: (any DBBServerLane) throws -> T) throws -> T

    /// ``withLane(isWrite:_:)-(_,(any DBBServerLane)->T)`` without blocking the calling task.
    ///
    /// - Parameters:
    ///   - isWrite: whether the work writes.
    ///   - body: the work, given the connection.
    /// - Throws: as the synchronous form.
    func withLane<T>(isWrite: Bool, _ body: @escaping @Sendable (any DBBServerLane) throws -> sending T)
        async throws -> sending T

    /// Starts reporting the tables that commits change, from this process and every other client of the
    /// server, if it does not already; returns once reports are flowing, so that a snapshot that begins
    /// afterwards misses no commit that is not reported.
    ///
    /// - Parameter onChange: called with the lowercased names of the tables a commit changed, or with `nil`
    ///   when reports may have been lost (a connection ended), meaning any table may have changed.
    /// - Throws: `DBBError` when the server cannot be listened to.
    func startObserving(_ onChange: @escaping @Sendable (Set<String>?) -> Void) async throws

    /// Closes the connections; later work fails with a clear error.
    ///
    /// - Throws: `DBBError` when a connection cannot be closed cleanly.
    func close() throws
}

/// One connection of a server engine, as a `write` or `read` closure uses it; touched only on its own queue.
package protocol DBBServerLane: AnyObject {
    /// The scope of the `write` or `read` closure running on this connection.
    var scopeSlot: DBBManagerScopeSlot { get }

    /// Begins the closure's transaction: a write transaction, or a read-only `REPEATABLE READ` snapshot.
    ///
    /// - Parameter isWrite: whether the closure writes.
    /// - Throws: `DBBError` when the server cannot be reached.
    func begin(isWrite: Bool) throws

    /// Commits the closure's transaction.
    ///
    /// - Throws: `DBBError` when the commit fails; the transaction is then over, and changed nothing.
    func commit() throws

    /// Rolls the closure's transaction back; a connection that ended has rolled it back already.
    func rollback()
}

extension DBBObjectWork {
    package var collectionName: String? { nil }
    package var queryText: String? { nil }
    package static var readsSeveralStatements: Bool { true }
    package var isSingleStatement: Bool { !Self.readsSeveralStatements }
}

extension DBBManager {
    /// Runs object work on the manager's engine: on its server's connections, or on SQLite's queue (a
    /// reader for reads when the manager has readers) in an `IMMEDIATE` transaction for writes and a deferred
    /// one for reads, joining the transaction of the `write` or `read` closure the caller is in. A failure is
    /// recorded for ``errorMessage()``.
    ///
    /// - Parameters:
    ///   - work: the work.
    ///   - isWrite: whether it writes.
    func perform<Work: DBBObjectWork>(_ work: Work, isWrite: Bool) throws -> Work.Result {
        guard let probe = beginOperation(work, onReader: !isWrite && pool != nil) else {
            return try perform(work, isWrite: isWrite, probe: nil)
        }
        do {
            let result = try perform(work, isWrite: isWrite, probe: probe)
            probe.end(nil)
            return result
        } catch {
            probe.end(error)
            throw error
        }
    }

    private func perform<Work: DBBObjectWork>(_ work: Work, isWrite: Bool, probe: DBBOperationProbe?) throws
        -> Work.Result
    {
        if let server {
            do {
                probe?.started()
                return try server.perform(work, isWrite: isWrite)
            } catch {
                throw record(error)
            }
        }
        if isWrite {
            return try run { db in
                probe?.started()
                // One statement is a transaction by itself: a BEGIN and a COMMIT around it would only cost time.
                if work.isSingleStatement && !db.isInTransaction { return try work.run(on: db) }
                return try db.inTransaction(.immediate) { db in try work.run(on: db) }
            }
        }
        guard Work.readsSeveralStatements else {
            return try runRead { db in
                probe?.started()
                return try work.run(on: db)
            }
        }
        return try runRead { db in
            probe?.started()
            return try db.inTransaction { db in try work.run(on: db) }
        }
    }

    /// ``perform(_:isWrite:)`` without blocking the calling task: on the server's connection queue, or on
    /// SQLite's writer (writes) or a reader (reads, when the manager has readers). The result (new objects) is
    /// handed to the caller. A failure is recorded for ``errorMessage()``.
    ///
    /// - Parameters:
    ///   - work: the work.
    ///   - isWrite: whether it writes.
    func perform<Work: DBBObjectWork>(_ work: Work, isWrite: Bool) async throws -> sending Work.Result {
        guard let probe = beginOperation(work, onReader: !isWrite && pool != nil) else {
            return try await perform(work, isWrite: isWrite, probe: nil)
        }
        do {
            let result = try await perform(work, isWrite: isWrite, probe: probe)
            probe.end(nil)
            return result
        } catch {
            probe.end(error)
            throw error
        }
    }

    private func perform<Work: DBBObjectWork>(_ work: Work, isWrite: Bool, probe: DBBOperationProbe?)
        async throws -> sending Work.Result
    {
        if let server {
            do {
                probe?.started()
                return try await server.performAsync(work, isWrite: isWrite)
            } catch {
                throw record(error)
            }
        }
        if isWrite {
            do {
                return try await queue.inDatabase { db in
                    probe?.started()
                    if work.isSingleStatement && !db.isInTransaction { return DBBHandOver(try work.run(on: db)) }
                    return DBBHandOver(try db.inTransaction(.immediate) { db in try work.run(on: db) })
                }.take()
            } catch {
                throw record(error)
            }
        }
        return try await runRead { db in
            probe?.started()
            return DBBHandOver(
                Work.readsSeveralStatements
                    ? try db.inTransaction { db in try work.run(on: db) } : try work.run(on: db))
        }.take()
    }

    /// Refuses what a manager on a server does not do yet, with an error that says so.
    ///
    /// - Parameter operation: what the caller was doing, for the message.
    func requireLocalDatabase(_ operation: String) throws {
        guard let server else { return }
        throw record(
            DBBError.misuse(
                "\(operation) takes a SQLite connection, which a manager of \(server.location) does not have",
                recovery: "use manager.write { … } and manager.read { … } without a connection parameter (their "
                    + "object calls run in one transaction on the server); for SQL of your own, use the server "
                    + "module's connection",
                context: operation))
    }
}

/// Creates what is missing of a class's layout.
struct DBBSchemaWork: DBBObjectWork {
    static var operationName: String { "schema" }
    let map: DBBRegisteredClass
    var collectionName: String? { map.tableName }

    func run<Connection: DBBObjectConnection>(on db: Connection) throws {
        _ = try map.createOrUpdateSchema(in: db)
    }
}

/// The first column of a query's rows, as ids.
struct DBBIDsWork: DBBObjectWork {
    static var readsSeveralStatements: Bool { false }
    static var operationName: String { "ids" }
    let sql: String
    var queryText: String? { sql }
    let arguments: [DBBValue]

    func run<Connection: DBBObjectConnection>(on db: Connection) throws -> [Int64] {
        try db.selectIDs(sql, arguments: arguments)
    }
}

/// A `SELECT count(*)`.
struct DBBCountWork: DBBObjectWork {
    static var readsSeveralStatements: Bool { false }
    static var operationName: String { "count" }
    let sql: String
    var queryText: String? { sql }
    let arguments: [DBBValue]
    /// The class counted, whose properties a failing condition is checked against.
    let map: DBBRegisteredClass

    func run<Connection: DBBObjectConnection>(on db: Connection) throws -> Int {
        do {
            return Int(try db.selectIDs(sql, arguments: arguments).first ?? 0)
        } catch let error as DBBError {
            throw map.namingUnknownProperty(error)
        }
    }
}

/// Writes a save plan.
struct DBBSaveWork: DBBObjectWork {
    static var operationName: String { "save" }
    let plan: DBBSavePlan
    var collectionName: String? { plan.rows.first?.map.tableName }

    /// One object whose row is one `INSERT` or `UPDATE`: no join rows (a new object with empty arrays and no
    /// references in join tables has none to write), no preset id (its sequence is moved after), no reference to
    /// itself (set after its insert), no upsert (which may look up the kept row).
    var isSingleStatement: Bool {
        guard plan.rows.count == 1, let row = plan.rows.first else { return false }
        let noJoinRows = row.joins.isEmpty || (row.existingID == 0 && row.joins.allSatisfy { $0.values.isEmpty })
        return noJoinRows && row.presetID == 0 && row.conflict == nil
            && !row.keyReferences.contains { if case .pending = $0 { true } else { false } }
    }

    func run<Connection: DBBObjectConnection>(on db: Connection) throws -> DBBObjectWriter.Outcome {
        try DBBObjectWriter.execute(plan, in: db)
    }
}

/// Deletes rows of a class and everything that belongs to them.
struct DBBDeleteWork: DBBObjectWork {
    static var operationName: String { "delete" }
    let ids: [Int64]
    let map: DBBRegisteredClass
    let manager: DBBManager
    var collectionName: String? { map.tableName }

    func run<Connection: DBBObjectConnection>(on db: Connection) throws {
        var deleter = DBBObjectDeleter(manager: manager, db: db)
        try deleter.delete(ids: ids, of: map)
    }
}

/// Loads the objects a fetch request selects, with their join properties and referenced objects. Its
/// statements read one state: the engine runs it in one transaction or snapshot. A distinct or grouped fetch
/// (`distinct`) first selects one id per combination or group, then loads the objects with those ids.
struct DBBFetchWork: DBBObjectWork {
    let request: DBBFetchRequest
    let distinct: DBBQueryPlan?
    let map: DBBRegisteredClass
    let manager: DBBManager
    static var operationName: String { "fetch" }
    var collectionName: String? { map.tableName }
    var queryText: String? { request.tail.isEmpty ? nil : request.tail }

    /// A class without join tables and references loads with one `SELECT`, unless distinct or grouped.
    var isSingleStatement: Bool { distinct == nil && map.joins.isEmpty && map.foreignKeys.isEmpty }

    func run<Connection: DBBObjectConnection>(on db: Connection) throws -> [DBBTableObject] {
        var request = request
        if let distinct, let idsSQL = distinct.groupedIDsSQL {
            let ids = try db.selectIDs(idsSQL, arguments: distinct.arguments)
            request.tail = map.byIDsSQL + distinct.orderSQL
            request.arguments = [map.idList(ids)]
            request.isAll = false
            // Distinct combinations of the chosen properties: the objects carry those properties only.
            if distinct.distinctColumns != nil {
                request.properties =
                    request.properties ?? Set((map.columns + map.foreignKeys).map(\.name))
            }
        }
        do {
            return try DBBObjectLoader(manager: manager, db: db).fetch(map, request)
        } catch let error as DBBError {
            throw map.namingUnknownProperty(error)
        }
    }
}
