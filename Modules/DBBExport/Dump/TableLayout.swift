internal import DBBSQL
internal import Foundation

/// How one table's rows are read from and written to a database.
struct TableLayout {
    /// The table's name.
    let name: String
    /// The stored (non-generated) columns, in table order.
    let columns: [String]
    /// The name that reaches the rowid (`rowid`, `_rowid_` or `oid`, whichever no column shadows),
    /// or `nil` for a `WITHOUT ROWID` table.
    let rowIDName: String?
    /// Whether rows carry their rowid separately: a rowid table whose rowid is not already a column.
    let storesRowID: Bool
    /// Where the rowid sits in a row of `selectSQL`: the first value when stored separately, else the
    /// `INTEGER PRIMARY KEY` column's; `nil` for a `WITHOUT ROWID` table.
    let rowIDColumn: Int?
    /// An extra `WHERE` condition (for the selected entries of `sqlite_sequence`).
    var condition: String?
    /// Whether a dump of a damaged source checks the rowids for repeats, having found them out of order.
    var checksRepeatedRowIDs = false
    /// Whether rows are read without their rowid although the table stores it separately: to compare it with
    /// a dump of another engine, which has no rowids for a table without a key.
    var omitsRowID = false

    /// The table name quoted for SQL, in the main schema.
    var qualifiedName: String { "main." + DBBDatabase.quoteIdentifier(name) }

    /// Reads a table's layout from the database.
    ///
    /// - Throws: ``DBBError`` if the schema cannot be read.
    init(table: String, in db: DBBDatabase) throws {
        name = table
        var stored: [String] = []
        var all: [String] = []
        try db.forEachRow("SELECT name, hidden FROM pragma_table_xinfo(?, 'main') ORDER BY cid", arguments: [table]) {
            row in
            let column: String = try row[0]
            let hidden: Int = try row[1]
            all.append(column.lowercased())
            // hidden: 0 ordinary, 1 hidden column of a virtual table, 2 and 3 generated columns.
            if hidden == 0 { stored.append(column) }
        }
        columns = stored
        let alias = ["rowid", "_rowid_", "oid"].first { !all.contains($0) }
        var rowIDName: String?
        if let alias {
            // Only a WITHOUT ROWID table (or a view) rejects the rowid alias.
            if (try? db.prepare("SELECT \(alias) FROM main.\(DBBDatabase.quoteIdentifier(table)) LIMIT 0")) != nil {
                rowIDName = alias
            }
        }
        self.rowIDName = rowIDName
        // A rowid table stores its rowid separately unless a column (its INTEGER PRIMARY KEY) is the rowid.
        var aliasColumn: String?
        if rowIDName != nil { aliasColumn = try db.rowidAliasColumn(in: table) }
        storesRowID = rowIDName != nil && aliasColumn == nil
        if storesRowID {
            rowIDColumn = 0
        } else if let aliasColumn {
            rowIDColumn = stored.firstIndex(of: aliasColumn)
        } else {
            rowIDColumn = nil
        }
    }

    /// The values a row of `selectSQL` holds, as written in it: the rowid first when stored, then the columns.
    var selectedValues: [String] {
        var names = columns.map(DBBDatabase.quoteIdentifier)
        if storesRowID && !omitsRowID, let rowIDName { names.insert(rowIDName, at: 0) }
        return names
    }

    /// The query that reads every row: the rowid first when stored, in rowid order for rowid tables.
    var selectSQL: String { selectSQL(of: selectedValues) }

    /// A query of some of ``selectedValues`` (as written there) over the rows `selectSQL` reads, in its order.
    func selectSQL(of values: [String]) -> String {
        var sql = "SELECT \(values.isEmpty ? "NULL" : values.joined(separator: ", ")) FROM \(qualifiedName)"
        if let condition { sql += " WHERE \(condition)" }
        if let rowIDName { sql += " ORDER BY \(rowIDName)" }
        return sql
    }

    /// The condition that selects the entries of `sqlite_sequence` for some tables.
    static func sequenceCondition(tables: [String]) -> String {
        let names = tables.map { DBBDatabase.quoted($0, with: UInt8(ascii: "'")) }
        return "name IN (\(names.joined(separator: ", ")))"
    }

    /// The query that counts the rows `selectSQL` reads.
    var countSQL: String {
        var sql = "SELECT count(*) FROM \(qualifiedName)"
        if let condition { sql += " WHERE \(condition)" }
        return sql
    }
}
