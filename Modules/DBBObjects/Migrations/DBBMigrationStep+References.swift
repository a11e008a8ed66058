internal import DBBSQL
internal import DBBSchema

/// The moves of a reference between its join table and a column of its class's table, in SQL both engines
/// take (each name in the connection's dialect); each engine finds the id column and drops a column its own way.
extension DBBObjectConnection {
    /// Moves a reference stored in its join table `<Table>_<property>` into an `Integer` column of the class's
    /// table, then drops the join table. Runs inside the migration's transaction.
    ///
    /// - Parameters:
    ///   - property: the reference's stored name; its join table exists and the table has no such column.
    ///   - table: the class's table.
    ///   - idColumn: the table's id column, which the join table's owner column holds.
    ///   - context: what the caller is doing, for errors.
    /// - Throws: `DBBError` (misuse) when an owner has several rows in the join table (an array, not a
    ///   reference), or the engine's error.
    package func moveReferenceToColumn(_ property: String, in table: String, idColumn: String, context: String)
        throws
    {
        let q = dialect.identifier
        let join = q(table + "_" + property)
        let owner = q(table + "_ID")
        let several = try selectIDs(
            "SELECT 1 FROM \(join) GROUP BY \(owner) HAVING count(*) > 1 LIMIT 1", arguments: [])
        guard several.isEmpty else {
            throw DBBError.misuse(
                "an object of \(table) has several rows in \(table)_\(property): the property holds an array, not a "
                    + "reference", context: context)
        }
        try executeUpdate(
            "ALTER TABLE \(q(table)) ADD COLUMN \(q(property)) \(dialect.columnType("Integer"))", arguments: [])
        try executeUpdate(
            "UPDATE \(q(table)) SET \(q(property)) = (SELECT j.\(q(property)) FROM \(join) j WHERE j.\(owner) = "
                + "\(q(table)).\(q(idColumn)))", arguments: [])
        try executeUpdate("DROP TABLE \(join)", arguments: [])
    }

    /// Moves a reference stored in a column of the class's table into a join table `<Table>_<property>`
    /// (DBBBuilder's layout, with its owner column and index, as registration creates them), one row per
    /// non-NULL reference in id order, then drops the column. Runs inside the migration's transaction.
    ///
    /// - Parameters:
    ///   - property: the reference's stored name: a column of the table.
    ///   - table: the class's table.
    ///   - idColumn: the table's id column, which the join table's owner column holds.
    ///   - context: what the caller is doing, for errors.
    ///   - dropColumn: drops the column, as the engine drops one.
    /// - Throws: `DBBError` (misuse) when a table `<Table>_<property>` exists already, or the engine's error.
    package func moveReferenceToJoinTable(
        _ property: String, in table: String, idColumn: String, context: String, dropColumn: () throws -> Void
    ) throws {
        let q = dialect.identifier
        let join = DBBTableDescription.JoinTable(
            propertyName: property, columnName: property, of: table, sqlType: "Integer", dialect: dialect)
        guard try !tableExists(join.tableName) else {
            throw DBBError.misuse("a table \(join.tableName) exists already", context: context)
        }
        try executeUpdate(DBBTableDescription.createJoinTableSQL(join), arguments: [])
        try executeUpdate(DBBTableDescription.createJoinIndexSQL(join), arguments: [])
        try executeUpdate(
            "INSERT INTO \(q(join.tableName)) (\(q(join.ownerColumn)), \(q(property))) SELECT \(q(idColumn)), "
                + "\(q(property)) FROM \(q(table)) WHERE \(q(property)) IS NOT NULL ORDER BY \(q(idColumn))",
            arguments: [])
        try dropColumn()
    }
}
