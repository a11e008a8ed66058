package import DBBSQL

/// The statements of versioned migrations, which the object layer runs: the record table's, the schema changes
/// of the steps (renames and drops, a reference's move between its join table and a column) and SQLite's table
/// rebuild. Statements both engines run take a dialect; SQLite's alone write names as SQLite's dialect does.
/// PostgreSQL's own `ALTER TABLE` forms are written by the `DBBPostgres` module.
package enum DBBMigrationStatements {
    // MARK: The record table

    /// The table where migrations are recorded: one row per migration that ran.
    package static let recordTable = "DBBMigrations"

    /// `CREATE TABLE IF NOT EXISTS` of the record table: an id, the migration's unique name, when it ran
    /// (`appliedTime`, seconds since 2001) and the checksum of its steps.
    package static func createRecordTableSQL(_ dialect: DBBSQLDialect) -> String {
        let q = dialect.identifier
        return "CREATE TABLE IF NOT EXISTS \(q(recordTable)) (\(q("id")) \(dialect.idColumnDefinition), \(q("name")) "
            + "\(dialect.columnType("Text")) NOT NULL UNIQUE, \(q("appliedTime")) \(dialect.columnType("Real")), "
            + "\(q("checksum")) \(dialect.columnType("Text")))"
    }

    /// Records a migration: arguments `name`, `appliedTime`, `checksum`.
    package static func insertRecordSQL(_ dialect: DBBSQLDialect) -> String {
        let q = dialect.identifier
        return "INSERT INTO \(q(recordTable)) (\(q("name")), \(q("appliedTime")), \(q("checksum"))) "
            + "VALUES (?, ?, ?)"
    }

    /// The records' `name`, `appliedTime` and `checksum`, in the order the migrations ran.
    package static func selectRecordsSQL(_ dialect: DBBSQLDialect) -> String {
        let q = dialect.identifier
        return "SELECT \(q("name")), \(q("appliedTime")), \(q("checksum")) FROM \(q(recordTable)) ORDER BY \(q("id"))"
    }

    // MARK: Schema changes

    /// `DROP <TYPE> <name>`: drops a table, index, view or trigger.
    ///
    /// - Parameters:
    ///   - type: the schema object's type, as SQLite's schema names it (`table`, `index`, `view`, `trigger`).
    ///   - name: its name.
    ///   - dialect: the dialect the name is written in. Default: SQLite's.
    package static func dropSQL(_ type: String, named name: String, dialect: DBBSQLDialect = .sqlite) -> String {
        "DROP \(type.uppercased()) \(dialect.identifier(name))"
    }

    /// `DROP TABLE <table>`.
    package static func dropTableSQL(_ table: String, dialect: DBBSQLDialect = .sqlite) -> String {
        dropSQL("table", named: table, dialect: dialect)
    }

    /// `DROP INDEX <index>`.
    package static func dropIndexSQL(_ index: String, dialect: DBBSQLDialect = .sqlite) -> String {
        dropSQL("index", named: index, dialect: dialect)
    }

    /// `ALTER TABLE <old> RENAME TO <new>`.
    package static func renameTableSQL(_ old: String, to new: String, dialect: DBBSQLDialect = .sqlite) -> String {
        "ALTER TABLE \(dialect.identifier(old)) RENAME TO \(dialect.identifier(new))"
    }

    /// `ALTER TABLE <table> RENAME COLUMN <old> TO <new>`.
    package static func renameColumnSQL(
        _ old: String, to new: String, in table: String, dialect: DBBSQLDialect = .sqlite
    ) -> String {
        let q = dialect.identifier
        return "ALTER TABLE \(q(table)) RENAME COLUMN \(q(old)) TO \(q(new))"
    }

    /// `ALTER TABLE <table> ADD COLUMN <column> <type>`, the type in the dialect's column types.
    ///
    /// - Parameters:
    ///   - column: the new column.
    ///   - sqlType: its stored type, as the SQLite layout names it.
    ///   - table: the table.
    ///   - dialect: the dialect.
    package static func addColumnSQL(
        _ column: String, sqlType: String, to table: String, dialect: DBBSQLDialect
    ) -> String {
        "ALTER TABLE \(dialect.identifier(table)) ADD COLUMN \(dialect.identifier(column)) "
            + dialect.columnType(sqlType)
    }

    /// One row when a column of a table holds a value other than NULL in any row: `count(*)` is 1 or 0.
    package static func holdsValuesSQL(_ column: String, in table: String, dialect: DBBSQLDialect = .sqlite) -> String {
        let q = dialect.identifier
        return "SELECT count(*) FROM (SELECT 1 FROM \(q(table)) WHERE \(q(column)) IS NOT NULL LIMIT 1)"
    }

    // MARK: A reference's move between its join table and a column (both engines)

    /// The join table `<Table>_<property>` of a reference, laid out as registration lays it out: an owner column
    /// and an `Integer` value column named after the property.
    package static func referenceJoinTable(
        _ property: String, of table: String, dialect: DBBSQLDialect
    ) -> DBBTableDescription.JoinTable {
        DBBTableDescription.JoinTable(
            propertyName: property, columnName: property, of: table, sqlType: "Integer", dialect: dialect)
    }

    /// Selects a row when an owner has several rows in a join table (its property holds an array, not a
    /// reference), none otherwise.
    package static func ownerWithSeveralRowsSQL(_ join: DBBTableDescription.JoinTable) -> String {
        let q = join.dialect.identifier
        return "SELECT 1 FROM \(q(join.tableName)) GROUP BY \(q(join.ownerColumn)) HAVING count(*) > 1 LIMIT 1"
    }

    /// Sets the column of a class's table named as a join table's value column to each owner's value in the join
    /// table (NULL for an owner without a row).
    ///
    /// - Parameters:
    ///   - join: the join table.
    ///   - table: the class's table, which has the column.
    ///   - idColumn: the table's id column, which the join table's owner column holds.
    package static func copyJoinValuesSQL(
        _ join: DBBTableDescription.JoinTable, into table: String, idColumn: String
    ) -> String {
        let q = join.dialect.identifier
        let value = q(join.columnName)
        return "UPDATE \(q(table)) SET \(value) = (SELECT j.\(value) FROM \(q(join.tableName)) j WHERE "
            + "j.\(q(join.ownerColumn)) = \(q(table)).\(q(idColumn)))"
    }

    /// Inserts into a join table one row per row of a class's table whose column (named as the join table's value
    /// column) is not NULL, in id order.
    ///
    /// - Parameters:
    ///   - join: the join table.
    ///   - table: the class's table, which has the column.
    ///   - idColumn: the table's id column, which the join table's owner column is to hold.
    package static func copyColumnValuesSQL(
        _ join: DBBTableDescription.JoinTable, from table: String, idColumn: String
    ) -> String {
        let q = join.dialect.identifier
        let value = q(join.columnName)
        return "INSERT INTO \(q(join.tableName)) (\(q(join.ownerColumn)), \(value)) SELECT \(q(idColumn)), "
            + "\(value) FROM \(q(table)) WHERE \(value) IS NOT NULL ORDER BY \(q(idColumn))"
    }

    // MARK: SQLite's table rebuild and index renames

    /// An index's `CREATE INDEX` statement, as SQLite's schema keeps it, with the index renamed; `nil` when the
    /// statement does not name the index.
    ///
    /// - Parameters:
    ///   - sql: the index's statement.
    ///   - old: its name.
    ///   - new: the new name.
    package static func renamedIndexSQL(_ sql: String, from old: String, to new: String) -> String? {
        var tokens = DBBTableDefinition.tokenize(sql)
        guard
            let position = tokens.firstIndex(where: { DBBTableDefinition.unquote($0).lowercased() == old.lowercased() })
        else { return nil }
        tokens[position] = DBBIdentifier.sql(new)
        return tokens.joined(separator: " ")
    }

    /// `INSERT INTO <new> (<columns>) SELECT <columns> FROM <old>`: copies the rows of a table being rebuilt.
    ///
    /// - Parameters:
    ///   - table: the table.
    ///   - temporary: the rebuilt table.
    ///   - columns: the columns both have.
    ///   - keepingRowid: whether `rowid` is copied too (a rowid table without an `INTEGER PRIMARY KEY`, whose
    ///     rows keep their rowids).
    package static func copyRowsSQL(
        from table: String, into temporary: String, columns: [String], keepingRowid: Bool
    ) -> String {
        let q = DBBIdentifier.sql
        let list = ((keepingRowid ? ["rowid"] : []) + columns.map(q)).joined(separator: ", ")
        return "INSERT INTO \(q(temporary)) (\(list)) SELECT \(list) FROM \(q(table))"
    }

    /// `SELECT * FROM <view> LIMIT 0`: makes SQLite check a view's columns, which it does when the view is used,
    /// not when it is created.
    package static func checkViewSQL(_ view: String) -> String {
        "SELECT * FROM \(DBBIdentifier.sql(view)) LIMIT 0"
    }

    /// The rowid and value of each row of a table whose column is not NULL.
    package static func selectValuesByRowidSQL(_ column: String, of table: String) -> String {
        let q = DBBIdentifier.sql
        return "SELECT rowid, \(q(column)) FROM \(q(table)) WHERE \(q(column)) IS NOT NULL"
    }

    /// Sets a column of the row of a rowid: arguments the value, the rowid.
    package static func updateValueByRowidSQL(_ column: String, of table: String) -> String {
        let q = DBBIdentifier.sql
        return "UPDATE \(q(table)) SET \(q(column)) = ? WHERE rowid = ?"
    }
}
