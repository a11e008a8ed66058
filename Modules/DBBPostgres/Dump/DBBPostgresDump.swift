public import DBBExport
internal import DBBSQL
public import Foundation
internal import NIOCore
internal import PostgresNIO

/// Dumps a schema of a PostgreSQL database to a `DBBExport` dump: the format of a dump of an SQLite file, which
/// the same restore takes into a new SQLite file (atomic, checked, refusing to replace a file unless asked) or,
/// with ``DBBPostgresRestore``, into another PostgreSQL schema.
///
/// ```swift
/// let connection = try DBBPostgresConnection.connect(try DBBPostgresConfiguration(url: "postgres://app@db/app"))
/// let report = try DBBPostgresDump.dump(
///     from: connection, to: URL(fileURLWithPath: "app.json.gz"), options: DBBPostgresDumpOptions(schema: "public"))
/// for conversion in report.header.conversions { print("note: \(conversion)") }
/// try DBBExport.restore(dumpAt: URL(fileURLWithPath: "app.json.gz"), to: URL(fileURLWithPath: "app.sqlite"))
/// ```
///
/// Every table of the schema is dumped with its rows, read in one `REPEATABLE READ` transaction (so the dump is
/// one consistent snapshot while other sessions write) that holds an `ACCESS SHARE` lock on each table, as
/// `pg_dump` does, so none is dropped or altered meanwhile. Its schema is SQLite's SQL, written from the catalog:
/// each column with the SQLite type its values keep (`DBBDumpConversion` names each column whose PostgreSQL type
/// SQLite lacks, and what its values become), a one-column integer primary key as `INTEGER PRIMARY KEY`
/// (`AUTOINCREMENT` for an identity or a serial, its sequence's last value in `sqlite_sequence`), other primary
/// keys as `WITHOUT ROWID` tables, plain indexes, unique constraints and foreign keys within the schema. Views,
/// functions, triggers, sequences, enum types, check constraints and extensions are kept as PostgreSQL's SQL text
/// in the header (`DBBDumpHeader.sourceObjects`), which no restore runs. A schema a restore of an SQLite dump
/// made goes back as it came: its tables' declared SQLite types, rowids, `user_version` and `application_id` are
/// read from the restore's metadata table, which is not dumped itself.
///
/// Rows stream a batch of about ``batchBytes`` at a time (the rows after the last one read, one array per column,
/// for a table ordered by one integer column, as the library's tables are; through a server-side cursor for
/// others), read on a thread of their own ahead of the writing (the next table's among them) while the batches
/// waiting hold less than ``batchBytes``, each value written as JSON straight from the bytes the server sent, and
/// compressed on other threads as they are written: the memory a dump takes is bounded by about two copies of its
/// largest batch plus 50 MiB. A batch is about ``batchBytes``, or one row when a row is longer. The first batch of
/// a table, its rows' size not known yet, is the rows that take a quarter of ``batchBytes`` by the table's
/// average on disk (TOAST included) and what a batch keeps for each field, at least 64: a table of many long
/// values (up to the limit on one value, ``DBBPostgresDumpOptions/maximumValueLength``, 64 MiB by default) can
/// take up to 64 of them at first. A schema of
/// a million rows and one 100 MB value was dumped in 256 MiB, one of 66 values of 16 MiB in 300 MiB.
///
/// The synchronous calls wait on the calling thread: call them from a thread or `DispatchQueue` of your own, not
/// inside a Swift concurrency task.
public enum DBBPostgresDump {
    /// About how many bytes of rows one batch reads.
    public static let batchBytes = 4 << 20

    /// Dumps a schema to a gzip-compressed JSON file, written under a temporary name beside it, synced, and
    /// moved into place only when complete: on any error no file is left under the final name.
    ///
    /// - Parameters:
    ///   - connection: an open connection, not in a transaction.
    ///   - dumpURL: the file to write, conventionally ending in `.json.gz`.
    ///   - options: the schema, `strict`, the compression level, whether to replace an existing file, the longest
    ///     value.
    ///   - progress: called on the calling thread as tables and rows are done.
    /// - Returns: what was written; the header's `conversions` name what was converted.
    /// - Throws: `DBBExportError` — (targetExists) for an existing file without `replaceExisting`, (io) for a
    ///   target that cannot be written or a full disk, (unknownTable) for a schema that does not exist,
    ///   (malformed) with `strict` for a type that has no mapping or a `numeric` no double holds, (valueTooLong)
    ///   for a value longer than the limit; `DBBError` when the server refuses a statement or the connection
    ///   fails.
    @discardableResult
    public static func dump(
        from connection: DBBPostgresConnection, to dumpURL: URL, options: DBBPostgresDumpOptions,
        progress: ((DBBExportProgress) -> Void)? = nil
    ) throws -> DBBDumpReport {
        try DBBPostgresConnection.requireBlockingAllowed(context: "dumping a schema", sql: nil)
        let writer = try DumpWriter(to: dumpURL, options: options.dumpOptions, progress: progress)
        return try dump(from: connection, into: writer, options: options)
    }

    /// Dumps a schema to an open handle, such as standard output or a pipe; the handle stays open. There is no
    /// temporary file: on failure, a reader sees a truncated stream.
    ///
    /// - Parameters:
    ///   - connection: an open connection, not in a transaction.
    ///   - output: the handle to write the dump to.
    ///   - options: the schema, `strict`, the compression level and the longest value.
    ///   - progress: called on the calling thread as tables and rows are done.
    /// - Returns: what was written.
    /// - Throws: what ``dump(from:to:options:progress:)`` throws.
    @discardableResult
    public static func dump(
        from connection: DBBPostgresConnection, writingTo output: FileHandle, options: DBBPostgresDumpOptions,
        progress: ((DBBExportProgress) -> Void)? = nil
    ) throws -> DBBDumpReport {
        try DBBPostgresConnection.requireBlockingAllowed(context: "dumping a schema", sql: nil)
        let writer = try DumpWriter(writingTo: output, options: options.dumpOptions, progress: progress)
        return try dump(from: connection, into: writer, options: options)
    }

    private static func dump(
        from connection: DBBPostgresConnection, into writer: DumpWriter, options: DBBPostgresDumpOptions
    ) throws -> DBBDumpReport {
        var inTransaction = false
        do {
            try connection.begin(isolation: .repeatableRead, readOnly: true)
            inTransaction = true
            try applySettings(on: connection)
            let plan = try PostgresDumpPlan(connection: connection, schema: options.schema, strict: options.strict)
            try writer.begin(header: plan.header, schema: plan.schema)
            let feed = RowFeed(tables: plan.tables, connection: connection)
            // Until it is joined, the feed alone uses the connection.
            defer { feed.join() }
            for table in plan.tables {
                try writer.beginTable(table.section)
                try writeRows(of: table, from: feed, into: writer, strict: options.strict)
                try writer.endTable()
            }
            feed.join()
            if plan.hasSequenceTable {
                let section = DBBDumpTable(
                    name: PostgresDumpPlan.sequenceTable, columns: ["name", "seq"], hasRowID: true,
                    rowCount: plan.sequences.count)
                try writer.beginTable(section)
                for (index, entry) in plan.sequences.enumerated() {
                    try writer.row([.integer(Int64(index + 1)), .text(entry.table), .integer(entry.value)])
                }
                try writer.endTable()
            }
            inTransaction = false
            try connection.rollback()  // a read-only transaction: nothing to keep
            return try writer.finish()
        } catch {
            writer.abandon()
            if inTransaction { try? connection.rollback() }
            throw error
        }
    }

    /// Sets what the text of values depends on, for the dump's transaction only: the same dump whatever the
    /// session's settings were. A lock another session holds is waited for at most 30 seconds: the catalog's
    /// reads take locks too (`pg_table_size` among them), before the dump locks every table.
    static func applySettings(on connection: DBBPostgresConnection) throws {
        // One query: `set_config(…, true)` is `SET LOCAL`.
        let settings = [
            ("TimeZone", "UTC"), ("DateStyle", "ISO, YMD"), ("IntervalStyle", "iso_8601"), ("extra_float_digits", "3"),
            ("bytea_output", "hex"), ("lock_timeout", "30s"),
        ]
        try connection.run(
            "SELECT " + settings.map { "set_config('\($0.0)', '\($0.1)', true)" }.joined(separator: ", "), [],
            context: "dumping a schema")
    }

    /// Writes a table's rows as the feed reads them.
    private static func writeRows(
        of table: PostgresDumpPlan.Table, from feed: RowFeed, into writer: DumpWriter, strict: Bool
    ) throws {
        let rules = table.columns.map(\.rules)
        while let batch = try feed.nextBatch() {
            try batch.bytes.withUnsafeBytes { bytes in
                try writer.rows { encoder in
                    for row in 0..<batch.rows {
                        try encoder.beginRow()
                        for column in 0..<batch.columns {
                            try write(
                                batch.field(row: row, column: column, in: bytes), of: table, rule: rules[column],
                                column: column, strict: strict, into: &encoder)
                        }
                        try encoder.endRow()
                    }
                }
            }
        }
    }

    /// Writes a field as the dump's value, straight from its bytes where the value is written as read (BLOBs,
    /// text its column keeps as text), else converted as its column's rule says.
    private static func write(
        _ field: FieldBatch.Field, of table: PostgresDumpPlan.Table, rule: DumpColumnMapping.ValueRules,
        column: Int, strict: Bool, into encoder: inout DumpRowEncoder
    ) throws {
        if let bytes = field.bytes, field.oid == RecordDecoder.OID.bytea {
            try encoder.blob(bytes)
        } else if let bytes = field.bytes, RecordDecoder.OID.isText(field.oid) && rule.writesAsRead(text: bytes) {
            try encoder.text(utf8: bytes)
        } else {
            try encoder.value(
                table.dumpValue(of: field, rule: rule, column: column, row: encoder.rowNumber, strict: strict))
        }
    }
}

extension PostgresDumpPlan.Table {
    /// A field of the table as the dump's value, converted as its column's rule says.
    ///
    /// - Parameters:
    ///   - field: the field, as the server sent it.
    ///   - rule: how its column's values become the dump's (the column's `rules`, made once a table).
    ///   - column: its column.
    ///   - row: the number of its row, for an error.
    ///   - strict: whether a `numeric` no double holds is refused.
    /// - Throws: `DBBExportError` (malformed) for a `numeric` `strict` refuses; `DBBError` (mismatch) for a type
    ///   the dump does not read.
    func dumpValue(
        of field: FieldBatch.Field, rule: DumpColumnMapping.ValueRules, column: Int, row: Int, strict: Bool
    ) throws -> DBBValue {
        guard let bytes = field.bytes else { return .null }
        guard let value = RecordDecoder.value(bytes, oid: field.oid) else { throw mismatch }
        guard let converted = rule.dumpValue(value, strict: strict) else {
            throw numericRefused(row: row, column: column)
        }
        return converted
    }

    /// The error for a `numeric` value `strict` refuses.
    func numericRefused(row: Int, column: Int) -> DBBExportError {
        DBBExportError(
            .malformed,
            "the numeric value has more digits than a double holds (dump without --strict to write the nearest "
                + "double)", table: section.name, row: row, column: columns[column].name)
    }

    /// The error for a row that did not come as a record of the types a dump reads.
    var mismatch: DBBError {
        DBBError.library(
            .mismatch,
            message: "a row of table \(section.name) did not come as a record of the types the dump reads",
            sql: recordSelectSQL, context: "dumping table \(section.name)")
    }
}

/// How ``DBBPostgresDump`` dumps.
///
/// `Sendable`: a value type of `Sendable` values.
public struct DBBPostgresDumpOptions: Sendable, Equatable {
    /// The PostgreSQL schema whose tables are dumped.
    public var schema: String
    /// Whether a column whose type has no mapping to SQLite (written as its text otherwise), or a `numeric` value
    /// no double holds exactly (written as the nearest double otherwise), makes the dump fail.
    public var strict: Bool
    /// The gzip compression level, from 0 (store only) to 9 (smallest). Default: 6.
    public var compressionLevel: Int
    /// Whether an existing file at the target may be replaced. Default: `false`.
    public var replaceExisting: Bool
    /// The longest string or BLOB the dump writes, in bytes; a longer value is refused. Default: 64 MiB.
    public var maximumValueLength: Int

    /// Creates options.
    ///
    /// - Parameters:
    ///   - schema: the schema to dump.
    ///   - strict: whether a type without a mapping, or a `numeric` no double holds, is an error.
    ///   - compressionLevel: the gzip level, 0–9.
    ///   - replaceExisting: whether to replace an existing file.
    ///   - maximumValueLength: the longest value written, in bytes.
    public init(
        schema: String, strict: Bool = false, compressionLevel: Int = 6, replaceExisting: Bool = false,
        maximumValueLength: Int = DBBExport.defaultMaximumValueLength
    ) {
        self.schema = schema
        self.strict = strict
        self.compressionLevel = compressionLevel
        self.replaceExisting = replaceExisting
        self.maximumValueLength = maximumValueLength
    }

    /// The options of the writer.
    var dumpOptions: DBBDumpOptions {
        var options = DBBDumpOptions(compressionLevel: compressionLevel, replaceExisting: replaceExisting)
        options.maximumValueLength = maximumValueLength
        return options
    }
}
