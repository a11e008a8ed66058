import DBBExport
import DBBSQL
import Foundation
import Testing

/// A flipped byte in the compressed data is reported as gzip damage, with its offset in the file, by every
/// reader: never as the JSON or row errors that the garbage it inflates to would cause.
@Suite("Gzip damage")
struct GzipDamageTests {
    /// The problems a gzip error names.
    static let gzipProblems = ["CRC-32 mismatch", "length mismatch", "invalid deflate data", "damaged gzip header"]

    /// The error a call throws, if it is a ``DBBExportError``.
    static func error(_ body: () throws -> Any?) -> DBBExportError? {
        do {
            _ = try body()
        } catch {
            return error as? DBBExportError
        }
        return nil
    }

    /// Checks an error is gzip damage, named as such, located in the compressed file and nowhere else.
    static func expectGzipDamage(
        _ error: DBBExportError?, flippedAt offset: Int, sourceLocation: SourceLocation = #_sourceLocation
    ) {
        guard let error else {
            Issue.record("no error for the byte flipped at \(offset)", sourceLocation: sourceLocation)
            return
        }
        #expect(error.kind == .corruptCompression, "offset \(offset): \(error)", sourceLocation: sourceLocation)
        #expect(
            gzipProblems.contains { error.message.contains($0) }, "offset \(offset): \(error)",
            sourceLocation: sourceLocation)
        // Found at or after the damage (a trailer check points at the start of its 4-byte field), and never
        // placed in the JSON text, a table or a row.
        #expect(
            (error.compressedOffset ?? -1) >= Int64(offset - 3), "offset \(offset): \(error)",
            sourceLocation: sourceLocation)
        #expect(
            error.byteOffset == nil && error.table == nil && error.row == nil, "offset \(offset): \(error)",
            sourceLocation: sourceLocation)
    }

    @Test("a flipped byte at a dozen offsets fails restore, verify and compare as gzip damage")
    func flippedBytes() throws {
        let folder = try TemporaryFolder()
        let good = try BadInputTests.chinookDump(in: folder)
        let original = try copyOfFixture("chinook.sqlite", into: folder)
        let dump = folder.file("flipped.json.gz")
        let count = good.count
        // The header's flags, the deflate data from its first block to its last bytes, the trailer's CRC-32 and
        // length. (Bytes 4–9, the time stamp and OS, are not checked by any gzip reader.)
        let offsets = [
            3, 10, 12, 100, 1000, count / 8, count / 4, count / 2, count * 3 / 4, count - 40, count - 8, count - 3,
        ]
        for offset in offsets {
            var damaged = good
            damaged[offset] ^= 0x55
            try damaged.write(to: dump)
            let restored = try BadInputTests.expectFailure(dump, in: folder, kind: .corruptCompression)
            Self.expectGzipDamage(restored, flippedAt: offset)
            Self.expectGzipDamage(Self.error { try DBBExport.verify(dumpAt: dump) }, flippedAt: offset)
            // Compared with the database it came from, the garbage differs: the damage must still win.
            Self.expectGzipDamage(
                Self.error { try DBBExport.compare(dumpAt: dump, withDatabaseAt: original) }, flippedAt: offset)
        }
        var trailer = good
        trailer[count - 8] ^= 0x01
        try trailer.write(to: dump)
        let crc = Self.error { try DBBExport.verify(dumpAt: dump) }
        #expect(crc?.message.contains("CRC-32 mismatch") == true)
        #expect(crc?.compressedOffset == Int64(count - 8))
    }
}
