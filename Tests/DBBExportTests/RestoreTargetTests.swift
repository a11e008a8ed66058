import DBBExport
import DBBSQL
import Foundation
import Testing

/// After a restore returns, any SQLite client opening the target sees exactly the dump, whatever journal,
/// write-ahead log or WAL index a crashed writer left beside it, and whoever else has it open.
@Suite("Restore over existing and crashed targets")
struct RestoreTargetTests {
    /// A small source database and its dump.
    static func sourceAndDump(in folder: TemporaryFolder, rows: Int = 200) throws -> (source: URL, dump: URL) {
        let source = folder.file("source.sqlite")
        let db = try DBBDatabase(path: source.path)
        try db.executeStatements(
            """
            CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);
            CREATE INDEX t_v ON t (v);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows))
            INSERT INTO t SELECT x, 'new ' || x FROM c;
            PRAGMA user_version = 42;
            """)
        try db.close()
        let dump = folder.file("source.json.gz")
        try DBBExport.dump(databaseAt: source, to: dump)
        return (source, dump)
    }

    /// Leaves at `target` what a WAL writer killed mid-work leaves: the main file with its `-wal` and
    /// `-shm`, copied while the writer had changes not yet checkpointed.
    ///
    /// - Parameters:
    ///   - largeLog: whether the whole schema and all rows live only in the log (else one small change).
    ///   - pageSize: the crashed database's page size.
    static func leaveCrashedWALDatabase(
        at target: URL, in folder: TemporaryFolder, largeLog: Bool, pageSize: Int = 4096
    ) throws {
        let live = folder.file("live-\(UUID().uuidString).sqlite")
        let db = try DBBDatabase(path: live.path)
        try db.executeStatements("PRAGMA page_size = \(pageSize); PRAGMA journal_mode = WAL")
        try db.executeStatements("PRAGMA wal_autocheckpoint = 0")
        if !largeLog {
            try db.executeStatements(
                "CREATE TABLE old (x); INSERT INTO old VALUES (1); PRAGMA wal_checkpoint(TRUNCATE)")
        }
        try db.executeStatements(
            """
            CREATE TABLE IF NOT EXISTS old (x);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(largeLog ? 5000 : 3))
            INSERT INTO old SELECT 'old ' || x FROM c;
            """)
        for suffix in ["", "-wal", "-shm"] {
            try? FileManager.default.removeItem(atPath: target.path + suffix)
            try FileManager.default.copyItem(atPath: live.path + suffix, toPath: target.path + suffix)
        }
        try db.close()
        try FileManager.default.removeItem(at: live)
        #expect(FileManager.default.fileExists(atPath: target.path + "-wal"))
    }

    /// What the system's sqlite3 shell, a client that is not this library, reads from the target.
    static func expectExactlyTheDump(
        _ target: URL, source: URL, keptPageSize: Int? = nil, sourceLocation: SourceLocation = #_sourceLocation
    ) throws {
        #expect(
            try sqlite3Shell(
                target, "SELECT count(*), min(v), max(v) FROM t; PRAGMA user_version; PRAGMA integrity_check")
                == "200|new 1|new 99\n42\nok", sourceLocation: sourceLocation)
        #expect(
            try sqlite3Shell(target, "SELECT name FROM sqlite_master ORDER BY name") == "t\nt_v",
            sourceLocation: sourceLocation)
        // A WAL target keeps its own page size, which SQLite cannot change while it is in WAL mode.
        let pageSize = keptPageSize.map { ["page_size: 4096 vs \($0)"] } ?? []
        #expect(
            try SQLComparison.differences(original: source, restored: target) == pageSize,
            sourceLocation: sourceLocation)
    }

    @Test("a restore over a crashed WAL database gives exactly the dump", arguments: [true, false])
    func overCrashedWALTarget(largeLog: Bool) throws {
        let folder = try TemporaryFolder()
        let (source, dump) = try Self.sourceAndDump(in: folder)
        let target = folder.file("target.sqlite")
        try Self.leaveCrashedWALDatabase(at: target, in: folder, largeLog: largeLog)
        try DBBExport.restore(dumpAt: dump, to: target, options: DBBRestoreOptions(replaceExisting: true))
        try Self.expectExactlyTheDump(target, source: source)
        #expect(try folder.contents().filter { $0.hasPrefix(".") } == [])
    }

    @Test("a crashed WAL database of another page size is replaced too, keeping its page size and WAL mode")
    func overCrashedWALTargetOfAnotherPageSize() throws {
        let folder = try TemporaryFolder()
        let (source, dump) = try Self.sourceAndDump(in: folder)
        let target = folder.file("target.sqlite")
        try Self.leaveCrashedWALDatabase(at: target, in: folder, largeLog: true, pageSize: 1024)
        try DBBExport.restore(dumpAt: dump, to: target, options: DBBRestoreOptions(replaceExisting: true))
        try Self.expectExactlyTheDump(target, source: source, keptPageSize: 1024)
        #expect(try sqlite3Shell(target, "PRAGMA page_size; PRAGMA journal_mode") == "1024\nwal")
    }

    @Test("a WAL database of another page size open in another connection is replaced while it stays open")
    func walTargetOfAnotherPageSizeOpenElsewhere() throws {
        let folder = try TemporaryFolder()
        let (source, dump) = try Self.sourceAndDump(in: folder)
        let target = folder.file("target.sqlite")
        let other = try DBBDatabase(path: target.path)
        try other.executeStatements("PRAGMA page_size = 1024")
        try other.setJournalMode(.wal)
        try other.executeStatements("CREATE TABLE old (x); INSERT INTO old VALUES (1)")
        try DBBExport.restore(dumpAt: dump, to: target, options: DBBRestoreOptions(replaceExisting: true))
        #expect(try other.fetchValue(Int.self, "SELECT count(*) FROM t") == 200)
        try other.close()
        try Self.expectExactlyTheDump(target, source: source, keptPageSize: 1024)
    }

    @Test("stale side files without a main file are not read as part of the new database")
    func staleSideFilesWithoutTarget() throws {
        let folder = try TemporaryFolder()
        let (source, dump) = try Self.sourceAndDump(in: folder)
        let target = folder.file("target.sqlite")
        try Self.leaveCrashedWALDatabase(at: target, in: folder, largeLog: false)
        try FileManager.default.removeItem(at: target)  // only the -wal and -shm remain
        try DBBExport.restore(dumpAt: dump, to: target)
        try Self.expectExactlyTheDump(target, source: source)
    }

    @Test("a stale rollback journal beside a file that is not a database does not survive")
    func staleJournalBesideForeignFile() throws {
        let folder = try TemporaryFolder()
        let (source, dump) = try Self.sourceAndDump(in: folder)
        let target = folder.file("target.sqlite")
        try Data("not a database".utf8).write(to: target)
        try Data(repeating: 0xAB, count: 4096).write(to: URL(fileURLWithPath: target.path + "-journal"))
        try DBBExport.restore(dumpAt: dump, to: target, options: DBBRestoreOptions(replaceExisting: true))
        try Self.expectExactlyTheDump(target, source: source)
        #expect(!FileManager.default.fileExists(atPath: target.path + "-journal"))
    }

    @Test("a connection that has the target open sees the restored database, not a corrupt or stale one")
    func targetOpenElsewhere() throws {
        let folder = try TemporaryFolder()
        let (source, dump) = try Self.sourceAndDump(in: folder)
        let target = folder.file("target.sqlite")
        let other = try DBBDatabase(path: target.path)
        try other.setJournalMode(.wal)
        try other.executeStatements("CREATE TABLE old (x); INSERT INTO old VALUES (1)")
        #expect(try other.fetchValue(Int.self, "SELECT count(*) FROM old") == 1)
        try DBBExport.restore(dumpAt: dump, to: target, options: DBBRestoreOptions(replaceExisting: true))
        // The other connection reads the new file through SQLite's change counter, not a replaced inode.
        #expect(try other.fetchValue(Int.self, "SELECT count(*) FROM t") == 200)
        #expect(throws: DBBError.self) { try other.fetchValue(Int.self, "SELECT count(*) FROM old") }
        try other.close()
        try Self.expectExactlyTheDump(target, source: source)
    }

    @Test("temporary files are named after their process, and the ones of dead processes are removed")
    func abandonedTemporaryFiles() throws {
        let folder = try TemporaryFolder()
        let (_, dump) = try Self.sourceAndDump(in: folder)
        let target = folder.file("target.sqlite")
        // A process id that is not running: a child that has exited and been reaped.
        let exited = try ChildProcess(
            URL(fileURLWithPath: "/bin/true"), [], outputIn: FileManager.default.temporaryDirectory)
        exited.wait()
        let dead = ".target.sqlite.dbb-restore-\(exited.pid).x1.tmp"
        let live = ".target.sqlite.dbb-restore-\(getpid()).x2.tmp"
        for name in [dead, dead + "-journal", live] { try Data("left".utf8).write(to: folder.file(name)) }
        try DBBExport.restore(dumpAt: dump, to: target)
        let hidden = try folder.contents().filter { $0.hasPrefix(".") }
        #expect(hidden == [live], "the running process's file stays, the dead one's go")
    }
}
