internal import DBBSQL
internal import DBBSchema
internal import Foundation

/// A registered class's mapping, compiled once: its layout, its accessors in column order, and the SQL
/// of every statement the object API runs for it.
final class DBBTableMap: @unchecked Sendable {
    // @unchecked: immutable after init; its closures run on the manager's queue.

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
    let keyPaths: [String: AnyKeyPath]

    /// `SELECT id, createdTime, modifiedTime, <scalars>, <foreign keys> FROM <table>`.
    let selectSQL: String
    /// The number of leading columns before the scalars (id, and the two timestamps when present).
    let leadingColumns: Int
    let insertSQL: String
    /// `insertSQL` with the id column first, for objects whose id was set before their first save.
    let insertWithIDSQL: String
    let updateSQL: String
    let deleteSQL: String

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
        let accessors = properties.mapValues { property in
            if case .scalar(let accessor) = property.accessor {
                return DBBPropertyAccessor.scalar(accessor.resolvingStorage(in: prototype))
            }
            return property.accessor
        }
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

        let q = DBBIdentifier.sql
        joins = try description.joinTables.map { table in
            guard let property = properties[table.propertyName] else {
                throw DBBError(.internal, message: "lost property \(table.propertyName)", context: "registering")
            }
            let values: JoinValues
            switch property.accessor {
            case .scalar(let accessor): values = .scalar(accessor)
            case .values(let accessor): values = .values(accessor)
            case .object(let accessor):
                values = .object(accessor, target: ObjectIdentifier(property.storageType.objectType!))
            case .objects(let accessor):
                values = .objects(accessor, target: ObjectIdentifier(property.storageType.objectType!))
            }
            let joinTable = q(table.tableName)
            let owner = q(table.ownerColumn)
            let column = q(table.columnName)
            return Join(
                name: table.propertyName, table: table, values: values,
                cascades: attributes[table.propertyName] == ColumnAttribute.cascadingDeletion,
                insertSQL: "INSERT INTO \(joinTable) (\(owner), \(column)) VALUES (?, ?)",
                deleteOwnersSQL: "DELETE FROM \(joinTable) WHERE \(owner) IN (SELECT value FROM json_each(?))",
                selectAllSQL: "SELECT \(owner), \(column) FROM \(joinTable) ORDER BY \(owner), id",
                selectOwnersSQL:
                    "SELECT \(owner), \(column) FROM \(joinTable) WHERE \(owner) IN (SELECT value FROM json_each(?)) "
                    + "ORDER BY \(owner), id",
                selectOwnerIDsSQL:
                    "SELECT DISTINCT \(column) FROM \(joinTable) WHERE \(owner) IN (SELECT value FROM json_each(?))",
                deleteValuesSQL: "DELETE FROM \(joinTable) WHERE \(column) IN (SELECT value FROM json_each(?))")
        }

        hasReferences = !foreignKeys.isEmpty || joins.contains { $0.values.target != nil }

        let table = q(tableName)
        var selectColumns = [q(idColumn)]
        var writeColumns: [String] = []
        if hasTimestamps {
            selectColumns += ["createdTime", "modifiedTime"]
        }
        leadingColumns = selectColumns.count
        writeColumns += scalars.map { q($0.column) } + foreignKeys.map { q($0.column) }
        selectColumns += writeColumns
        selectSQL = "SELECT \(selectColumns.joined(separator: ", ")) FROM \(table)"
        let insertColumns = (hasTimestamps ? ["createdTime", "modifiedTime"] : []) + writeColumns
        insertSQL =
            insertColumns.isEmpty
            ? "INSERT INTO \(table) DEFAULT VALUES"
            : "INSERT INTO \(table) (\(insertColumns.joined(separator: ", "))) VALUES ("
                + Array(repeating: "?", count: insertColumns.count).joined(separator: ", ") + ")"
        let idAndColumns = [q(idColumn)] + insertColumns
        insertWithIDSQL =
            "INSERT INTO \(table) (\(idAndColumns.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: idAndColumns.count).joined(separator: ", ") + ")"
        let updateColumns = (hasTimestamps ? ["modifiedTime"] : []) + writeColumns
        updateSQL =
            updateColumns.isEmpty
            ? ""
            : "UPDATE \(table) SET \(updateColumns.map { "\($0) = ?" }.joined(separator: ", ")) WHERE \(q(idColumn)) = ?"
        deleteSQL = "DELETE FROM \(table) WHERE \(q(idColumn)) IN (SELECT value FROM json_each(?))"
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
        request.tail = " ORDER BY \(DBBIdentifier.sql(idColumn))"
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

    /// `" WHERE <id> IN (SELECT value FROM json_each(?))"`: rows by a JSON list of ids.
    var byIDsSQL: String { " WHERE \(DBBIdentifier.sql(idColumn)) IN (SELECT value FROM json_each(?))" }

    /// The ids of every row, ascending.
    var allIDsSQL: String {
        "SELECT \(DBBIdentifier.sql(idColumn)) FROM \(DBBIdentifier.sql(tableName)) ORDER BY \(DBBIdentifier.sql(idColumn))"
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
        "[" + ids.lazy.map(String.init).joined(separator: ",") + "]"
    }
}
