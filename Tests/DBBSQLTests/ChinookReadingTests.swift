import DBBSQL
import Foundation
import Testing

/// Facts of the Chinook 1.4.5 fixture (checked with the sqlite3 shell), read through DBBSQL.
@Suite("Chinook, read-only")
struct ChinookReadingTests {
    private func open() throws -> DBBDatabase {
        try DBBDatabase(path: try fixture("chinook.sqlite").path, mode: .readOnly)
    }

    @Test("every table has its documented row count")
    func rowCounts() throws {
        let db = try open()
        let expected = [
            "Album": 347, "Artist": 275, "Customer": 59, "Employee": 8, "Genre": 25, "Invoice": 412,
            "InvoiceLine": 2240, "MediaType": 5, "Playlist": 18, "PlaylistTrack": 8715, "Track": 3503,
        ]
        #expect(try db.tableNames() == expected.keys.sorted())
        for (table, rows) in expected {
            #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM \(DBBDatabase.quoteIdentifier(table))") == rows)
        }
    }

    @Test("a three-table join: the artists with the most tracks")
    func join() throws {
        let db = try open()
        let rows = try db.fetchCursor(
            """
            SELECT ar.Name AS artist, count(*) AS tracks
            FROM Artist ar JOIN Album al ON al.ArtistId = ar.ArtistId JOIN Track t ON t.AlbumId = al.AlbumId
            GROUP BY ar.ArtistId ORDER BY tracks DESC, artist LIMIT ?
            """, 3
        ).map { (try $0["artist"] as String, try $0["tracks"] as Int) }
        #expect(rows.map(\.0) == ["Iron Maiden", "U2", "Led Zeppelin"])
        #expect(rows.map(\.1) == [213, 135, 114])
        let sales = try db.fetchDictionary(
            """
            SELECT c.Country, round(sum(i.Total), 2) AS total FROM Invoice i JOIN Customer c USING (CustomerId)
            GROUP BY c.Country ORDER BY sum(i.Total) DESC LIMIT 2
            """)
        #expect(
            sales == [
                ["Country": .text("USA"), "total": .real(523.06)],
                ["Country": .text("Canada"), "total": .real(303.96)],
            ])
    }

    struct Track: Decodable, Equatable {
        var id: Int64
        var name: String
        var composer: String?
        var milliseconds: Int
        var bytes: Int?
        var unitPrice: Double

        enum CodingKeys: String, CodingKey {
            case id = "TrackId"
            case name = "Name"
            case composer = "Composer"
            case milliseconds = "Milliseconds"
            case bytes = "Bytes"
            case unitPrice = "UnitPrice"
        }
    }

    @Test("Decodable rows with bracketed PascalCase columns, NULLs and NUMERIC values stored as REAL")
    func decodeTracks() throws {
        let db = try open()
        let tracks = try db.fetchAll(Track.self, "SELECT * FROM Track ORDER BY TrackId")
        #expect(tracks.count == 3503)
        #expect(
            tracks[0]
                == Track(
                    id: 1, name: "For Those About To Rock (We Salute You)",
                    composer: "Angus Young, Malcolm Young, Brian Johnson", milliseconds: 343_719, bytes: 11_170_334,
                    unitPrice: 0.99))
        #expect(tracks.filter { $0.composer == nil }.count == 977)
        #expect(tracks.reduce(0) { $0 + $1.milliseconds } == 1_378_778_040)
        #expect(try db.fetchValue(String.self, "SELECT typeof(UnitPrice) FROM Track WHERE TrackId = 1") == "real")
    }

    @Test("text dates and non-ASCII names read as Swift values")
    func datesAndUnicode() throws {
        let db = try open()
        let row = try #require(
            try db.fetchCursor("SELECT min(InvoiceDate) AS first, max(InvoiceDate) AS last FROM Invoice").next())
        #expect(try row["first"] as String == "2021-01-01 00:00:00")
        #expect(try row["first"] as Date == Date(timeIntervalSince1970: 1_609_459_200))
        #expect(try row["last"] as Date == Date(timeIntervalSince1970: 1_766_361_600))  // 2025-12-22
        let customer = try #require(
            try db.fetchCursor("SELECT FirstName, LastName FROM Customer WHERE CustomerId = 1").next())
        #expect(try customer[0] as String == "Luís")
        #expect(try customer[1] as String == "Gonçalves")
        #expect(
            try db.fetchValue(Double.self, "SELECT sum(Total) FROM Invoice").map { ($0 * 100).rounded() } == 232_860)
    }

    @Test("the schema helpers describe a real table")
    func schema() throws {
        let db = try open()
        let columns = try db.columns(in: "Track")
        #expect(
            columns.map(\.name) == [
                "TrackId", "Name", "AlbumId", "MediaTypeId", "GenreId", "Composer", "Milliseconds", "Bytes",
                "UnitPrice",
            ])
        #expect(
            columns.map(\.declaredType) == [
                "INTEGER", "NVARCHAR(200)", "INTEGER", "INTEGER", "INTEGER", "NVARCHAR(220)", "INTEGER", "INTEGER",
                "NUMERIC(10,2)",
            ])
        #expect(
            columns.filter(\.isNotNull).map(\.name) == ["TrackId", "Name", "MediaTypeId", "Milliseconds", "UnitPrice"])
        #expect(columns.filter(\.isPrimaryKey).map(\.name) == ["TrackId"])
        #expect(try db.indexNames(in: "Track") == ["IFK_TrackAlbumId", "IFK_TrackGenreId", "IFK_TrackMediaTypeId"])
        #expect(try db.indexNames(in: "PlaylistTrack").contains("sqlite_autoindex_PlaylistTrack_1"))
    }
}
