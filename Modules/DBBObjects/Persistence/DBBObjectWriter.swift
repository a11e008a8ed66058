internal import DBBSQL
internal import DBBSchema
internal import Foundation

/// A save prepared on the caller's side: every value already read from the objects, so the part that
/// runs on the manager's queue touches no object — only this plan, which is plain data.
struct DBBSavePlan: Sendable {
    enum Reference {
        case saved(Int64)
        case pending(Int)
    }

    enum JoinValue {
        case value(DBBValue)
        case reference(Reference)
    }

    struct Row {
        let map: DBBRegisteredClass
        /// The row id, or 0 for a new object.
        let existingID: Int64
        /// The id a new object was given before its first save, inserted as it is (0: SQLite chooses).
        let presetID: Int64
        /// The properties to write (`nil`: all of them).
        let written: Set<String>?
        /// The scalar values to write, in the order of `scalarColumns` (`nil`: every scalar of the map).
        let scalarValues: [DBBValue]
        let scalarColumns: [String]?
        /// The foreign keys to write, in the order of `keyColumns` (`nil`: every foreign key of the map).
        let keyReferences: [Reference?]
        let keyColumns: [String]?
        let joins: [(join: DBBRegisteredClass.JoinStatements, values: [JoinValue])]
        /// For a new object saved with `onConflict:`, its upsert.
        var conflict: Conflict?
    }

    /// The upsert of a new row: one `INSERT … ON CONFLICT … RETURNING id`, and the look-up of the kept row's id
    /// when the conflict kept it (`DO NOTHING` returns no row).
    struct Conflict {
        let upsertSQL: String
        let selectIDSQL: String
        /// The positions, in the row's scalar values, of the conflict target's columns.
        let keyPositions: [Int]
    }

    var rows: [Row] = []
}

/// Saves a batch of objects and the unsaved objects they reference, in one transaction.
///
/// Phase one writes every object's row (so every object has an id), phase two writes join rows, then
/// the foreign keys that pointed at objects saved later in phase one. Ids, timestamps and `isDirty` are
/// applied to the objects only after the transaction commits, so a failed save leaves them as they were.
struct DBBObjectWriter {
    let manager: DBBManager

    struct Outcome: Sendable {
        var ids: [Int64] = []
        var now = Date()
    }

    /// Collects the objects to write: the given ones, then every unsaved object they reference,
    /// recursively (cycles are followed once). Runs the pre-save actions of each.
    func collectGraph(_ roots: [DBBTableObject]) throws -> [(DBBTableObject, DBBRegisteredClass)] {
        // One root needs no set to be told from another: the set is filled only when a reference is followed.
        let single = roots.count == 1
        var seen: Set<ObjectIdentifier> = []
        if !single { seen.reserveCapacity(roots.count) }
        var rootsSeen = !single
        var order: [(DBBTableObject, DBBRegisteredClass)] = []
        order.reserveCapacity(roots.count)
        var work: [DBBTableObject] = []
        var lastMap: (key: ObjectIdentifier, map: DBBRegisteredClass)?
        // A stored object of a class that tracks its changes and has none is not written.
        for root in roots
        where !(root.hasStoredRow && !root.isDirty && Swift.type(of: root).tracksChanges)
            && (single || seen.insert(ObjectIdentifier(root)).inserted)
        {
            work.append(root)
        }
        var index = 0
        while index < work.count {
            let object = work[index]
            index += 1
            object.performPreSaveActions()
            // A batch of one class looks its map up once, not once per object.
            let type = ObjectIdentifier(Swift.type(of: object))
            let map: DBBRegisteredClass
            if let last = lastMap, last.key == type {
                map = last.map
            } else {
                map = try manager.map(for: Swift.type(of: object))
                lastMap = (type, map)
            }
            order.append((object, map))
            guard map.hasReferences else { continue }
            if !rootsSeen {
                for root in work { seen.insert(ObjectIdentifier(root)) }
                rootsSeen = true
            }
            for referenced in map.referencedObjects(of: object)
            where !referenced.hasStoredRow && seen.insert(ObjectIdentifier(referenced)).inserted {
                work.append(referenced)
            }
        }
        return order
    }

    /// Orders the graph so that an object comes after the objects its foreign key columns point at (where
    /// no cycle forbids it), so a `NOT NULL` foreign key column gets its id when the row is first written.
    /// Cycles keep their order and are completed by the fix-up pass. Iterative: no recursion on long chains.
    static func foreignKeyTargetsFirst(
        _ graph: [(DBBTableObject, DBBRegisteredClass)]
    ) -> [(DBBTableObject, DBBRegisteredClass)] {
        guard graph.count > 1, graph.contains(where: { !$0.1.foreignKeys.isEmpty }) else { return graph }
        var position: [ObjectIdentifier: Int] = [:]
        for (offset, entry) in graph.enumerated() { position[ObjectIdentifier(entry.0)] = offset }
        var visited = [Bool](repeating: false, count: graph.count)
        var ordered: [(DBBTableObject, DBBRegisteredClass)] = []
        ordered.reserveCapacity(graph.count)
        var stack: [(node: Int, nextKey: Int)] = []
        for start in graph.indices where !visited[start] {
            visited[start] = true
            stack.append((start, 0))
            while let (node, nextKey) = stack.last {
                let (object, map) = graph[node]
                if nextKey < map.foreignKeys.count {
                    stack[stack.count - 1].nextKey += 1
                    if let target = map.foreignKeyAccessors[nextKey].get(object),
                        let targetNode = position[ObjectIdentifier(target)], !visited[targetNode]
                    {
                        visited[targetNode] = true
                        stack.append((targetNode, 0))
                    }
                } else {
                    stack.removeLast()
                    ordered.append(graph[node])
                }
            }
        }
        return ordered
    }

    /// Reads everything a save writes from the objects.
    func plan(_ graph: [(DBBTableObject, DBBRegisteredClass)]) throws -> DBBSavePlan {
        let coding = DBBCodingOptions.objectLayout
        // Where each object stands, for references to objects saved in the same plan (only when some class
        // has references at all).
        var positions: [ObjectIdentifier: Int] = [:]
        if graph.contains(where: { $0.1.hasReferences }) {
            for (index, (object, _)) in graph.enumerated() { positions[ObjectIdentifier(object)] = index }
        }
        func reference(_ target: AnyObject?) -> DBBSavePlan.Reference? {
            guard let target = target as? DBBTableObject else { return nil }
            if target.idNum != 0 { return .saved(target.idNum) }
            return positions[ObjectIdentifier(target)].map { .pending($0) }
        }

        var plan = DBBSavePlan()
        plan.rows.reserveCapacity(graph.count)
        for (object, map) in graph {
            let existingID = object.hasStoredRow ? object.idNum : 0
            let written = existingID == 0 ? nil : map.propertiesToWrite(object)
            var scalarValues: [DBBValue] = []
            var scalarColumns: [String]?
            var keyReferences: [DBBSavePlan.Reference?] = []
            var keyColumns: [String]?
            if let written {
                // A partly loaded object: only what was loaded or set since.
                let scalars = map.columns.indices.filter { written.contains(map.columns[$0].name) }
                scalarValues = try scalars.map { try map.columnAccessors[$0].get(object, coding) }
                scalarColumns = scalars.compactMap { map.columns[$0].column }
                let keys = map.foreignKeys.indices.filter { written.contains(map.foreignKeys[$0].name) }
                keyReferences = keys.map { reference(map.foreignKeyAccessors[$0].get(object)) }
                keyColumns = keys.compactMap { map.foreignKeys[$0].column }
            } else {
                scalarValues.reserveCapacity(map.columnAccessors.count)
                // Indexed, so that each accessor is borrowed from the array rather than copied (and retained).
                for index in map.columnAccessors.indices {
                    scalarValues.append(try map.columnAccessors[index].get(object, coding))
                }
                if !map.foreignKeyAccessors.isEmpty {
                    keyReferences = map.foreignKeyAccessors.map { reference($0.get(object)) }
                }
            }
            var joins: [(DBBRegisteredClass.JoinStatements, [DBBSavePlan.JoinValue])] = []
            for join in map.joins where written?.contains(join.name) ?? true {
                guard let table = join.joinTable else { continue }
                let values: [DBBSavePlan.JoinValue]
                switch join.accessor {
                case .scalar(let accessor):
                    let value = try accessor.get(object, coding)
                    values = value.isNull ? [] : [.value(value)]
                case .values(let accessor):
                    values = try accessor.get(object, coding).map { .value($0) }
                case .object(let accessor):
                    values = reference(accessor.get(object)).map { [.reference($0)] } ?? []
                case .objects(let accessor):
                    values = accessor.get(object).compactMap { reference($0) }.map { .reference($0) }
                }
                joins.append((table, values))
            }
            if !map.description.dialect.textMayHoldNUL {
                try Self.refuseNUL(of: map, scalarValues, columns: scalarColumns, joins: joins)
            }
            plan.rows.append(
                DBBSavePlan.Row(
                    map: map, existingID: existingID, presetID: object.hasStoredRow ? 0 : object.idNum,
                    written: written, scalarValues: scalarValues,
                    scalarColumns: scalarColumns, keyReferences: keyReferences, keyColumns: keyColumns, joins: joins))
        }
        return plan
    }

    /// Refuses, before anything is written, a text value that holds the NUL character where the engine's text
    /// cannot (PostgreSQL), naming the class and the property.
    ///
    /// - Parameters:
    ///   - scalarValues: the values of the row's columns, in the order of `columns` (all columns when `nil`).
    ///   - joins: the values of the row's join tables.
    private static func refuseNUL(
        of map: DBBRegisteredClass, _ scalarValues: [DBBValue], columns: [String]?,
        joins: [(DBBRegisteredClass.JoinStatements, [DBBSavePlan.JoinValue])]
    ) throws {
        func holdsNUL(_ value: DBBValue) -> Bool {
            if case .text(let text) = value { return text.utf8.contains(0) }
            return false
        }
        func joinHoldsNUL(_ values: [DBBSavePlan.JoinValue]) -> Bool {
            values.contains { value in
                if case .value(let stored) = value { return holdsNUL(stored) }
                return false
            }
        }
        var offending: String?
        if let index = scalarValues.firstIndex(where: holdsNUL) {
            if let columns {
                offending = map.columns.first { $0.column == columns[index] }?.name
            } else {
                offending = map.columns[index].name
            }
        } else if let join = joins.first(where: { joinHoldsNUL($0.1) }) {
            offending = map.joins.first { $0.joinTable?.description.tableName == join.0.description.tableName }?.name
        }
        guard let offending else { return }
        throw DBBError.library(
            .mismatch,
            message: "property \(offending) of \(map.type) holds text with a NUL character, which "
                + "\(map.description.dialect) text cannot store",
            context: "saving \(map.type) objects")
    }

    /// Writes a plan; call inside a transaction.
    static func execute<Connection: DBBObjectConnection>(_ plan: DBBSavePlan, in db: Connection) throws -> Outcome {
        var outcome = Outcome()
        let stamp = outcome.now.timeIntervalSinceReferenceDate
        if plan.rows.count == 1, let id = try insertAlone(plan.rows[0], stamp: stamp, in: db) {
            outcome.ids = [id]
            return outcome
        }
        var ids = plan.rows.map(\.existingID)
        func resolve(_ reference: DBBSavePlan.Reference?) -> Int64? {
            switch reference {
            case .saved(let id): id
            case .pending(let index): ids[index] != 0 ? ids[index] : nil
            case nil: nil
            }
        }

        var fixups: [Int] = []
        // The statements of the class met last: a batch of one class looks its SQL up once, not per row, and each
        // only when a row needs it (a look-up hashes the statement's text).
        var statementsOf: (map: DBBRegisteredClass, insert: Connection.Statement?, update: Connection.Statement??)?
        func insertStatement(of map: DBBRegisteredClass) throws -> Connection.Statement {
            if let insert = statementsOf?.insert { return insert }
            let insert = try db.insertStatement(map.insertSQL, idColumn: map.idColumn)
            statementsOf?.insert = insert
            return insert
        }
        func updateStatement(of map: DBBRegisteredClass) throws -> Connection.Statement? {
            if let update = statementsOf?.update { return update }
            let update = try map.updateSQL.map { try db.objectStatement($0) }
            statementsOf?.update = .some(update)
            return update
        }
        // One buffer for every row, bound value by value without boxing the values as `DBBBindable`s.
        var arguments: [DBBValue] = []
        // New rows of one class waiting to be inserted together, where the engine batches inserts (a server):
        // their values one row after another, and their indexes in the plan.
        let batchSize = db.insertBatchSize
        var batch: (map: DBBRegisteredClass, values: [DBBValue], indexes: [Int])?
        func insertBatch() throws {
            guard let pending = batch else { return }
            batch = nil
            let newIDs = try db.insertBatch(pending.values, rows: pending.indexes.count, of: pending.map.insertTarget)
            for (index, id) in zip(pending.indexes, newIDs) { ids[index] = id }
        }
        // Rows a conflict kept unchanged.
        var kept: Set<Int> = []
        for (index, row) in plan.rows.enumerated() {
            let map = row.map
            let isNew = row.existingID == 0
            // A row of another class may reference the waiting rows: they get their ids first. A waiting row
            // that references another waiting row has its key set afterwards, as for a reference to a later row.
            if let pending = batch, pending.map !== map || pending.indexes.count >= batchSize { try insertBatch() }
            if statementsOf?.map !== map { statementsOf = (map, nil, nil) }
            // A plain insert without timestamps or foreign keys binds the scalars as planned, without a copy.
            if isNew, row.conflict == nil, row.presetID == 0, batchSize <= 1, !map.hasTimestamps,
                row.keyReferences.isEmpty
            {
                ids[index] = try insertStatement(of: map).insert(row.scalarValues[...])
                continue
            }
            arguments.removeAll(keepingCapacity: true)
            if map.hasTimestamps {
                arguments.append(.real(stamp))
                if isNew { arguments.append(.real(stamp)) }
            }
            arguments.append(contentsOf: row.scalarValues)
            for reference in row.keyReferences {
                let id = resolve(reference)
                if id == nil && reference != nil { fixups.append(index) }
                arguments.append(id.map { .integer($0) } ?? .null)
            }
            if isNew, let conflict = row.conflict {
                try insertBatch()
                if let id = try db.selectIDs(conflict.upsertSQL, arguments: arguments).first {
                    ids[index] = id
                } else {
                    kept.insert(index)
                    let key = conflict.keyPositions.map { row.scalarValues[$0] }
                    ids[index] = try db.selectIDs(conflict.selectIDSQL, arguments: key).first ?? 0
                }
            } else if isNew && row.presetID != 0 {
                try db.objectStatement(map.insertWithIDSQL).run(([.integer(row.presetID)] + arguments)[...])
                ids[index] = row.presetID
                try db.didInsert(presetID: row.presetID, table: map.tableName, idColumn: map.idColumn)
            } else if isNew && batchSize > 1 {
                batch = batch ?? (map, [], [])
                batch?.values.append(contentsOf: arguments)
                batch?.indexes.append(index)
            } else if isNew {
                ids[index] = try insertStatement(of: map).insert(arguments[...])
            } else if row.written == nil {
                guard let update = try updateStatement(of: map) else { continue }
                arguments.append(.integer(row.existingID))
                try requireRowUpdated(row, changes: try update.run(arguments[...]))
            } else {
                guard
                    let update = map.description.updateSQL(
                        columns: (row.scalarColumns ?? []) + (row.keyColumns ?? []))
                else { continue }
                arguments.append(.integer(row.existingID))
                try requireRowUpdated(row, changes: try db.objectStatement(update).run(arguments[...]))
            }
        }
        try insertBatch()

        for (index, row) in plan.rows.enumerated() where !row.joins.isEmpty && !kept.contains(index) {
            let ownerID = ids[index]
            for (join, values) in row.joins {
                // A stored or upserted row's join rows replace any the existing row had.
                if row.existingID != 0 || row.conflict != nil {
                    try db.executeUpdate(join.deleteOwnersSQL, arguments: [row.map.idList(CollectionOfOne(ownerID))])
                }
                let insert = try db.objectStatement(join.insertSQL)
                for value in values {
                    switch value {
                    case .value(let stored): try insert.run([.integer(ownerID), stored])
                    case .reference(let reference):
                        if let id = resolve(reference) { try insert.run([.integer(ownerID), .integer(id)]) }
                    }
                }
            }
        }

        for index in Set(fixups).subtracting(kept) {
            let row = plan.rows[index]
            let columns = row.keyColumns ?? row.map.foreignKeys.compactMap(\.column)
            for (column, reference) in zip(columns, row.keyReferences) {
                guard let id = resolve(reference) else { continue }
                guard let update = row.map.description.updateSQL(columns: [column], touchesModifiedTime: false) else {
                    continue
                }
                try db.executeUpdate(update, arguments: [.integer(id), .integer(ids[index])])
            }
        }
        outcome.ids = ids
        return outcome
    }

    /// Inserts the row of a plan's one new object with a single `INSERT`, without the bookkeeping of several rows
    /// (ids to resolve, batches, fix-ups): `nil`, having written nothing, when the row needs more than that (join
    /// rows, a reference to itself, a preset id, an upsert) or is not new.
    private static func insertAlone<Connection: DBBObjectConnection>(
        _ row: DBBSavePlan.Row, stamp: Double, in db: Connection
    ) throws -> Int64? {
        guard row.existingID == 0, row.presetID == 0, row.conflict == nil,
            row.joins.allSatisfy({ $0.values.isEmpty })
        else { return nil }
        let map = row.map
        let insert = { try db.insertStatement(map.insertSQL, idColumn: map.idColumn) }
        if !map.hasTimestamps && row.keyReferences.isEmpty { return try insert().insert(row.scalarValues[...]) }
        var arguments: [DBBValue] = []
        arguments.reserveCapacity(2 + row.scalarValues.count + row.keyReferences.count)
        if map.hasTimestamps { arguments += [.real(stamp), .real(stamp)] }
        arguments += row.scalarValues
        for reference in row.keyReferences {
            switch reference {
            case .saved(let id): arguments.append(.integer(id))
            case nil: arguments.append(.null)
            case .pending: return nil
            }
        }
        return try insert().insert(arguments[...])
    }

    /// An update that matched no row means the object's row was deleted meanwhile: saving it would write
    /// join rows for an owner that does not exist, so the save fails (and its transaction rolls back).
    private static func requireRowUpdated(_ row: DBBSavePlan.Row, changes: Int) throws {
        guard changes == 0 else { return }
        throw DBBError.rowDeleted(
            "\(row.map.type) \(row.existingID) no longer exists in table \(row.map.tableName); "
                + "it was deleted after it was loaded",
            context: "saving \(row.map.type) objects")
    }

    /// Applies ids, timestamps and clean state after the transaction committed, then the post-save actions.
    static func apply(_ outcome: Outcome, of plan: DBBSavePlan, to graph: [(DBBTableObject, DBBRegisteredClass)]) {
        for (index, (object, map)) in graph.enumerated() {
            let isNew = !object.hasStoredRow
            object.idNum = outcome.ids[index]
            object.hasStoredRow = true
            if map.hasTimestamps {
                if isNew { object.createdTime = outcome.now }
                object.modifiedTime = outcome.now
            }
            object.isDirty = false
            // A partly loaded object stays partly loaded: what was written now counts as loaded, and what
            // is still unloaded keeps its snapshot, so a later save leaves it alone too.
            if let written = plan.rows[index].written {
                object.loadedProperties = written
                for name in written { object.unloadedSnapshot[name] = nil }
            } else {
                object.loadedProperties = nil
                object.unloadedSnapshot = [:]
            }
        }
        for (object, _) in graph { object.performPostSaveActions() }
    }

    /// Collects and plans a save, recording a failure for the manager's `errorMessage()`.
    private func prepare(_ objects: [DBBTableObject], conflict: DBBSaveConflict?) throws -> (
        [(DBBTableObject, DBBRegisteredClass)], DBBSavePlan
    ) {
        try manager.requireWritable("saving objects")
        do {
            let graph = Self.foreignKeyTargetsFirst(try collectGraph(objects))
            var plan = try plan(graph)
            if let conflict { try Self.addConflicts(conflict, for: objects, to: &plan, graph: graph) }
            return (graph, plan)
        } catch {
            throw manager.record(error)
        }
    }

    /// Makes the new objects among `roots` (not the unsaved objects they reference) upserts.
    private static func addConflicts(
        _ conflict: DBBSaveConflict, for roots: [DBBTableObject], to plan: inout DBBSavePlan,
        graph: [(DBBTableObject, DBBRegisteredClass)]
    ) throws {
        let rootIDs = Set(roots.map { ObjectIdentifier($0) })
        var prepared: [ObjectIdentifier: DBBSavePlan.Conflict] = [:]
        for (index, (object, map)) in graph.enumerated()
        where plan.rows[index].existingID == 0 && plan.rows[index].presetID == 0
            && rootIDs.contains(ObjectIdentifier(object))
        {
            if prepared[ObjectIdentifier(map.type)] == nil {
                prepared[ObjectIdentifier(map.type)] = try conflictStatements(conflict, map: map)
            }
            plan.rows[index].conflict = prepared[ObjectIdentifier(map.type)]
        }
    }

    /// The upsert statements of a class for a conflict on its unique properties.
    private static func conflictStatements(_ conflict: DBBSaveConflict, map: DBBRegisteredClass) throws
        -> DBBSavePlan.Conflict
    {
        let context = "saving \(map.type) objects on conflict"
        let description = map.description
        var target: [String]
        if let properties = conflict.properties {
            target = try properties.map { name in
                guard let column = map.propertiesByName[name]?.column,
                    map.columns.contains(where: { $0.name == name })
                else {
                    throw DBBError.misuse(
                        "\(map.type).\(name) is not a property stored in a column of its own", context: context)
                }
                return column
            }
        } else {
            let uniqueColumns = description.columns.filter { $0.attributes.contains { $0.uppercased() == "UNIQUE" } }
            let uniqueIndexes = description.indexes.filter(\.unique).map(\.columns)
            let candidates = uniqueColumns.map { [$0.name] } + uniqueIndexes
            guard candidates.count == 1, let only = candidates.first else {
                throw DBBError.misuse(
                    "\(map.type) has \(candidates.isEmpty ? "no" : "\(candidates.count)") unique properties or indexes",
                    recovery: "name the unique properties with onConflict:of:, or make one property UNIQUE",
                    context: context)
            }
            target = only
        }
        let scalarColumns = map.columns.compactMap(\.column)
        let positions = try target.map { column in
            guard let position = scalarColumns.firstIndex(where: { $0.lowercased() == column.lowercased() }) else {
                throw DBBError.misuse("\(map.type) has no column \(column)", context: context)
            }
            return position
        }
        target = positions.map { scalarColumns[$0] }
        return DBBSavePlan.Conflict(
            upsertSQL: description.upsertSQL(
                columns: (map.columns + map.foreignKeys).compactMap(\.column), conflictColumns: target,
                updates: conflict.resolution == .update),
            selectIDSQL: description.selectIDSQL(matching: target), keyPositions: positions)
    }

    /// Saves objects and their unsaved references in one transaction; all or nothing.
    func save(_ objects: [DBBTableObject], conflict: DBBSaveConflict? = nil) throws {
        let (graph, plan) = try prepare(objects, conflict: conflict)
        guard !graph.isEmpty else { return }
        let outcome = try manager.perform(DBBSaveWork(plan: plan), isWrite: true)
        manager.rememberForRollback(graph.map(\.0))
        Self.apply(outcome, of: plan, to: graph)
    }

    /// Saves without blocking the calling task; the objects never leave the caller.
    func save(_ objects: [DBBTableObject], conflict: DBBSaveConflict? = nil) async throws {
        let (graph, plan) = try prepare(objects, conflict: conflict)
        guard !graph.isEmpty else { return }
        let outcome = try await manager.perform(DBBSaveWork(plan: plan), isWrite: true)
        Self.apply(outcome, of: plan, to: graph)
    }
}

/// The value of a property that a partial fetch did not load, as it was when the object was built, so a
/// save can tell whether the caller set it since.
enum DBBPropertySnapshot: Equatable {
    case values([DBBValue])
    case objects([ObjectIdentifier])
}

extension DBBRegisteredClass {
    /// The objects an object references through its reference and reference-array properties.
    func referencedObjects(of object: DBBTableObject) -> [DBBTableObject] {
        var result: [DBBTableObject] = []
        let written = object.idNum == 0 ? nil : propertiesToWrite(object)
        for (key, accessor) in zip(foreignKeys, foreignKeyAccessors) where written?.contains(key.name) ?? true {
            if let target = accessor.get(object) as? DBBTableObject { result.append(target) }
        }
        for join in joins where written?.contains(join.name) ?? true {
            switch join.accessor {
            case .object(let accessor):
                if let target = accessor.get(object) as? DBBTableObject { result.append(target) }
            case .objects(let accessor):
                result += accessor.get(object).compactMap { $0 as? DBBTableObject }
            default:
                break
            }
        }
        return result
    }

    /// The properties a save of an existing object writes: all of them, or for a partly loaded object
    /// the loaded ones and those set since.
    func propertiesToWrite(_ object: DBBTableObject) -> Set<String>? {
        guard let loaded = object.loadedProperties else { return nil }
        var written = loaded
        for (name, snapshot) in object.unloadedSnapshot where self.snapshot(of: name, in: object) != snapshot {
            written.insert(name)
        }
        return written
    }

    /// A property's current value, for comparing with what a partial fetch left in it.
    func snapshot(of property: String, in object: DBBTableObject) -> DBBPropertySnapshot? {
        let coding = DBBCodingOptions.objectLayout
        switch propertiesByName[property]?.accessor {
        case .scalar(let accessor): return (try? accessor.get(object, coding)).map { .values([$0]) }
        case .values(let accessor): return (try? accessor.get(object, coding)).map { .values($0) }
        case .object(let accessor): return .objects(accessor.get(object).map { [ObjectIdentifier($0)] } ?? [])
        case .objects(let accessor): return .objects(accessor.get(object).map { ObjectIdentifier($0) })
        case nil: return nil
        }
    }
}

/// How a save of new objects treats a row that already holds their unique values.
struct DBBSaveConflict {
    let resolution: DBBConflictResolution
    /// The unique properties; `nil` for the class's one unique property or index.
    let properties: [String]?
}
