internal import DBBSQL
public import Foundation

extension DBBExport {
    /// Reads a dump's header and schema only, without reading its rows.
    ///
    /// Fast whatever the dump's size. The table list and row counts come from the header; use
    /// ``verify(dumpAt:maximumValueLength:progress:)`` to check that the rows are really there.
    ///
    /// - Parameter dumpURL: the dump to read.
    /// - Returns: the header and schema; `tables` lists the header's tables and counts, and the byte
    ///   sizes are those read so far.
    /// - Throws: ``DBBExportError`` for a damaged or foreign dump.
    public static func inspect(dumpAt dumpURL: URL) throws -> DBBDumpReport {
        try inspect(.file(dumpURL.path))
    }

    /// Reads the header and schema of a dump read from an open handle, such as standard input or a pipe.
    ///
    /// Reads from the handle's current position only about as far as the schema (buffers read ahead); the rest
    /// is left unread.
    ///
    /// - Parameter input: the handle to read the dump from.
    /// - Returns: what ``inspect(dumpAt:)`` returns.
    /// - Throws: ``DBBExportError`` for a damaged or foreign dump.
    public static func inspect(readingFrom input: FileHandle) throws -> DBBDumpReport {
        try inspect(.handle(input))
    }

    private static func inspect(_ source: DumpSource) throws -> DBBDumpReport {
        var report = try DumpParser(source: source, progress: nil).run(nil, stopAfterSchema: true)
        report.tables = report.header.tables
        return report
    }

    /// Reads a dump from end to end and checks it, as a restore would, without writing a database.
    ///
    /// Checks the gzip stream (the CRC-32 and length of every member), the JSON syntax, the format name
    /// and version, the shape of every value, each row's width, and each table's row count against the
    /// header. The schema and the rows are checked as ``restore(dumpAt:to:options:progress:)`` checks them:
    /// they are loaded, with the same statements, into a private temporary database that SQLite keeps in
    /// memory up to its page cache and in a temporary file beyond (in `SQLITE_TMPDIR`, else `/var/tmp` or
    /// `/tmp`), removed when the check ends. So every constraint a restore meets (a duplicate rowid or
    /// primary key, a `UNIQUE` index, `NOT NULL`, `CHECK`) fails verify as it fails restore.
    ///
    /// - Parameters:
    ///   - dumpURL: the dump to read.
    ///   - maximumValueLength: the longest string or BLOB accepted, in bytes; a longer one is refused while
    ///     it streams in, before it is held. Default: ``defaultMaximumValueLength`` (64 MiB).
    ///   - progress: called on the calling thread as tables and rows are read.
    /// - Returns: the header, the schema, and the tables with the number of rows actually read.
    /// - Throws: ``DBBExportError`` naming the first problem and where it was found; `DBBError` when SQLite
    ///   refuses a statement of the schema or a row (its context names the table and row).
    public static func verify(
        dumpAt dumpURL: URL, maximumValueLength: Int = defaultMaximumValueLength,
        progress: ((DBBExportProgress) -> Void)? = nil
    ) throws -> DBBDumpReport {
        try checkedRead(from: .file(dumpURL.path), maximumValueLength: maximumValueLength, progress: progress)
    }

    /// Reads a dump from an open handle, such as standard input or a pipe, to its end and checks it, as
    /// ``verify(dumpAt:maximumValueLength:progress:)`` checks a file.
    ///
    /// - Parameters:
    ///   - input: the handle to read the dump from; it stays open.
    ///   - maximumValueLength: the longest string or BLOB accepted, in bytes.
    ///   - progress: called on the calling thread as tables and rows are read.
    /// - Returns: what ``verify(dumpAt:maximumValueLength:progress:)`` returns.
    /// - Throws: what ``verify(dumpAt:maximumValueLength:progress:)`` throws.
    public static func verify(
        readingFrom input: FileHandle, maximumValueLength: Int = defaultMaximumValueLength,
        progress: ((DBBExportProgress) -> Void)? = nil
    ) throws -> DBBDumpReport {
        try checkedRead(from: .handle(input), maximumValueLength: maximumValueLength, progress: progress)
    }

    /// Reads a dump, checking it as a restore would: it is loaded into a private temporary database.
    private static func checkedRead(
        from source: DumpSource, maximumValueLength: Int, progress: ((DBBExportProgress) -> Void)?
    ) throws -> DBBDumpReport {
        let checker = try RestoreConsumer.checking()
        let parser = ConcurrentDumpParser(source: source, progress: progress, maximumValueLength: maximumValueLength)
        let report = try parser.run(checker)
        try checker.finish()
        return report
    }

    /// Compares a dump with a database and reports the first difference.
    ///
    /// The header values (`user_version`, `application_id`), the schema objects with their SQL text, and
    /// every table's rows are compared: same rows in the same order, same rowids, and every value with
    /// the same storage class and the same exact value (doubles bit for bit, text byte for byte). For a
    /// partial dump only what it holds is compared.
    ///
    /// With `dataOnly`, the schema's SQL text and its other objects (indexes, views, triggers) are not
    /// compared, nor `sqlite_sequence`: only the header values, which tables there are, their columns and
    /// their rows. A database restored from a dump of PostgreSQL holds the same data as the SQLite database
    /// that PostgreSQL's schema was restored from, with its schema in other words.
    ///
    /// - Parameters:
    ///   - dumpURL: the dump to read.
    ///   - databaseURL: the database to compare with; it is opened read-only.
    ///   - dataOnly: whether to compare the data only, not the schema's SQL. Default: `false`.
    ///   - maximumValueLength: the longest string or BLOB accepted, in bytes. Default:
    ///     ``defaultMaximumValueLength`` (64 MiB).
    ///   - progress: called on the calling thread as tables and rows are compared.
    /// - Returns: the first difference, or `nil` when the database holds exactly what the dump holds.
    /// - Throws: ``DBBExportError`` for a missing database, a damaged or foreign dump; `DBBError` when the
    ///   database cannot be read.
    public static func compare(
        dumpAt dumpURL: URL, withDatabaseAt databaseURL: URL, dataOnly: Bool = false,
        maximumValueLength: Int = defaultMaximumValueLength, progress: ((DBBExportProgress) -> Void)? = nil
    ) throws -> DBBDumpDifference? {
        try DBBExportError.requireExists(databaseURL.path, "the database file")
        let db = try DBBDatabase(path: databaseURL.path, mode: .readOnly)
        defer { try? db.close() }
        try db.beginTransaction(.deferred)
        defer { try? db.rollback() }
        let comparer = CompareConsumer(db: db, dataOnly: dataOnly)
        do {
            let parser = ConcurrentDumpParser(
                source: .file(dumpURL.path), progress: progress, maximumValueLength: maximumValueLength)
            _ = try parser.run(comparer)
        } catch let found as FoundDifference {
            return found.difference
        }
        return nil
    }
}

extension DBBExport {
    /// Reads a dump from end to end, checking it as ``verify(dumpAt:maximumValueLength:progress:)`` does,
    /// and compares it with a database as ``compare(dumpAt:withDatabaseAt:dataOnly:maximumValueLength:progress:)``
    /// does, in one pass.
    ///
    /// Problems are reported as the two calls one after the other would: a damaged dump first, then a
    /// database that cannot be read, then the first difference. After a difference the dump is still
    /// read to its end, to check it.
    ///
    /// - Returns: what ``verify(dumpAt:maximumValueLength:progress:)`` returns, and the first difference or
    ///   `nil`.
    /// - Throws: what ``verify(dumpAt:maximumValueLength:progress:)`` throws, then what
    ///   ``compare(dumpAt:withDatabaseAt:dataOnly:maximumValueLength:progress:)`` throws.
    package static func verifyAndCompare(
        dumpAt dumpURL: URL, withDatabaseAt databaseURL: URL, dataOnly: Bool = false,
        maximumValueLength: Int = defaultMaximumValueLength, progress: ((DBBExportProgress) -> Void)? = nil
    ) throws -> (report: DBBDumpReport, difference: DBBDumpDifference?) {
        try verifyAndCompare(
            .file(dumpURL.path), withDatabaseAt: databaseURL, dataOnly: dataOnly,
            maximumValueLength: maximumValueLength, progress: progress)
    }

    /// ``verifyAndCompare(dumpAt:withDatabaseAt:dataOnly:maximumValueLength:progress:)`` for a dump read from an open
    /// handle.
    package static func verifyAndCompare(
        readingFrom input: FileHandle, withDatabaseAt databaseURL: URL, dataOnly: Bool = false,
        maximumValueLength: Int = defaultMaximumValueLength, progress: ((DBBExportProgress) -> Void)? = nil
    ) throws -> (report: DBBDumpReport, difference: DBBDumpDifference?) {
        try verifyAndCompare(
            .handle(input), withDatabaseAt: databaseURL, dataOnly: dataOnly, maximumValueLength: maximumValueLength,
            progress: progress)
    }

    private static func verifyAndCompare(
        _ source: DumpSource, withDatabaseAt databaseURL: URL, dataOnly: Bool, maximumValueLength: Int,
        progress: ((DBBExportProgress) -> Void)?
    ) throws -> (report: DBBDumpReport, difference: DBBDumpDifference?) {
        var db: DBBDatabase?
        var databaseError: (any Error)?
        do {
            try DBBExportError.requireExists(databaseURL.path, "the database file")
            let opened = try DBBDatabase(path: databaseURL.path, mode: .readOnly)
            db = opened
            try opened.beginTransaction(.deferred)
        } catch {
            databaseError = error
        }
        defer {
            try? db?.rollback()
            try? db?.close()
        }
        let checker = try RestoreConsumer.checking()
        let comparer = ContinuingConsumer(
            checker: checker,
            comparer: databaseError == nil ? db.map { CompareConsumer(db: $0, dataOnly: dataOnly) } : nil)
        let parser = ConcurrentDumpParser(source: source, progress: progress, maximumValueLength: maximumValueLength)
        let report = try parser.run(comparer)
        try checker.finish()
        if let databaseError { throw databaseError }
        switch comparer.stop {
        case nil: return (report, nil)
        case let found as FoundDifference: return (report, found.difference)
        case let error?: throw error
        }
    }
}

/// Passes what it reads to the checking consumer (whose errors end the pass, as verify's do), then to a
/// comparing consumer until that throws, and keeps that error, so the pass reads on to the end of the dump.
private final class ContinuingConsumer: DumpConsumer {
    private let checker: RestoreConsumer
    private var comparer: CompareConsumer?
    /// What stopped the comparison: a ``FoundDifference``, or an error.
    private(set) var stop: (any Error)?

    init(checker: RestoreConsumer, comparer: CompareConsumer?) {
        self.checker = checker
        self.comparer = comparer
    }

    private func forward(_ body: (CompareConsumer) throws -> Void) {
        guard let comparer else { return }
        do {
            try body(comparer)
        } catch {
            stop = error
            self.comparer = nil
        }
    }

    func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws {
        try checker.begin(header: header, schema: schema)
        forward { try $0.begin(header: header, schema: schema) }
    }

    func beginTable(_ table: DBBDumpTable) throws {
        try checker.beginTable(table)
        forward { try $0.beginTable(table) }
    }

    func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {
        try checker.row(values, rawText: rawText, number: number, of: table)
        forward { comparer in
            // Located as the parser locates a consumer's error.
            do {
                try comparer.row(values, rawText: rawText, number: number, of: table)
            } catch let error as DBBExportError {
                throw error.locating(table: table.name, row: number)
            } catch var error as DBBError {
                error.context = "loading row \(number) of table \(table.name) from the dump"
                throw error
            }
        }
    }

    func endTable(_ table: DBBDumpTable) throws {
        try checker.endTable(table)
        forward { try $0.endTable(table) }
    }
}

/// Thrown by the comparing consumer to stop the pass at the first difference.
private struct FoundDifference: Error {
    var difference: DBBDumpDifference
}

/// Compares what a dump holds with a database.
private final class CompareConsumer: DumpConsumer {
    private let db: DBBDatabase
    /// Whether only the data is compared: the header values, the tables, their columns and rows, not the
    /// schema's SQL or `sqlite_sequence`.
    private let dataOnly: Bool
    private var cursor: DBBCursor?
    private var header: DBBDumpHeader?
    /// Whether the current table's rows are passed over (`sqlite_sequence`, when comparing the data only).
    private var passesOver = false

    init(db: DBBDatabase, dataOnly: Bool) {
        self.db = db
        self.dataOnly = dataOnly
    }

    /// Whether a table is left out of a comparison of the data: `sqlite_sequence` holds the next ids of
    /// `AUTOINCREMENT`, which a schema written in other words may or may not have.
    private func leavesOut(_ table: String) -> Bool {
        dataOnly && table.lowercased() == "sqlite_sequence"
    }

    private func differ(
        _ message: String, table: String? = nil, row: Int? = nil, column: String? = nil
    ) -> FoundDifference {
        FoundDifference(difference: DBBDumpDifference(table: table, row: row, column: column, message: message))
    }

    func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws {
        self.header = header
        let userVersion = try db.userVersion()
        if userVersion != header.userVersion {
            throw differ("user_version is \(header.userVersion) in the dump, \(userVersion) in the database")
        }
        let applicationID = try db.applicationID()
        if applicationID != header.applicationID {
            throw differ("application_id is \(header.applicationID) in the dump, \(applicationID) in the database")
        }
        let actual = try DBBSchemaObject.all(in: db)
        if dataOnly { return try compareTables(of: header, with: actual) }
        for object in schema {
            guard let match = actual.first(where: { $0.name == object.name && $0.type == object.type }) else {
                throw differ("the database has no \(object.type) named \(object.name)")
            }
            guard match.tableName == object.tableName, Self.sameText(match.sql, object.sql) else {
                throw differ("the SQL text of \(object.type) \(object.name) differs")
            }
        }
        if !header.isPartial {
            for object in actual where !schema.contains(where: { $0.name == object.name && $0.type == object.type }) {
                throw differ("the dump has no \(object.type) named \(object.name)")
            }
        }
    }

    /// Compares which tables hold rows, when comparing the data only: the dump's tables (its table sections)
    /// and the database's tables, but for `sqlite_sequence`, SQLite's statistics and virtual tables.
    private func compareTables(of header: DBBDumpHeader, with actual: [DBBSchemaObject]) throws {
        let tables = actual.filter { object in
            object.type == "table" && !object.isVirtualTable && !object.name.lowercased().hasPrefix("sqlite_stat")
                && !leavesOut(object.name)
        }
        for table in header.tables where !leavesOut(table.name) {
            guard tables.contains(where: { $0.name == table.name }) else {
                throw differ("the database has no table named \(table.name)")
            }
        }
        if !header.isPartial {
            for table in tables where !header.tables.contains(where: { $0.name == table.name }) {
                throw differ("the dump has no table named \(table.name)")
            }
        }
    }

    private static func sameText(_ a: String?, _ b: String?) -> Bool {
        guard let a, let b else { return a == nil && b == nil }
        return a.utf8.elementsEqual(b.utf8)
    }

    func beginTable(_ table: DBBDumpTable) throws {
        passesOver = leavesOut(table.name)
        if passesOver { return }
        var layout = try TableLayout(table: table.name, in: db)
        guard layout.columns == table.columns else {
            throw differ("the columns differ", table: table.name)
        }
        if layout.storesRowID && !table.hasRowID && header?.source != nil {
            // A dump of another engine has no rowids for a table without a key: a restore numbers its rows in
            // the dump's order, so they are compared in rowid order, without the rowid.
            layout.omitsRowID = true
        } else if layout.storesRowID != table.hasRowID {
            throw differ("the dump \(table.hasRowID ? "stores" : "does not store") rowids", table: table.name)
        }
        if header?.isPartial == true && table.name.lowercased() == "sqlite_sequence" {
            layout.condition = TableLayout.sequenceCondition(tables: (header?.tables ?? []).map(\.name))
        }
        cursor = try db.fetchCursor(layout.selectSQL)
    }

    func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {
        if passesOver { return }
        guard let row = try cursor?.next() else {
            throw differ("the database has fewer rows than the dump (\(number - 1))", table: table.name, row: number)
        }
        for (index, value) in values.enumerated() {
            var expected = value
            if rawText.contains(index), case .blob(let bytes) = value {
                // The library reads such text with U+FFFD in place of the bytes that are not UTF-8.
                expected = .text(String(decoding: bytes, as: UTF8.self))
            }
            let actual = row.value(at: index)
            if !Self.identical(expected, actual) {
                let column = table.hasRowID ? (index == 0 ? "rowid" : table.columns[index - 1]) : table.columns[index]
                throw differ(
                    "the dump has \(Self.describe(expected)), the database \(Self.describe(actual))", table: table.name,
                    row: number, column: column)
            }
        }
    }

    func endTable(_ table: DBBDumpTable) throws {
        if passesOver { return }
        if try cursor?.next() != nil {
            throw differ("the database has more rows than the dump (\(table.rowCount))", table: table.name)
        }
        cursor = nil
    }

    /// Same storage class and same exact value: doubles bit for bit, text byte for byte.
    static func identical(_ a: DBBValue, _ b: DBBValue) -> Bool {
        switch (a, b) {
        case (.null, .null): true
        case (.integer(let x), .integer(let y)): x == y
        case (.real(let x), .real(let y)): x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case (.text(let x), .text(let y)): x.utf8.elementsEqual(y.utf8)
        case (.blob(let x), .blob(let y)): x == y
        default: false
        }
    }

    private static func describe(_ value: DBBValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let integer): "INTEGER \(integer)"
        case .real(let real): "REAL \(real)"
        case .text(let text): "TEXT of \(text.utf8.count) bytes"
        case .blob(let data): "BLOB of \(data.count) bytes"
        }
    }
}
