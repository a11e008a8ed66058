import DBBExport
import DBBSQL
import Foundation
import Testing

/// Memory is bounded by the limit on one value (``DBBExport/defaultMaximumValueLength``, 64 MiB), not by
/// SQLite's: a longer value is refused while it streams in, and values at the limit are dumped, verified and
/// restored by `dbb-backup` in under 256 MiB.
@Suite("Memory bound")
struct MemoryBoundTests {
    /// The documented peak of a dump, restore or verify with the default limit.
    static let peakLimitKiB = 256 * 1024

    /// A dump of one table `t (v)` holding one string of `mebibytes` MiB of 'a', about 1 KiB of gzip per
    /// MiB: each MiB is a gzip member of its own (a gzip file may hold several; readers join them).
    static func dumpOfOneString(mebibytes: Int, at url: URL) throws {
        let prefix =
            #"{"format":"dbb-dump","version":1,"header":{"tables":[{"name":"t","rowCount":1}]},"#
            + #""schema":[{"type":"table","name":"t","tbl_name":"t","sql":"CREATE TABLE t (v)"}],"#
            + #""tables":[{"name":"t","columns":["v"],"rowid":false,"rowCount":1,"rows":[[""#
        let block = try gzip(Data(repeating: UInt8(ascii: "a"), count: 1 << 20))
        var file = try gzip(Data(prefix.utf8))
        for _ in 0..<mebibytes { file.append(block) }
        file.append(try gzip(Data(#""]]}]}"#.utf8)))
        try file.write(to: url)
    }

    @Test("a 990 MB string in a 1 MB dump is refused by verify and restore before it is held")
    func giantString() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("giant.json.gz")
        try Self.dumpOfOneString(mebibytes: 944, at: dump)  // 990 MB, just under SQLite's limit
        #expect(try Data(contentsOf: dump).count < 1_100_000)
        let target = folder.file("target.sqlite")
        for arguments in [["verify", "-q", dump.path], ["restore", "-q", dump.path, target.path]] {
            let run = try runMeasuringPeakMemory(BackupToolTests.tool, arguments)
            #expect(run.status == 65, "\(arguments[0])")
            #expect(run.peakKiB < 128 * 1024, "\(arguments[0]): peak \(run.peakKiB) KiB")
            print("\(arguments[0]) of a 990 MB string: exit \(run.status), peak \(run.peakKiB / 1024) MiB")
        }
        #expect(!FileManager.default.fileExists(atPath: target.path))
        let message = try ToolProcess.run("dbb-backup", ["verify", "-q", dump.path]).standardError
        #expect(message.contains("longer than 67108864 bytes"), "\(message)")
        #expect(message.contains("--max-value-size"), "\(message)")
        #expect {
            try DBBExport.verify(dumpAt: dump)
        } throws: { ($0 as? DBBExportError)?.kind == .valueTooLong }
    }

    @Test("a 400 MB string in the source is refused by dump before it is read, naming its row and column")
    func giantSourceString() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("giant.sqlite")
        let db = try DBBDatabase(path: source.path)
        try db.executeStatements(
            """
            CREATE TABLE t (a, b, c);
            INSERT INTO t VALUES (1, 'x', 'y');
            INSERT INTO t VALUES (2, printf('%.*c', 400 * 1048576, 'x'), 'z');
            """)
        try db.close()
        let dump = folder.file("giant.json.gz")
        let run = try runMeasuringPeakMemory(BackupToolTests.tool, ["dump", "-q", source.path, dump.path])
        #expect(run.status == 65)
        #expect(run.peakKiB < 128 * 1024, "peak \(run.peakKiB) KiB")
        print("dump of a 400 MB string: exit \(run.status), peak \(run.peakKiB / 1024) MiB")
        let message = try ToolProcess.run("dbb-backup", ["dump", "-q", source.path, dump.path]).standardError
        #expect(message.contains("longer than the 67108864-byte limit"), "\(message)")
        #expect(message.contains("table t, row 2, column b"), "\(message)")
        #expect(try folder.contents() == ["giant.sqlite"])
        // The limit was the dump's alone: the connection reads the string again once the dump has failed.
        let reopened = try DBBDatabase(path: source.path)
        #expect(throws: DBBExportError.self) { try DBBExport.dump(reopened, to: dump) }
        #expect(try reopened.fetchValue(Int.self, "SELECT length(b) FROM t WHERE a = 2") == 400 << 20)
    }

    @Test("values at the limit are dumped, verified and restored in under 256 MiB, exactly")
    func valuesAtTheLimit() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("big.sqlite")
        let db = try DBBDatabase(path: source.path)
        // Values at the limit, and many of a few MiB after them that would crowd the channel between threads.
        try db.executeStatements(
            """
            CREATE TABLE t (id INTEGER PRIMARY KEY, v);
            INSERT INTO t VALUES (1, printf('%.*c', 64 * 1048576 - 5, 'x') || '"\\é' || char(1));
            INSERT INTO t VALUES (2, randomblob(64 * 1048576));
            WITH RECURSIVE c(x) AS (SELECT 3 UNION ALL SELECT x + 1 FROM c WHERE x < 40)
            INSERT INTO t SELECT x, randomblob(3 * 1048576) FROM c;
            """)
        #expect(try db.fetchValue(Int.self, "SELECT length(CAST(v AS BLOB)) FROM t WHERE id = 1") == 64 << 20)
        try db.close()
        let dump = folder.file("big.json.gz")
        let restored = folder.file("restored.sqlite")
        for arguments in [
            ["dump", "-q", source.path, dump.path], ["verify", "-q", dump.path],
            ["restore", "-q", dump.path, restored.path],
        ] {
            let run = try runMeasuringPeakMemory(BackupToolTests.tool, arguments)
            #expect(run.status == 0, "\(arguments[0])")
            #expect(run.peakKiB < Self.peakLimitKiB, "\(arguments[0]): peak \(run.peakKiB) KiB")
            print("\(arguments[0]) with 64 MiB values: peak \(run.peakKiB / 1024) MiB")
        }
        #expect(try SQLComparison.differences(original: source, restored: restored) == [])
    }

    @Test("a value over the limit is refused by dump, naming where it is, and a larger limit takes it")
    func limitIsConfigurable() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("s.sqlite")
        let db = try DBBDatabase(path: source.path)
        try db.executeStatements(
            "CREATE TABLE t (id INTEGER PRIMARY KEY, v); INSERT INTO t VALUES (1, 'small'), (2, zeroblob(2097152))")
        try db.close()
        let dump = folder.file("s.json.gz")
        let refused = try ToolProcess.run(
            "dbb-backup", ["dump", "-q", "--max-value-size", "1M", source.path, dump.path])
        #expect(refused.exitCode == 65)
        #expect(refused.standardError.contains("longer than the 1048576-byte limit"), "\(refused.standardError)")
        #expect(refused.standardError.contains("--max-value-size"), "\(refused.standardError)")
        #expect(refused.standardError.contains("table t, row 2, column v"), "\(refused.standardError)")
        #expect(try folder.contents() == ["s.sqlite"])
        #expect(try ToolProcess.run("dbb-backup", ["dump", "-q", source.path, dump.path]).exitCode == 0)
        let target = folder.file("r.sqlite")
        let small = try ToolProcess.run(
            "dbb-backup", ["restore", "-q", "--max-value-size", "1M", dump.path, target.path])
        #expect(small.exitCode == 65)
        #expect(small.standardError.contains("--max-value-size"), "\(small.standardError)")
        #expect(!FileManager.default.fileExists(atPath: target.path))
        var options = DBBRestoreOptions()
        options.maximumValueLength = 2 << 20
        try DBBExport.restore(dumpAt: dump, to: target, options: options)
        #expect(try SQLComparison.differences(original: source, restored: target) == [])
        #expect(
            try ToolProcess.run("dbb-backup", ["verify", "-q", "--max-value-size", "0", dump.path]).exitCode == 64)
    }
}
