import DBBSQL
import Foundation
import Testing

@Suite("Opening and closing databases")
struct DBBDatabaseOpeningTests {
    @Test("a database in a missing folder is an error that names the folder, and creates nothing")
    func missingFolderIsNamed() throws {
        let folder = try TemporaryFolder()
        let missing = folder.file("missing/sub")
        let error = #expect(throws: DBBError.self) {
            try DBBDatabase(path: missing.appendingPathComponent("app.sqlite").path)
        }
        #expect(
            error?.message.hasPrefix("the folder \(missing.path) does not exist") == true,
            "\(String(describing: error))")
        let notes = try folder.write("notes", to: "notes.txt")
        let underFile = #expect(throws: DBBError.self) {
            try DBBDatabase(path: notes.appendingPathComponent("app.sqlite").path)
        }
        #expect(
            underFile?.message.hasPrefix("\(notes.path) is not a folder") == true, "\(String(describing: underFile))")
        #expect(try folder.contents() == ["notes.txt"])
    }

    @Test("a missing file is created, written, and read back after reopening")
    func createsMissingFile() throws {
        let directory = try TemporaryFolder()
        let path = directory.path("new.sqlite")
        #expect(!FileManager.default.fileExists(atPath: path))

        let db = try DBBDatabase(path: path)
        #expect(db.isOpen)
        #expect(db.path == path)
        #expect(!db.isReadOnly)
        try db.execute("CREATE TABLE t (x INTEGER)")
        try db.execute("INSERT INTO t VALUES (?)", 42)
        try db.close()
        #expect(!db.isOpen)
        #expect(FileManager.default.fileExists(atPath: path))

        let reopened = try DBBDatabase(url: URL(fileURLWithPath: path), mode: .readWrite)
        #expect(try reopened.fetchValue(Int.self, "SELECT x FROM t") == 42)
    }

    @Test("read-write without create fails on a missing file and creates nothing")
    func readWriteNeedsExistingFile() throws {
        let directory = try TemporaryFolder()
        let path = directory.path("missing.sqlite")
        let error = expectDBBError { _ = try DBBDatabase(path: path, mode: .readWrite) }
        #expect(error?.resultCode == .cannotOpen)
        #expect(error?.context?.contains(path) == true)
        #expect(!FileManager.default.fileExists(atPath: path))
    }

    @Test("read-only opens the Chinook fixture and refuses writes")
    func readOnly() throws {
        let db = try DBBDatabase(path: try fixture("chinook.sqlite").path, mode: .readOnly)
        #expect(db.isReadOnly)
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM Artist") == 275)
        let error = expectDBBError { try db.execute("DELETE FROM Artist") }
        #expect(error?.resultCode == .readOnly)
        #expect(error?.sql == "DELETE FROM Artist")
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM Artist") == 275)
    }

    @Test("read-only fails on a missing file")
    func readOnlyMissingFile() throws {
        let directory = try TemporaryFolder()
        let error = expectDBBError { _ = try DBBDatabase(path: directory.path("nothing.sqlite"), mode: .readOnly) }
        #expect(error?.resultCode == .cannotOpen)
    }

    @Test("in-memory databases are private to their connection")
    func inMemory() throws {
        let first = try DBBDatabase.inMemory()
        let second = try DBBDatabase(path: ":memory:")
        #expect(first.path == ":memory:")
        try first.execute("CREATE TABLE t (x)")
        #expect(try first.tableExists("t"))
        #expect(try !second.tableExists("t"))
        try first.close()
        try first.close()  // closing twice does nothing
        #expect(!first.isOpen)
    }

    @Test("a closed connection throws misuse instead of crashing")
    func usingClosedConnection() throws {
        let db = try DBBDatabase.inMemory()
        try db.close()
        let error = expectDBBError { try db.execute("SELECT 1") }
        #expect(error?.resultCode == .misuse)
        #expect(error?.message.contains("closed") == true)
        #expect(expectDBBError { try db.executeStatements("SELECT 1") }?.resultCode == .misuse)
    }

    @Test("closing with an open cursor fails and leaves the connection usable")
    func closeWithOpenCursor() throws {
        let db = try DBBDatabase.inMemory()
        let cursor = try db.fetchCursor("SELECT 1 UNION ALL SELECT 2")
        _ = try cursor.next()
        let error = expectDBBError { try db.close() }
        #expect(error?.resultCode == .busy)
        #expect(db.isOpen)
        #expect(try cursor.next()?[0] as Int? == 2)
        #expect(try cursor.next() == nil)
        try db.close()
        #expect(!db.isOpen)
    }

    @Test(
        "a file that is not an SQLite database fails clearly and is left byte for byte untouched",
        arguments: [DBBDatabase.OpenMode.readWriteCreate, .readWrite, .readOnly])
    func notADatabase(mode: DBBDatabase.OpenMode) throws {
        let directory = try TemporaryFolder()
        let path = directory.path("notes.txt")
        let bytes = Data(String(repeating: "These are plain notes, not a database.\n", count: 200).utf8)
        try bytes.write(to: URL(fileURLWithPath: path))
        let modified = try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date

        let error = expectDBBError { _ = try DBBDatabase(path: path, mode: mode) }
        #expect(error?.resultCode == .notADatabase)
        #expect(error?.message.contains("not an SQLite database") == true)
        #expect(error?.context?.contains(path) == true)

        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == bytes)
        #expect(try FileManager.default.attributesOfItem(atPath: path)[.modificationDate] as? Date == modified)
        let leftovers = try FileManager.default.contentsOfDirectory(atPath: directory.url.path)
        #expect(leftovers == ["notes.txt"])
    }

    @Test("a truncated copy of a real database is refused and left untouched")
    func corruptDatabase() throws {
        let directory = try TemporaryFolder()
        let original = try Data(contentsOf: try fixture("chinook.sqlite"))
        // Keep the 100-byte header but spoil the magic string: SQLite must refuse it.
        var damaged = original.prefix(4096)
        damaged.replaceSubrange(0..<6, with: Data("NOTSQL".utf8))
        let path = directory.path("damaged.sqlite")
        try damaged.write(to: URL(fileURLWithPath: path))
        let error = expectDBBError { _ = try DBBDatabase(path: path) }
        #expect(error?.resultCode == .notADatabase)
        #expect(try Data(contentsOf: URL(fileURLWithPath: path)) == damaged)
    }

    @Test("the SQLite library version is reported")
    func sqliteVersion() throws {
        let db = try DBBDatabase.inMemory()
        #expect(try db.fetchValue(String.self, "SELECT sqlite_version()") == DBBDatabase.sqliteVersion)
        #expect(DBBDatabase.sqliteVersion.hasPrefix("3."))
    }
}
