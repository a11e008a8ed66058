// libFuzzer entry point for the dump reader. It is compiled together with DBBExport's sources (so it
// reaches the internal reader) by Scripts/fuzz-dump-reader.sh; it is not part of the package's targets.
//
// Each input is the JSON text of a dump (the layer inside the gzip stream, whose CRC would stop almost
// every mutation). The text is handed to the reader in chunks of varying size, to exercise values that
// span chunks, and what it reads goes to the checking consumer `verify` uses, which builds the schema and
// loads the rows in a private temporary database. Any error is fine; a crash, a trap, a hang or a leak is a
// finding.
//
// The input is then read twice more: by a consumer of values (`row`), and by one that reads the rows itself
// (`writeRows`, as the load of a restore into PostgreSQL does). Both must see the same values, or the same
// error; a difference traps.

import DBBSQL
import Foundation

/// A reader of the input in chunks whose size the input's length picks, 1 to 251 bytes.
private func reader(of bytes: [UInt8]) -> DumpJSONReader {
    let chunkSize = bytes.count % 251 + 1
    var position = 0
    return DumpJSONReader(path: nil, maximumStringLength: 1 << 20) {
        guard position < bytes.count else { return nil }
        let end = min(position + chunkSize, bytes.count)
        defer { position = end }
        return Array(bytes[position..<end])
    }
}

/// Each row's values, exactly, as a consumer of values or one that reads the rows itself is handed them.
private final class Values: DumpConsumer, DumpValueWriter {
    let writes: Bool
    var rows: [[String]] = []
    private var row: [String] = []

    init(writes: Bool) { self.writes = writes }

    func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws {}
    func beginTable(_ table: DBBDumpTable) throws {}
    func endTable(_ table: DBBDumpTable) throws {}
    func writesRows(of table: DBBDumpTable) -> Bool { writes }

    func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {
        var writer = self
        writer.beginRow()
        for (position, value) in zip(0..., values) { writer.write(value, isRawText: rawText.contains(position)) }
        rows.append(row)
    }

    func writeRows(of table: DBBDumpTable, from rows: inout DumpRows) throws {
        var writer = self
        while try rows.next(into: &writer) { self.rows.append(row) }
    }

    func beginRow() { row = [] }
    func writeNull() { row.append("null") }
    func writeInteger(_ value: Int64) { row.append("integer \(value)") }
    func writeReal(_ value: Double) { row.append("real \(value.bitPattern)") }
    func writeText(_ utf8: UnsafeRawBufferPointer, hasNUL: Bool) {
        row.append("text \(Array(utf8)) \(hasNUL) \(utf8.contains(0))")
    }
    func writeBytes(_ bytes: UnsafeRawBufferPointer, isRawText: Bool) {
        row.append("bytes \(Array(bytes)) \(isRawText)")
    }
}

/// The rows a consumer saw, or the error the read ended with.
private func outcome(of bytes: [UInt8], writes: Bool) -> String {
    let values = Values(writes: writes)
    do {
        _ = try DumpParser.read(reader(of: bytes), into: values, progress: nil)
        return "\(values.rows)"
    } catch {
        return "\(error)"
    }
}

@_cdecl("LLVMFuzzerTestOneInput")
public func dumpReaderFuzzTest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    guard let checker = try? RestoreConsumer.checking() else { return 0 }
    do {
        _ = try DumpParser.read(reader(of: bytes), into: checker, progress: nil)
        try checker.finish()
    } catch {
        // Refusing the input is the expected outcome for almost every mutation.
    }
    let read = outcome(of: bytes, writes: false)
    let written = outcome(of: bytes, writes: true)
    if read != written { fatalError("the rows read differ from the rows written:\n\(read)\n\(written)") }
    return 0
}
