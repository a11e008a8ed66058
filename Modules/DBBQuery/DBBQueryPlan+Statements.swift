internal import DBBSQL

extension DBBQueryPlan {
    /// The statement that counts what a fetch with the plan's options returns, without building an object:
    /// the matching rows, or with ``distinctColumns`` or ``groupColumns`` the distinct combinations or the
    /// groups; ``limitSQL`` applies as it does to the fetch. It binds ``arguments``.
    ///
    /// ```swift
    /// var options = DBBQueryOptions()
    /// options.addCondition("score > ?", 10)
    /// let plan = try DBBQueryPlan(options: options, table: table)
    /// // plan.countSQL == "SELECT count(*) FROM Project WHERE (score > ?)", plan.arguments == [.integer(10)]
    /// ```
    public var countSQL: String {
        let table = dialect.identifier(tableName)
        let alias = dialect.subqueryAlias
        if let columns = groupColumns ?? distinctColumns {
            let groups = columns.map(dialect.identifier).joined(separator: ", ")
            return "SELECT count(*) FROM (SELECT 1 FROM \(table)\(whereSQL) GROUP BY \(groups)\(limitSQL))\(alias)"
        }
        if limitSQL.isEmpty { return "SELECT count(*) FROM \(table)\(whereSQL)" }
        return "SELECT count(*) FROM (SELECT 1 FROM \(table)\(whereSQL)\(limitSQL))\(alias)"
    }

    /// The statement that selects the ids of the rows a fetch with the plan's options matches, in its order and
    /// page: what a set-based update or delete changes. It binds ``arguments``.
    ///
    /// ```swift
    /// // options.addCondition("score > ?", 10)
    /// // plan.idsSQL == "SELECT id FROM Project WHERE (score > ?) ORDER BY id"
    /// ```
    public var idsSQL: String {
        "SELECT \(dialect.identifier(idColumn)) FROM \(dialect.identifier(tableName))" + whereSQL + orderSQL + limitSQL
    }

    /// For a distinct or grouped fetch, the statement that selects one id per distinct combination of
    /// ``distinctColumns`` (or per group of ``groupColumns``) — the lowest — in the fetch's order and page; the
    /// fetch then loads the objects with those ids. `nil` for any other fetch. It binds ``arguments``.
    ///
    /// ```swift
    /// // options.groupBy = ["score"]
    /// // plan.groupedIDsSQL == "SELECT MIN(id) AS id FROM Project GROUP BY score ORDER BY id"
    /// ```
    public var groupedIDsSQL: String? {
        guard let columns = groupColumns ?? distinctColumns else { return nil }
        let id = dialect.identifier(idColumn)
        let groups = columns.map(dialect.identifier).joined(separator: ", ")
        return "SELECT MIN(\(id)) AS \(id) FROM \(dialect.identifier(tableName))\(whereSQL) "
            + "GROUP BY \(groups)\(groupedOrderSQL ?? orderSQL)\(limitSQL)"
    }
}
