public import DBBSQL
public import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Backs up any SQLite database to a gzip-compressed JSON dump, and restores it exactly.
///
/// A dump keeps every value's storage class and exact value (64-bit integers, bit-exact doubles,
/// text with NUL characters, BLOBs), the rowids of tables without an `INTEGER PRIMARY KEY`, and the
/// schema's SQL text byte for byte. Dumping and restoring stream, so memory stays flat however large
/// the database. The format is specified in `Docs/DumpFormat.md`.
///
/// ```swift
/// try DBBExport.dump(databaseAt: URL(fileURLWithPath: "app.sqlite"), to: URL(fileURLWithPath: "app.json.gz"))
/// try DBBExport.restore(dumpAt: URL(fileURLWithPath: "app.json.gz"), to: URL(fileURLWithPath: "copy.sqlite"))
/// let report = try DBBExport.verify(dumpAt: URL(fileURLWithPath: "app.json.gz"))
/// print(report.tables.map { "\($0.name): \($0.rowCount)" })
/// ```
public enum DBBExport {
    /// The format name every dump starts with.
    public static let formatName = "dbb-dump"
    /// The format version this library writes, and the newest it reads.
    public static let formatVersion = 1
    /// How many rows pass between two progress reports within a table.
    static let progressInterval = 4096
    /// How long reading a source, or replacing a target database, waits for another connection's lock.
    static let busyTimeout: TimeInterval = 5
    /// The longest string or BLOB, in bytes, that a dump writes and a restore or verification reads unless
    /// their options say otherwise: 64 MiB.
    ///
    /// A longer value is refused with ``DBBExportError/Kind/valueTooLong``, naming its table, row and column;
    /// in a dump being read it is refused while it streams in, before it is held. The limit is what bounds
    /// the memory a dump, restore or verification takes: each holds about three copies of its longest value
    /// at once (the library's, the one SQLite binds, the record SQLite builds), on top of a fixed amount of its
    /// own. `Docs/Reliability.md` gives the peaks measured with values at this limit.
    public static let defaultMaximumValueLength = 64 << 20
    /// The longest string or BLOB this SQLite library stores (`SQLITE_LIMIT_LENGTH`): no limit set in the
    /// options goes beyond it.
    static let valueLengthLimit: Int = (try? DBBDatabase.inMemory())?.maximumValueLength ?? 1_000_000_000

    // MARK: Dump

    /// Dumps a database file to a gzip-compressed JSON file.
    ///
    /// The database is opened read-only and read in one transaction, so the dump is a consistent
    /// snapshot even while other connections write; a lock another process holds is waited for (up to
    /// five seconds in all). A database with a hot rollback journal (its writer crashed) is opened for
    /// writing instead, so SQLite can roll the journal back as any client would before reading. The dump is
    /// written to a temporary file beside the target, synced, and renamed into place when complete.
    ///
    /// A virtual table whose module this SQLite library lacks cannot be read, nor re-created by a
    /// restore: the dump is refused with an error naming it, unless
    /// ``DBBDumpOptions/skipsUnavailableVirtualTables`` is set (the report then lists what was left out).
    ///
    /// A damaged database whose dump no restore would accept is refused: the dump checks each table's
    /// rowids and `NOT NULL` columns as it streams, and that it reads as many rows as it counted; with
    /// ``DBBDumpOptions/checksIntegrity`` it runs `PRAGMA integrity_check` first. With
    /// ``DBBDumpOptions/allowsDamaged`` such a database is dumped anyway, as far as it can be read and
    /// restored, and the header's ``DBBDumpHeader/damage`` says what was wrong.
    ///
    /// - Parameters:
    ///   - databaseURL: the SQLite database to back up.
    ///   - dumpURL: the file to write, conventionally ending in `.json.gz`.
    ///   - options: the tables to dump, the compression level, whether to replace an existing file.
    ///   - progress: called on the calling thread as tables and rows are done.
    /// - Returns: what was written: header, schema, tables with their row counts, sizes.
    /// - Throws: ``DBBExportError`` (missingInput — the file does not exist or cannot be reached —,
    ///   targetExists, unknownTable, valueTooLong, io — the source is not a regular file, a FIFO for example)
    ///   or `DBBError` when the database cannot be read (a virtual table's missing module among them), stays
    ///   locked past the wait (busy), or is damaged (corrupt).
    @discardableResult
    public static func dump(
        databaseAt databaseURL: URL, to dumpURL: URL, options: DBBDumpOptions = DBBDumpOptions(),
        progress: ((DBBExportProgress) -> Void)? = nil
    ) throws -> DBBDumpReport {
        try DBBExportError.requireExists(databaseURL.path, "the database file")
        try requireRegularFile(databaseURL.path)
        // Fail before reading anything.
        let target = try TargetFile(path: dumpURL.path, replaceExisting: options.replaceExisting, purpose: .dump)
        try target.requireDifferent(from: databaseURL.path)
        let db = try openSource(databaseURL.path)
        defer { try? db.close() }
        return try dump(db, to: .target(target), options: options, progress: progress)
    }

    /// Dumps a database file to an open handle, such as standard output or a pipe.
    ///
    /// The gzip stream is written from the handle's current position, as
    /// ``dump(databaseAt:to:options:progress:)`` writes it to a file, byte for byte (but for the
    /// header's creation time); the handle stays open. There is no temporary file: on failure, what was
    /// written stays written, and a reader sees a truncated stream. `options.replaceExisting` does not apply.
    ///
    /// ```swift
    /// try DBBExport.dump(databaseAt: URL(fileURLWithPath: "app.sqlite"), writingTo: FileHandle.standardOutput)
    /// ```
    ///
    /// - Parameters:
    ///   - databaseURL: the SQLite database to back up.
    ///   - output: the handle to write the dump to.
    ///   - options: the tables to dump and the compression level.
    ///   - progress: called on the calling thread as tables and rows are done.
    /// - Returns: what was written.
    /// - Throws: ``DBBExportError`` (missingInput, unknownTable, valueTooLong, io) or `DBBError` when the
    ///   database cannot be read or is damaged, as ``dump(databaseAt:to:options:progress:)`` throws.
    @discardableResult
    public static func dump(
        databaseAt databaseURL: URL, writingTo output: FileHandle, options: DBBDumpOptions = DBBDumpOptions(),
        progress: ((DBBExportProgress) -> Void)? = nil
    ) throws -> DBBDumpReport {
        try DBBExportError.requireExists(databaseURL.path, "the database file")
        try requireRegularFile(databaseURL.path)
        let db = try openSource(databaseURL.path)
        defer { try? db.close() }
        return try dump(db, to: .handle(output), options: options, progress: progress)
    }

    /// Refuses a source that is not a regular file: opening a FIFO would block until a writer came, and
    /// a device is no database.
    private static func requireRegularFile(_ path: String) throws {
        var status = stat()
        guard stat(path, &status) == 0 else { return }  // opening reports it
        guard (status.st_mode & S_IFMT) == S_IFREG else {
            let kind =
                switch status.st_mode & S_IFMT {
                case S_IFIFO: "a FIFO"
                case S_IFDIR: "a directory"
                case S_IFSOCK: "a socket"
                default: "a device"
                }
            throw DBBExportError(.io, "the database is \(kind), not a regular file", path: path)
        }
    }

    /// Opens a source database read-only, waiting for other connections' locks; a hot rollback journal
    /// (which only a connection that may write can roll back) makes it open for writing instead.
    ///
    /// The wait is one budget of ``busyTimeout`` for the whole open and the dump's first read: opening waits
    /// for the lock to read the schema, and what it waited is taken from what the reads after it may wait.
    private static func openSource(_ path: String) throws -> DBBDatabase {
        let deadline = Date(timeIntervalSinceNow: busyTimeout)
        let db: DBBDatabase
        do {
            db = try DBBDatabase(path: path, mode: .readOnly, busyTimeout: busyTimeout)
        } catch let error as DBBError where error.resultCode == .readOnly {
            db = try DBBDatabase(
                path: path, mode: .readWrite, busyTimeout: max(0.001, deadline.timeIntervalSinceNow))
        }
        // 0 would turn waiting off; a millisecond keeps it on without waiting again.
        try db.setBusyTimeout(max(0.001, deadline.timeIntervalSinceNow))
        return db
    }

    /// Dumps an open database to a gzip-compressed JSON file.
    ///
    /// The connection must not be inside a transaction; the dump reads in one of its own.
    ///
    /// - Parameters:
    ///   - db: the connection to read from.
    ///   - dumpURL: the file to write.
    ///   - options: the tables to dump, the compression level, whether to replace an existing file.
    ///   - progress: called on the calling thread as tables and rows are done.
    /// - Returns: what was written.
    /// - Throws: ``DBBExportError`` (targetExists, unknownTable, valueTooLong, io) or `DBBError`, as
    ///   ``dump(databaseAt:to:options:progress:)`` throws.
    @discardableResult
    public static func dump(
        _ db: DBBDatabase, to dumpURL: URL, options: DBBDumpOptions = DBBDumpOptions(),
        progress: ((DBBExportProgress) -> Void)? = nil
    ) throws -> DBBDumpReport {
        let target = try TargetFile(path: dumpURL.path, replaceExisting: options.replaceExisting, purpose: .dump)
        try target.requireDifferent(from: db.path)
        return try dump(db, to: .target(target), options: options, progress: progress)
    }

    /// Where a dump goes: a checked target file, written under a temporary name, or an open handle.
    private enum Destination {
        case target(TargetFile)
        case handle(FileHandle)
    }

    /// Dumps an open database to a checked target file or a handle.
    private static func dump(
        _ db: DBBDatabase, to destination: Destination, options: DBBDumpOptions,
        progress: ((DBBExportProgress) -> Void)?
    ) throws -> DBBDumpReport {
        try db.beginTransaction(.deferred)
        defer { try? db.rollback() }
        var damage: [String] = []
        if options.checksIntegrity { damage += try checkIntegrity(of: db, allowsDamaged: options.allowsDamaged) }
        var plan = try DumpPlan(
            db: db, selection: options.tables, skipsUnavailable: options.skipsUnavailableVirtualTables,
            allowsDamaged: options.allowsDamaged, damage: damage)
        plan.maximumValueLength = min(options.maximumValueLength, valueLengthLimit)
        // SQLite then refuses a longer value before it allocates it, rather than the dump after it is held.
        let connectionLimit = db.maximumValueLength
        db.maximumValueLength = min(plan.maximumValueLength, connectionLimit)
        defer { db.maximumValueLength = connectionLimit }
        let writer =
            switch destination {
            case .target(let target): try GzipFileWriter(path: target.temporaryPath, level: options.compressionLevel)
            case .handle(let handle): try GzipFileWriter(handle: handle, level: options.compressionLevel)
            }
        do {
            let report = try write(plan, from: db, to: writer, progress: progress)
            if case .target(let target) = destination { try target.commit() }
            return report
        } catch {
            writer.abandon()
            if case .target(let target) = destination { target.discard() }
            throw error
        }
    }

    private static func write(
        _ plan: DumpPlan, from db: DBBDatabase, to output: GzipFileWriter, progress: ((DBBExportProgress) -> Void)?
    ) throws -> DBBDumpReport {
        var json = DumpJSONWriter(output: output)
        let header = plan.header
        json.beginDocument(header: header, schema: plan.schema)
        var counter = ProgressCounter(progress)
        counter.begin(tableCount: plan.layouts.count, rowCount: header.totalRows)
        for (tableIndex, layout) in plan.layouts.enumerated() {
            let table = header.tables[tableIndex]
            counter.beginTable(table.name)
            json.beginTable(table, first: tableIndex == 0)
            var rowsOfTable = try CheckedRows(
                layout, in: db, allowsDamage: plan.allowsDamaged, checksRepeats: layout.checksRepeatedRowIDs)
            let width = layout.columns.count + (layout.storesRowID ? 1 : 0)
            // Raw text is kept in rowid tables of UTF-8 databases.
            let keepsRawText = plan.header.encoding == "UTF-8" && layout.rowIDColumn != nil
            var rows = 0
            while let row = try nextRow(of: &rowsOfTable, layout, table, after: rows, in: db, plan: plan) {
                json.raw(rows == 0 ? "\n[" : ",\n[")
                for column in 0..<width {
                    if column > 0 { json.byte(UInt8(ascii: ",")) }
                    let value = row.value(at: column)
                    switch value {
                    case .text(let text):
                        try requireLength(text.utf8.count, limit: plan.maximumValueLength, table, rows + 1, column)
                        // Text that is not valid UTF-8 reads back with U+FFFD in place of the bad bytes; such
                        // text is written in its tagged form, with its stored bytes.
                        if keepsRawText, DumpJSONWriter.holdsReplacementCharacter(text),
                            case let raw = row.storedBytes(at: column), !raw.elementsEqual(text.utf8)
                        {
                            try json.rawText(raw)
                        } else {
                            try json.streamedString(text)
                        }
                    case .blob(let data):
                        try requireLength(data.count, limit: plan.maximumValueLength, table, rows + 1, column)
                        try json.blob(data)
                    default:
                        try json.value(value)
                    }
                }
                json.byte(UInt8(ascii: "]"))
                rows += 1
                try json.flushIfNeeded()
                counter.add(rows: 1)
            }
            guard rows == table.rowCount else {
                // The read transaction keeps the table as it was: counting it through an index, and reading
                // it through its b-tree, disagree only in a damaged file.
                throw DBBError(
                    .corrupt,
                    message: "the database is damaged: table \(table.name) gives \(rows) rows when read and "
                        + "\(table.rowCount) when counted, so no restore would accept the dump",
                    context: "dumping table \(table.name) (PRAGMA integrity_check tells more; "
                        + "DBBDumpOptions.allowsDamaged dumps what can be read)")
            }
            json.endTable(rows: rows)
            counter.endTable()
        }
        json.endDocument(hasTables: !plan.layouts.isEmpty)
        try json.flush()
        let sizes = try output.finish()
        counter.finish()
        return DBBDumpReport(
            header: header, schema: plan.schema, tables: header.tables, jsonBytes: sizes.uncompressed,
            compressedBytes: sizes.compressed, leftOut: plan.leftOut)
    }
    /// Runs `PRAGMA integrity_check` on the source.
    ///
    /// - Returns: what the dump's header records of a failed check, when damage is allowed.
    /// - Throws: `DBBError` (corrupt) with the check's first findings when the source fails it and damage is
    ///   not allowed.
    private static func checkIntegrity(of db: DBBDatabase, allowsDamaged: Bool) throws -> [String] {
        let findings: [String]
        do {
            findings = try db.fetchValues(String.self, "PRAGMA main.integrity_check(20)")
        } catch let error as DBBError where allowsDamaged {
            return ["integrity_check could not run: \(error.message)"]
        }
        guard findings != ["ok"] else { return [] }
        let summary = findings.prefix(3).joined(separator: "; ") + (findings.count > 3 ? "; …" : "")
        guard allowsDamaged else {
            throw DBBError(
                .corrupt, message: "the database fails its integrity check: \(summary)",
                context: "checking the database before dumping it (DBBDumpOptions.allowsDamaged dumps what can be read)"
            )
        }
        return ["integrity_check: \(summary)"]
    }

    /// The next row of a table; a value longer than the connection's limit, which SQLite refuses unread, is
    /// reported as ``DBBExportError/Kind/valueTooLong`` naming its row and column.
    private static func nextRow(
        of rows: inout CheckedRows, _ layout: TableLayout, _ table: DBBDumpTable, after count: Int,
        in db: DBBDatabase, plan: DumpPlan
    ) throws -> DBBRow? {
        do {
            return try rows.next()
        } catch let error as DBBError where error.resultCode == .tooBig {
            // Each column of the failing row is read alone, in the same order, to find the long one.
            var column = 0
            for (index, value) in layout.selectedValues.enumerated() {
                do {
                    try db.forEachRow(layout.selectSQL(of: [value]) + " LIMIT 1 OFFSET ?", arguments: [count]) { _ in }
                } catch let probe as DBBError where probe.resultCode == .tooBig {
                    column = index
                    break
                }
            }
            throw valueTooLong(nil, limit: plan.maximumValueLength, table, count + 1, column)
        }
    }

    /// Refuses a value of a source row longer than the dump's limit, naming where it is.
    private static func requireLength(_ count: Int, limit: Int, _ table: DBBDumpTable, _ row: Int, _ column: Int)
        throws
    {
        guard count > limit else { return }
        throw valueTooLong(count, limit: limit, table, row, column)
    }

    /// The error for a value of a source row longer than the dump's limit (of `count` bytes, when known).
    private static func valueTooLong(
        _ count: Int?, limit: Int, _ table: DBBDumpTable, _ row: Int, _ column: Int
    ) -> DBBExportError {
        let name = table.hasRowID ? (column == 0 ? "rowid" : table.columns[column - 1]) : table.columns[column]
        return DBBExportError(
            .valueTooLong,
            (count.map { "the value is \($0) bytes, longer" } ?? "the value is longer")
                + " than the \(limit)-byte limit on one value "
                + "(DBBDumpOptions.maximumValueLength); a restore with that limit would refuse it",
            table: table.name, row: row, column: name)
    }
}

/// What a dump will hold: the header, the schema objects and the layout of each table section.
struct DumpPlan {
    var header: DBBDumpHeader
    var schema: [DBBSchemaObject]
    var layouts: [TableLayout]
    /// Virtual tables left out because this SQLite library lacks their module.
    var leftOut: [DBBSchemaObject] = []
    /// The longest string or BLOB the dump writes.
    var maximumValueLength = DBBExport.defaultMaximumValueLength
    /// Whether rows a restore would refuse are left out, rather than the dump refused.
    let allowsDamaged: Bool

    init(db: DBBDatabase, selection: [String]?, skipsUnavailable: Bool, allowsDamaged: Bool, damage: [String]) throws {
        self.allowsDamaged = allowsDamaged
        var damage = damage
        var all = try DBBSchemaObject.all(in: db)
        var leftOut: [DBBSchemaObject] = []
        // A virtual table whose module is missing can be neither read nor re-created: refuse, naming it,
        // rather than write a dump no restore could use (or leave it out when asked to).
        for object in all where object.isVirtualTable {
            do {
                _ = try db.prepare("SELECT * FROM main.\(DBBDatabase.quoteIdentifier(object.name)) LIMIT 0")
            } catch var error as DBBError where error.message.hasPrefix("no such module") {
                guard skipsUnavailable else {
                    error.context =
                        "dumping virtual table \(object.name): its module is not available, so a restore could "
                        + "not re-create it (leave it out with skipsUnavailableVirtualTables)"
                    throw error
                }
                leftOut.append(object)
            }
        }
        all.removeAll { object in leftOut.contains(object) }
        self.leftOut = leftOut
        let shadowNames = Set(
            (try? db.fetchValues(
                String.self, "SELECT name FROM pragma_table_list WHERE schema = 'main' AND type = 'shadow'"))
                ?? [])
        var chosen = all
        var sequenceCondition: String?
        if let selection {
            var names = Set<String>()
            for requested in selection {
                guard let object = all.first(where: { $0.name.caseInsensitiveCompare(requested) == .orderedSame }),
                    object.type == "table" || object.type == "view"
                else {
                    throw DBBExportError(.unknownTable, "the database has no table or view named \(requested)")
                }
                names.insert(object.name.lowercased())
                if object.isVirtualTable {
                    for shadow in shadowNames where shadow.lowercased().hasPrefix(object.name.lowercased() + "_") {
                        names.insert(shadow.lowercased())
                    }
                }
            }
            chosen = all.filter { object in
                switch object.type {
                case "table":
                    if object.name.lowercased() == "sqlite_sequence" {
                        return all.contains {
                            $0.type == "table" && names.contains($0.name.lowercased()) && $0.isAutoincrement
                        }
                    }
                    return names.contains(object.name.lowercased())
                case "view": return names.contains(object.name.lowercased())
                default: return names.contains(object.tableName.lowercased())
                }
            }
            sequenceCondition = TableLayout.sequenceCondition(tables: chosen.filter { $0.type == "table" }.map(\.name))
        }
        schema = chosen
        var layouts: [TableLayout] = []
        var tables: [DBBDumpTable] = []
        for object in chosen where object.type == "table" && !object.isVirtualTable {
            var layout = try TableLayout(table: object.name, in: db)
            if object.name.lowercased() == "sqlite_sequence" { layout.condition = sequenceCondition }
            var count: Int
            if !allowsDamaged {
                count = try db.fetchValue(Int.self, layout.countSQL) ?? 0
            } else {
                // Counting through a damaged index may fail where reading the table does not.
                count = ((try? db.fetchValue(Int.self, layout.countSQL)) ?? nil) ?? -1
                // A first pass counts the rows the dump will write, which the header lists before them.
                var rows = try CheckedRows(layout, in: db, allowsDamage: true)
                while try rows.next() != nil {}
                if rows.sawDisorder {
                    // Rowids out of order may repeat: count again, leaving out the repeats.
                    layout.checksRepeatedRowIDs = true
                    rows = try CheckedRows(layout, in: db, allowsDamage: true, checksRepeats: true)
                    while try rows.next() != nil {}
                }
                if let found = rows.damage { damage.append(found) }
                if rows.count + rows.leftOut != count && rows.stop == nil {
                    let read = rows.count + rows.leftOut
                    damage.append(
                        "table \(object.name): "
                            + (count < 0 ? "it cannot be counted" : "counting gives \(count) rows, reading \(read)"))
                }
                count = rows.count
            }
            layouts.append(layout)
            tables.append(
                DBBDumpTable(name: object.name, columns: layout.columns, hasRowID: layout.storesRowID, rowCount: count))
        }
        // sqlite_sequence goes last, so that loading the other tables cannot change it after it is restored.
        if let index = tables.firstIndex(where: { $0.name.lowercased() == "sqlite_sequence" }) {
            tables.append(tables.remove(at: index))
            layouts.append(layouts.remove(at: index))
        }
        self.layouts = layouts
        header = DBBDumpHeader(
            sqliteVersion: DBBDatabase.sqliteVersion,
            userVersion: try db.userVersion(),
            applicationID: try db.applicationID(),
            pageSize: try db.fetchValue(Int.self, "PRAGMA main.page_size") ?? 4096,
            encoding: try db.fetchValue(String.self, "PRAGMA main.encoding") ?? "UTF-8",
            autoVacuum: try db.fetchValue(Int.self, "PRAGMA main.auto_vacuum") ?? 0,
            created: DBBDateFormatting.iso8601String(from: Date()),
            isPartial: selection != nil,
            tables: tables, damage: damage)
    }
}

extension DBBSchemaObject {
    /// The schema objects of a database's main schema, in `sqlite_master` order.
    static func all(in db: DBBDatabase) throws -> [DBBSchemaObject] {
        try db.fetchCursor("SELECT type, name, tbl_name, sql FROM main.sqlite_master ORDER BY rowid").map { row in
            DBBSchemaObject(type: try row[0], name: try row[1], tableName: try row[2], sql: try row[3])
        }
    }

    /// Whether the table was declared with `AUTOINCREMENT` (so it has an entry in `sqlite_sequence`).
    var isAutoincrement: Bool {
        sql?.uppercased().contains("AUTOINCREMENT") ?? false
    }
}
