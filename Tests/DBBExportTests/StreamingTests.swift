import DBBExport
import DBBSQL
import Foundation
import Testing

@Suite("Streaming")
struct StreamingTests {
    /// Makes a database of `rows` rows of about 200 bytes of JSON each, with SQL alone.
    static func makeDatabase(at url: URL, rows: Int) throws {
        let db = try DBBDatabase(path: url.path)
        try db.executeStatements(
            """
            CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, v REAL, b BLOB, n INTEGER);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows))
            INSERT INTO t SELECT x, printf('name %d %s', x, hex(randomblob(40))), x * 0.5, randomblob(40), x * 1000003
            FROM c;
            """)
        try db.close()
    }

    @Test("dump and restore hold memory flat as the database grows fivefold")
    func flatMemory() throws {
        let folder = try TemporaryFolder()
        var peaks: [(dump: Int, restore: Int)] = []
        var dumpSizes: [Int64] = []
        for rows in [20_000, 100_000] {
            let source = folder.file("s\(rows).sqlite")
            try Self.makeDatabase(at: source, rows: rows)
            let dump = folder.file("s\(rows).json.gz")
            let dumped = try runMeasuringPeakMemory(BackupToolTests.tool, ["dump", "-q", source.path, dump.path])
            #expect(dumped.status == 0)
            let restored = try runMeasuringPeakMemory(
                BackupToolTests.tool, ["restore", "-q", dump.path, folder.file("r\(rows).sqlite").path])
            #expect(restored.status == 0)
            peaks.append((dumped.peakKiB, restored.peakKiB))
            dumpSizes.append(try DBBExport.verify(dumpAt: dump).jsonBytes)
        }
        // The JSON text grows by about 15 MiB; the processes' peak memory must not follow it.
        #expect(dumpSizes[1] - dumpSizes[0] > 14 * 1_048_576)
        #expect(peaks[1].dump - peaks[0].dump < 6 * 1024, "dump peaks \(peaks)")
        #expect(peaks[1].restore - peaks[0].restore < 6 * 1024, "restore peaks \(peaks)")
        #expect(peaks.allSatisfy { $0.dump > 4 * 1024 && $0.restore > 4 * 1024 }, "the measurement works: \(peaks)")
        #expect(peaks.allSatisfy { $0.dump < 64 * 1024 && $0.restore < 64 * 1024 }, "\(peaks)")
    }
}
