internal import DBBSQL
internal import DBBSchema
internal import Foundation

/// A registered class's mapping, compiled once: its layout, its accessors in column order, and the SQL
/// of every statement the object API runs for it.
final class DBBTableMap: Sendable {
    struct Scalar {
        let name: String
        let column: String
        let accessor: DBBScalarAccessor
    }

    struct ForeignKey {
        let name: String
        let column: String
        let accessor: DBBObjectAccessor
        let target: ObjectIdentifier
        let targetName: String
    }

    enum JoinValues {
        case scalar(DBBScalarAccessor)
        case values(DBBValuesAccessor)
        case object(DBBObjectAccessor, target: ObjectIdentifier)
        case objects(DBBObjectsAccessor, target: ObjectIdentifier)

        var target: ObjectIdentifier? {
            switch self {
            case .object(_, let target), .objects(_, let target): target
            default: nil
            }
        }
    }

    struct Join {
        let name: String
        let table: DBBTableDescription.JoinTable
        let values: JoinValues
        let cascades: Bool
        let insertSQL: String
        let deleteOwnersSQL: String
        let selectAllSQL: String
        let selectOwnersSQL: String
        let selectOwnerIDsSQL: String
        let deleteValuesSQL: String
    }

    let type: DBBTableObject.Type
    let description: DBBTableDescription
    let tableName: String
    let idColumn: String
    let hasTimestamps: Bool
    let scalars: [Scalar]
    let foreignKeys: [ForeignKey]
    let joins: [Join]
    let propertyNames: Set<String>
    /// Every mapped property's accessor by name, for the by-name paths (dictionaries, partial-save snapshots).
    let accessorsByName: [String: DBBPropertyAccessor]
    /// Whether objects of the class reference other objects (foreign keys, or reference join tables).
    let hasReferences: Bool
    /// The key paths of the mapped properties that have one (closure-only entries have none), by name, for
    /// typed conditions.
    let keyPaths: [String: AnyKeyPath & Sendable]

    /// `SELECT id, createdTime, modifiedTime, <scalars>, <foreign keys> FROM <table>`.
    let selectSQL: String
    /// The number of leading columns before the scalars (id, and the two timestamps when present).
    let leadingColumns: Int
    let insertSQL: String
    /// `insertSQL` with the id column first, for objects whose id was set before their first save.
    let insertWithIDSQL: String
    /// `nil` when the class has nothing to update (no timestamps, no columns).
    let updateSQL: String?
    let deleteSQL: String
    /// `" WHERE <id> IN (SELECT value FROM json_each(?))"`: rows by a JSON list of ids.
    let byIDsSQL: String
    /// The ids of every row, ascending.
    let allIDsSQL: String

    /// - Parameter prototype: an object of the class, in which the stored properties of key-path entries are
    ///   located once, so that rows are read and written without applying key paths.
    init(
        type: DBBTableObject.Type, properties: [String: DBBPropertyPersistence], attributes: [String: String],
        indexers: [DBBIndexer], prototype: DBBTableObject
    ) throws {
        self.type = type
        tableName = type.tableName
        idColumn = type.idColumnName
        hasTimestamps = type.hasTimestampColumns
        // One indexer makes one index; several (from a class chain) are kept in order of registration.
        let description = try DBBTableDescription(
            tableName: tableName, idColumn: idColumn, includesTimestamps: hasTimestamps, properties: properties,
            attributes: attributes, indexers: indexers)
        self.description = description
        propertyNames = Set(properties.keys)
        let accessors = properties.mapValues { $0.accessor(resolvedIn: prototype) }
        accessorsByName = accessors
        keyPaths = properties.compactMapValues(\.keyPath)

        var scalars: [Scalar] = []
        var foreignKeys: [ForeignKey] = []
        for column in description.columns {
            guard let property = properties[column.propertyName], let accessor = accessors[column.propertyName] else {
                continue
            }
            switch accessor {
            case .scalar(let accessor):
                scalars.append(Scalar(name: column.propertyName, column: column.name, accessor: accessor))
            case .object(let accessor):
                guard let target = property.storageType.objectType else { continue }
                foreignKeys.append(
                    ForeignKey(
                        name: column.propertyName, column: column.name, accessor: accessor,
                        target: ObjectIdentifier(target), targetName: String(describing: target)))
            default:
                throw DBBError.misuse(
                    "property \(column.propertyName) cannot be stored as a column",
                    context: "registering \(tableName)")
            }
        }
        self.scalars = scalars
        self.foreignKeys = foreignKeys

        joins = try description.joinTables.map { table in
            guard let property = properties[table.propertyName] else {
                throw DBBError(.internal, message: "lost property \(table.propertyName)", context: "registering")
            }
            let values: JoinValues
            switch accessors[table.propertyName] ?? property.accessor {
            case .scalar(let accessor): values = .scalar(accessor)
            case .values(let accessor): values = .values(accessor)
            case .object(let accessor):
                values = .object(accessor, target: ObjectIdentifier(property.storageType.objectType!))
            case .objects(let accessor):
                values = .objects(accessor, target: ObjectIdentifier(property.storageType.objectType!))
            }
            return Join(
                name: table.propertyName, table: table, values: values,
                cascades: attributes[table.propertyName] == ColumnAttribute.cascadingDeletion,
                insertSQL: table.insertSQL, deleteOwnersSQL: table.deleteOwnersSQL, selectAllSQL: table.selectAllSQL,
                selectOwnersSQL: table.selectOwnersSQL, selectOwnerIDsSQL: table.selectOwnerValuesSQL,
                deleteValuesSQL: table.deleteValuesSQL)
        }

        hasReferences = !foreignKeys.isEmpty || joins.contains { $0.values.target != nil }

        // The statements' text comes from the table's description; the map keeps it to prepare and cache.
        let writeColumns = scalars.map(\.column) + foreignKeys.map(\.column)
        leadingColumns = description.leadingColumnCount
        selectSQL = description.selectSQL(columns: writeColumns)
        insertSQL = description.insertSQL(columns: writeColumns)
        insertWithIDSQL = description.insertSQL(columns: writeColumns, withID: true)
        updateSQL = description.updateSQL(columns: writeColumns)
        deleteSQL = description.deleteByIDListSQL
        byIDsSQL = description.byIDListSQL
        allIDsSQL = description.allIDsSQL
    }

    /// Creates what is missing of the class's layout; never drops anything.
    func createOrUpdateSchema(in db: DBBDatabase) throws {
        if try db.tableExists(tableName) {
            for statement in try description.alterStatements(existing: try db.columns(in: tableName)) {
                try db.execute(statement)
            }
        } else {
            try db.execute(description.createTableSQL)
        }
        for join in description.joinTables {
            if try db.tableExists(join.tableName) {
                for statement in try DBBTableDescription.alterJoinStatements(
                    join, existing: try db.columns(in: join.tableName))
                {
                    try db.execute(statement)
                }
            } else {
                try db.execute(DBBTableDescription.createJoinTableSQL(join))
            }
            try db.execute(DBBTableDescription.createJoinIndexSQL(join))
        }
        for indexSQL in description.createIndexStatements { try db.execute(indexSQL) }
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
        request.arguments = [.text(Self.idList(ids))]
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

    /// Deletes rows and everything that belongs to them, in one transaction; call on the manager's queue.
    func deleteRows(ids: [Int64], manager: DBBManager, db: DBBDatabase) throws {
        try db.inTransaction(.immediate) { db in
            var deleter = DBBObjectDeleter(manager: manager, db: db)
            try deleter.delete(ids: ids, of: self)
        }
    }

    /// Objects in the order of `ids`, skipping ids no object has.
    static func ordered<T: DBBTableObject>(_ objects: [T], by ids: [Int64]) -> [T] {
        let byID = Dictionary(objects.map { ($0.idNum, $0) }, uniquingKeysWith: { first, _ in first })
        return ids.compactMap { byID[$0] }
    }

    /// JSON text of an id list, bound to `json_each(?)` so one statement serves any number of ids.
    static func idList<S: Sequence>(_ ids: S) -> String where S.Element == Int64 {
        // Digits written straight into one buffer: a list of tens of thousands of ids is built in a few
        // instructions per digit, with no string per id.
        var bytes: [UInt8] = [UInt8(ascii: "[")]
        bytes.reserveCapacity(ids.underestimatedCount * 8 + 2)
        for id in ids {
            if bytes.count > 1 { bytes.append(UInt8(ascii: ",")) }
            if id < 0 { bytes.append(UInt8(ascii: "-")) }
            // The magnitude's digits, least significant first, then put in order.
            let start = bytes.count
            var rest = id.magnitude
            repeat {
                bytes.append(UInt8(ascii: "0") + UInt8(rest % 10))
                rest /= 10
            } while rest > 0
            // Swapped in place: reversing a slice of the array would copy the whole buffer.
            var (low, high) = (start, bytes.count - 1)
            while low < high {
                bytes.swapAt(low, high)
                low += 1
                high -= 1
            }
        }
        bytes.append(UInt8(ascii: "]"))
        return String(decoding: bytes, as: UTF8.self)
    }
}
