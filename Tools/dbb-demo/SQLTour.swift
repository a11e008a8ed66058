// The `--sql` tour: DBBSQL on its own, on a database of plain tables.
import DBBBuilder
import Foundation

/// A row of the `meeting` table, decoded by column name (the CodingKeys map snake_case columns).
struct MeetingRow: Decodable {
    var id: Int64
    var title: String
    var startsAt: Date
    var minutes: Int
    var room: String?
    var agenda: [String]
    var link: URL?

    enum CodingKeys: String, CodingKey {
        case id, title, minutes, room, agenda, link
        case startsAt = "starts_at"
    }
}

/// Runs the DBBSQL tour on a new database file.
func runSQLTour(databaseAt url: URL) throws {
    let path = url.path
    let db = try DBBDatabase(path: path)
    print("DBBSQL on SQLite \(DBBDatabase.sqliteVersion); database: \(path)")

    section("Pragmas")
    try db.setJournalMode(.wal)
    try db.setSynchronous(.normal)
    try db.setForeignKeysEnabled(true)
    try db.setUserVersion(1)
    print("journal_mode = \(try db.journalMode()), synchronous = \(try db.synchronous())")
    print("foreign_keys = \(try db.foreignKeysEnabled()), user_version = \(try db.userVersion())")

    section("Create a table")
    try db.execute(
        """
        CREATE TABLE meeting (
            id INTEGER PRIMARY KEY,
            title TEXT NOT NULL,
            starts_at REAL NOT NULL,
            minutes INTEGER NOT NULL,
            room TEXT,
            agenda TEXT NOT NULL DEFAULT '[]',
            link TEXT,
            notes BLOB
        )
        """)
    try db.createIndex("meeting_starts_at", on: "meeting", columns: ["starts_at"])
    for column in try db.columns(in: "meeting") {
        print("  \(column.name) \(column.declaredType)\(column.isNotNull ? " NOT NULL" : "")")
    }

    section("Insert values of different types")
    let monday = Date(timeIntervalSince1970: 1_767_600_000)  // 2026-01-05 08:00 UTC
    try db.execute(
        "INSERT INTO meeting (title, starts_at, minutes, room, agenda, link, notes) VALUES (?, ?, ?, ?, ?, ?, ?)",
        "Planning", monday, 45, "Room 1", ["budget", "hiring"], URL(string: "https://example.com/planning"),
        Data("whiteboard photo".utf8))
    print("inserted row \(db.lastInsertRowID) (text, date, integer, text, JSON array, URL, blob)")
    try db.execute(
        "INSERT INTO meeting (title, starts_at, minutes, room, agenda) VALUES (:title, :start, :minutes, :room, :agenda)",
        arguments: [
            "title": "Retrospective", "start": monday.addingTimeInterval(86_400), "minutes": 60, "room": nil,
            "agenda": ["what went well", "what to change"],
        ])
    print("inserted row \(db.lastInsertRowID) with named parameters and a NULL room")

    section("A transaction, and one that rolls back")
    try db.inTransaction(.immediate) { db in
        let insert = try db.prepare("INSERT INTO meeting (title, starts_at, minutes) VALUES (?, ?, ?)")
        for day in 2...4 {
            try insert.execute("Stand-up", monday.addingTimeInterval(Double(day) * 86_400), 15)
        }
    }
    print("committed 3 stand-ups; meetings: \(try db.fetchValue(Int.self, "SELECT count(*) FROM meeting") ?? 0)")
    do {
        try db.inTransaction { db in
            try db.execute("DELETE FROM meeting")
            try db.execute("INSERT INTO meeting (title, starts_at, minutes) VALUES (?, ?, ?)", nil, monday, 10)
        }
    } catch let error as DBBError {
        print("rolled back: \(error.message) (code \(error.resultCode.rawValue), extended \(error.extendedCode))")
    }
    print("meetings after the rollback: \(try db.fetchValue(Int.self, "SELECT count(*) FROM meeting") ?? 0)")

    section("Typed reads from a query")
    let cursor = try db.fetchCursor("SELECT title, starts_at, minutes, room FROM meeting WHERE minutes >= ?", 30)
    while let row = try cursor.next() {
        let title: String = try row["title"]
        let startsAt: Date = try row["starts_at"]
        let minutes: Int = try row[2]
        let room: String? = try row["room"]
        print("  \(title): \(startsAt.formatted(.iso8601)), \(minutes) min, room \(room ?? "to be decided")")
    }
    let totalMinutes = try db.fetchValue(Int.self, "SELECT sum(minutes) FROM meeting") ?? 0
    print("total minutes: \(totalMinutes)")

    section("Decodable rows")
    for meeting in try db.fetchAll(MeetingRow.self, "SELECT * FROM meeting ORDER BY starts_at LIMIT 3") {
        let agenda = meeting.agenda.isEmpty ? "no agenda" : meeting.agenda.joined(separator: ", ")
        print(
            "  #\(meeting.id) \(meeting.title) (\(meeting.minutes) min): \(agenda)\(meeting.link.map { " — \($0)" } ?? "")"
        )
    }

    section("Rows as dictionaries")
    for row in try db.fetchDictionary("SELECT title, room, length(notes) AS note_bytes FROM meeting LIMIT 2") {
        print("  \(row.sorted { $0.key < $1.key }.map { "\($0.key)=\($0.value)" }.joined(separator: ", "))")
    }
    try db.close()
}
