internal import DBBSQL
package import Foundation

/// Writes a dump from rows another module reads: the engine-neutral half of a dump, for a source that is not an
/// SQLite file (DBBPostgres reads a PostgreSQL schema and hands its rows here).
///
/// The caller knows the header (with every table's row count) and the schema before the first row, as a dump
/// lists them first; it then hands each table's rows in order. The writer checks what a reader will check: the
/// tables come in the header's order, each row has the table's width (its rowid first when it stores one, an
/// integer), each string or BLOB fits the limit on one value, and each table holds as many rows as the header
/// says. A dump to a file is written under a temporary name beside it, synced, and moved into place by
/// ``finish()``; ``abandon()`` (or any error the writer throws, after which the caller abandons it) removes the
/// temporary file, so no partial dump is ever left under the final name.
///
/// Not `Sendable`: one thread writes a dump.
package final class DumpWriter {
    private let target: TargetFile?
    private let output: GzipFileWriter
    private var json: DumpJSONWriter
    private let maximumValueLength: Int
    private var header: DBBDumpHeader?
    private var schema: [DBBSchemaObject] = []
    private var counter: ProgressCounter
    private var tableIndex = -1
    private var rowsOfTable = 0
    private var isFinished = false

    /// Starts a dump to a file: checks the target (as ``DBBExport/dump(databaseAt:to:options:progress:)``
    /// does, before anything is read) and opens a temporary file beside it.
    ///
    /// - Parameters:
    ///   - dumpURL: the dump to write.
    ///   - options: the compression level, whether an existing file may be replaced, the longest value.
    ///   - progress: called on the calling thread as tables and rows are written.
    /// - Throws: ``DBBExportError`` (targetExists, io) for a target that exists or cannot be written.
    package init(to dumpURL: URL, options: DBBDumpOptions, progress: ((DBBExportProgress) -> Void)?) throws {
        let target = try TargetFile(path: dumpURL.path, replaceExisting: options.replaceExisting, purpose: .dump)
        self.target = target
        output = try GzipFileWriter(path: target.temporaryPath, level: options.compressionLevel)
        json = DumpJSONWriter(output: output)
        maximumValueLength = min(options.maximumValueLength, DBBExport.valueLengthLimit)
        counter = ProgressCounter(progress)
    }

    /// Starts a dump to an open handle, such as standard output; the handle stays open.
    ///
    /// - Parameters:
    ///   - output: the handle to write to.
    ///   - options: the compression level and the longest value.
    ///   - progress: called on the calling thread as tables and rows are written.
    /// - Throws: ``DBBExportError`` (io) when the handle cannot be written.
    package init(writingTo output: FileHandle, options: DBBDumpOptions, progress: ((DBBExportProgress) -> Void)?)
        throws
    {
        target = nil
        self.output = try GzipFileWriter(handle: output, level: options.compressionLevel)
        json = DumpJSONWriter(output: self.output)
        maximumValueLength = min(options.maximumValueLength, DBBExport.valueLengthLimit)
        counter = ProgressCounter(progress)
    }

    /// Writes the format, the header and the schema.
    ///
    /// - Throws: ``DBBExportError`` (io) when the output cannot be written.
    package func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws {
        self.header = header
        self.schema = schema
        json.beginDocument(header: header, schema: schema)
        counter.begin(tableCount: header.tables.count, rowCount: header.totalRows)
        try json.flushIfNeeded()
    }

    /// Starts the next table section: the next table of the header.
    ///
    /// - Parameter table: the table, its columns and whether its rows start with a rowid; its row count is the
    ///   header's.
    /// - Throws: ``DBBExportError`` (malformed) when it is not the header's next table.
    package func beginTable(_ table: DBBDumpTable) throws {
        guard let header, tableIndex + 1 < header.tables.count, header.tables[tableIndex + 1].name == table.name,
            header.tables[tableIndex + 1].rowCount == table.rowCount
        else {
            throw DBBExportError(.malformed, "the table is not the next one the dump's header lists", table: table.name)
        }
        tableIndex += 1
        rowsOfTable = 0
        counter.beginTable(table.name)
        json.beginTable(table, first: tableIndex == 0)
    }

    /// The table being written.
    private var table: DBBDumpTable? {
        guard let header, tableIndex >= 0, tableIndex < header.tables.count else { return nil }
        return header.tables[tableIndex]
    }

    /// Writes one row of the current table (the one ``beginTable(_:)`` began).
    ///
    /// - Parameter values: the rowid first when the table stores it, then one value per column.
    /// - Throws: ``DBBExportError`` (valueTooLong) for a string or BLOB longer than the limit, naming its row and
    ///   column; (malformed) for a row of the wrong width, or past the table's row count; (io) when the output
    ///   cannot be written.
    package func row(_ values: [DBBValue]) throws {
        try rows { encoder in
            try encoder.beginRow()
            for value in values { try encoder.value(value) }
            try encoder.endRow()
        }
    }

    /// Writes rows of the current table value by value, as they are read: what ``row(_:)`` writes, without a
    /// `DBBValue` for each, and with the same checks.
    ///
    /// - Parameter body: writes rows with the encoder's `beginRow()`, one value call per value, `endRow()`.
    /// - Throws: what `body` throws; ``DBBExportError`` (malformed) outside a table, and what ``row(_:)``
    ///   throws.
    package func rows(_ body: (inout DumpRowEncoder) throws -> Void) throws {
        guard let table else { throw DBBExportError(.malformed, "a row was written outside a table") }
        // The JSON writer moves into the encoder and back, so its buffer is never shared (and never copied).
        var encoder = DumpRowEncoder(
            json: DumpJSONWriter(output: output, reserving: false), table: table,
            maximumValueLength: maximumValueLength, rowsOfTable: rowsOfTable)
        swap(&json, &encoder.json)
        defer {
            swap(&json, &encoder.json)
            counter.add(rows: encoder.rowsOfTable - rowsOfTable)
            rowsOfTable = encoder.rowsOfTable
        }
        try body(&encoder)
    }

    /// Ends the current table section.
    ///
    /// - Throws: ``DBBExportError`` (malformed) when the table has fewer rows than its header lists.
    package func endTable() throws {
        guard let table else { return }
        guard rowsOfTable == table.rowCount else {
            throw DBBExportError(
                .malformed, "the table gave \(rowsOfTable) rows where the header lists \(table.rowCount)",
                table: table.name)
        }
        json.endTable(rows: rowsOfTable)
        counter.endTable()
    }

    /// Ends the dump, flushes it, and (for a file) syncs it and moves it into place.
    ///
    /// - Returns: what was written.
    /// - Throws: ``DBBExportError`` (malformed) when a table of the header was not written; (io) when the dump
    ///   cannot be written, synced or moved into place; (targetExists) when a file appeared at the target
    ///   meanwhile and replacing it was not asked for.
    package func finish() throws -> DBBDumpReport {
        guard let header else { throw DBBExportError(.malformed, "the dump was not begun") }
        guard tableIndex + 1 == header.tables.count else {
            throw DBBExportError(.malformed, "the dump ends before all the tables its header lists")
        }
        json.endDocument(hasTables: !header.tables.isEmpty)
        try json.flush()
        let sizes = try output.finish()
        try target?.commit()
        isFinished = true
        counter.finish()
        return DBBDumpReport(
            header: header, schema: schema, tables: header.tables, jsonBytes: sizes.uncompressed,
            compressedBytes: sizes.compressed)
    }

    /// Stops writing and removes the temporary file; a dump to a handle is left truncated there. Does nothing
    /// after ``finish()`` succeeded.
    package func abandon() {
        guard !isFinished else { return }
        isFinished = true
        output.abandon()
        target?.discard()
    }

    deinit {
        abandon()
    }
}

extension DumpJSONWriter {
    /// The start of a dump: its format, version, header and schema, and the opening of its tables.
    mutating func beginDocument(header: DBBDumpHeader, schema: [DBBSchemaObject]) {
        raw("{\"format\":")
        string(DBBExport.formatName)
        raw(",\"version\":")
        integer(Int64(DBBExport.formatVersion))
        raw(",\n\"header\":")
        json(header.jsonValue)
        raw(",\n\"schema\":[")
        for (index, object) in schema.enumerated() {
            raw(index == 0 ? "\n" : ",\n")
            json(object.jsonValue)
        }
        raw("\n],\n\"tables\":[")
    }

    /// The start of a table section, up to its first row.
    mutating func beginTable(_ table: DBBDumpTable, first: Bool) {
        raw(first ? "\n{\"name\":" : ",\n{\"name\":")
        string(table.name)
        raw(",\"columns\":")
        json(.array(table.columns.map { .string($0) }))
        raw(",\"rowid\":")
        raw(table.hasRowID ? "true" : "false")
        raw(",\"rowCount\":")
        integer(Int64(table.rowCount))
        raw(",\"rows\":[")
    }

    /// The end of a table section.
    mutating func endTable(rows: Int) {
        raw(rows == 0 ? "]}" : "\n]}")
    }

    /// The end of the dump.
    mutating func endDocument(hasTables: Bool) {
        raw(hasTables ? "\n]\n}\n" : "]\n}\n")
    }
}

/// Writes the rows of one table of a ``DumpWriter`` value by value, checking each row's width, the table's row
/// count and the limit on one value as it goes.
///
/// Not `Sendable`, not copyable: it holds the writer's JSON buffer while ``DumpWriter/rows(_:)`` runs.
package struct DumpRowEncoder: ~Copyable {
    fileprivate var json: DumpJSONWriter
    private let table: DBBDumpTable
    private let maximumValueLength: Int
    private let width: Int
    fileprivate private(set) var rowsOfTable: Int
    private var valuesInRow = 0

    fileprivate init(json: DumpJSONWriter, table: DBBDumpTable, maximumValueLength: Int, rowsOfTable: Int) {
        self.json = json
        self.table = table
        self.maximumValueLength = maximumValueLength
        width = table.columns.count + (table.hasRowID ? 1 : 0)
        self.rowsOfTable = rowsOfTable
    }

    /// The number of the row being written, from 1.
    package var rowNumber: Int { rowsOfTable + 1 }

    /// Starts a row.
    ///
    /// - Throws: ``DBBExportError`` (malformed) when the table already has the rows its header lists.
    package mutating func beginRow() throws {
        guard rowsOfTable < table.rowCount else {
            throw DBBExportError(
                .malformed, "the table has more rows than the \(table.rowCount) its header lists", table: table.name,
                row: rowsOfTable + 1)
        }
        json.raw(rowsOfTable == 0 ? "\n[" : ",\n[")
        valuesInRow = 0
    }

    /// Ends a row, handing the JSON to the gzip writer when enough is buffered.
    ///
    /// - Throws: ``DBBExportError`` (malformed) when the row has fewer values than the table's width; (io) when
    ///   the output cannot be written.
    package mutating func endRow() throws {
        guard valuesInRow == width else { throw wrongWidth(valuesInRow) }
        json.byte(UInt8(ascii: "]"))
        rowsOfTable += 1
        try json.flushIfNeeded()
    }

    private func wrongWidth(_ count: Int) -> DBBExportError {
        DBBExportError(
            .malformed, "the row has \(count) values where \(width) are expected", table: table.name,
            row: rowsOfTable + 1)
    }

    /// Counts the next value of the row and writes the comma before it.
    private mutating func nextValue() throws {
        guard valuesInRow < width else { throw wrongWidth(valuesInRow + 1) }
        if valuesInRow > 0 { json.byte(UInt8(ascii: ",")) }
        valuesInRow += 1
    }

    private func requireLength(_ count: Int) throws {
        guard count > maximumValueLength else { return }
        let index = valuesInRow - 1
        let column = table.hasRowID ? (index == 0 ? "rowid" : table.columns[index - 1]) : table.columns[index]
        throw DBBExportError(
            .valueTooLong,
            "the value is \(count) bytes, longer than the \(maximumValueLength)-byte limit on one value "
                + "(DBBDumpOptions.maximumValueLength); a restore with that limit would refuse it",
            table: table.name, row: rowsOfTable + 1, column: column)
    }

    /// Writes a value. NaN is written as NULL, as SQLite stores it.
    ///
    /// - Throws: ``DBBExportError`` (valueTooLong) for a string or BLOB longer than the limit; (malformed) for a
    ///   value past the row's width; (io) when the output cannot be written.
    package mutating func value(_ value: DBBValue) throws {
        try nextValue()
        switch value {
        case .text(let text): try requireLength(text.utf8.count)
        case .blob(let data): try requireLength(data.count)
        case .real(let number) where number.isNaN:
            json.raw("null")
            return
        default: break
        }
        try json.value(value)
    }

    /// Writes an integer.
    ///
    /// - Throws: ``DBBExportError`` (malformed) for a value past the row's width.
    package mutating func integer(_ value: Int64) throws {
        try nextValue()
        json.integer(value)
    }

    /// Writes text given as its UTF-8 bytes; bytes that are not valid UTF-8 become U+FFFD.
    ///
    /// - Throws: ``DBBExportError`` (valueTooLong) for text longer than the limit; (malformed) for a value past
    ///   the row's width; (io) when the output cannot be written.
    package mutating func text(utf8 bytes: UnsafeRawBufferPointer) throws {
        try nextValue()
        try requireLength(bytes.count)
        // Each byte that is not UTF-8 is written as U+FFFD, three bytes: only text near the limit can pass it so.
        if bytes.count > maximumValueLength / 3 {
            try requireLength(String(decoding: bytes, as: UTF8.self).utf8.count)
        }
        try json.text(bytes: bytes)
    }

    /// Writes a BLOB given as its bytes.
    ///
    /// - Throws: ``DBBExportError`` (valueTooLong) for a BLOB longer than the limit; (malformed) for a value past
    ///   the row's width; (io) when the output cannot be written.
    package mutating func blob(_ bytes: UnsafeRawBufferPointer) throws {
        try nextValue()
        try requireLength(bytes.count)
        try json.blob(bytes: bytes)
    }
}
