internal import DBBSQL
internal import DBBSchema
internal import Foundation

/// What one fetch asks of a class's table. The query layer builds it from query options.
struct DBBFetchRequest: Sendable {
    /// SQL after `FROM <table>`: `WHERE …`, `ORDER BY …`, `LIMIT …` (empty for all rows).
    var tail = ""
    var arguments: [DBBValue] = []
    /// Scalar and join properties to load (`nil`: all).
    var properties: Set<String>?
    /// Join properties to load (`nil`: all that `properties` allows).
    var joinProperties: Set<String>?
    /// Load only id and timestamps.
    var sparse = false
    /// Whether the request reads every row, so join tables need no owner filter.
    var isAll = true
}

/// Loads objects of registered classes. One loader serves one fetch: it keeps the identity map that
/// makes each row one object, and it runs a fixed number of statements per class and join table
/// whatever the number of objects.
final class DBBObjectLoader<Connection: DBBObjectConnection> {
    let manager: DBBManager
    let db: Connection
    private var identity: [ObjectIdentifier: [Int64: DBBTableObject]] = [:]
    /// Objects of a class's first load, indexed into `identity` only when a look-up needs them (a flat
    /// fetch never does).
    private var unindexed: [ObjectIdentifier: [DBBTableObject]] = [:]
    /// The objects built of classes that track changes: setting their properties while loading marked them
    /// dirty, which the fetch clears at its end.
    private var tracked: [DBBTableObject] = []

    init(manager: DBBManager, db: Connection) {
        self.manager = manager
        self.db = db
    }

    private struct PendingReference {
        let object: DBBTableObject
        let assign: Assignment
        let target: ObjectIdentifier
        let ids: [Int64]
        /// A query of every id the reference's column holds (`SELECT lead FROM Project_lead`), when the column
        /// was read whole: the referenced rows then load through it, with no list of ids built and bound.
        let source: String?
    }

    /// What one round of reference resolution loads of one class.
    private struct WantedRows {
        /// The queries of the columns the references came from, while every reference came from a column read
        /// whole: those queries then select the rows to load. `nil` once one reference did not.
        var sources: Set<String>? = []
        /// With sources, whether any referenced row is not loaded yet (which ids does not matter).
        var isNeeded = false
        /// Without sources, the ids of the referenced rows not loaded yet.
        var ids: Set<Int64> = []

        /// Adds what one reference needs.
        ///
        /// - Parameters:
        ///   - known: the loaded objects of the reference's class, by id.
        ///   - lastSource: the source added last, so a column's query is hashed once per run of its references.
        ///   - pending: every reference of this round, for the ids of those before the first without a source.
        mutating func add(
            _ reference: PendingReference, known: [Int64: DBBTableObject], lastSource: inout String?,
            among pending: [PendingReference]
        ) {
            if let source = reference.source, sources != nil {
                if source != lastSource || sources?.isEmpty == true {
                    sources?.insert(source)
                    lastSource = source
                }
                if !isNeeded { isNeeded = reference.ids.contains { known[$0] == nil } }
            } else if sources != nil {
                // The first reference without a source: the ids of every reference to the class are needed now.
                sources = nil
                let target = reference.target
                ids = Set(pending.lazy.filter { $0.target == target }.flatMap(\.ids).filter { known[$0] == nil })
            } else {
                for id in reference.ids where known[id] == nil { ids.insert(id) }
            }
        }
    }

    private enum Assignment {
        case one(DBBObjectAccessor)
        case many(DBBObjectsAccessor)
    }

    /// Fetches the objects a request selects, with their join properties and referenced objects.
    func fetch(_ map: DBBRegisteredClass, _ request: DBBFetchRequest) throws -> [DBBTableObject] {
        var pending: [PendingReference] = []
        let objects = try loadRows(map, request, pending: &pending)
        try resolve(pending)
        for object in tracked { object.isDirty = false }
        return objects
    }

    /// Loads the rows of one class and their join tables; references are collected into `pending`.
    private func loadRows(
        _ map: DBBRegisteredClass, _ request: DBBFetchRequest, pending: inout [PendingReference]
    ) throws -> [DBBTableObject] {
        let typeKey = ObjectIdentifier(map.type)
        var known = takeIndex(of: typeKey)
        // One statement meets each row once, so a class's first load needs no look-up, and its objects are
        // indexed only when a later look-up needs them.
        let mayKnowRows = !known.isEmpty
        let decoder = RowDecoder(map: map, request: request)
        var result: [DBBTableObject] = []
        var fresh: [DBBTableObject] = []
        // A closure, not a local function: one passed as a value makes its captured variables checked for
        // exclusivity at run time.
        try db.forEachObjectRow(map.selectSQL + request.tail, arguments: request.arguments) { row in
            let id = try decoder.id(of: row)
            if mayKnowRows, let existing = known[id] {
                result.append(existing)
                return
            }
            let object = try decoder.object(from: row, id: id, loader: self, pending: &pending)
            result.append(object)
            if mayKnowRows {
                known[id] = object
                fresh.append(object)
            }
        }
        if mayKnowRows {
            identity[typeKey] = known
        } else {
            // A first load meets no known row: every object is fresh.
            fresh = result
            unindexed[typeKey] = fresh
        }
        // Once per request rather than per row: an append to the loader's list checks exclusivity at run time.
        if decoder.tracksChanges, !decoder.cleansInPlace { tracked.append(contentsOf: fresh) }
        // What follows loads join tables: a class without any needs no list of its objects.
        guard !fresh.isEmpty, !request.sparse, !map.joins.isEmpty else { return result }
        try loadJoinTables(of: fresh, map, request, allRows: fresh.count == result.count, pending: &pending)
        return result
    }

    /// How the rows of one request become objects: what is read of each row, decided once per request.
    ///
    /// A class, so that the loop over the rows uses it in place rather than copying its fields for each row.
    private final class RowDecoder {
        let map: DBBRegisteredClass
        let request: DBBFetchRequest
        /// The loaded scalar columns, by index into the map's columns, and their readers.
        let loadedColumns: [Int]
        let scalarReaders: [(DBBScalarAccessor, Int32)]
        /// Per row, only what is needed: one chained closure that sets each loaded scalar from its column.
        let readScalars: Connection.ScalarReader
        /// Whether the objects are marked clean as they are made: nothing is set on them after their row (no
        /// references, no join tables), so the end of the fetch need not go through them again.
        let cleansInPlace: Bool
        let loadedKeys: [(index: Int, accessor: DBBObjectAccessor, target: ObjectIdentifier)]
        /// Per foreign key, the query of the whole column when the request reads every row: the referenced rows
        /// are then those the column names.
        let keySources: [String?]
        let keyBase: Int
        /// What a partial fetch loads: exactly what the join tables' load reads, so a save writes nothing else.
        let loadedSet: Set<String>?
        let unloadedNames: Set<String>
        let tracksChanges: Bool

        init(map: DBBRegisteredClass, request: DBBFetchRequest) {
            self.map = map
            self.request = request
            let scalarBase = map.leadingColumns
            loadedColumns = map.columns.indices.filter { request.properties?.contains(map.columns[$0].name) ?? true }
            scalarReaders = loadedColumns.map { (map.columnAccessors[$0], Int32(scalarBase + $0)) }
            // The class's generated reader sets every scalar: only for a request that loads them all.
            readScalars = Connection.scalarReader(
                scalarReaders, wholeRow: loadedColumns.count == map.columns.count ? map.rowReader : nil)
            loadedKeys = map.foreignKeys.indices.compactMap { index in
                request.properties?.contains(map.foreignKeys[index].name) ?? true
                    ? (index, map.foreignKeyAccessors[index], map.foreignKeys[index].target!) : nil
            }
            keySources = map.foreignKeys.map { key in
                request.isAll ? key.column.map(map.description.selectColumnSQL) : nil
            }
            keyBase = scalarBase + map.columns.count
            loadedSet = DBBObjectLoader.loadedProperties(of: map, for: request)
            unloadedNames = loadedSet.map { map.propertyNames.subtracting($0) } ?? []
            tracksChanges = map.type.tracksChanges
            cleansInPlace = tracksChanges && map.foreignKeys.isEmpty && map.joins.isEmpty
        }

        /// The row's id, its first column.
        @inline(__always)
        func id(of row: Connection.Row) throws -> Int64 {
            guard let id = try Connection.integer(in: row, at: 0) else {
                throw DBBError.library(
                    .mismatch, message: "a row of \(map.tableName) has no id", context: "loading objects")
            }
            return id
        }

        /// A new object of the row: its id, timestamps and scalars set, its references queued, and what a
        /// partial fetch did not load remembered.
        @inline(__always)
        func object(
            from row: Connection.Row, id: Int64, loader: DBBObjectLoader, pending: inout [PendingReference]
        ) throws -> DBBTableObject {
            let object = map.type.init(dbManager: loader.manager)
            object.idNum = id
            object.hasStoredRow = true
            if map.hasTimestamps {
                object.createdTime = try Connection.date(in: row, at: 1)
                object.modifiedTime = try Connection.date(in: row, at: 2)
            }
            if !request.sparse {
                try setScalars(of: object, from: row, id: id)
                if !loadedKeys.isEmpty { try queueForeignKeys(of: object, from: row, pending: &pending) }
            }
            if let loadedSet { snapshotUnloaded(of: object, loaded: loadedSet) }
            if cleansInPlace { object.isDirty = false }
            return object
        }

        /// Sets the loaded scalars; a value that does not convert is an error naming its property.
        @inline(__always)
        private func setScalars(of object: DBBTableObject, from row: Connection.Row, id: Int64) throws {
            do {
                try readScalars.read(object, row)
            } catch let error as DBBError {
                throw naming(error, of: object, in: row, id: id)
            }
        }

        /// The error with the property whose value did not convert named.
        private func naming(_ error: DBBError, of object: DBBTableObject, in row: Connection.Row, id: Int64)
            -> DBBError
        {
            // Each column is read again alone, to name the property whose value did not convert.
            let failing = zip(loadedColumns, scalarReaders).first { _, reader in
                (try? Connection.scalarReader([reader], wholeRow: nil).read(object, row)) == nil
            }
            guard let (index, _) = failing else { return error }
            var named = error
            named.context = "loading \(map.type).\(map.columns[index].name) of the row with id \(id)"
            return named
        }

        /// Queues the objects the row's foreign key columns name, or sets the references of NULL columns to nil.
        private func queueForeignKeys(
            of object: DBBTableObject, from row: Connection.Row, pending: inout [PendingReference]
        ) throws {
            for (index, accessor, target) in loadedKeys {
                if let id = try Connection.integer(in: row, at: keyBase + index) {
                    pending.append(
                        PendingReference(
                            object: object, assign: .one(accessor), target: target, ids: [id],
                            source: keySources[index]))
                } else {
                    try accessor.set(object, nil)
                }
            }
        }

        /// Records what a partial fetch loaded, and the values of the properties it did not, so that a save
        /// writes only what was loaded or changed.
        private func snapshotUnloaded(of object: DBBTableObject, loaded: Set<String>) {
            object.loadedProperties = loaded
            var snapshot: [String: DBBPropertySnapshot] = [:]
            for name in unloadedNames { snapshot[name] = map.snapshot(of: name, in: object) }
            object.unloadedSnapshot = snapshot
        }
    }

    /// Loads the join tables of a class's objects just built (`fresh`): each join property's values, and the
    /// references its rows name into `pending`.
    ///
    /// - Parameter allRows: whether `fresh` holds every object the request selected, so that a request for all
    ///   rows reads each join table whole, without an owner list.
    private func loadJoinTables(
        of fresh: [DBBTableObject], _ map: DBBRegisteredClass, _ request: DBBFetchRequest, allRows: Bool,
        pending: inout [PendingReference]
    ) throws {
        let owners = allRows && request.isAll ? nil : map.idList(fresh.map(\.idNum))
        // Join rows come ordered by owner: walked alongside the objects in id order, each object's values are
        // collected in one buffer, with no dictionary of groups.
        let inIDOrder = zip(fresh, fresh.dropFirst()).allSatisfy { $0.idNum < $1.idNum }
        let byID = inIDOrder ? fresh : fresh.sorted { $0.idNum < $1.idNum }
        // One buffer per kind: stored values, or the ids of referenced objects (read without a value array).
        var values: [DBBValue] = []
        var ids: [Int64] = []
        for join in map.joins {
            guard let table = join.joinTable else { continue }
            if let properties = request.properties, !properties.contains(join.name) { continue }
            if let joins = request.joinProperties, !joins.contains(join.name) { continue }
            let readsIDs = join.target != nil
            // Read whole (no owner list), the join table names exactly the objects its references need.
            let source = owners == nil ? table.selectValuesSQL : nil
            var position = 0
            let joinSQL = owners == nil ? table.selectAllSQL : table.selectOwnersSQL
            try db.forEachObjectRow(joinSQL, arguments: owners.map { [$0] } ?? []) { row in
                guard let owner = try Connection.integer(in: row, at: 0) else { return }
                while position < byID.count && byID[position].idNum < owner {
                    try assign(values, ids, of: join, source: source, to: byID[position], pending: &pending)
                    values.removeAll(keepingCapacity: true)
                    ids.removeAll(keepingCapacity: true)
                    position += 1
                }
                // Rows of owners loaded before (or not at all) are not this fetch's.
                guard position < byID.count, byID[position].idNum == owner else { return }
                if readsIDs {
                    if let id = Connection.value(in: row, at: 1).int64Value { ids.append(id) }
                } else {
                    values.append(Connection.value(in: row, at: 1))
                }
            }
            while position < byID.count {
                try assign(values, ids, of: join, source: source, to: byID[position], pending: &pending)
                values.removeAll(keepingCapacity: true)
                ids.removeAll(keepingCapacity: true)
                position += 1
            }
        }
    }

    /// Sets a join property from the values of its join rows, or collects the references (`ids`) to resolve.
    private func assign(
        _ values: [DBBValue], _ ids: [Int64], of join: DBBRegisteredClass.Property, source: String?,
        to object: DBBTableObject, pending: inout [PendingReference]
    ) throws {
        switch join.accessor {
        case .scalar(let accessor):
            try accessor.setStored(object, values.first ?? .null)
        case .values(let accessor):
            try accessor.set(object, values)
        case .object(let accessor):
            guard let target = join.target, !ids.isEmpty else {
                try accessor.set(object, nil)
                return
            }
            pending.append(
                PendingReference(object: object, assign: .one(accessor), target: target, ids: ids, source: source))
        case .objects(let accessor):
            guard let target = join.target else { return }
            pending.append(
                PendingReference(object: object, assign: .many(accessor), target: target, ids: ids, source: source))
        }
    }

    /// Removes a class's objects from the identity map, indexed by id (so that adding to them copies nothing).
    private func takeIndex(of type: ObjectIdentifier) -> [Int64: DBBTableObject] {
        var index = identity.removeValue(forKey: type) ?? [:]
        if let objects = unindexed.removeValue(forKey: type) {
            index.reserveCapacity(index.count + objects.count)
            for object in objects { index[object.idNum] = object }
        }
        return index
    }

    /// A class's objects loaded so far, by id.
    private func index(of type: ObjectIdentifier) -> [Int64: DBBTableObject] {
        let index = takeIndex(of: type)
        identity[type] = index
        return index
    }

    /// The properties a request loads, or `nil` when it loads all of them.
    static func loadedProperties(of map: DBBRegisteredClass, for request: DBBFetchRequest) -> Set<String>? {
        if request.sparse { return [] }
        guard request.properties != nil || request.joinProperties != nil else { return nil }
        var loaded = request.properties?.intersection(map.propertyNames) ?? map.propertyNames
        if let joins = request.joinProperties {
            loaded.subtract(map.joins.map(\.name).filter { !joins.contains($0) })
        }
        return loaded
    }

    /// Loads every referenced object not loaded yet, one query per class and level, then assigns them.
    private func resolve(_ initial: [PendingReference]) throws {
        var pending = initial
        var assignments: [PendingReference] = []
        while !pending.isEmpty {
            // The first round's references are taken as they are, not copied one by one.
            if assignments.isEmpty { assignments = pending } else { assignments += pending }
            var wanted: [ObjectIdentifier: WantedRows] = [:]
            do {
                // References come grouped by class: each class's index and wanted rows are looked up once per
                // group, and the index let go before its class loads more rows into it.
                var group: (target: ObjectIdentifier, known: [Int64: DBBTableObject], rows: WantedRows)?
                // References of one column come together: each column's query is added once, not hashed per row.
                var lastSource: String?
                for reference in pending {
                    if group?.target != reference.target {
                        if let group { wanted[group.target] = group.rows }
                        let target = reference.target
                        group = (target, index(of: target), wanted.removeValue(forKey: target) ?? WantedRows())
                    }
                    group!.rows.add(reference, known: group!.known, lastSource: &lastSource, among: pending)
                }
                if let group { wanted[group.target] = group.rows }
            }
            pending = []
            for (target, rows) in wanted {
                guard let map = manager.mapIfRegistered(target) else {
                    throw DBBError.misuse(
                        "a referenced class is not registered with this manager",
                        recovery: "register every class a mapping refers to with addTableClasses(_:)",
                        context: "loading references")
                }
                if let queries = rows.sources {
                    if rows.isNeeded {
                        _ = try loadRows(map, map.rowsRequest(selectedBy: queries.sorted()), pending: &pending)
                    }
                } else if !rows.ids.isEmpty {
                    _ = try loadRows(map, map.rowsRequest(ids: rows.ids.sorted()), pending: &pending)
                }
            }
        }
        var lastTarget: (type: ObjectIdentifier, known: [Int64: DBBTableObject])?
        for reference in assignments {
            if lastTarget?.type != reference.target { lastTarget = (reference.target, index(of: reference.target)) }
            let known = lastTarget?.known ?? [:]
            switch reference.assign {
            case .one(let accessor):
                try accessor.set(reference.object, reference.ids.first.flatMap { known[$0] })
            case .many(let accessor):
                try accessor.set(reference.object, reference.ids.compactMap { known[$0] })
            }
        }
    }
}
