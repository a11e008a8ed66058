internal import DBBSQL
internal import Foundation

/// The rows of one table of a dump's source, checked as they stream by the cheap checks a restore will make
/// too: rowids strictly increasing (a damaged b-tree can give one twice, or out of order) and no NULL in a
/// `NOT NULL` column.
///
/// A row that fails a check would make the restore of the dump fail. By default the dump is refused, naming
/// the damage; a dump that allows damage (``DBBDumpOptions/allowsDamaged``) leaves such rows out instead,
/// and stops the table at the first row SQLite cannot read, and says so in its header. The same query over
/// the same read transaction gives the same rows, so a first pass that counts what this yields gives the
/// header's count of what the second pass writes.
///
/// Allowing damage, rowids out of order are not left out by themselves (a restore takes them); only one
/// that repeats an earlier rowid is. That needs every rowid of the table, held in a set: it is done only for
/// a table whose first pass found its rowids out of order (``sawDisorder``), so sound tables cost no memory.
struct CheckedRows {
    private let cursor: DBBCursor
    private let table: String
    private let allowsDamage: Bool
    /// Every rowid yielded so far, when rowids are checked for repeats rather than for order.
    private var seen: Set<Int64>?
    /// Whether a rowid came after a larger one (allowing damage, without ``seen``).
    private(set) var sawDisorder = false
    /// Where the rowid sits in a row of the layout's `selectSQL`, if the table has one.
    private let rowIDColumn: Int?
    /// The positions, and names, of the columns that may not hold NULL.
    private let notNullColumns: [(index: Int, name: String)]
    private var lastRowID: Int64?
    /// The rows left out, and why the first one was.
    private(set) var leftOut = 0
    private(set) var firstReason: String?
    /// What stopped the table early, when reading failed and damage is allowed.
    private(set) var stop: String?
    /// The rows yielded so far.
    private(set) var count = 0

    /// Starts reading a table.
    ///
    /// - Throws: `DBBError` when the table's columns cannot be read or its query cannot start.
    ///
    /// - Parameters:
    ///   - layout: the table.
    ///   - db: the source, inside the dump's read transaction.
    ///   - allowsDamage: whether rows a restore would refuse are left out, rather than the dump refused.
    ///   - checksRepeats: whether rowids are checked for repeats (in a set) rather than for order; only
    ///     with `allowsDamage`.
    init(_ layout: TableLayout, in db: DBBDatabase, allowsDamage: Bool, checksRepeats: Bool = false) throws {
        table = layout.name
        self.allowsDamage = allowsDamage
        seen = allowsDamage && checksRepeats ? [] : nil
        rowIDColumn = layout.rowIDColumn
        // A WITHOUT ROWID table's primary key columns may not hold NULL either, declared so or not.
        var notNull: Set<String> = []
        try db.forEachRow(
            "SELECT name, \"notnull\", pk FROM pragma_table_info(?, 'main')", arguments: [layout.name]
        ) { row in
            let name: String = try row[0]
            let declared: Int = try row[1]
            let key: Int = try row[2]
            if declared != 0 || (layout.rowIDName == nil && key > 0) { notNull.insert(name) }
        }
        let offset = layout.storesRowID ? 1 : 0
        notNullColumns = layout.columns.enumerated().compactMap { index, name in
            notNull.contains(name) ? (index + offset, name) : nil
        }
        cursor = try db.prepare(layout.selectSQL).cursor()
    }

    /// The next row that passes the checks, or `nil` at the end of the table.
    ///
    /// - Throws: `DBBError` (corrupt) naming the damage, for a row that fails a check when damage is not
    ///   allowed; what SQLite reports when a row cannot be read (when damage is allowed, the table ends there).
    mutating func next() throws -> DBBRow? {
        while true {
            let row: DBBRow?
            do {
                row = try cursor.next()
            } catch let error as DBBError where allowsDamage && error.resultCode != .tooBig {
                stop = "reading stopped after \(count) rows: \(error.message)"
                return nil
            }
            guard let row else { return nil }
            guard let problem = problem(in: row) else {
                count += 1
                return row
            }
            guard allowsDamage else {
                throw DBBError(
                    .corrupt,
                    message: "the database is damaged: table \(table), after \(count) rows: \(problem), so no restore "
                        + "would accept the dump",
                    context: "dumping table \(table) (PRAGMA integrity_check tells more; "
                        + "DBBDumpOptions.allowsDamaged dumps what can be read)")
            }
            leftOut += 1
            if firstReason == nil { firstReason = problem }
        }
    }

    /// Why a row would break the restore, or `nil`; a row that passes moves the rowid on.
    private mutating func problem(in row: DBBRow) -> String? {
        for column in notNullColumns where row.isNull(at: column.index) {
            return "column \(column.name), declared NOT NULL, holds NULL"
        }
        if let rowIDColumn {
            guard case .integer(let rowID) = row.value(at: rowIDColumn) else {
                return "a rowid is not an integer"
            }
            if seen != nil {
                guard seen!.insert(rowID).inserted else { return "rowid \(rowID) comes twice" }
            } else if let lastRowID, rowID <= lastRowID {
                guard allowsDamage else { return "rowid \(rowID) comes after rowid \(lastRowID)" }
                sawDisorder = true
            }
            lastRowID = rowID
        }
        return nil
    }

    /// What the table's damage was, for the dump's header; `nil` when it had none.
    var damage: String? {
        var parts: [String] = []
        if leftOut > 0, let firstReason {
            parts.append("\(leftOut) row(s) a restore would refuse were left out (the first: \(firstReason))")
        }
        if sawDisorder || seen != nil { parts.append("rowids out of order") }
        if let stop { parts.append(stop) }
        return parts.isEmpty ? nil : "table \(table): " + parts.joined(separator: "; ")
    }
}
