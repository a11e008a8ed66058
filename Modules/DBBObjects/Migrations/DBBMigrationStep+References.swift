internal import DBBSQL
internal import DBBSchema

/// The moves of a reference between its join table and a column of its class's table, in statements both engines
/// take (DBBSchema's `DBBMigrationStatements`, in the connection's dialect); each engine finds the id column and
/// drops a column its own way.
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
        let join = DBBMigrationStatements.referenceJoinTable(property, of: table, dialect: dialect)
        let several = try selectIDs(DBBMigrationStatements.ownerWithSeveralRowsSQL(join), arguments: [])
        guard several.isEmpty else {
            throw DBBError.misuse(
                "an object of \(table) has several rows in \(table)_\(property): the property holds an array, not a "
                    + "reference", context: context)
        }
        try executeUpdate(
            DBBMigrationStatements.addColumnSQL(property, sqlType: join.sqlType, to: table, dialect: dialect),
            arguments: [])
        try executeUpdate(
            DBBMigrationStatements.copyJoinValuesSQL(join, into: table, idColumn: idColumn), arguments: [])
        try executeUpdate(DBBMigrationStatements.dropTableSQL(join.tableName, dialect: dialect), arguments: [])
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
        let join = DBBMigrationStatements.referenceJoinTable(property, of: table, dialect: dialect)
        guard try !tableExists(join.tableName) else {
            throw DBBError.misuse("a table \(join.tableName) exists already", context: context)
        }
        try executeUpdate(DBBTableDescription.createJoinTableSQL(join), arguments: [])
        try executeUpdate(DBBTableDescription.createJoinIndexSQL(join), arguments: [])
        try executeUpdate(
            DBBMigrationStatements.copyColumnValuesSQL(join, from: table, idColumn: idColumn), arguments: [])
        try dropColumn()
    }
}
