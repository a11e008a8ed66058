/// The header of a dump: what wrote it, from which database, and what the rest of the file holds.
///
/// Its fields mirror the database header values a restore brings back (`user_version`,
/// `application_id`, page size, text encoding, auto-vacuum mode), and it lists every table section
/// with its row count, so a reader can show progress and detect a missing section.
public struct DBBDumpHeader: Sendable, Equatable {
    /// The dump format version the file was written in (``DBBExport/formatVersion`` for new dumps).
    public var formatVersion: Int
    /// The version of the SQLite library that wrote the dump, for example `"3.40.1"`.
    public var sqliteVersion: String
    /// The source database's `PRAGMA user_version`.
    public var userVersion: Int32
    /// The source database's `PRAGMA application_id`.
    public var applicationID: Int32
    /// The source database's page size in bytes.
    public var pageSize: Int
    /// The source database's text encoding: `"UTF-8"`, `"UTF-16le"` or `"UTF-16be"`.
    public var encoding: String
    /// The source database's `PRAGMA auto_vacuum` (0 none, 1 full, 2 incremental).
    public var autoVacuum: Int
    /// When the dump was written, as ISO 8601 text in UTC (for example `2026-01-31T12:00:00.000Z`).
    public var created: String
    /// Whether the dump holds only a selection of the database's tables.
    public var isPartial: Bool
    /// The table sections the dump holds, in order, with their row counts.
    public var tables: [DBBDumpTable]
    /// What was wrong with the source, when it was dumped although damaged
    /// (``DBBDumpOptions/allowsDamaged``): the integrity check's findings, rows left out, tables cut short.
    /// Empty for a dump of a sound database.
    public var damage: [String]
    /// The server the dump was read from, for a dump of another engine's database (PostgreSQL); `nil` for a dump
    /// of an SQLite file.
    public var source: DBBDumpSource?
    /// How columns of the source whose types SQLite lacks were written (a dump of another engine only).
    public var conversions: [DBBDumpConversion] = []
    /// The source's views, functions, triggers, sequences and extensions, as the source's SQL text: kept for the
    /// reader, never run by a restore (a dump of another engine only).
    public var sourceObjects: [DBBDumpSourceObject] = []

    /// The total number of rows in all table sections (`Int.max` if they add up to more).
    public var totalRows: Int { tables.saturatingRowTotal }

    /// Creates a header.
    public init(
        formatVersion: Int = DBBExport.formatVersion, sqliteVersion: String, userVersion: Int32 = 0,
        applicationID: Int32 = 0, pageSize: Int = 4096, encoding: String = "UTF-8", autoVacuum: Int = 0,
        created: String, isPartial: Bool = false, tables: [DBBDumpTable] = [], damage: [String] = []
    ) {
        self.formatVersion = formatVersion
        self.sqliteVersion = sqliteVersion
        self.userVersion = userVersion
        self.applicationID = applicationID
        self.pageSize = pageSize
        self.encoding = encoding
        self.autoVacuum = autoVacuum
        self.created = created
        self.isPartial = isPartial
        self.tables = tables
        self.damage = damage
    }
}

/// One table section of a dump: its name, the columns its rows hold, and how many rows it has.
public struct DBBDumpTable: Sendable, Equatable {
    /// The table's name, as in `sqlite_master`.
    public var name: String
    /// The columns each row holds, in order (generated columns are not stored).
    public var columns: [String]
    /// Whether each row starts with the row's rowid, before the column values.
    ///
    /// It is `false` for `WITHOUT ROWID` tables, and for tables whose `INTEGER PRIMARY KEY` column already
    /// is the rowid.
    public var hasRowID: Bool
    /// The number of rows.
    public var rowCount: Int

    /// Creates a table description.
    public init(name: String, columns: [String] = [], hasRowID: Bool = false, rowCount: Int = 0) {
        self.name = name
        self.columns = columns
        self.hasRowID = hasRowID
        self.rowCount = rowCount
    }
}

/// One schema object of a dump: a row of the source's `sqlite_master`.
public struct DBBSchemaObject: Sendable, Equatable, Hashable {
    /// `"table"`, `"index"`, `"view"` or `"trigger"`.
    public var type: String
    /// The object's name.
    public var name: String
    /// The table the object belongs to (its own name for tables and views).
    public var tableName: String
    /// The SQL text that created the object, byte for byte; `nil` for automatic indexes.
    public var sql: String?

    /// Creates a schema object.
    public init(type: String, name: String, tableName: String, sql: String?) {
        self.type = type
        self.name = name
        self.tableName = tableName
        self.sql = sql
    }

    /// Whether the object is a virtual table (`CREATE VIRTUAL TABLE …`), whose rows are not dumped.
    public var isVirtualTable: Bool {
        guard type == "table", let sql else { return false }
        let words = sql.uppercased().split(whereSeparator: { $0.isWhitespace }).prefix(3)
        return words.count == 3 && words[0] == "CREATE" && words[1] == "VIRTUAL" && words[2] == "TABLE"
    }
}

/// What reading a whole dump found: its header, schema, and the rows actually present per table.
public struct DBBDumpReport: Sendable, Equatable {
    /// The dump's header.
    public var header: DBBDumpHeader
    /// The schema objects, in the order the dump lists them.
    public var schema: [DBBSchemaObject]
    /// The table sections read, with the number of rows each actually holds.
    public var tables: [DBBDumpTable]
    /// The size of the JSON text in bytes.
    public var jsonBytes: Int64
    /// The size of the gzip file in bytes.
    public var compressedBytes: Int64

    /// Virtual tables the dump left out because their module was missing
    /// (``DBBDumpOptions/skipsUnavailableVirtualTables``); empty otherwise.
    public var leftOut: [DBBSchemaObject] = []

    /// The number of rows read in all tables (`Int.max` if they add up to more).
    public var totalRows: Int { tables.saturatingRowTotal }
}

extension [DBBDumpTable] {
    /// The sum of the row counts, stopping at `Int.max`: a crafted header may hold counts that overflow.
    var saturatingRowTotal: Int {
        var total = 0
        for table in self {
            let (sum, overflow) = total.addingReportingOverflow(table.rowCount)
            if overflow { return .max }
            total = sum
        }
        return total
    }
}

/// Where a long-running dump, restore or verification stands.
public struct DBBExportProgress: Sendable, Equatable {
    /// The number of tables finished.
    public var tablesDone: Int
    /// The number of tables in all.
    public var tableCount: Int
    /// The number of rows finished, over all tables.
    public var rowsDone: Int
    /// The number of rows in all.
    public var rowCount: Int
    /// The table being worked on, if any.
    public var currentTable: String?

    /// Creates a progress report.
    public init(tablesDone: Int, tableCount: Int, rowsDone: Int, rowCount: Int, currentTable: String?) {
        self.tablesDone = tablesDone
        self.tableCount = tableCount
        self.rowsDone = rowsDone
        self.rowCount = rowCount
        self.currentTable = currentTable
    }

    /// The fraction of rows done, from 0 to 1 (1 when there are no rows).
    public var fractionDone: Double { rowCount == 0 ? 1 : Double(rowsDone) / Double(rowCount) }
}

/// The first difference ``DBBExport/compare(dumpAt:withDatabaseAt:dataOnly:maximumValueLength:progress:)`` found
/// between a dump and a database.
public struct DBBDumpDifference: Sendable, Equatable, CustomStringConvertible {
    /// The table where the difference is, if it is in a table.
    public var table: String?
    /// The 1-based row number within the table, if it is in a row.
    public var row: Int?
    /// The column, if it is in one value.
    public var column: String?
    /// What differs.
    public var message: String

    /// Creates a difference.
    public init(table: String? = nil, row: Int? = nil, column: String? = nil, message: String) {
        self.table = table
        self.row = row
        self.column = column
        self.message = message
    }

    /// The message, then where it was found.
    public var description: String {
        var places: [String] = []
        if let table { places.append("table \(table)") }
        if let row { places.append("row \(row)") }
        if let column { places.append("column \(column)") }
        return places.isEmpty ? message : "\(places.joined(separator: ", ")): \(message)"
    }
}
