internal import DBBSQL
public import Foundation

extension DBBExport {
    /// Restores a dump into a new database file.
    ///
    /// The order is that of `sqlite3 .dump`, so nothing fires or checks too early: the page size, text
    /// encoding and auto-vacuum mode first, then virtual tables and tables, then every table's rows, then
    /// indexes, views and triggers, then `sqlite_sequence`, `user_version` and `application_id`. Foreign
    /// keys are not enforced during the load.
    ///
    /// The database is built in a temporary file beside the target, with journaling off and in one
    /// transaction, and renamed into place only when the whole dump has been read and checked (the gzip
    /// CRC included). An existing database is replaced through SQLite's online backup API instead, so that
    /// connections that have it open see the old database or the new one: the copy is refused before it
    /// begins when the disk has no room for it, and rolled back when it fails halfway. On any failure the
    /// temporary file is removed and the target is left as it was.
    ///
    /// - Parameters:
    ///   - dumpURL: the dump to read.
    ///   - databaseURL: the database file to create.
    ///   - options: whether to replace an existing file, whether to check the new database's integrity, and
    ///     the longest value to read.
    ///   - progress: called on the calling thread as tables and rows are done.
    /// - Returns: what was read from the dump.
    /// - Throws: ``DBBExportError`` for a missing, damaged or foreign dump (naming where), a value longer
    ///   than the options allow, an existing target, a file that cannot be written, or a disk without room
    ///   for the copy; `DBBError` when SQLite rejects a statement of the dump's schema or a row (its context
    ///   names the table and row), or fails to write (a full disk).
    @discardableResult
    public static func restore(
        dumpAt dumpURL: URL, to databaseURL: URL, options: DBBRestoreOptions = DBBRestoreOptions(),
        progress: ((DBBExportProgress) -> Void)? = nil
    ) throws -> DBBDumpReport {
        try restore(from: .file(dumpURL.path), to: databaseURL, options: options, progress: progress)
    }

    /// Restores a dump read from an open handle, such as standard input or a pipe, into a new database file.
    ///
    /// The dump is read once, from the handle's current position to its end, as
    /// ``restore(dumpAt:to:options:progress:)`` reads a file; the handle stays open.
    ///
    /// ```swift
    /// try DBBExport.restore(readingFrom: FileHandle.standardInput, to: URL(fileURLWithPath: "copy.sqlite"))
    /// ```
    ///
    /// - Parameters:
    ///   - input: the handle to read the dump from.
    ///   - databaseURL: the database file to create.
    ///   - options: whether to replace an existing file, and whether to check the new database's integrity.
    ///   - progress: called on the calling thread as tables and rows are done.
    /// - Returns: what was read from the dump.
    /// - Throws: what ``restore(dumpAt:to:options:progress:)`` throws.
    @discardableResult
    public static func restore(
        readingFrom input: FileHandle, to databaseURL: URL, options: DBBRestoreOptions = DBBRestoreOptions(),
        progress: ((DBBExportProgress) -> Void)? = nil
    ) throws -> DBBDumpReport {
        try restore(from: .handle(input), to: databaseURL, options: options, progress: progress)
    }

    private static func restore(
        from source: DumpSource, to databaseURL: URL, options: DBBRestoreOptions,
        progress: ((DBBExportProgress) -> Void)?
    ) throws -> DBBDumpReport {
        if let path = source.path { try DBBExportError.requireExists(path, "the dump file") }
        let target = try TargetFile(path: databaseURL.path, replaceExisting: options.replaceExisting, purpose: .restore)
        if let path = source.path { try target.requireDifferent(from: path) }
        var database: DBBDatabase?
        do {
            let db = try DBBDatabase(path: target.temporaryPath, mode: .readWriteCreate)
            database = db
            // A WAL database's page size cannot change while it is in WAL mode. Over one, the new database
            // takes the target's page size: the copy then needs no change of journal mode, works while other
            // connections have the target open, and a failed copy rolls back to the very bytes it had.
            let walPageSize =
                options.replaceExisting
                ? DatabaseFileHeader(path: databaseURL.path).flatMap { $0.isWAL ? $0.pageSize : nil } : nil
            let loader = RestoreConsumer(db: db, pageSize: walPageSize)
            let parser = ConcurrentDumpParser(
                source: source, progress: progress, maximumValueLength: options.maximumValueLength)
            let report = try parser.run(loader)
            try loader.finish()
            if options.checkIntegrity {
                let result = try db.fetchValues(String.self, "PRAGMA main.integrity_check")
                guard result == ["ok"] else {
                    throw DBBError(
                        .corrupt,
                        message: "the restored database fails its integrity check: "
                            + result.prefix(3).joined(separator: "; "), context: "checking the restored database")
                }
            }
            try db.close()
            database = nil
            try DatabaseTarget.install(target, checksFreeSpace: options.checksFreeSpace)
            return report
        } catch {
            try? database?.close()
            target.discard()
            throw error
        }
    }
}

/// Loads a dump into an empty database.
final class RestoreConsumer: DumpConsumer {
    private let db: DBBDatabase
    private var schema: [DBBSchemaObject] = []
    private var header: DBBDumpHeader?
    /// Tables (lower-cased names) that existed before their section was loaded: shadow tables that
    /// `CREATE VIRTUAL TABLE` made, and SQLite's own tables. They are emptied before loading.
    private var prefilled: Set<String> = []
    private var insert: DBBStatement?
    /// Whether the database stores text in UTF-8, so that raw text can be bound as text with its bytes.
    private var isUTF8 = true
    /// The columns of the current table's INSERT, quoted.
    private var insertColumns: [String] = []
    private var insertTable = ""
    /// The page size to build, when not the dump's.
    private let pageSize: Int?

    /// A consumer loading into `db`, built in the dump's page size or in `pageSize`.
    init(db: DBBDatabase, pageSize: Int? = nil) {
        self.db = db
        self.pageSize = pageSize
    }

    /// A consumer that checks a dump as a restore would, loading it into a private temporary database: SQLite
    /// keeps one in memory up to its page cache, in a temporary file beyond, and removes it when it closes.
    static func checking() throws -> RestoreConsumer {
        RestoreConsumer(db: try DBBDatabase(path: ""))
    }

    func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws {
        self.header = header
        self.schema = schema
        // These take effect only before the first table exists.
        try db.executeStatements(
            """
            PRAGMA page_size = \(pageSize ?? header.pageSize);
            PRAGMA auto_vacuum = \(header.autoVacuum);
            PRAGMA encoding = '\(header.encoding)';
            """)
        try db.setForeignKeysEnabled(false)
        try db.setSynchronous(.off)
        // No journal: the file is discarded on failure anyway, and is renamed into place only on success.
        try db.setJournalMode(.off)
        try db.beginTransaction(.exclusive)
        let tables = schema.filter { $0.type == "table" }
        for object in tables where object.isVirtualTable {
            try SchemaStatement.run(object, in: db)
        }
        let existing = Set(
            try db.fetchValues(String.self, "SELECT lower(name) FROM main.sqlite_master WHERE type = 'table'"))
        var needsAnalyze = false
        for object in tables where !object.isVirtualTable {
            let name = object.name.lowercased()
            if existing.contains(name) {
                prefilled.insert(name)  // a shadow table, made by its virtual table
            } else if name == "sqlite_sequence" {
                prefilled.insert(name)  // made by the first AUTOINCREMENT table
            } else if name.hasPrefix("sqlite_stat") {
                prefilled.insert(name)
                needsAnalyze = true
            } else {
                try SchemaStatement.run(object, in: db)
            }
        }
        if needsAnalyze {
            // ANALYZE of the schema table creates the statistics tables without filling them.
            try db.execute("ANALYZE main.sqlite_master")
        }
        isUTF8 = try db.fetchValue(String.self, "PRAGMA main.encoding") == "UTF-8"
        let created = Set(
            try db.fetchValues(String.self, "SELECT lower(name) FROM main.sqlite_master WHERE type = 'table'"))
        for object in tables where !created.contains(object.name.lowercased()) {
            throw DBBExportError(
                .malformed, "the schema's table \(object.name) could not be re-created by this SQLite library",
                table: object.name)
        }
    }

    func beginTable(_ table: DBBDumpTable) throws {
        let layout = try TableLayout(table: table.name, in: db)
        if table.hasRowID && layout.rowIDName == nil {
            throw DBBExportError(
                .malformed, "the dump stores rowids for a table that has none (a WITHOUT ROWID table)",
                table: table.name)
        }
        if prefilled.contains(table.name.lowercased()) {
            try db.execute("DELETE FROM \(layout.qualifiedName)")
        }
        var names = table.columns.map(DBBDatabase.quoteIdentifier)
        if table.hasRowID, let rowIDName = layout.rowIDName { names.insert(rowIDName, at: 0) }
        insertColumns = names
        insertTable = layout.qualifiedName
        do {
            insert = try db.prepare(insertSQL(rawText: []))
        } catch var error as DBBError {
            error.context = "preparing to load table \(table.name)"
            throw error
        }
    }

    /// The INSERT statement of the current table; in a UTF-16 database raw text is bound as a BLOB and
    /// cast to TEXT.
    private func insertSQL(rawText: [Int]) -> String {
        var placeholders = Array(repeating: "?", count: insertColumns.count)
        for index in rawText { placeholders[index] = "CAST(? AS TEXT)" }
        return
            "INSERT INTO \(insertTable) (\(insertColumns.joined(separator: ","))) VALUES (\(placeholders.joined(separator: ",")))"
    }

    func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {
        if rawText.isEmpty || isUTF8 {
            // Raw text is bound as UTF-8 text with its bytes, which a UTF-8 database keeps.
            try insert?.execute(values: values, textBytesAt: rawText)
        } else {
            try db.prepare(insertSQL(rawText: rawText)).execute(values: values)
        }
        // A statement keeps its bound values after it runs: SQLite's copy of a long one is let go at once,
        // so that it is not held while the next long value is read.
        if values.contains(where: Self.isLong) { insert?.reset() }
    }

    func endTable(_ table: DBBDumpTable) throws {
        insert = nil
    }

    /// Whether a value is a long string or BLOB, as the parser counts them.
    private static func isLong(_ value: DBBValue) -> Bool {
        switch value {
        case .text(let text): text.utf8.count > DumpJSONReader.longStringLength
        case .blob(let data): data.count > DumpJSONReader.longStringLength
        default: false
        }
    }

    /// Creates indexes, views and triggers, sets the header values, and commits.
    func finish() throws {
        guard header != nil else { return }  // nothing began: the parser has thrown already
        for type in ["index", "view", "trigger"] {
            for object in schema where object.type == type {
                try SchemaStatement.run(object, in: db)
            }
        }
        if let header {
            try db.setUserVersion(header.userVersion)
            try db.setApplicationID(header.applicationID)
        }
        try db.commit()
    }
}
