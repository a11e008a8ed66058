import Foundation

/// Saves a batch of objects and the unsaved objects they reference, in one transaction.
///
/// Phase one writes every object's row (so every object has an id), phase two writes join rows and the
/// foreign keys that pointed at objects saved later in phase one. Ids, timestamps and `isDirty` are
/// applied to the objects only after the transaction commits, so a failed save leaves them as they were.
struct DBBObjectWriter {
    let manager: DBBManager

    struct Outcome {
        /// New objects' ids by object, kept only when objects of the batch can refer to each other.
        var ids: [ObjectIdentifier: Int64] = [:]
        /// The inserted objects, their ids, and whether their table has timestamps.
        var created: [(object: DBBTableObject, id: Int64, hasTimestamps: Bool)] = []
        var now = Date()
    }

    /// Collects the objects to write: the given ones, then every unsaved object they reference,
    /// recursively (cycles are followed once). Runs the pre-save actions of each.
    func collectGraph(_ roots: [DBBTableObject]) throws -> [(DBBTableObject, DBBTableMap)] {
        var seen: Set<ObjectIdentifier> = []
        var order: [(DBBTableObject, DBBTableMap)] = []
        var work: [DBBTableObject] = []
        for root in roots where seen.insert(ObjectIdentifier(root)).inserted { work.append(root) }
        var index = 0
        var lastMap: DBBTableMap?  // a batch is mostly of one class: look its map up once
        while index < work.count {
            let object = work[index]
            index += 1
            object.performPreSaveActions()
            let map: DBBTableMap
            if let last = lastMap, last.type == type(of: object) {
                map = last
            } else {
                map = try manager.map(for: type(of: object))
                lastMap = map
            }
            order.append((object, map))
            for referenced in map.referencedObjects(of: object)
            where referenced.idNum == 0 && seen.insert(ObjectIdentifier(referenced)).inserted {
                work.append(referenced)
            }
        }
        return order
    }

    /// Orders the graph so that an object comes after the objects its foreign key columns point at (where
    /// no cycle forbids it), so a `NOT NULL` foreign key column gets its id when the row is first written.
    /// Cycles keep their order and are completed by the fix-up pass. Iterative: no recursion on long chains.
    static func foreignKeyTargetsFirst(_ graph: [(DBBTableObject, DBBTableMap)]) -> [(DBBTableObject, DBBTableMap)] {
        guard graph.count > 1, graph.contains(where: { !$0.1.foreignKeys.isEmpty }) else { return graph }
        var position: [ObjectIdentifier: Int] = [:]
        for (offset, entry) in graph.enumerated() { position[ObjectIdentifier(entry.0)] = offset }
        var visited = [Bool](repeating: false, count: graph.count)
        var ordered: [(DBBTableObject, DBBTableMap)] = []
        ordered.reserveCapacity(graph.count)
        var stack: [(node: Int, nextKey: Int)] = []
        for start in graph.indices where !visited[start] {
            visited[start] = true
            stack.append((start, 0))
            while let (node, nextKey) = stack.last {
                let (object, map) = graph[node]
                if nextKey < map.foreignKeys.count {
                    stack[stack.count - 1].nextKey += 1
                    if let target = map.foreignKeys[nextKey].accessor.get(object),
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

    /// Writes the collected objects; call inside a transaction.
    func write(_ collected: [(DBBTableObject, DBBTableMap)], in db: DBBDatabase) throws -> Outcome {
        let graph = Self.foreignKeyTargetsFirst(collected)
        var outcome = Outcome()
        let tracksIDs = graph.contains { !$0.1.joins.isEmpty || !$0.1.foreignKeys.isEmpty }
        outcome.created.reserveCapacity(graph.count)
        let stamp = outcome.now.timeIntervalSinceReferenceDate
        let options = db.codingOptions
        func id(of object: AnyObject) -> Int64? {
            guard let object = object as? DBBTableObject else { return nil }
            return object.idNum != 0 ? object.idNum : outcome.ids[ObjectIdentifier(object)]
        }

        var fixups: [(DBBTableObject, DBBTableMap)] = []
        // The statements of the class met last: a batch of one class looks its SQL up once, not per row.
        var statementsOf: (map: DBBTableMap, insert: DBBStatement, update: DBBStatement?)?
        var arguments: [(any DBBBindable)?] = []  // one buffer for every row
        for (object, map) in graph {
            arguments.removeAll(keepingCapacity: true)
            let isNew = object.idNum == 0
            let loaded = object.loadedProperties
            if isNew {
                if map.hasTimestamps {
                    arguments.append(stamp)
                    arguments.append(stamp)
                }
            } else if map.hasTimestamps {
                arguments.append(stamp)
            }
            for scalar in map.scalars {
                arguments.append(try scalar.accessor.get(object, options))
            }
            var needsFixup = false
            for key in map.foreignKeys {
                if let target = key.accessor.get(object) {
                    if let targetID = id(of: target) {
                        arguments.append(targetID)
                    } else {
                        arguments.append(nil)
                        needsFixup = true
                    }
                } else {
                    arguments.append(nil)
                }
            }
            if needsFixup { fixups.append((object, map)) }
            if statementsOf?.map !== map {
                statementsOf = (
                    map, try db.prepare(map.insertSQL), map.updateSQL.isEmpty ? nil : try db.prepare(map.updateSQL)
                )
            }
            if isNew {
                try statementsOf?.insert.execute(arguments: DBBArguments(arguments))
                let rowID = db.lastInsertRowID
                if tracksIDs { outcome.ids[ObjectIdentifier(object)] = rowID }
                outcome.created.append((object, rowID, map.hasTimestamps))
            } else if let loaded {
                try updatePartially(object, map: map, loaded: loaded, stamp: stamp, in: db)
            } else if let update = statementsOf?.update {
                arguments.append(object.idNum)
                try update.execute(arguments: DBBArguments(arguments))
            }
        }

        for (object, map) in graph where !map.joins.isEmpty {
            guard let ownerID = id(of: object) else { continue }
            let isNew = object.idNum == 0
            for join in map.joins {
                if let loaded = object.loadedProperties, !loaded.contains(join.name) { continue }
                let values: [DBBValue]
                switch join.values {
                case .scalar(let accessor):
                    let value = try accessor.get(object, options)
                    values = value.isNull ? [] : [value]
                case .values(let accessor):
                    values = try accessor.get(object, options)
                case .object(let accessor, _):
                    values = accessor.get(object).flatMap { id(of: $0) }.map { [.integer($0)] } ?? []
                case .objects(let accessor, _):
                    values = accessor.get(object).compactMap { id(of: $0) }.map { .integer($0) }
                }
                if !isNew {
                    try db.execute(join.deleteOwnersSQL, "[\(ownerID)]")
                }
                let insert = try db.prepare(join.insertSQL)
                for value in values {
                    try insert.execute(ownerID, value)
                }
            }
        }

        for (object, map) in fixups {
            guard let ownerID = id(of: object) else { continue }
            for key in map.foreignKeys {
                guard let target = key.accessor.get(object), let targetID = id(of: target) else { continue }
                try db.execute(
                    "UPDATE \(DBBIdentifier.sql(map.tableName)) SET \(DBBIdentifier.sql(key.column)) = ? "
                        + "WHERE \(DBBIdentifier.sql(map.idColumn)) = ?", targetID, ownerID)
            }
        }
        return outcome
    }

    /// Updates only the loaded columns of a partly fetched object.
    private func updatePartially(
        _ object: DBBTableObject, map: DBBTableMap, loaded: Set<String>, stamp: Double, in db: DBBDatabase
    ) throws {
        var assignments: [String] = []
        var arguments: [(any DBBBindable)?] = []
        if map.hasTimestamps {
            assignments.append("modifiedTime = ?")
            arguments.append(stamp)
        }
        for scalar in map.scalars where loaded.contains(scalar.name) {
            assignments.append("\(DBBIdentifier.sql(scalar.column)) = ?")
            arguments.append(try scalar.accessor.get(object, db.codingOptions))
        }
        for key in map.foreignKeys where loaded.contains(key.name) {
            assignments.append("\(DBBIdentifier.sql(key.column)) = ?")
            arguments.append((key.accessor.get(object) as? DBBTableObject).map { $0.idNum })
        }
        guard !assignments.isEmpty else { return }
        arguments.append(object.idNum)
        try db.execute(
            "UPDATE \(DBBIdentifier.sql(map.tableName)) SET \(assignments.joined(separator: ", ")) "
                + "WHERE \(DBBIdentifier.sql(map.idColumn)) = ?", arguments: DBBArguments(arguments))
    }

    /// Applies ids, timestamps and clean state after the transaction committed.
    static func apply(_ outcome: Outcome, to graph: [(DBBTableObject, DBBTableMap)]) {
        for (object, id, hasTimestamps) in outcome.created {
            object.idNum = id
            if hasTimestamps { object.createdTime = outcome.now }
        }
        for (object, map) in graph {
            if map.hasTimestamps { object.modifiedTime = outcome.now }
            object.isDirty = false
        }
    }

    /// Saves objects and their unsaved references in one transaction; all or nothing.
    func save(_ objects: [DBBTableObject]) throws {
        let graph = try collectGraph(objects)
        let outcome = try manager.run { db in
            try db.inTransaction(.immediate) { db in try write(graph, in: db) }
        }
        Self.apply(outcome, to: graph)
        for (object, _) in graph { object.performPostSaveActions() }
    }
}

extension DBBTableMap {
    /// The objects an object references through its reference and reference-array properties.
    func referencedObjects(of object: DBBTableObject) -> [DBBTableObject] {
        var result: [DBBTableObject] = []
        for key in foreignKeys {
            if let target = key.accessor.get(object) as? DBBTableObject { result.append(target) }
        }
        for join in joins {
            if let loaded = object.loadedProperties, !loaded.contains(join.name) { continue }
            switch join.values {
            case .object(let accessor, _):
                if let target = accessor.get(object) as? DBBTableObject { result.append(target) }
            case .objects(let accessor, _):
                result += accessor.get(object).compactMap { $0 as? DBBTableObject }
            default:
                break
            }
        }
        return result
    }
}
