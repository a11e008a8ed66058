import DBBSQL
import Foundation
import Testing

/// Runs the code of Docs/GettingStarted-DBBSQL.md, block by block, and checks the guide shows exactly
/// this code (so the guide cannot drift from what works).
@Suite("Getting started guide")
struct DocsGettingStartedTests {
    @Test("the guide's code runs and does what the guide says")
    func guideCode() async throws {
        let directory = try TemporaryFolder()
        let path = directory.path("app.sqlite")
        let chinookPath = try fixture("chinook.sqlite").path

        // Open a database
        let db = try DBBDatabase(path: path)  // a file, created when missing
        let scratch = try DBBDatabase.inMemory()  // a private in-memory database
        let chinook = try DBBDatabase(path: chinookPath, mode: .readOnly)
        #expect(FileManager.default.fileExists(atPath: path))
        #expect(try chinook.fetchValue(Int.self, "SELECT count(*) FROM Track") == 3503)
        #expect(scratch.path == ":memory:")

        // Create tables and insert values
        try db.executeStatements(
            """
            CREATE TABLE user (id INTEGER PRIMARY KEY, full_name TEXT NOT NULL, born REAL, avatar BLOB, tags TEXT);
            CREATE INDEX user_full_name ON user (full_name);
            """)
        try db.execute(
            "INSERT INTO user (full_name, born, avatar, tags) VALUES (?, ?, ?, ?)",
            "Ann", Date(timeIntervalSince1970: 0), Data([0xFF, 0xD8]), ["admin", "ops"])
        let annID = db.lastInsertRowID
        let insertNamed = "INSERT INTO user (full_name, born) VALUES (:name, :born)"
        try db.execute(insertNamed, arguments: ["name": "Bo", "born": nil])
        #expect(annID == 1)
        #expect(try db.fetchValue(String.self, "SELECT tags FROM user WHERE id = 1") == #"["admin","ops"]"#)
        #expect(try db.fetchValue(String.self, "SELECT typeof(born) FROM user WHERE id = 1") == "real")

        // Read rows
        let count = try db.fetchValue(Int.self, "SELECT count(*) FROM user")  // 2
        let cursor = try db.fetchCursor("SELECT id, full_name, born FROM user ORDER BY full_name")
        var names: [String] = []
        while let row = try cursor.next() {
            let id: Int64 = try row[0]
            let name: String = try row["full_name"]
            let born: Date? = try row["born"]
            names.append("\(id) \(name) \(born == nil ? "unknown" : "known")")
        }
        let rows = try db.fetchDictionary("SELECT full_name, avatar FROM user WHERE id = ?", annID)
        // [["full_name": .text("Ann"), "avatar": .blob(Data([0xFF, 0xD8]))]]
        #expect(count == 2)
        #expect(names == ["1 Ann known", "2 Bo unknown"])
        #expect(rows == [["full_name": .text("Ann"), "avatar": .blob(Data([0xFF, 0xD8]))]])

        // Decode rows into your own types
        struct User: Decodable {
            var id: Int64
            var name: String
            var born: Date?
            var tags: [String]?

            enum CodingKeys: String, CodingKey {
                case id, born, tags
                case name = "full_name"
            }
        }
        let users = try db.fetchAll(User.self, "SELECT * FROM user ORDER BY id")
        let ann = try db.fetchOne(User.self, "SELECT * FROM user WHERE full_name = ?", "Ann")
        #expect(users.map(\.name) == ["Ann", "Bo"])
        #expect(users.map(\.tags) == [["admin", "ops"], nil])
        #expect(ann?.born == Date(timeIntervalSince1970: 0))

        // Transactions
        try db.inTransaction(.immediate) { db in
            try db.execute("UPDATE user SET full_name = ? WHERE id = ?", "Ann B.", annID)
        }
        do {
            try db.inTransaction { db in
                try db.execute("DELETE FROM user")
                throw CancellationError()
            }
        } catch is CancellationError {
            // Rolled back: both users are still there.
        }
        #expect(try db.fetchValues(String.self, "SELECT full_name FROM user ORDER BY id") == ["Ann B.", "Bo"])

        // Errors
        do {
            try db.execute("INSERT INTO user (full_name) VALUES (?)", nil)
        } catch let error as DBBError where error.resultCode == .constraint {
            print(error.extendedCode, error.message)  // 1299 NOT NULL constraint failed: user.full_name
        }
        #expect(db.lastExtendedErrorCode == 1299)
        #expect(db.lastErrorMessage == "NOT NULL constraint failed: user.full_name")

        // Pragmas and schema
        try db.setForeignKeysEnabled(true)
        try db.setBusyTimeout(5)  // seconds
        try db.setUserVersion(2)
        let mode = try db.setJournalMode(.wal)  // .wal for a file; an in-memory database stays .memory
        let columns = try db.columns(in: "user").map(\.name)  // ["id", "full_name", "born", "avatar", "tags"]
        let hasIndex = try db.indexNames(in: "user").contains("user_full_name")
        #expect(try db.foreignKeysEnabled())
        #expect(try db.busyTimeout() == 5)
        #expect(try db.userVersion() == 2)
        #expect(mode == .wal)
        #expect(columns == ["id", "full_name", "born", "avatar", "tags"])
        #expect(hasIndex)

        // See the SQL
        var log: [String] = []
        scratch.setTrace { sql, duration in log.append("\(sql) [\(duration)]") }
        try scratch.execute("CREATE TABLE note (body TEXT)")  // log: ["CREATE TABLE note (body TEXT) [… sec]"]
        #expect(log.count == 1)
        #expect(log.first?.hasPrefix("CREATE TABLE note (body TEXT) [") == true)

        // Share a connection between threads and tasks
        let queue = DBBDatabaseQueue(database: db)
        let everyone = try await queue.inDatabase { db in
            try db.fetchValues(String.self, "SELECT full_name FROM user")
        }
        let total = try await queue.inTransaction { db in
            try db.fetchValue(Int.self, "SELECT count(*) FROM user")
        }
        #expect(Set(everyone) == ["Ann B.", "Bo"])
        #expect(total == 2)
    }

    @Test("every swift block of the guide appears verbatim in this test")
    func guideMatchesThisFile() throws {
        let guide = "Docs/GettingStarted-DBBSQL.md"
        let markdown = try String(contentsOf: repositoryRoot.appendingPathComponent(guide), encoding: .utf8)
        #expect(DocSnippets.swiftBlocks(in: markdown).count == 9)
        #expect(try DocSnippets.missingBlocks(guide: guide) == [])
    }
}
