package import DBBSQL
internal import Foundation

/// Takes a dump's row values as its reader holds them (``DumpRows/next(into:)``): text and bytes are passed
/// where they lie, for the length of the call, so that a consumer that turns them into bytes of its own (a
/// restore's `COPY` rows) makes no `String` or `Data` for each value.
package protocol DumpValueWriter {
    /// Called before the first value of each row.
    mutating func beginRow()
    /// NULL, or a real that is NaN (SQLite stores it as NULL).
    mutating func writeNull()
    mutating func writeInteger(_ value: Int64)
    /// A real that is not NaN.
    mutating func writeReal(_ value: Double)
    /// Text, valid UTF-8.
    ///
    /// - Parameters:
    ///   - utf8: its bytes, valid only during the call.
    ///   - hasNUL: whether they hold NUL (which only an escape writes).
    mutating func writeText(_ utf8: UnsafeRawBufferPointer, hasNUL: Bool)
    /// A BLOB, or TEXT that is not valid UTF-8 given as its bytes.
    ///
    /// - Parameters:
    ///   - bytes: the bytes, valid only during the call.
    ///   - isRawText: whether they are TEXT that is not valid UTF-8 (`{"text": base64}`).
    mutating func writeBytes(_ bytes: UnsafeRawBufferPointer, isRawText: Bool)
}

extension DumpValueWriter {
    /// Writes a value read whole, as the reader hands it over: for a consumer of values (a parser that does not
    /// call ``DumpConsumer/writeRows(of:from:)``).
    ///
    /// - Parameter isRawText: whether a BLOB is TEXT that is not valid UTF-8, given as its bytes.
    package mutating func write(_ value: DBBValue, isRawText: Bool) {
        switch value {
        case .null:
            writeNull()
        case .integer(let number):
            writeInteger(number)
        case .real(let number):
            if number.isNaN { writeNull() } else { writeReal(number) }
        case .text(var text):
            text.withUTF8 { writeText(UnsafeRawBufferPointer($0), hasNUL: $0.contains(0)) }
        case .blob(let bytes):
            bytes.withUnsafeBytes { writeBytes($0, isRawText: isRawText) }
        }
    }
}

/// The rows of one table section, which a consumer reads itself (``DumpConsumer/writeRows(of:from:)``), each
/// checked as ``DumpParser`` checks every row: its JSON, its values' shapes, its width, and that a stored rowid
/// is an integer.
package struct DumpRows {
    private let reader: DumpJSONReader
    /// The table the rows belong to.
    package let table: DBBDumpTable
    private let width: Int
    var progress: ProgressCounter
    /// The number of the row read last, from 1; 0 before the first.
    package private(set) var number = 0
    private var position = Position.beforeArray

    private enum Position {
        case beforeArray, afterRow, atEnd
        /// A row was damaged, with this error: the reader stands inside it.
        case failed(any Error)
    }

    init(reader: DumpJSONReader, table: DBBDumpTable, progress: ProgressCounter) {
        self.reader = reader
        self.table = table
        self.width = table.columns.count + (table.hasRowID ? 1 : 0)
        self.progress = progress
    }

    /// Reads the next row, handing its values to `writer` in order: the rowid's first when the table stores
    /// it, then each column's.
    ///
    /// - Returns: `false`, having called nothing, when the table has no more rows.
    /// - Throws: ``DBBExportError`` (malformed, truncated) where the row is damaged; the writer may have taken
    ///   some of its values.
    package mutating func next<Writer: DumpValueWriter>(into writer: inout Writer) throws -> Bool {
        let reader = self.reader
        return try nextRow {
            writer.beginRow()
        } value: {
            try reader.readRowValue(into: &writer)
        }
    }

    /// Reads the next row's values whole, for a consumer of values (``DumpConsumer/row(_:rawText:number:of:)``).
    ///
    /// - Parameter rawText: set to the positions of TEXT that is not valid UTF-8, given as its bytes.
    /// - Returns: `false` when the table has no more rows.
    mutating func next(into values: inout [DBBValue], rawText: inout [Int]) throws -> Bool {
        let reader = self.reader
        return try nextRow {
            values.removeAll(keepingCapacity: true)
            rawText.removeAll(keepingCapacity: true)
        } value: {
            let value = try reader.readRowValue()
            if reader.lastValueWasRawText {
                reader.lastValueWasRawText = false
                rawText.append(values.count)
            }
            values.append(value)
            if case .integer = value { return true } else { return false }
        }
    }

    /// Reads the next row's scans of its values, for a consumer that scans (``DumpConsumer/scans(_:)``).
    ///
    /// - Returns: `false` when the table has no more rows.
    mutating func next(into scanned: inout [ScannedValue]) throws -> Bool {
        let reader = self.reader
        return try nextRow {
            scanned.removeAll(keepingCapacity: true)
        } value: {
            let value = try reader.scanRowValue()
            scanned.append(value)
            return value.kind == .integer
        }
    }

    /// Moves to the next row and reads it, through `beginRow` and one `value` call per value (which says
    /// whether the value is an integer).
    ///
    /// - Returns: `false`, having called nothing, when the table has no more rows.
    @inline(__always)
    private mutating func nextRow(beginRow: () -> Void, value: () throws -> Bool) throws -> Bool {
        switch position {
        case .atEnd:
            return false
        case .beforeArray:
            try reader.expect(UInt8(ascii: "["), "the array of rows")
            if try reader.consume(UInt8(ascii: "]")) {
                position = .atEnd
                return false
            }
        case .afterRow:
            guard try reader.nextArrayElement() else {
                position = .atEnd
                return false
            }
        case .failed(let error):
            throw error
        }
        number += 1
        do {
            try readRow(beginRow: beginRow, value: value)
        } catch {
            position = .failed(error)
            throw error
        }
        position = .afterRow
        progress.add(rows: 1)
        return true
    }

    /// Reads a row's values, checking its width and that a stored rowid is an integer (raw text, given as a
    /// BLOB, is not).
    @inline(__always)
    private func readRow(beginRow: () -> Void, value: () throws -> Bool) throws {
        let rowOffset = reader.offset
        try reader.expect(UInt8(ascii: "["), "a row (an array of values)")
        beginRow()
        var count = 0
        var rowIDIsInteger = true
        if try !reader.consume(UInt8(ascii: "]")) {
            repeat {
                // Checked before each value, so a row of a billion values fails at the first extra one.
                guard count < width else {
                    throw reader.error(.malformed, "the row has more than the \(width) values expected", at: rowOffset)
                }
                let isInteger = try value()
                if count == 0 { rowIDIsInteger = isInteger }
                count += 1
            } while try reader.nextArrayElement()
        }
        guard count == width else {
            throw reader.error(.malformed, "the row has \(count) values where \(width) are expected", at: rowOffset)
        }
        if table.hasRowID, !rowIDIsInteger {
            throw DBBExportError(
                .malformed, "the rowid must be an integer", path: reader.path, byteOffset: rowOffset, column: "rowid")
        }
    }

    /// Reads the rows the consumer left, checking them as it would have.
    mutating func readRest() throws {
        var discarding = DiscardingWriter()
        while try next(into: &discarding) {}
    }
}

/// Takes values and keeps nothing.
private struct DiscardingWriter: DumpValueWriter {
    func beginRow() {}
    func writeNull() {}
    func writeInteger(_ value: Int64) {}
    func writeReal(_ value: Double) {}
    func writeText(_ utf8: UnsafeRawBufferPointer, hasNUL: Bool) {}
    func writeBytes(_ bytes: UnsafeRawBufferPointer, isRawText: Bool) {}
}
