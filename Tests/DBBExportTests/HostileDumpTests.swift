import DBBExport
import DBBSQL
import Foundation
import Testing

/// The regression corpus of crafted dumps (`Tests/Corpus/HostileDumps`): each one is refused by restore
/// and by verify with a clear error, and a restore over an existing database leaves it byte for byte as
/// it was, with no file added beside it.
@Suite("Hostile dumps")
struct HostileDumpTests {
    static let corpus = repositoryRoot.appendingPathComponent("Tests/Corpus/HostileDumps")

    static let names: [String] = {
        ((try? FileManager.default.contentsOfDirectory(atPath: corpus.path)) ?? [])
            .filter { $0.hasSuffix(".json.gz") }.sorted()
    }()

    @Test("the corpus is there") func corpusIsThere() {
        #expect(Self.names.count >= 17)
    }

    @Test("a hostile dump is refused with a clear error and leaves the target untouched", arguments: names)
    func refused(name: String) throws {
        let folder = try TemporaryFolder()
        let dump = folder.file(name)
        try FileManager.default.copyItem(at: Self.corpus.appendingPathComponent(name), to: dump)
        let target = folder.file("target.sqlite")
        let db = try DBBDatabase(path: target.path)
        try db.executeStatements("CREATE TABLE keep (x); INSERT INTO keep VALUES ('kept')")
        try db.close()
        let before = try Data(contentsOf: target)
        let contents = try folder.contents()
        var restoreError: (any Error)?
        do {
            try DBBExport.restore(dumpAt: dump, to: target, options: DBBRestoreOptions(replaceExisting: true))
        } catch {
            restoreError = error
        }
        let message = restoreError.map { String(describing: $0) } ?? ""
        #expect(restoreError is DBBExportError || restoreError is DBBError, "\(name): \(message)")
        #expect(message.count > 20, "\(name): a clear error")
        #expect(try Data(contentsOf: target) == before, "\(name): the target changed")
        #expect(try folder.contents() == contents, "\(name): files changed beside the target")
        #expect(!FileManager.default.fileExists(atPath: "attached.sqlite"))
        // verify refuses what restore refuses.
        #expect(throws: (any Error).self, "\(name): verify passed it") { try DBBExport.verify(dumpAt: dump) }
        // inspect reads the header and schema only: it may pass or fail, but must not crash.
        _ = try? DBBExport.inspect(dumpAt: dump)
        #expect(try sqlite3Shell(target, "SELECT x FROM keep") == "kept")
    }

    @Test("crafted row counts that overflow are refused by inspect, verify and restore alike")
    func overflowingRowCounts() throws {
        let dump = Self.corpus.appendingPathComponent("rowcount-overflow.json.gz")
        for read in [{ _ = try DBBExport.inspect(dumpAt: dump) }, { _ = try DBBExport.verify(dumpAt: dump) }] {
            #expect {
                try read()
            } throws: { error in
                (error as? DBBExportError)?.message.contains("add up to more than") == true
            }
        }
    }

    @Test("a schema SQL that is not a CREATE statement fails verify as it fails restore")
    func verifyMatchesRestore() throws {
        let dump = Self.corpus.appendingPathComponent("not-create.json.gz")
        #expect {
            try DBBExport.verify(dumpAt: dump)
        } throws: { error in
            (error as? DBBExportError)?.message.contains("view w") == true
        }
    }

    @Test("a temporary trigger in a table entry never runs on the restored rows")
    func tamperingTrigger() throws {
        let folder = try TemporaryFolder()
        let dump = Self.corpus.appendingPathComponent("temp-trigger-as-table.json.gz")
        let target = folder.file("new.sqlite")
        #expect {
            try DBBExport.restore(dumpAt: dump, to: target)
        } throws: { error in
            (error as? DBBExportError)?.message.contains("CREATE TEMP TRIGGER") == true
        }
        #expect(try folder.contents() == [])
    }

    @Test("one string of 1 GiB in a 1 MB gzip fails at the limit on one value, in bounded memory")
    func hugeString() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("huge.json.gz")
        // 1 GiB of 'a' inside a row: 1,024 gzip members of 1 MiB each (a gzip file may hold several
        // members; the reader joins them), so the file is made without compressing a gibibyte.
        let prefix =
            #"{"format":"dbb-dump","version":1,"header":{"tables":[{"name":"t","rowCount":1}]},"#
            + #""schema":[{"type":"table","name":"t","tbl_name":"t","sql":"CREATE TABLE t (v)"}],"#
            + #""tables":[{"name":"t","columns":["v"],"rowid":false,"rowCount":1,"rows":[[""#
        let block = try gzip(Data(repeating: UInt8(ascii: "a"), count: 1 << 20))
        var file = try gzip(Data(prefix.utf8))
        for _ in 0..<1024 { file.append(block) }
        file.append(try gzip(Data(#""]]}]}"#.utf8)))
        try file.write(to: dump)
        #expect(file.count < 2 * 1_048_576)
        let verified = try runMeasuringPeakMemory(BackupToolTests.tool, ["verify", "-q", dump.path])
        #expect(verified.status == 65)  // a value over the limit
        // The string is refused once it passes the limit on one value (64 MiB by default), before it is
        // held: memory stays near that, instead of growing with the string.
        #expect(verified.peakKiB < 128 * 1024, "peak \(verified.peakKiB) KiB")
    }
}
