import DBBExport
import DBBSQL
import Foundation
import Testing

/// Dumps and restores on a real filesystem that fills up (a tmpfs of 8 MiB), at many levels of free space:
/// each one either succeeds, giving exactly the dump, or fails and leaves every file on the disk byte for byte
/// as it was, with no file added. Needs root to mount the filesystem; skipped with the reason otherwise.
@Suite(
    "Full disk", .serialized,
    .disabled(if: SmallFilesystem.unavailableReason != nil, Comment(rawValue: SmallFilesystem.unavailableReason ?? "")))
struct FullDiskTests {
    /// What stands at the restore's target before it runs.
    enum Target: String, CaseIterable, CustomTestStringConvertible {
        /// No file: a restore into a new path.
        case none
        /// A database in rollback-journal mode.
        case rollbackJournal
        /// A database in WAL mode, of the dump's page size.
        case wal
        /// A database in WAL mode of another page size, which the restore builds the new database for.
        case walOfAnotherPageSize

        var testDescription: String { rawValue }
    }

    /// A source of about 1.5 MiB and its dump, in an ordinary temporary folder.
    static func sourceAndDump(in folder: TemporaryFolder) throws -> (source: URL, dump: URL) {
        let source = folder.file("source.sqlite")
        let db = try DBBDatabase(path: source.path)
        try db.executeStatements(
            """
            CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT, b BLOB);
            CREATE INDEX t_v ON t (v);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 8000)
            INSERT INTO t SELECT x, printf('row %d', x), randomblob(120) FROM c;
            PRAGMA user_version = 7;
            """)
        try db.close()
        let dump = folder.file("source.json.gz")
        try DBBExport.dump(databaseAt: source, to: dump)
        return (source, dump)
    }

    /// Writes the old database a restore replaces (about 0.6 MiB) at `url`.
    static func makeTarget(_ kind: Target, at url: URL) throws {
        guard kind != .none else { return }
        let db = try DBBDatabase(path: url.path)
        try db.executeStatements(kind == .walOfAnotherPageSize ? "PRAGMA page_size = 1024" : "PRAGMA page_size = 4096")
        try db.setJournalMode(kind == .rollbackJournal ? .delete : .wal)
        try db.executeStatements(
            """
            CREATE TABLE old (x);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2500)
            INSERT INTO old SELECT randomblob(200) FROM c;
            """)
        try db.close()
    }

    /// Every file on the disk but the filler, with its bytes.
    static func snapshot(_ disk: SmallFilesystem) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try disk.contents() { files[name] = try Data(contentsOf: disk.file(name)) }
        return files
    }

    /// Whether an error is one a full disk explains: SQLite's, the gzip writer's, or the space check's.
    static func isFullDisk(_ error: any Error) -> Bool {
        if let error = error as? DBBError { return error.resultCode == .full || error.resultCode == .ioError }
        if let error = error as? DBBExportError {
            return error.kind == .io
                && (error.message.contains("No space left") || error.message.contains("not enough free space"))
        }
        return false
    }

    /// Free space levels from none to three times the new database's size.
    static func levels(for size: Int64) -> [Int64] {
        (0...12).map { Int64($0) * size / 4 }
    }

    @Test(
        "a restore on a filling disk gives the dump or leaves every file as it was",
        arguments: Target.allCases, [true, false])
    func restore(into kind: Target, checkingSpace: Bool) throws {
        let folder = try TemporaryFolder()
        let (source, dump) = try Self.sourceAndDump(in: folder)
        let disk = try SmallFilesystem(mebibytes: 8)
        let target = disk.file("target.sqlite")
        var options = DBBRestoreOptions(replaceExisting: true)
        options.checksFreeSpace = checkingSpace
        var outcomes: [String: Int] = [:]
        let size = Int64(try Data(contentsOf: source).count)
        for free in Self.levels(for: size) {
            try disk.empty()
            try Self.makeTarget(kind, at: target)
            try disk.fill(leaving: free)
            let before = try Self.snapshot(disk)
            do {
                try DBBExport.restore(dumpAt: dump, to: target, options: options)
                outcomes["restored", default: 0] += 1
                // A WAL target keeps its own page size, which SQLite cannot change while it is in WAL mode.
                let pageSize = kind == .walOfAnotherPageSize ? ["page_size: 4096 vs 1024"] : []
                #expect(
                    try SQLComparison.differences(original: source, restored: target) == pageSize, "free \(free)")
                #expect(try disk.contents().filter { $0.hasPrefix(".") } == [], "free \(free)")
            } catch {
                let refusedAtOnce = (error as? DBBExportError)?.message.contains("not enough free space") == true
                outcomes[refusedAtOnce ? "refused before the copy" : "failed", default: 0] += 1
                #expect(Self.isFullDisk(error), "free \(free): \(error)")
                let after = try Self.snapshot(disk)
                #expect(after.keys.sorted() == before.keys.sorted(), "free \(free): \(error)")
                for (name, bytes) in before where after[name] != bytes {
                    Issue.record("free \(free): \(name) changed (\(error))")
                }
            }
        }
        print("restore into \(kind.rawValue), space check \(checkingSpace): \(outcomes)")
        #expect(outcomes["restored"] ?? 0 > 0)
        #expect(outcomes.values.reduce(0, +) > outcomes["restored"] ?? 0, "no level failed: \(outcomes)")
    }

    @Test("a dump on a filling disk is whole or absent")
    func dump() throws {
        let folder = try TemporaryFolder()
        let (source, dump) = try Self.sourceAndDump(in: folder)
        let disk = try SmallFilesystem(mebibytes: 8)
        let output = disk.file("out.json.gz")
        var outcomes: [String: Int] = [:]
        let size = Int64(try Data(contentsOf: dump).count)
        for free in Self.levels(for: size) {
            try disk.empty()
            try disk.fill(leaving: free)
            do {
                try DBBExport.dump(databaseAt: source, to: output)
                outcomes["dumped", default: 0] += 1
                #expect(try DBBExport.compare(dumpAt: output, withDatabaseAt: source) == nil)
                #expect(try disk.contents() == ["out.json.gz"])
            } catch {
                outcomes["failed", default: 0] += 1
                #expect(Self.isFullDisk(error), "free \(free): \(error)")
                #expect(try disk.contents() == [], "free \(free)")
            }
        }
        print("dump: \(outcomes)")
        #expect(outcomes["dumped"] ?? 0 > 0)
        #expect(outcomes["failed"] ?? 0 > 0)
    }

    @Test("dbb-backup restore --force on a full disk exits 74, says why, and leaves the target as it was")
    func toolOnFullDisk() throws {
        let folder = try TemporaryFolder()
        let (source, dump) = try Self.sourceAndDump(in: folder)
        let disk = try SmallFilesystem(mebibytes: 8)
        let target = disk.file("target.sqlite")
        try Self.makeTarget(.wal, at: target)
        let size = Int64(try Data(contentsOf: source).count)
        // Room for the temporary database, not for the copy into the target.
        try disk.fill(leaving: size + size / 3)
        let before = try Self.snapshot(disk)
        let run = try ToolProcess.run("dbb-backup", ["restore", "-q", "--force", dump.path, target.path])
        #expect(run.exitCode == 74, "\(run.standardError)")
        #expect(run.standardError.contains("not enough free space"), "\(run.standardError)")
        #expect(try Self.snapshot(disk) == before)
    }
}
