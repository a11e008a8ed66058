import DBBExport
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// Text written straight from its bytes (a dump of PostgreSQL writes a server's text so) is held to the value
/// limit by the length it is written with: a byte that is not UTF-8 is written as U+FFFD, three bytes.
@Suite("Writing text from its bytes")
struct DumpRowEncoderTests {
    /// Writes one row of one text value, given as bytes, into a dump whose value limit is `limit` bytes.
    static func write(_ bytes: [UInt8], limit: Int, in folder: TemporaryFolder) throws {
        var options = DBBDumpOptions()
        options.maximumValueLength = limit
        let url = folder.file("text-\(bytes.count)-\(limit).json.gz")
        let writer = try DumpWriter(to: url, options: options, progress: nil)
        do {
            let table = DBBDumpTable(name: "t", columns: ["a"], rowCount: 1)
            try writer.begin(
                header: DBBDumpHeader(
                    sqliteVersion: DBBDatabase.sqliteVersion, created: "2026-11-29T00:00:00Z",
                    tables: [table]),
                schema: [])
            try writer.beginTable(table)
            try writer.rows { encoder in
                try encoder.beginRow()
                try bytes.withUnsafeBytes { try encoder.text(utf8: $0) }
                try encoder.endRow()
            }
            try writer.endTable()
            _ = try writer.finish()
        } catch {
            writer.abandon()
            throw error
        }
    }

    @Test("bytes within the limit whose U+FFFD replacements pass it are refused; valid text up to it is written")
    func replacedBytesCountAsWritten() throws {
        let folder = try TemporaryFolder()
        // 12 bytes, 10 of them not UTF-8: written as 10 × 3 + 2 = 32 bytes, over a limit of 30.
        let invalid = [UInt8](repeating: 0xFF, count: 10) + Array("ab".utf8)
        let error = #expect(throws: DBBExportError.self) { try Self.write(invalid, limit: 30, in: folder) }
        #expect(error?.kind == .valueTooLong, "\(String(describing: error))")
        #expect(error?.message.contains("32 bytes") == true, "\(String(describing: error))")
        // The same bytes under a limit their written form fits, and 30 bytes of valid text at a limit of 30.
        try Self.write(invalid, limit: 32, in: folder)
        try Self.write(Array(String(repeating: "é", count: 15).utf8), limit: 30, in: folder)
    }
}
