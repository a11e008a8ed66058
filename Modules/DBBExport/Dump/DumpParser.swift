package import DBBSQL
package import Foundation

/// What a pass over a dump does with what it reads.
package protocol DumpConsumer: AnyObject {
    /// Called once, with the header and the schema, before the first table section.
    func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws
    /// Called at the start of each table section, once its description is known.
    func beginTable(_ table: DBBDumpTable) throws
    /// Called for each row: the rowid first when the table stores it, then one value per column.
    /// `rawText` lists the positions of TEXT values that are not valid UTF-8, given as their bytes (`.blob`).
    func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws
    /// Called after the last row of a table section.
    func endTable(_ table: DBBDumpTable) throws
    /// Called when the parser starts reading a long string, before it holds it: a consumer on another
    /// thread waits there until the rows handed on before are consumed, so that no two long values are in
    /// memory at once.
    func willReadLongValue() throws
    /// Whether the rows of a table go to ``scannedRow(_:number:of:)`` rather than
    /// ``row(_:rawText:number:of:)``: the parser checks them just as much, but keeps only what a scan
    /// learns of each value (``ScannedValue``) and makes no string. Only ``DumpParser`` scans; the
    /// concurrent parser does not call it.
    func scans(_ table: DBBDumpTable) -> Bool
    /// Called for each row of a scanned table: the rowid's first when the table stores it, then each column's.
    func scannedRow(_ values: [ScannedValue], number: Int, of table: DBBDumpTable) throws
    /// Whether the consumer reads the rows of a table itself, through ``writeRows(of:from:)``, rather than
    /// being called for each (``row(_:rawText:number:of:)``). Asked after ``scans(_:)``, and only by
    /// ``DumpParser``.
    func writesRows(of table: DBBDumpTable) -> Bool
    /// Reads the rows of a table it ``writesRows(of:)``, between ``beginTable(_:)`` and ``endTable(_:)``:
    /// ``DumpRows/next(into:)`` hands each row's values to a ``DumpValueWriter`` of the consumer's. The rows
    /// it leaves unread are read and checked after it returns.
    func writeRows(of table: DBBDumpTable, from rows: inout DumpRows) throws
}

extension DumpConsumer {
    package func willReadLongValue() throws {}
    package func scans(_ table: DBBDumpTable) -> Bool { false }
    package func scannedRow(_ values: [ScannedValue], number: Int, of table: DBBDumpTable) throws {}
    package func writesRows(of table: DBBDumpTable) -> Bool { false }
    package func writeRows(of table: DBBDumpTable, from rows: inout DumpRows) throws {}
}

/// What a scan of a row value keeps of it: its storage class, and the little a restore's plan needs.
package struct ScannedValue: Sendable, Equatable {
    package enum Kind: Sendable, Equatable {
        /// NULL, or a real that is NaN (SQLite stores it as NULL).
        case null
        case integer
        case real
        case text
        case blob
        /// TEXT that is not valid UTF-8 (`{"text": base64}`).
        case rawText
    }

    package var kind: Kind
    /// The integer, for ``Kind/integer``.
    package var integer: Int64
    /// Whether a ``Kind/real`` is -0.0.
    package var isNegativeZero: Bool
    /// Whether text holds NUL.
    package var hasNUL: Bool

    @inlinable
    package init(kind: Kind, integer: Int64 = 0, isNegativeZero: Bool = false, hasNUL: Bool = false) {
        self.kind = kind
        self.integer = integer
        self.isNegativeZero = isNegativeZero
        self.hasNUL = hasNUL
    }
}

extension ScannedValue {
    /// What a scan keeps of a value read whole (a number, a tagged value): its storage class, as a
    /// ``DumpValueWriter`` is told it, NaN as NULL.
    ///
    /// - Parameters:
    ///   - value: the value; a NaN counts as NULL, as SQLite stores it.
    ///   - isRawText: whether a BLOB is TEXT that is not valid UTF-8, given as its bytes (``Kind/rawText``).
    @inlinable
    package init(_ value: DBBValue, isRawText: Bool) {
        self.init(kind: .null)
        switch value {
        case .null:
            break
        case .integer(let number):
            kind = .integer
            integer = number
        case .real(let number):
            guard !number.isNaN else { break }
            kind = .real
            isNegativeZero = number == 0 && number.sign == .minus
        case .text(var text):
            kind = .text
            hasNUL = text.withUTF8 { $0.contains(0) }
        case .blob:
            kind = isRawText ? .rawText : .blob
        }
    }
}

/// Reads a dump from end to end, checking its structure, and passes what it reads to a consumer.
///
/// Checks: the gzip stream (CRC-32 and length of every member), the JSON syntax, the format name and
/// version, the shape of every member and row value, each table's row width and row count, and that
/// every table the header lists is present, in order, and defined by the schema.
package struct DumpParser {
    let source: DumpSource
    let progress: ((DBBExportProgress) -> Void)?
    /// The longest string or BLOB of a row the parser reads; a longer one is refused while it streams in.
    var maximumValueLength = DBBExport.defaultMaximumValueLength
}

// In an extension, so that the struct keeps its memberwise initializer.
extension DumpParser {
    /// A parser of a dump file that runs its consumer on the calling thread, for the other modules of the
    /// package: for a pass whose consumer is cheap, such as a scan (``DumpConsumer/scans(_:)``), where
    /// ``ConcurrentDumpParser``'s hand-over would cost more than it saves.
    package init(
        dumpAt url: URL, maximumValueLength: Int = DBBExport.defaultMaximumValueLength,
        progress: ((DBBExportProgress) -> Void)? = nil
    ) {
        self.init(source: .file(url.path), progress: progress, maximumValueLength: maximumValueLength)
    }

    /// Reads the dump.
    ///
    /// - Parameter stopAfterSchema: stop once the header and schema are read (no rows are read, and
    ///   the gzip trailer is not checked).
    /// - Returns: what was read.
    /// - Throws: ``DBBExportError`` naming where the dump is damaged, or what the consumer throws.
    package func run(_ consumer: DumpConsumer?, stopAfterSchema: Bool = false) throws -> DBBDumpReport {
        let gzip = try source.openGzip()
        defer { gzip.close() }
        let reader = DumpJSONReader(path: source.path, maximumStringLength: maximumValueLength) {
            try gzip.nextChunk()
        }
        var report: DBBDumpReport
        do {
            report = try Self.read(reader, into: consumer, progress: progress, stopAfterSchema: stopAfterSchema)
        } catch {
            // Damaged deflate data inflates to garbage before zlib reaches the member's CRC-32: the JSON
            // reader, or a consumer, fails first. Checking the rest of the member names the real damage.
            if let damage = gzip.damageInCurrentMember() { throw damage }
            throw error
        }
        report.compressedBytes = stopAfterSchema ? 0 : gzip.compressedBytes
        return report
    }

    /// Reads a dump's JSON text from a reader (the part of ``run(_:stopAfterSchema:)`` after the gzip
    /// layer; the fuzz target under `Tests/Fuzz` calls it with raw JSON).
    ///
    /// - Returns: what was read; `compressedBytes` is 0.
    /// - Throws: ``DBBExportError`` naming where the dump is damaged, or what the consumer throws.
    static func read(
        _ reader: DumpJSONReader, into consumer: DumpConsumer?, progress: ((DBBExportProgress) -> Void)?,
        stopAfterSchema: Bool = false
    ) throws -> DBBDumpReport {
        if let consumer { reader.onLongString = { try consumer.willReadLongValue() } }
        defer { reader.onLongString = nil }
        var session = Session(reader: reader, consumer: consumer, progress: progress)
        try session.readDocument(stopAfterSchema: stopAfterSchema)
        guard let header = session.header else {
            throw reader.error(.malformed, "the dump has no header")
        }
        return DBBDumpReport(
            header: header, schema: session.schema ?? [], tables: session.tables, jsonBytes: reader.offset,
            compressedBytes: 0)
    }

    private struct Session {
        let reader: DumpJSONReader
        let consumer: DumpConsumer?
        var progress: ProgressCounter
        var header: DBBDumpHeader?
        var schema: [DBBSchemaObject]?
        var tables: [DBBDumpTable] = []
        var began = false

        init(reader: DumpJSONReader, consumer: DumpConsumer?, progress: ((DBBExportProgress) -> Void)?) {
            self.reader = reader
            self.consumer = consumer
            self.progress = ProgressCounter(progress)
        }

        private func malformed(_ message: String, at offset: Int64? = nil) -> DBBExportError {
            reader.error(.malformed, message, at: offset)
        }

        mutating func readDocument(stopAfterSchema: Bool) throws {
            // The format name comes first, so any other JSON (or a non-JSON text) is rejected at once.
            guard try reader.peek() == UInt8(ascii: "{") else {
                if try reader.peek() == nil { throw reader.error(.truncated, "the dump holds no JSON text") }
                throw reader.error(.notADump, "the file is not a dump: its JSON text is not an object")
            }
            try reader.expect(UInt8(ascii: "{"), "'{'")
            let firstKeyOffset = reader.offset
            guard try reader.peek() == UInt8(ascii: "\""), try reader.readKey() == "format" else {
                throw reader.error(
                    .notADump, "the file is not a dump: its first member is not \"format\"", at: firstKeyOffset)
            }
            let format = try reader.readValue()
            guard format == .string(DBBExport.formatName) else {
                throw reader.error(.notADump, "the file is not a dump: its format is not \"\(DBBExport.formatName)\"")
            }
            var version: Int?
            var sawTables = false
            while try reader.nextObjectMember() {
                let keyOffset = reader.offset
                let key = try reader.readKey()
                switch key {
                case "version":
                    guard case .integer(let number) = try reader.readValue(), number >= 1 else {
                        throw malformed("the format version must be a positive integer", at: keyOffset)
                    }
                    guard number <= DBBExport.formatVersion else {
                        throw reader.error(
                            .unsupportedVersion,
                            "the dump is format version \(number); this library reads versions up to "
                                + "\(DBBExport.formatVersion)", at: keyOffset)
                    }
                    version = Int(number)
                case "header":
                    guard let version else {
                        throw malformed("the header comes before the format version", at: keyOffset)
                    }
                    header = try DBBDumpHeader(json: try reader.readValue(), formatVersion: version) {
                        malformed($0, at: keyOffset)
                    }
                    if stopAfterSchema, schema != nil { return }
                case "schema":
                    guard case .array(let objects) = try reader.readValue() else {
                        throw malformed("the schema must be an array", at: keyOffset)
                    }
                    schema = try objects.map { try DBBSchemaObject(json: $0) { malformed($0, at: keyOffset) } }
                    if stopAfterSchema, header != nil { return }
                case "tables":
                    guard header != nil, schema != nil else {
                        throw malformed("the tables come before the header and the schema", at: keyOffset)
                    }
                    try beginIfNeeded()
                    try readTables()
                    sawTables = true
                default:
                    try reader.skipValue()  // a member a later version may add
                }
            }
            guard version != nil else { throw malformed("the dump has no format version") }
            guard header != nil else { throw malformed("the dump has no header") }
            guard schema != nil else { throw malformed("the dump has no schema") }
            if !sawTables { try beginIfNeeded() }
            // Reading to the end also makes the gzip reader check the CRC-32 and length of the stream.
            try reader.expectEnd()
            let expected = header?.tables ?? []
            if tables.count < expected.count {
                throw reader.error(
                    .malformed, "the header lists table \(expected[tables.count].name), which the dump does not hold")
            }
        }

        private mutating func beginIfNeeded() throws {
            guard !began, let header, let schema else { return }
            began = true
            try consumer?.begin(header: header, schema: schema)
            progress.begin(tableCount: header.tables.count, rowCount: header.totalRows)
        }

        private mutating func readTables() throws {
            try reader.expect(UInt8(ascii: "["), "the array of tables")
            if try reader.consume(UInt8(ascii: "]")) { return }
            repeat {
                try readTable()
            } while try reader.nextArrayElement()
        }

        private mutating func readTable() throws {
            let start = reader.offset
            try reader.expect(UInt8(ascii: "{"), "a table object")
            var name: String?
            var columns: [String]?
            var hasRowID: Bool?
            var rowCount: Int?
            var sawRows = false
            var table = DBBDumpTable(name: "")
            if try reader.consume(UInt8(ascii: "}")) { throw malformed("a table object is empty", at: start) }
            repeat {
                let keyOffset = reader.offset
                let key = try reader.readKey()
                switch key {
                case "name":
                    guard case .string(let value) = try reader.readValue() else {
                        throw malformed("a table's name must be a string", at: keyOffset)
                    }
                    name = value
                case "columns":
                    guard case .array(let values) = try reader.readValue() else {
                        throw malformed("a table's columns must be an array of strings", at: keyOffset)
                    }
                    columns = try values.map {
                        guard case .string(let column) = $0 else {
                            throw malformed("a table's columns must be an array of strings", at: keyOffset)
                        }
                        return column
                    }
                case "rowid":
                    guard case .bool(let value) = try reader.readValue() else {
                        throw malformed("a table's rowid member must be true or false", at: keyOffset)
                    }
                    hasRowID = value
                case "rowCount":
                    guard case .integer(let value) = try reader.readValue(), value >= 0, let count = Int(exactly: value)
                    else {
                        throw malformed("a table's rowCount must be a non-negative integer", at: keyOffset)
                    }
                    rowCount = count
                case "rows":
                    guard let name, let columns, let hasRowID, let rowCount else {
                        throw malformed(
                            "a table's \"rows\" must come after its \"name\", \"columns\", \"rowid\" and \"rowCount\"",
                            at: keyOffset)
                    }
                    table = DBBDumpTable(name: name, columns: columns, hasRowID: hasRowID, rowCount: rowCount)
                    try checkTable(table, at: start)
                    try readRows(of: table)
                    sawRows = true
                default:
                    try reader.skipValue()
                }
            } while try reader.nextObjectMember()
            guard sawRows else { throw malformed("a table object has no \"rows\"", at: start) }
        }

        private mutating func checkTable(_ table: DBBDumpTable, at offset: Int64) throws {
            let expected = header?.tables ?? []
            guard tables.count < expected.count, expected[tables.count].name == table.name else {
                throw DBBExportError(
                    .malformed, "the table section is not the next one the header lists", path: reader.path,
                    byteOffset: offset, table: table.name)
            }
            guard expected[tables.count].rowCount == table.rowCount else {
                throw DBBExportError(
                    .malformed, "the table's rowCount differs from the header's", path: reader.path,
                    byteOffset: offset, table: table.name)
            }
            guard schema?.contains(where: { $0.type == "table" && $0.name == table.name && !$0.isVirtualTable }) == true
            else {
                throw DBBExportError(
                    .malformed, "the schema defines no table of this name", path: reader.path, byteOffset: offset,
                    table: table.name)
            }
            guard !table.columns.isEmpty else {
                throw DBBExportError(
                    .malformed, "the table has no columns", path: reader.path, byteOffset: offset, table: table.name)
            }
        }

        private mutating func readRows(of table: DBBDumpTable) throws {
            progress.beginTable(table.name)
            try consumer?.beginTable(table)
            let width = table.columns.count + (table.hasRowID ? 1 : 0)
            var rows = DumpRows(reader: reader, table: table, progress: progress)
            do {
                try Self.readRows(&rows, width: width, into: consumer)
                guard rows.number == table.rowCount else {
                    throw malformed("the table holds \(rows.number) rows but its rowCount says \(table.rowCount)")
                }
            } catch let error as DBBExportError {
                // Where the JSON reader stood says nothing about damage to the compressed bytes.
                if error.isCompressionDamage { throw error }
                let number = rows.number
                throw error.locating(table: table.name, row: number > 0 && number <= table.rowCount ? number : nil)
            }
            progress = rows.progress
            try consumer?.endTable(table)
            progress.endTable()
            tables.append(table)
        }

        /// Reads a table's rows to its end, as the consumer takes them: scanned, read by the consumer itself
        /// (``DumpConsumer/writesRows(of:)``), or read whole. Static: a closure reading a property of the
        /// session would capture the whole session, copied (and every reference in it retained and released)
        /// for each row.
        private static func readRows(_ rows: inout DumpRows, width: Int, into consumer: DumpConsumer?) throws {
            let table = rows.table
            if let consumer, consumer.scans(table) {
                var scanned: [ScannedValue] = []
                scanned.reserveCapacity(width)
                while try rows.next(into: &scanned) {
                    try consumer.scannedRow(scanned, number: rows.number, of: table)
                }
            } else if let consumer, consumer.writesRows(of: table) {
                try consumer.writeRows(of: table, from: &rows)
            } else {
                var values: [DBBValue] = []
                values.reserveCapacity(width)
                var rawText: [Int] = []
                while try rows.next(into: &values, rawText: &rawText) {
                    try consumer?.row(values[...], rawText: rawText, number: rows.number, of: table)
                }
            }
            try rows.readRest()
        }
    }
}
