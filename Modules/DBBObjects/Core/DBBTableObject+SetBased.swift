internal import DBBQuery
public import DBBSQL
public import DBBSchema
internal import Foundation

extension DBBTableRepresentable where Self: DBBTableObject {
    /// Sets properties of every object that matches query options with one `UPDATE`, without loading them (and
    /// `modifiedTime` to now, in a table with timestamps).
    ///
    /// ```swift
    /// var overdue = DBBQueryOptions()
    /// overdue.addCondition("dueDate < ?", Date())
    /// let marked = try Loan.update(["returned": true], where: overdue, manager: manager)
    /// ```
    ///
    /// Objects already loaded keep their old values until fetched again.
    ///
    /// - Parameters:
    ///   - values: the new values, by property name: properties stored in a column of the class's table (a
    ///     scalar, or a reference mapped with `foreignKey: true`, given as the object or `nil`). Dates are
    ///     stored as the object layer stores them.
    ///   - options: the conditions the objects match (and `limit`, with `sortColumns`); empty for every object.
    ///   - manager: the manager to write through.
    /// - Returns: the number of objects changed.
    /// - Throws: `DBBError` (misuse) for an unknown property, a property stored in a join table, or no values;
    ///   (mismatch) for a value the property's column cannot hold (text in a number's column); the errors of
    ///   invalid options, as a fetch's; nothing is changed then.
    @discardableResult
    public static func update(
        _ values: [String: (any DBBBindable)?], where options: DBBQueryOptions, manager: DBBManager
    ) throws -> Int {
        do {
            try manager.requireWritable("updating \(self) objects")
            return try manager.perform(try updateWork(values, options, manager: manager), isWrite: true)
        } catch {
            throw manager.record(error)
        }
    }

    /// `update(_:where:manager:)` without blocking the calling task.
    ///
    /// - Parameters:
    ///   - values: the new values, by property name.
    ///   - options: the conditions the objects match.
    ///   - manager: the manager to write through.
    /// - Returns: the number of objects changed.
    /// - Throws: as `update(_:where:manager:)`.
    @discardableResult
    public static func update(
        _ values: [String: (any DBBBindable)?], where options: DBBQueryOptions, manager: DBBManager
    ) async throws -> Int {
        let work: DBBUpdateWork
        do {
            try manager.requireWritable("updating \(self) objects")
            work = try updateWork(values, options, manager: manager)
        } catch {
            throw manager.record(error)
        }
        return try await manager.perform(work, isWrite: true)
    }

    /// Deletes every object that matches query options without loading them, as `delete(_:manager:)` deletes
    /// objects: with their join rows, the join rows and foreign-key columns of other classes that point at
    /// them, and cascading arrays' objects, in one transaction.
    ///
    /// ```swift
    /// let returned = try Loan.delete(where: .options(withConditions: ["returned = 1"]), manager: manager)
    /// ```
    ///
    /// - Parameters:
    ///   - options: the conditions the objects match (and `limit`, with `sortColumns`). Empty options delete
    ///     every object.
    ///   - manager: the manager to delete through.
    /// - Returns: the number of objects deleted (of this class; cascaded objects not counted).
    /// - Throws: `DBBError` for invalid options, as a fetch's, or when SQLite fails; nothing is deleted then.
    @discardableResult
    public static func delete(where options: DBBQueryOptions, manager: DBBManager) throws -> Int {
        do {
            try manager.requireWritable("deleting \(self) objects")
            return try manager.perform(try deleteWork(options, manager: manager), isWrite: true)
        } catch {
            throw manager.record(error)
        }
    }

    /// `delete(where:manager:)` without blocking the calling task.
    ///
    /// - Parameters:
    ///   - options: the conditions the objects match.
    ///   - manager: the manager to delete through.
    /// - Returns: the number of objects deleted.
    /// - Throws: as `delete(where:manager:)`.
    @discardableResult
    public static func delete(where options: DBBQueryOptions, manager: DBBManager) async throws -> Int {
        let work: DBBDeleteWhereWork
        do {
            try manager.requireWritable("deleting \(self) objects")
            work = try deleteWork(options, manager: manager)
        } catch {
            throw manager.record(error)
        }
        return try await manager.perform(work, isWrite: true)
    }
}

extension DBBTableObject {
    /// The `SELECT` of the ids that query options match, for a set-based write.
    static func matchingIDsSQL(_ options: DBBQueryOptions, map: DBBRegisteredClass, manager: DBBManager) throws
        -> (sql: String, arguments: [DBBValue])
    {
        let plan = try DBBQueryPlan(
            options: options, names: map.queryNames, schema: DBBManagerQuerySchema(manager: manager))
        return (plan.idsSQL, plan.arguments)
    }

    static func updateWork(_ values: [String: (any DBBBindable)?], _ options: DBBQueryOptions, manager: DBBManager)
        throws -> DBBUpdateWork
    {
        let map = try manager.map(for: self)
        let context = "updating \(self) objects"
        guard !values.isEmpty else { throw DBBError.misuse("no values to set", context: context) }
        var columns: [String] = []
        var arguments: [DBBValue] = []
        for (name, value) in values.sorted(by: { $0.key < $1.key }) {
            guard let property = map.propertiesByName[name] else {
                throw DBBError.misuse("\(self) has no property \(name)", context: context)
            }
            guard let column = property.column else {
                throw DBBError.misuse(
                    "\(self).\(name) is stored in a join table, which a set-based update does not change",
                    recovery: "fetch the objects and save them", context: context)
            }
            let stored: DBBValue
            if let object = value as? DBBTableObject {
                stored = object.idNum == 0 ? .null : .integer(object.idNum)
            } else {
                stored = try value?.dbbValue(options: .objectLayout) ?? .null
            }
            let sqlType = map.description.columns.first { $0.name == column }?.sqlType ?? "Integer"
            if DBBAffinity(declaredType: sqlType).conflicts(with: stored.affinity) {
                throw DBBError.library(
                    .mismatch, message: "\(self).\(name) stores \(sqlType), not the \(stored.storageClass) \(stored)",
                    context: context)
            }
            columns.append(column)
            arguments.append(stored)
        }
        // The statement sets `modifiedTime` after the columns in a table with timestamps.
        if map.description.includesTimestamps { arguments.append(.real(Date().timeIntervalSinceReferenceDate)) }
        let selection = try matchingIDsSQL(options, map: map, manager: manager)
        let sql = map.description.updateSQL(columns: columns, idsSelectedBy: selection.sql)
        return DBBUpdateWork(sql: sql, arguments: arguments + selection.arguments, map: map)
    }

    static func deleteWork(_ options: DBBQueryOptions, manager: DBBManager) throws -> DBBDeleteWhereWork {
        let map = try manager.map(for: self)
        let selection = try matchingIDsSQL(options, map: map, manager: manager)
        return DBBDeleteWhereWork(sql: selection.sql, arguments: selection.arguments, map: map, manager: manager)
    }
}

extension DBBValue {
    /// The affinity a value of this storage class has, to compare it with a column's (NULL and BLOB fit any).
    fileprivate var affinity: DBBAffinity {
        switch self {
        case .null, .blob: .blob
        case .integer: .integer
        case .real: .real
        case .text: .text
        }
    }
}

/// One `UPDATE` of the rows that query options match.
struct DBBUpdateWork: DBBObjectWork {
    static var readsSeveralStatements: Bool { false }
    static var operationName: String { "save" }
    let sql: String
    var queryText: String? { sql }
    let arguments: [DBBValue]
    let map: DBBRegisteredClass
    var collectionName: String? { map.tableName }

    func run<Connection: DBBObjectConnection>(on db: Connection) throws -> Int {
        do {
            // The table's change reporting was installed when the class was registered.
            return try db.executeUpdate(sql, arguments: arguments)
        } catch let error as DBBError {
            throw map.namingUnknownProperty(error)
        }
    }
}

/// Deletes the rows that query options match, with what belongs to them, in one transaction.
struct DBBDeleteWhereWork: DBBObjectWork {
    static var operationName: String { "delete" }
    let sql: String
    var queryText: String? { sql }
    let arguments: [DBBValue]
    let map: DBBRegisteredClass
    let manager: DBBManager
    var collectionName: String? { map.tableName }

    func run<Connection: DBBObjectConnection>(on db: Connection) throws -> Int {
        let ids: [Int64]
        do {
            ids = try db.selectIDs(sql, arguments: arguments)
        } catch let error as DBBError {
            throw map.namingUnknownProperty(error)
        }
        var deleter = DBBObjectDeleter(manager: manager, db: db)
        try deleter.delete(ids: ids, of: map)
        return ids.count
    }
}
