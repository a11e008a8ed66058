import DBBSQL
import Foundation
import Testing

@Suite("Pragma helpers")
struct DBBDatabasePragmaTests {
    @Test("a query-only connection refuses changes, keeps its rows, and writes again when turned back")
    func queryOnly() throws {
        try withDatabase(.file) { db throws in
            try db.execute("CREATE TABLE t (x)")
            try db.execute("INSERT INTO t VALUES (1)")
            #expect(try db.isQueryOnly() == false)
            try db.setQueryOnly(true)
            #expect(try db.isQueryOnly())
            let refused = #expect(throws: DBBError.self) { try db.execute("INSERT INTO t VALUES (2)") }
            #expect(refused?.resultCode == .readOnly)
            #expect(try db.rowCount(inTable: "t") == 1)
            try db.setQueryOnly(false)
            try db.execute("INSERT INTO t VALUES (2)")
            #expect(try db.rowCount(inTable: "t") == 2)
            #expect(throws: DBBError.self) { try db.rowCount(inTable: "missing") }
        }
    }

    @Test("a lowered value length limit refuses longer values read or written, and raising it takes them again")
    func valueLengthLimit() throws {
        try withDatabase(.file) { db throws in
            let original = db.maximumValueLength
            #expect(original >= 1_000_000_000)
            try db.execute("CREATE TABLE t (v)")
            try db.execute("INSERT INTO t VALUES (zeroblob(5000))")
            db.maximumValueLength = 4096
            #expect(db.maximumValueLength == 4096)
            let read = #expect(throws: DBBError.self) { try db.fetchValue(Data.self, "SELECT v FROM t") }
            #expect(read?.resultCode == .tooBig)
            let written = #expect(throws: DBBError.self) { try db.execute("INSERT INTO t VALUES (zeroblob(4097))") }
            #expect(written?.resultCode == .tooBig)
            try db.execute("INSERT INTO t VALUES (zeroblob(4000))")
            db.maximumValueLength = Int.max  // clamped to SQLite's compiled-in maximum
            #expect(db.maximumValueLength == original)
            #expect(try db.fetchValues(Int.self, "SELECT length(v) FROM t ORDER BY rowid") == [5000, 4000])
        }
    }

    @Test(
        "busy timeout, foreign keys, case-sensitive LIKE, temp store read back what was set",
        arguments: DatabaseKind.allCases)
    func connectionSettings(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            try db.setBusyTimeout(2.5)
            #expect(try db.busyTimeout() == 2.5)
            #expect(try db.fetchValue(Int.self, "PRAGMA busy_timeout") == 2500)
            try db.setBusyTimeout(0)
            #expect(try db.busyTimeout() == 0)

            #expect(try db.foreignKeysEnabled() == false)
            try db.setForeignKeysEnabled(true)
            #expect(try db.foreignKeysEnabled())
            #expect(try db.fetchValue(Int.self, "PRAGMA foreign_keys") == 1)
            try db.execute("PRAGMA foreign_keys = OFF")  // plain SQL shows through the getter
            #expect(try db.foreignKeysEnabled() == false)

            #expect(try db.caseSensitiveLike() == false)
            #expect(try db.fetchValue(Bool.self, "SELECT 'ABC' LIKE 'abc'") == true)
            try db.setCaseSensitiveLike(true)
            #expect(try db.caseSensitiveLike())
            #expect(try db.fetchValue(Bool.self, "SELECT 'ABC' LIKE 'abc'") == false)
            try db.setCaseSensitiveLike(false)
            #expect(try db.caseSensitiveLike() == false)

            for store in DBBTempStore.allCases {
                try db.setTempStore(store)
                #expect(try db.tempStore() == store)
                #expect(try db.fetchValue(Int.self, "PRAGMA temp_store") == store.rawValue)
            }
        }
    }

    @Test("a busy timeout that SQLite cannot hold is refused and changes nothing")
    func badBusyTimeout() throws {
        let db = try DBBDatabase.inMemory()
        try db.setBusyTimeout(1.5)
        for bad in [-1, .infinity, .nan, 3_000_000] as [TimeInterval] {
            #expect(expectDBBError { try db.setBusyTimeout(bad) }?.resultCode == .range)
        }
        #expect(try db.busyTimeout() == 1.5)
        try db.setBusyTimeout(2_147_483.647)
        #expect(try db.fetchValue(Int32.self, "PRAGMA busy_timeout") == .max)
    }

    @Test("foreign keys cannot change inside a transaction: an error, not a silent no-op")
    func foreignKeysInTransaction() throws {
        let db = try DBBDatabase.inMemory()
        try db.beginTransaction()
        let error = expectDBBError { try db.setForeignKeysEnabled(true) }
        #expect(error?.resultCode == .misuse)
        #expect(try db.foreignKeysEnabled() == false)
        try db.rollback()
        try db.setForeignKeysEnabled(true)
        #expect(try db.foreignKeysEnabled())
    }

    @Test("foreign key enforcement takes effect")
    func foreignKeysEnforced() throws {
        let db = try DBBDatabase.inMemory()
        try db.executeStatements(
            "CREATE TABLE p (id INTEGER PRIMARY KEY); CREATE TABLE c (p INTEGER REFERENCES p (id));")
        try db.execute("INSERT INTO c VALUES (1)")  // off: accepted
        try db.setForeignKeysEnabled(true)
        #expect(expectDBBError { try db.execute("INSERT INTO c VALUES (2)") }?.extendedCode == 787)
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM c") == 1)
    }

    @Test("synchronous and journal mode on a file database")
    func fileSettings() throws {
        let directory = try TemporaryFolder()
        let db = try DBBDatabase(path: directory.path("pragmas.sqlite"))
        #expect(try db.journalMode() == .delete)
        for mode in DBBSynchronousMode.allCases {
            try db.setSynchronous(mode)
            #expect(try db.synchronous() == mode)
            #expect(try db.fetchValue(Int.self, "PRAGMA synchronous") == mode.rawValue)
        }
        #expect(try db.setJournalMode(.wal) == .wal)
        #expect(try db.journalMode() == .wal)
        try db.execute("CREATE TABLE t (x)")
        #expect(FileManager.default.fileExists(atPath: directory.path("pragmas.sqlite-wal")))
        for mode in [DBBJournalMode.truncate, .persist, .memory, .delete] {
            #expect(try db.setJournalMode(mode) == mode)
            #expect(try db.journalMode() == mode)
        }
        #expect(try db.fetchValue(String.self, "PRAGMA journal_mode") == "delete")
    }

    @Test("an in-memory database stays in memory journal mode and says so")
    func inMemoryJournalMode() throws {
        let db = try DBBDatabase.inMemory()
        #expect(try db.journalMode() == .memory)
        #expect(try db.setJournalMode(.wal) == .memory)
        #expect(try db.journalMode() == .memory)
    }

    @Test("user_version and application_id are stored in the file header", arguments: [Int32.min, -1, 0, 7, .max])
    func headerIntegers(value: Int32) throws {
        let directory = try TemporaryFolder()
        let path = directory.path("header.sqlite")
        do {
            let db = try DBBDatabase(path: path)
            try db.setUserVersion(value)
            try db.setApplicationID(value &+ 1)
            #expect(try db.userVersion() == value)
            #expect(try db.applicationID() == value &+ 1)
            try db.close()
        }
        // Bytes 60...63 (user_version) and 68...71 (application_id) of the header are big-endian integers.
        let header = try Data(contentsOf: URL(fileURLWithPath: path)).prefix(100)
        func bigEndian(_ offset: Int) -> Int32 {
            Int32(bitPattern: header[offset..<offset + 4].reduce(0) { $0 << 8 | UInt32($1) })
        }
        #expect(bigEndian(60) == value)
        #expect(bigEndian(68) == value &+ 1)
        let reopened = try DBBDatabase(path: path, mode: .readOnly)
        #expect(try reopened.userVersion() == value)
        #expect(try reopened.applicationID() == value &+ 1)
    }

    @Test("the Chinook fixture reports its real header values")
    func chinookHeader() throws {
        let db = try DBBDatabase(path: try fixture("chinook.sqlite").path, mode: .readOnly)
        #expect(try db.userVersion() == 0)
        #expect(try db.applicationID() == 0)
        #expect(try db.journalMode() == .delete)
        #expect(expectDBBError { try db.setUserVersion(1) }?.resultCode == .readOnly)
    }

    @Test("a busy timeout makes a second writer wait that long before failing")
    func busyTimeoutWaits() throws {
        let directory = try TemporaryFolder()
        let path = directory.path("busy.sqlite")
        let first = try DBBDatabase(path: path)
        try first.execute("CREATE TABLE t (x)")
        try first.beginTransaction(.exclusive)
        let second = try DBBDatabase(path: path)  // opening works while another connection holds a lock
        try second.setBusyTimeout(0.2)
        let start = ContinuousClock.now
        let error = expectDBBError { try second.execute("INSERT INTO t VALUES (1)") }
        let waited = ContinuousClock.now - start
        #expect(error?.resultCode == .busy)
        #expect(waited >= .milliseconds(150))
        try first.commit()
        try second.execute("INSERT INTO t VALUES (1)")
        #expect(try first.fetchValue(Int.self, "SELECT count(*) FROM t") == 1)
    }
}
