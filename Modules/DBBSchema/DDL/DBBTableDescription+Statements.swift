internal import DBBSQL

// The statements the object layer runs for a registered class, written here beside its DDL so that every
// piece of SQL about a table's layout comes from one place; DBBObjects prepares, binds and caches them.
// Rows are chosen by a JSON list of ids bound to `json_each(?)`, so one statement serves any number of ids.

extension DBBTableDescription {
    private static func q(_ name: String) -> String { DBBIdentifier.sql(name) }

    /// The timestamp columns every insert writes, when the table has them.
    private var timestampColumns: [String] { includesTimestamps ? ["createdTime", "modifiedTime"] : [] }

    /// `SELECT <id>, createdTime, modifiedTime, <columns> FROM <table>`: the columns an object is read from, the
    /// id first and the timestamps (when the table has them) next.
    ///
    /// - Parameter columns: the columns after those, by name, in the order they are read.
    package func selectSQL(columns: [String]) -> String {
        let all = [Self.q(idColumn)] + timestampColumns + columns.map(Self.q)
        return "SELECT \(all.joined(separator: ", ")) FROM \(Self.q(tableName))"
    }

    /// The number of columns ``selectSQL(columns:)`` reads before the given ones.
    package var leadingColumnCount: Int { includesTimestamps ? 3 : 1 }

    /// `INSERT INTO <table> (createdTime, modifiedTime, <columns>) VALUES (?, …)`, or with `withID` the id column
    /// first (for an object whose id was set before its first save); `DEFAULT VALUES` when nothing is written.
    package func insertSQL(columns: [String], withID: Bool = false) -> String {
        let names = (withID ? [Self.q(idColumn)] : []) + timestampColumns + columns.map(Self.q)
        guard !names.isEmpty else { return "INSERT INTO \(Self.q(tableName)) DEFAULT VALUES" }
        return "INSERT INTO \(Self.q(tableName)) (\(names.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
    }

    /// `UPDATE <table> SET modifiedTime = ?, <column> = ?, … WHERE <id> = ?`, or `nil` when there is nothing to
    /// set.
    ///
    /// - Parameters:
    ///   - columns: the columns to set, by name, in the order they are bound.
    ///   - touchesModifiedTime: whether `modifiedTime` is set first (when the table has timestamps).
    package func updateSQL(columns: [String], touchesModifiedTime: Bool = true) -> String? {
        let names = (touchesModifiedTime && includesTimestamps ? ["modifiedTime"] : []) + columns.map(Self.q)
        guard !names.isEmpty else { return nil }
        return "UPDATE \(Self.q(tableName)) SET \(names.map { "\($0) = ?" }.joined(separator: ", ")) "
            + "WHERE \(Self.q(idColumn)) = ?"
    }

    /// `DELETE FROM <table> WHERE <id> IN (<id list>)`.
    package var deleteByIDListSQL: String { "DELETE FROM \(Self.q(tableName))\(byIDListSQL)" }

    /// `UPDATE <table> SET <column> = NULL WHERE <column> IN (<id list>)`: clears a foreign key column's references
    /// to deleted rows.
    package func clearReferencesSQL(column: String) -> String {
        "UPDATE \(Self.q(tableName)) SET \(Self.q(column)) = NULL WHERE \(Self.q(column)) IN (SELECT value FROM json_each(?))"
    }

    /// ` WHERE <id> IN (SELECT value FROM json_each(?))`: the rows of a JSON list of ids, after a `SELECT`.
    package var byIDListSQL: String { " WHERE \(Self.q(idColumn)) IN (SELECT value FROM json_each(?))" }

    /// ` WHERE <id> IN (<query> UNION ALL <query> …)`: the rows whose ids the queries select, after a `SELECT`.
    ///
    /// - Parameter queries: `SELECT`s of one column of ids each (``selectColumnSQL(_:)``,
    ///   ``JoinTable/selectValuesSQL``).
    package func byIDsSQL(selectedBy queries: [String]) -> String {
        " WHERE \(Self.q(idColumn)) IN (\(queries.joined(separator: " UNION ALL ")))"
    }

    /// `SELECT <column> FROM <table>`: every value of one column (the ids a foreign key column references).
    package func selectColumnSQL(_ column: String) -> String { "SELECT \(Self.q(column)) FROM \(Self.q(tableName))" }

    /// ` ORDER BY <id>`: rows in id order.
    package var orderByIDSQL: String { " ORDER BY \(Self.q(idColumn))" }

    /// The ids of every row, ascending.
    package var allIDsSQL: String { "SELECT \(Self.q(idColumn)) FROM \(Self.q(tableName))\(orderByIDSQL)" }
}

extension DBBTableDescription.JoinTable {
    private static func q(_ name: String) -> String { DBBIdentifier.sql(name) }
    private var table: String { Self.q(tableName) }
    private var owner: String { Self.q(ownerColumn) }
    private var value: String { Self.q(columnName) }

    /// `INSERT INTO <join> (<owner>, <value>) VALUES (?, ?)`: one element, appended.
    package var insertSQL: String { "INSERT INTO \(table) (\(owner), \(value)) VALUES (?, ?)" }

    /// Deletes the rows of the owners in a JSON list of ids.
    package var deleteOwnersSQL: String {
        "DELETE FROM \(table) WHERE \(owner) IN (SELECT value FROM json_each(?))"
    }

    /// `SELECT <value> FROM <join>`: every value (the ids the references of every owner name).
    package var selectValuesSQL: String { "SELECT \(value) FROM \(table)" }

    /// Every row, grouped by owner in element order.
    package var selectAllSQL: String { "SELECT \(owner), \(value) FROM \(table) ORDER BY \(owner), id" }

    /// The rows of the owners in a JSON list of ids, grouped by owner in element order.
    package var selectOwnersSQL: String {
        "SELECT \(owner), \(value) FROM \(table) WHERE \(owner) IN (SELECT value FROM json_each(?)) ORDER BY \(owner), id"
    }

    /// The distinct values (referenced ids) of the owners in a JSON list of ids.
    package var selectOwnerValuesSQL: String {
        "SELECT DISTINCT \(value) FROM \(table) WHERE \(owner) IN (SELECT value FROM json_each(?))"
    }

    /// Deletes the rows whose value is in a JSON list (references to deleted objects).
    package var deleteValuesSQL: String {
        "DELETE FROM \(table) WHERE \(value) IN (SELECT value FROM json_each(?))"
    }
}
