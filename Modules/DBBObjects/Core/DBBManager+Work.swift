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

    /// ``run(on:)`` on SQLite's connection. Its one implementation (below) is compiled for each work type in that
    /// type's conformance, where both the work and the connection are known: so SQLite's store, which sees the work
    /// only as generic, still runs the writer's and the loader's row loops specialised for `DBBDatabase`.
    ///
    /// - Parameter db: the connection.
    /// - Throws: `DBBError` when a statement fails.
    func run(onSQLite db: DBBDatabase) throws -> Result

    /// The operation's name in spans and metrics (`db.operation.name`): `save`, `fetch`, `delete`, …
    static var operationName: String { get }

    /// The table the operation is about (`db.collection.name`), when it is about one.
    var collectionName: String? { get }

    /// The SQL text that selects the rows, for a span that may show it (`db.query.text`).
    var queryText: String? { get }
}

extension DBBObjectWork {
    package func run(onSQLite db: DBBDatabase) throws -> Result { try run(on: db) }
    package var collectionName: String? { nil }
    package var queryText: String? { nil }
    package static var readsSeveralStatements: Bool { true }
    package var isSingleStatement: Bool { !Self.readsSeveralStatements }
}

extension DBBManager {
    /// Runs object work on the manager's store: in the transaction of the `write` or `read` closure the caller is
    /// in, else in a transaction of its own (a snapshot on a reader for reads, when the store has readers). A
    /// failure is recorded for ``errorMessage()``.
    ///
    /// - Parameters:
    ///   - work: the work.
    ///   - isWrite: whether it writes.
    ///   - reported: whether the operation is reported in spans and metrics (registration's schema work is not).
    /// - Throws: `DBBError` when the work fails, or (misuse) for a write inside a `read` closure.
    package func perform<Work: DBBObjectWork>(_ work: Work, isWrite: Bool, reported: Bool = true) throws
        -> Work.Result
    {
        let report = reported ? beginOperation(work, onReader: !isWrite && store.hasReaders) : nil
        do {
            let result: Work.Result
            if let connection = store.currentConnection, let scope = connection.scope {
                guard scope.isWrite || !isWrite else {
                    throw DBBError.misuse(
                        "a change inside manager.read, which only reads", recovery: "use manager.write to write",
                        context: "using the manager of \(store.location)")
                }
                report?.started()
                result = try connection.perform(joining: work, isWrite: isWrite)
            } else {
                result = try store.perform(work, isWrite: isWrite, report: report)
            }
            report?.end(nil)
            return result
        } catch {
            report?.end(error)
            throw record(error)
        }
    }

    /// ``perform(_:isWrite:reported:)`` without blocking the calling task (outside any `write` or `read`
    /// closure, which are synchronous). The result (new objects) is handed to the caller.
    ///
    /// - Parameters:
    ///   - work: the work.
    ///   - isWrite: whether it writes.
    /// - Throws: `DBBError` when the work fails.
    func perform<Work: DBBObjectWork>(_ work: Work, isWrite: Bool) async throws -> sending Work.Result {
        let report = beginOperation(work, onReader: !isWrite && store.hasReaders)
        do {
            let result = try await store.perform(work, isWrite: isWrite, report: report)
            report?.end(nil)
            return result
        } catch {
            report?.end(error)
            throw record(error)
        }
    }
}

/// Creates what is missing of a class's layout and returns what registration found suspicious; on a read-only
/// manager, checks that the layout is there instead.
struct DBBSchemaWork: DBBObjectWork {
    static var operationName: String { "schema" }
    let map: DBBRegisteredClass
    /// Whether the database may not be changed: the layout is checked, never created.
    let checkOnly: Bool
    var collectionName: String? { map.tableName }

    func run<Connection: DBBObjectConnection>(on db: Connection) throws -> [String] {
        if checkOnly {
            try map.checkSchema(in: db)
            return []
        }
        return try map.createOrUpdateSchema(in: db)
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
