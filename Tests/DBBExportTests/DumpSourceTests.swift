import DBBExport
import DBBSQL
import Foundation
import Testing

/// Sources a dump must handle: a FIFO, a virtual table whose module is missing, a database a crashed
/// writer left with a hot rollback journal, and one another process has locked.
@Suite("Dump sources")
struct DumpSourceTests {
    @Test("a FIFO as the source is refused at once instead of blocking")
    func fifoSource() throws {
        let folder = try TemporaryFolder()
        let fifo = folder.file("pipe.sqlite")
        #expect(mkfifo(fifo.path, 0o600) == 0)
        let tool = URL(fileURLWithPath: BackupToolTests.tool)
        let child = try ChildProcess(
            tool, ["dump", "-q", fifo.path, folder.path("out.json.gz")],
            outputIn: FileManager.default.temporaryDirectory)
        let status = child.wait(timeout: 20)
        #expect(status != nil, "the dump blocked on the FIFO")
        #expect(status != 0)
        #expect(child.errorOutput.contains("FIFO"), "\(child.errorOutput)")
        #expect {
            try DBBExport.dump(databaseAt: fifo, to: folder.file("out.json.gz"))
        } throws: { ($0 as? DBBExportError)?.kind == .io }
        #expect(try folder.contents() == ["pipe.sqlite"])
    }

    /// A database holding a virtual table of a module this SQLite library lacks, written directly into
    /// the schema table as an application with its own module would have created it.
    static func databaseWithMissingModule(at url: URL) throws {
        let db = try DBBDatabase(path: url.path)
        try db.executeStatements(
            """
            CREATE TABLE t (a);
            INSERT INTO t VALUES (1), (2);
            PRAGMA writable_schema = ON;
            INSERT INTO sqlite_master (type, name, tbl_name, rootpage, sql)
                VALUES ('table', 'vt', 'vt', 0, 'CREATE VIRTUAL TABLE vt USING nosuchmodule(x)');
            PRAGMA writable_schema = OFF;
            """)
        try db.close()
    }

    @Test("a virtual table whose module is missing is named and refused, or left out when asked and reported")
    func missingModule() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("vt.sqlite")
        try Self.databaseWithMissingModule(at: source)
        let dump = folder.file("vt.json.gz")
        #expect {
            try DBBExport.dump(databaseAt: source, to: dump)
        } throws: { error in
            guard let error = error as? DBBError else { return false }
            return error.message.contains("nosuchmodule") && error.context?.contains("virtual table vt") == true
        }
        #expect(!FileManager.default.fileExists(atPath: dump.path))
        let report = try DBBExport.dump(
            databaseAt: source, to: dump, options: DBBDumpOptions(skipsUnavailableVirtualTables: true))
        #expect(report.leftOut.map(\.name) == ["vt"])
        #expect(report.schema.map(\.name) == ["t"])
        let restored = folder.file("restored.sqlite")
        try DBBExport.restore(dumpAt: dump, to: restored)
        #expect(try sqlite3Shell(restored, "SELECT count(*) FROM t") == "2")
    }

    @Test("a database with a hot rollback journal is rolled back and dumped as it was before the crash")
    func hotJournal() throws {
        let folder = try TemporaryFolder()
        let live = folder.file("live.sqlite")
        let db = try DBBDatabase(path: live.path)
        try db.executeStatements(
            """
            PRAGMA journal_mode = DELETE;
            CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < 2000)
            INSERT INTO t SELECT x, hex(randomblob(50)) FROM c;
            PRAGMA cache_size = 1;
            BEGIN;
            UPDATE t SET v = 'half-written';
            """)
        // A copy taken mid-transaction is what a writer killed at that moment leaves: a file with some
        // pages changed, and the journal that holds their old contents.
        let crashed = folder.file("crashed.sqlite")
        try FileManager.default.copyItem(at: live, to: crashed)
        try FileManager.default.copyItem(atPath: live.path + "-journal", toPath: crashed.path + "-journal")
        try db.rollback()
        try db.close()
        let dump = folder.file("crashed.json.gz")
        let report = try DBBExport.dump(databaseAt: crashed, to: dump)
        #expect(report.totalRows == 2000)
        let restored = folder.file("restored.sqlite")
        try DBBExport.restore(dumpAt: dump, to: restored)
        #expect(try sqlite3Shell(restored, "SELECT count(*) FROM t WHERE v = 'half-written'") == "0")
        #expect(try sqlite3Shell(restored, "SELECT count(*) FROM t") == "2000")
    }

    @Test("a database another connection has locked is waited for, not failed at once")
    func lockedSource() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("locked.sqlite")
        let writer = try DBBDatabase(path: source.path)
        try writer.executeStatements("CREATE TABLE t (a); INSERT INTO t VALUES (1)")
        try writer.beginTransaction(.exclusive)
        try writer.execute("INSERT INTO t VALUES (2)")
        let dump = folder.file("locked.json.gz")
        let done = DispatchSemaphore(value: 0)
        nonisolated(unsafe) var result: Result<DBBDumpReport, any Error>?
        Thread {
            result = Result { try DBBExport.dump(databaseAt: source, to: dump) }
            done.signal()
        }.start()
        usleep(400_000)
        try writer.commit()
        try writer.close()
        done.wait()
        let report = try #require(try result?.get())
        #expect(report.totalRows == 2)
    }
}
