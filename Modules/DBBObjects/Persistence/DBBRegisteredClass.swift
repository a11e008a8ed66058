internal import DBBQuery
internal import DBBSQL
internal import DBBSchema
internal import Foundation

/// A registered class's mapping, compiled once: its layout, its accessors in column order, and the SQL
/// of every statement the object API runs for it.
final class DBBRegisteredClass: Sendable {
    /// One mapped property, the single description the object layer saves, loads, deletes and queries it by:
    /// its name, where its values are kept (with the statements of a join table), its accessors, and the class
    /// it references. Built once per class from the mapping entry, with its accessors resolved for the class.
    struct Property {
        /// Where a property's values are kept.
        enum Place {
            /// A column of the class's table: the value, or the id of the referenced object (a foreign key).
            case column(String)
            /// A join table of owner and value rows, in element order.
            case joinTable(JoinStatements)
        }

        let name: String
        let place: Place
        /// Reads and writes the property of an object.
        let accessor: DBBPropertyAccessor
        /// The class of the objects the property references; `nil` for values.
        let target: ObjectIdentifier?
        /// Whether deleting an owner deletes the objects the property references.
        let cascades: Bool

        /// The column of the class's table, or `nil` for a join table.
        var column: String? {
            if case .column(let column) = place { column } else { nil }
        }

        /// The join table, or `nil` for a column.
        var joinTable: JoinStatements? {
            if case .joinTable(let table) = place { table } else { nil }
        }
    }

    /// A join table with the text of its statements, written once per class rather than per use.
    struct JoinStatements {
        let description: DBBTableDescription.JoinTable
        let insertSQL: String
        let deleteOwnersSQL: String
        let selectAllSQL: String
        let selectOwnersSQL: String
        /// The distinct values of given owners: the ids a cascading delete follows.
        let selectOwnerValuesSQL: String
        let deleteValuesSQL: String
        /// Every value of the table: the ids its references need when it is read whole.
        let selectValuesSQL: String

        init(_ table: DBBTableDescription.JoinTable) {
            description = table
            insertSQL = table.insertSQL
            deleteOwnersSQL = table.deleteOwnersSQL
            selectAllSQL = table.selectAllSQL
            selectOwnersSQL = table.selectOwnersSQL
            selectOwnerValuesSQL = table.selectOwnerValuesSQL
            deleteValuesSQL = table.deleteValuesSQL
            selectValuesSQL = table.selectValuesSQL
        }
    }

    let type: DBBTableObject.Type
    let description: DBBTableDescription
    /// The description's property names as query plans resolve them, built once rather than per query.
    let queryNames: DBBQueryTableNames
    let tableName: String
    let idColumn: String
    let hasTimestamps: Bool
    /// The properties kept in scalar columns, in the order of `selectSQL`'s columns.
    let columns: [Property]
    /// The references kept as ids in columns of the class's table, after the scalar columns.
    let foreignKeys: [Property]
    /// The properties kept in join tables.
    let joins: [Property]
    /// Every mapped property by name, for the by-name paths (dictionaries, partial saves, query schemas).
    let propertiesByName: [String: Property]
    /// The accessors of `columns` and `foreignKeys`, in the same order, unwrapped once so that the row loops
    /// of saves and loads take them from an array without a switch per value.
    let columnAccessors: ContiguousArray<DBBScalarAccessor>
    let foreignKeyAccessors: ContiguousArray<DBBObjectAccessor>
    /// The class's generated whole-row reader and where its properties are in `selectSQL`'s rows, when it has one
    /// for the class (or a class it inherits from) that reads exactly the mapped properties.
    let rowReader: (reader: DBBRowReader, positions: DBBRowPositions)?
    let propertyNames: Set<String>
    /// Whether objects of the class reference other objects (foreign keys, or reference join tables).
    let hasReferences: Bool
    /// The key paths of the mapped properties that have one (closure-only entries have none), by name, for
    /// typed conditions. Unchecked only because `AnyKeyPath` is not declared `Sendable`: each came from a mapping
    /// entry's `Sendable` key path (``DBBPropertyPersistence/keyPath``), and key paths are immutable.
    nonisolated(unsafe) let keyPaths: [String: AnyKeyPath]

    /// `SELECT id, createdTime, modifiedTime, <scalar columns>, <foreign keys> FROM <table>`.
    let selectSQL: String
    /// The number of leading columns before the scalars (id, and the two timestamps when present).
    let leadingColumns: Int
    let insertSQL: String
    /// `insertSQL` with the id column first, for objects whose id was set before their first save.
    let insertWithIDSQL: String
    /// The table as ``DBBObjectConnection/insertBatch(_:rows:of:)`` inserts into it.
    let insertTarget: DBBInsertTarget
    /// `nil` when the class has nothing to update (no timestamps, no columns).
    let updateSQL: String?
    let deleteSQL: String
    /// `" WHERE <id> IN (SELECT value FROM json_each(?))"`: rows by a JSON list of ids.
    let byIDsSQL: String
    /// The ids of every row, ascending.
    let allIDsSQL: String

    /// - Parameters:
    ///   - prototype: an object of the class, with which each entry's accessors are checked to be written for
    ///     the class or one it inherits from.
    ///   - dialect: the SQL of the manager's engine, which every statement of the map is written in.
    init(
        type: DBBTableObject.Type, properties: [String: DBBPropertyPersistence], attributes: [String: String],
        indexers: [DBBIndexer], prototype: DBBTableObject, dialect: DBBSQLDialect = .sqlite
    ) throws {
        self.type = type
        let tableName = type.tableName
        self.tableName = tableName
        idColumn = type.idColumnName
        hasTimestamps = type.hasTimestampColumns
        // One indexer makes one index; several (from a class chain) are kept in order of registration.
        var description = try DBBTableDescription(
            tableName: tableName, idColumn: idColumn, includesTimestamps: hasTimestamps, properties: properties,
            attributes: attributes, indexers: indexers)
        description.dialect = dialect
        description.autoincrement = type.layout == .dbbBuilder
        self.description = description
        queryNames = DBBQueryTableNames(table: description)
        propertyNames = Set(properties.keys)
        keyPaths = properties.compactMapValues(\.keyPath)

        func property(_ name: String, place: Property.Place) throws -> Property {
            guard let entry = properties[name] else {
                throw DBBError.library(.internal, message: "lost property \(name)", context: "registering \(tableName)")
            }
            // The accessors downcast objects to the entry's root class unchecked; this check proves it once.
            guard entry.accessor.accepts(prototype) else {
                throw DBBError.misuse(
                    "property \(name) is mapped with a key path or closures of a class that \(type) does not inherit from",
                    context: "registering \(tableName)")
            }
            return Property(
                name: name, place: place, accessor: entry.accessor,
                target: entry.storageType.objectType.map(ObjectIdentifier.init),
                cascades: attributes[name] == ColumnAttribute.cascadingDeletion)
        }
        var columns: [Property] = []
        var columnAccessors: ContiguousArray<DBBScalarAccessor> = []
        var foreignKeys: [Property] = []
        var foreignKeyAccessors: ContiguousArray<DBBObjectAccessor> = []
        for column in description.columns {
            let mapped = try property(column.propertyName, place: .column(column.name))
            switch mapped.accessor {
            case .scalar(let accessor):
                columns.append(mapped)
                columnAccessors.append(accessor)
            case .object(let accessor) where mapped.target != nil:
                foreignKeys.append(mapped)
                foreignKeyAccessors.append(accessor)
            default:
                throw DBBError.misuse(
                    "property \(column.propertyName) cannot be stored as a column",
                    context: "registering \(tableName)")
            }
        }
        self.columns = columns
        self.columnAccessors = columnAccessors
        self.foreignKeys = foreignKeys
        self.foreignKeyAccessors = foreignKeyAccessors
        joins = try description.joinTables.map {
            try property($0.propertyName, place: .joinTable(JoinStatements($0)))
        }
        propertiesByName = Dictionary(
            (columns + foreignKeys + joins).map { ($0.name, $0) }, uniquingKeysWith: { first, _ in first })
        hasReferences = !foreignKeys.isEmpty || joins.contains { $0.target != nil }
        rowReader = type.dbbRowReader.flatMap { reader in
            guard reader.accepts(prototype) else { return nil }
            return Self.positions(
                of: reader, columns: columns, leadingColumns: description.leadingColumnCount, in: properties
            ).map { (reader, $0) }
        }

        // The statements' text comes from the table's description; the map keeps it to prepare and cache.
        let writeColumns = (columns + foreignKeys).compactMap(\.column)
        leadingColumns = description.leadingColumnCount
        selectSQL = description.selectSQL(columns: writeColumns)
        insertSQL = description.insertSQL(columns: writeColumns)
        insertWithIDSQL = description.insertSQL(columns: writeColumns, withID: true)
        insertTarget = DBBInsertTarget(
            table: tableName, idColumn: description.idColumn, insertSQL: insertSQL, insertWithIDSQL: insertWithIDSQL)
        updateSQL = description.updateSQL(columns: writeColumns)
        deleteSQL = description.deleteByIDListSQL
        byIDsSQL = description.byIDListSQL
        allIDsSQL = description.allIDsSQL
    }

    /// Where each property of a generated row reader is: its scalar column's index in the row, or -1 for one kept
    /// elsewhere; `nil` when the reader's properties are not exactly the mapped ones, so that it cannot be used.
    private static func positions(
        of reader: DBBRowReader, columns: [Property], leadingColumns: Int,
        in properties: [String: DBBPropertyPersistence]
    ) -> DBBRowPositions? {
        guard reader.properties.count == properties.count, Set(reader.properties) == Set(properties.keys) else {
            return nil
        }
        let columnIndex = Dictionary(
            columns.enumerated().map { ($1.name, Int32(leadingColumns + $0)) }, uniquingKeysWith: { first, _ in first })
        return DBBRowPositions(ContiguousArray(reader.properties.map { columnIndex[$0] ?? -1 }))
    }

    /// Creates what is missing of the class's tables, join tables and indexes; never drops anything.
    ///
    /// - Returns: warnings for properties that get a new column or join table while a column or join table of
    ///   the class that no property maps holds data: probably a rename whose migration is missing.
    func createOrUpdateSchema(in db: some DBBObjectConnection) throws -> [String] {
        try db.lockSchemaForRegistration()
        var added: [(name: String, isJoin: Bool)] = []
        let existed = try db.tableExists(tableName)
        if existed {
            let existing = try db.columns(in: tableName)
            for statement in try description.alterStatements(existing: existing) {
                try db.executeUpdate(statement, arguments: [])
            }
            let known = Set(existing.map { $0.name.lowercased() })
            added = description.columns.filter { !known.contains($0.name.lowercased()) }.map {
                ($0.propertyName, false)
            }
        } else {
            try db.executeUpdate(description.createTableSQL, arguments: [])
        }
        for join in description.joinTables {
            if try db.tableExists(join.tableName) {
                for statement in try DBBTableDescription.alterJoinStatements(
                    join, existing: try db.columns(in: join.tableName))
                {
                    try db.executeUpdate(statement, arguments: [])
                }
            } else {
                try db.executeUpdate(DBBTableDescription.createJoinTableSQL(join), arguments: [])
                if existed { added.append((join.propertyName, true)) }
            }
            try db.executeUpdate(DBBTableDescription.createJoinIndexSQL(join), arguments: [])
        }
        for indexSQL in description.createIndexStatements { try db.executeUpdate(indexSQL, arguments: []) }
        // The checks read SQLite's schema; on a server, registration stays as it was.
        guard !added.isEmpty, let sqlite = db as? DBBDatabase else { return [] }
        return try renameWarnings(for: added, in: sqlite)
    }

    /// The warnings of ``createOrUpdateSchema(in:)``: the unmapped columns and join tables that hold data, those
    /// of the new property's kind first.
    private func renameWarnings(for added: [(name: String, isJoin: Bool)], in db: DBBDatabase) throws -> [String] {
        var mapped = Set(description.columns.map { $0.name.lowercased() })
        mapped.formUnion([idColumn.lowercased(), "createdtime", "modifiedtime"])
        var columns: [String] = []
        for column in try db.columns(in: tableName) where !mapped.contains(column.name.lowercased()) {
            if try db.holdsValues(column.name, in: tableName) { columns.append(column.name) }
        }
        let joined = Set(description.joinTables.map { $0.tableName.lowercased() })
        var joins: [String] = []
        for join in try db.joinTables(of: tableName) where !joined.contains(join.lowercased()) {
            if try db.rowCount(inTable: join) > 0 { joins.append(String(join.dropFirst(tableName.count + 1))) }
        }
        guard !columns.isEmpty || !joins.isEmpty else { return [] }
        return added.map { property in
            let candidates = property.isJoin ? joins + columns : columns + joins
            let listed = candidates.map { "\(tableName).\($0)" }.joined(separator: ", ")
            let orphan = candidates[0]
            return "\(tableName).\(property.name) is new, while \(listed), which no property maps, "
                + "\(candidates.count == 1 ? "holds" : "hold") data: if \(orphan) was renamed \(property.name), run a "
                + "migration before registering: .renameProperty(\"\(orphan)\", to: \"\(property.name)\", in: "
                + "\"\(tableName)\")"
        }
    }

    /// Every row, in id order.
    var allRowsRequest: DBBFetchRequest {
        var request = DBBFetchRequest()
        request.tail = description.orderByIDSQL
        return request
    }

    /// The rows with these ids (in id order), loaded whole or sparsely.
    func rowsRequest<S: Sequence>(ids: S, sparse: Bool = false) -> DBBFetchRequest where S.Element == Int64 {
        var request = DBBFetchRequest()
        request.tail = byIDsSQL
        request.arguments = [idList(ids)]
        request.isAll = false
        request.sparse = sparse
        return request
    }

    /// The rows whose ids the queries select (each a `SELECT` of one column of ids), in id order.
    func rowsRequest(selectedBy queries: [String]) -> DBBFetchRequest {
        var request = DBBFetchRequest()
        request.tail = description.byIDsSQL(selectedBy: queries)
        request.isAll = false
        return request
    }

    /// The objects a fetch on this map returned, as `T`. The loader creates every object of a fetch's result with
    /// `type.init(dbManager:)` or takes it from the fetch's identity index of `type`, which holds only objects so
    /// created: each is an instance of exactly `type`. So once `type` is `T` or a subclass of it (checked here,
    /// once per fetch), the array is an array of `T`, and it is handed out as one without a cast of each object:
    /// callers are generic functions that are not specialised, where a cast per object showed in callgrind
    /// (`Docs/Mapping.md`).
    ///
    /// - Parameters:
    ///   - objects: the fetch's result on this map.
    ///   - requested: the class the fetch was called on.
    func typed<T: DBBTableObject>(_ objects: [DBBTableObject], as requested: T.Type = T.self) -> [T] {
        precondition(type is T.Type, "a fetch of \(requested) ran on the map of \(type)")
        // Proven above: every element is an instance of `type`, which is `T` or a subclass, and an array of class
        // references has one layout whatever its element class.
        return unsafeBitCast(objects, to: [T].self)
    }

    /// Objects in the order of `ids`, skipping ids no object has.
    static func ordered<T: DBBTableObject>(_ objects: [T], by ids: [Int64]) -> [T] {
        let byID = Dictionary(objects.map { ($0.idNum, $0) }, uniquingKeysWith: { first, _ in first })
        return ids.compactMap { byID[$0] }
    }

    /// A list of ids bound as one argument in the table's dialect (`json_each(?)` on SQLite), so one statement
    /// serves any number of ids.
    func idList<S: Sequence>(_ ids: S) -> DBBValue where S.Element == Int64 {
        description.dialect.idListArgument(ids)
    }
}

extension DBBRegisteredClass {
    /// A query's error told as the library tells an unknown property elsewhere, when a condition names
    /// something that is no column of the table and no mapped property: SQLite says "no such column: titel",
    /// PostgreSQL `column "titel" does not exist` (SQLSTATE 42703). The engine's message is kept after it.
    ///
    /// - Parameter error: the error a query of this class's table failed with.
    /// - Returns: the error with its message naming the property and class, or `error` as it was.
    func namingUnknownProperty(_ error: DBBError) -> DBBError {
        let message = error.message
        var name: Substring?
        if let range = message.range(of: "no such column: ") {
            name = message[range.upperBound...].prefix { !$0.isWhitespace }
        } else if error.sqlState == "42703", let open = message.firstIndex(of: "\"") {
            name = message[message.index(after: open)...].prefix { $0 != "\"" }
        }
        guard let name, !name.isEmpty, !propertyNames.contains(String(name)) else { return error }
        var named = error
        named.message = "\(name) is not a mapped property of \(type) (\(message))"
        return named
    }
}
