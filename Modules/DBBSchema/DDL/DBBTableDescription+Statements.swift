internal import DBBSQL

// The statements the object layer runs for a registered class, written here beside its DDL so that every
// piece of SQL about a table's layout comes from one place; DBBObjects prepares, binds and caches them.
// Rows are chosen by a list of ids bound as one argument (the dialect's `idListCondition`: `json_each(?)` on
// SQLite, `= ANY(?::bigint[])` on PostgreSQL), so one statement serves any number of ids.

extension DBBTableDescription {
    /// The timestamp columns every insert writes, when the table has them.
    private var timestampColumns: [String] { includesTimestamps ? [q("createdTime"), q("modifiedTime")] : [] }

    /// `SELECT <id>, createdTime, modifiedTime, <columns> FROM <table>`: the columns an object is read from, the
    /// id first and the timestamps (when the table has them) next.
    ///
    /// - Parameter columns: the columns after those, by name, in the order they are read.
    package func selectSQL(columns: [String]) -> String {
        let all = [q(idColumn)] + timestampColumns + columns.map(q)
        return "SELECT \(all.joined(separator: ", ")) FROM \(q(tableName))"
    }

    /// The number of columns ``selectSQL(columns:)`` reads before the given ones.
    package var leadingColumnCount: Int { includesTimestamps ? 3 : 1 }

    /// `INSERT INTO <table> (createdTime, modifiedTime, <columns>) VALUES (?, …)`, or with `withID` the id column
    /// first (for an object whose id was set before its first save); `DEFAULT VALUES` when nothing is written.
    package func insertSQL(columns: [String], withID: Bool = false) -> String {
        let names = (withID ? [q(idColumn)] : []) + timestampColumns + columns.map(q)
        guard !names.isEmpty else { return "INSERT INTO \(q(tableName)) DEFAULT VALUES" }
        return "INSERT INTO \(q(tableName)) (\(names.joined(separator: ", "))) VALUES ("
            + Array(repeating: "?", count: names.count).joined(separator: ", ") + ")"
    }

    /// `INSERT … ON CONFLICT (<target>) DO UPDATE SET <column> = excluded.<column>, … RETURNING <id>` (every
    /// written column but the target's, and `modifiedTime`), or `DO NOTHING` instead of the update: one statement
    /// that inserts a row or updates (or keeps) the row that holds the same unique values, and returns the row's id
    /// unless it kept it.
    ///
    /// - Parameters:
    ///   - columns: the written columns, as for ``insertSQL(columns:withID:)``.
    ///   - conflictColumns: the columns of the unique constraint or index that decides whether the row exists.
    ///   - updates: whether an existing row is updated (else kept).
    package func upsertSQL(columns: [String], conflictColumns: [String], updates: Bool) -> String {
        let target = Set(conflictColumns.map { $0.lowercased() })
        let set = ((includesTimestamps ? ["modifiedTime"] : []) + columns).filter { !target.contains($0.lowercased()) }
            .map { "\(q($0)) = excluded.\(q($0))" }
        let action = updates && !set.isEmpty ? "DO UPDATE SET \(set.joined(separator: ", "))" : "DO NOTHING"
        return insertSQL(columns: columns) + " ON CONFLICT (\(conflictColumns.map(q).joined(separator: ", "))) "
            + "\(action) RETURNING \(q(idColumn))"
    }

    /// `SELECT <id> FROM <table> WHERE <column> = ? AND …`: the row that holds given unique values.
    package func selectIDSQL(matching columns: [String]) -> String {
        "SELECT \(q(idColumn)) FROM \(q(tableName)) WHERE "
            + columns.map { "\(q($0)) = ?" }.joined(separator: " AND ")
    }

    /// `UPDATE <table> SET modifiedTime = ?, <column> = ?, … WHERE <id> = ?`, or `nil` when there is nothing to
    /// set.
    ///
    /// - Parameters:
    ///   - columns: the columns to set, by name, in the order they are bound.
    ///   - touchesModifiedTime: whether `modifiedTime` is set first (when the table has timestamps).
    package func updateSQL(columns: [String], touchesModifiedTime: Bool = true) -> String? {
        let names = (touchesModifiedTime && includesTimestamps ? [q("modifiedTime")] : []) + columns.map(q)
        guard !names.isEmpty else { return nil }
        return "UPDATE \(q(tableName)) SET \(names.map { "\($0) = ?" }.joined(separator: ", ")) "
            + "WHERE \(q(idColumn)) = ?"
    }

    /// `UPDATE <table> SET <column> = ?, …, modifiedTime = ? WHERE <id> IN (<query>)`: sets columns of every row
    /// whose id a query selects (a set-based update), and `modifiedTime` last when the table has timestamps.
    ///
    /// - Parameters:
    ///   - columns: the columns to set, by name, in the order they are bound (before the query's arguments).
    ///   - query: a `SELECT` of one column of ids.
    package func updateSQL(columns: [String], idsSelectedBy query: String) -> String {
        let names = columns.map(q) + (includesTimestamps ? [q("modifiedTime")] : [])
        return "UPDATE \(q(tableName)) SET \(names.map { "\($0) = ?" }.joined(separator: ", ")) "
            + "WHERE \(q(idColumn)) IN (\(query))"
    }

    /// `DELETE FROM <table> WHERE <id> IN (<id list>)`.
    package var deleteByIDListSQL: String { "DELETE FROM \(q(tableName))\(byIDListSQL)" }

    /// `UPDATE <table> SET <column> = NULL WHERE <column> IN (<id list>)`: clears a foreign key column's references
    /// to deleted rows.
    package func clearReferencesSQL(column: String) -> String {
        "UPDATE \(q(tableName)) SET \(q(column)) = NULL WHERE \(dialect.idListCondition(q(column)))"
    }

    /// ` WHERE <id> IN (<id list>)`: the rows of a bound list of ids, after a `SELECT`.
    package var byIDListSQL: String { " WHERE \(dialect.idListCondition(q(idColumn)))" }

    /// ` WHERE <id> IN (<query> UNION ALL <query> …)`: the rows whose ids the queries select, after a `SELECT`.
    ///
    /// - Parameter queries: `SELECT`s of one column of ids each (``selectColumnSQL(_:)``,
    ///   ``JoinTable/selectValuesSQL``).
    package func byIDsSQL(selectedBy queries: [String]) -> String {
        " WHERE \(q(idColumn)) IN (\(queries.joined(separator: " UNION ALL ")))"
    }

    /// `SELECT <column> FROM <table>`: every value of one column (the ids a foreign key column references).
    package func selectColumnSQL(_ column: String) -> String { "SELECT \(q(column)) FROM \(q(tableName))" }

    /// ` ORDER BY <id>`: rows in id order.
    package var orderByIDSQL: String { " ORDER BY \(q(idColumn))" }

    /// The ids of every row, ascending.
    package var allIDsSQL: String { "SELECT \(q(idColumn)) FROM \(q(tableName))\(orderByIDSQL)" }
}

extension DBBTableDescription.JoinTable {
    private var table: String { dialect.identifier(tableName) }
    private var owner: String { dialect.identifier(ownerColumn) }
    private var value: String { dialect.identifier(columnName) }
    /// The join table's own id, which keeps the elements of an owner in order.
    private var elementOrder: String { dialect.identifier("id") }

    /// `INSERT INTO <join> (<owner>, <value>) VALUES (?, ?)`: one element, appended.
    package var insertSQL: String { "INSERT INTO \(table) (\(owner), \(value)) VALUES (?, ?)" }

    /// Deletes the rows of the owners in a bound list of ids.
    package var deleteOwnersSQL: String {
        "DELETE FROM \(table) WHERE \(dialect.idListCondition(owner))"
    }

    /// `SELECT <value> FROM <join>`: every value (the ids the references of every owner name).
    package var selectValuesSQL: String { "SELECT \(value) FROM \(table)" }

    /// Every row, grouped by owner in element order.
    package var selectAllSQL: String { "SELECT \(owner), \(value) FROM \(table) ORDER BY \(owner), \(elementOrder)" }

    /// The rows of the owners in a bound list of ids, grouped by owner in element order.
    package var selectOwnersSQL: String {
        "SELECT \(owner), \(value) FROM \(table) WHERE \(dialect.idListCondition(owner)) ORDER BY \(owner), \(elementOrder)"
    }

    /// The distinct values (referenced ids) of the owners in a bound list of ids.
    package var selectOwnerValuesSQL: String {
        "SELECT DISTINCT \(value) FROM \(table) WHERE \(dialect.idListCondition(owner))"
    }

    /// Deletes the rows whose value is in a bound list (references to deleted objects).
    package var deleteValuesSQL: String {
        "DELETE FROM \(table) WHERE \(dialect.idListCondition(value))"
    }
}
