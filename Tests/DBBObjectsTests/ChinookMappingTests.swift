import DBBObjects
import Foundation
import Testing

/// Classes mapped onto the Chinook sample database's own tables: their own table and id column names, no
/// timestamp columns, and references stored as foreign key columns. Nested in an enum so their names do
/// not collide with the other tests' models; the table name is still the class's own name.
enum Chinook {
    final class Artist: DBBTableObject {
        var name: String?

        override class var idColumnName: String { "ArtistId" }
        override class var hasTimestampColumns: Bool { false }

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["name": .init(\Artist.name, columnName: "Name")], for: self)
        }
    }

    final class Album: DBBTableObject {
        var title = ""
        var artist: Artist?

        override class var idColumnName: String { "AlbumId" }
        override class var hasTimestampColumns: Bool { false }

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                [
                    "title": .init(\Album.title, columnName: "Title"),
                    "artist": .init(\Album.artist, columnName: "ArtistId", foreignKey: true),
                ], for: self)
        }
    }

    final class Genre: DBBTableObject {
        var name: String?

        override class var idColumnName: String { "GenreId" }
        override class var hasTimestampColumns: Bool { false }

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["name": .init(\Genre.name, columnName: "Name")], for: self)
        }
    }

    final class MediaType: DBBTableObject {
        var name: String?

        override class var idColumnName: String { "MediaTypeId" }
        override class var hasTimestampColumns: Bool { false }

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["name": .init(\MediaType.name, columnName: "Name")], for: self)
        }
    }

    final class Track: DBBTableObject {
        var name = ""
        var album: Album?
        var genre: Genre?
        var mediaType: MediaType?
        var composer: String?
        var milliseconds = 0
        var bytes: Int?
        var unitPrice = 0.0

        override class var idColumnName: String { "TrackId" }
        override class var hasTimestampColumns: Bool { false }

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                [
                    "name": .init(\Track.name, columnName: "Name"),
                    "album": .init(\Track.album, columnName: "AlbumId", foreignKey: true),
                    "genre": .init(\Track.genre, columnName: "GenreId", foreignKey: true),
                    "mediaType": .init(\Track.mediaType, columnName: "MediaTypeId", foreignKey: true),
                    "composer": .init(\Track.composer, columnName: "Composer"),
                    "milliseconds": .init(\Track.milliseconds, columnName: "Milliseconds"),
                    "bytes": .init(\Track.bytes, columnName: "Bytes"),
                    "unitPrice": .init(\Track.unitPrice, columnName: "UnitPrice"),
                ], for: self)
        }
    }

    static let classes: [DBBTableObject.Type] = [Artist.self, Album.self, Genre.self, MediaType.self, Track.self]

    /// Employees report to employees: a foreign key column onto its own table.
    final class Employee: DBBTableObject {
        var lastName = ""
        var firstName = ""
        var title: String?
        var reportsTo: Employee?
        var birthDate: Date?

        override class var idColumnName: String { "EmployeeId" }
        override class var hasTimestampColumns: Bool { false }

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                [
                    "lastName": .init(\Employee.lastName, columnName: "LastName"),
                    "firstName": .init(\Employee.firstName, columnName: "FirstName"),
                    "title": .init(\Employee.title, columnName: "Title"),
                    "reportsTo": .init(\Employee.reportsTo, columnName: "ReportsTo", foreignKey: true),
                    "birthDate": .init(\Employee.birthDate, columnName: "BirthDate"),
                ], for: self)
        }
    }

    /// The Artist table with one property more than the database has.
    final class ArtistWithCountry: DBBTableObject {
        var name: String?
        var country: String?

        override class var tableName: String { "Artist" }
        override class var idColumnName: String { "ArtistId" }
        override class var hasTimestampColumns: Bool { false }

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                [
                    "name": .init(\ArtistWithCountry.name, columnName: "Name"),
                    "country": .init(\ArtistWithCountry.country),
                ],
                for: self)
        }
    }

    /// The Track table mapped wrongly: its `Name` column holds text, not numbers.
    final class NumberedTrack: DBBTableObject {
        var number = 0
        var length = 0

        override class var tableName: String { "Track" }
        override class var idColumnName: String { "TrackId" }
        override class var hasTimestampColumns: Bool { false }

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                [
                    "length": .init(\NumberedTrack.length, columnName: "Duration"),
                    "number": .init(\NumberedTrack.number, columnName: "Name"),
                ], for: self)
        }
    }
}

/// A copy of chinook.sqlite in a temporary folder, opened by a manager.
struct ChinookCopy: ManagerHolder {
    let folder: TemporaryFolder
    let url: URL
    let manager: DBBManager

    init() throws {
        folder = try TemporaryFolder()
        url = try copyOfFixture("chinook.sqlite", into: folder)
        manager = try DBBManager(databaseURL: url)
    }

    /// Every schema object's type, name and SQL text.
    func schema() throws -> [String] {
        try sql { db in
            try db.fetchValues(
                String.self, "SELECT type || ' ' || name || ' ' || ifnull(sql, '') FROM sqlite_master ORDER BY name")
        }
    }
}

@Suite struct ChinookMappingTests {
    typealias Artist = Chinook.Artist
    typealias Album = Chinook.Album
    typealias Track = Chinook.Track

    @Test func registeringChangesNoExistingTable() throws {
        let chinook = try ChinookCopy()
        let before = try chinook.schema()
        let statements = try chinook.statements { try chinook.manager.addTableClasses(Chinook.classes) }
        #expect(try chinook.schema() == before)
        #expect(!statements.contains { $0.hasPrefix("CREATE") || $0.hasPrefix("ALTER") || $0.hasPrefix("DROP") })
        #expect(Artist.tableName == "Artist")
        #expect(Track.tableName == "Track")
    }

    @Test func readsRealRows() throws {
        let chinook = try ChinookCopy()
        let manager = chinook.manager
        try manager.addTableClasses(Chinook.classes)
        #expect(manager.countForTable("Artist") == 275)
        #expect(manager.countForTable("Album") == 347)
        #expect(manager.countForTable("Track") == 3503)
        #expect(manager.countForTable("Genre") == 25)
        #expect(manager.countForTable("MediaType") == 5)
        #expect(Artist.allInstances(manager: manager).count == 275)

        let album = try #require(try Album.fetchOne(id: 1, manager: manager))
        #expect(album.title == "For Those About To Rock We Salute You")
        #expect(album.artist?.name == "AC/DC")
        #expect(album.artist?.idNum == 1)

        let albums = Album.allInstances(manager: manager)
        #expect(albums.count == 347)
        let acdc = albums.filter { $0.artist?.idNum == 1 }
        #expect(acdc.map(\.title) == ["For Those About To Rock We Salute You", "Let There Be Rock"])
        #expect(acdc[0].artist === acdc[1].artist)  // one object per row within a fetch

        let tracks = try Track.fetch(ids: [1, 3503], manager: manager)
        #expect(tracks.map(\.name) == ["For Those About To Rock (We Salute You)", "Koyaanisqatsi"])
        let first = tracks[0]
        #expect(first.album?.title == "For Those About To Rock We Salute You")
        #expect(first.album?.artist?.name == "AC/DC")
        #expect(first.genre?.name == "Rock")
        #expect(first.mediaType?.name == "MPEG audio file")
        #expect(first.composer == "Angus Young, Malcolm Young, Brian Johnson")
        #expect(first.milliseconds == 343_719)
        #expect(first.bytes == 11_170_334)
        #expect(first.unitPrice == 0.99)
        let last = tracks[1]
        #expect(last.album?.title == "Koyaanisqatsi (Soundtrack from the Motion Picture)")
        #expect(last.genre?.name == "Soundtrack")
        #expect(last.mediaType?.name == "Protected AAC audio file")
        #expect(last.composer == "Philip Glass")

        // Nullable columns: tracks without a composer load as nil.
        let withoutComposer = Track.allInstances(manager: manager).filter { $0.composer == nil }.count
        #expect(withoutComposer == 977)
        #expect(
            try chinook.sql { try $0.fetchValue(Int.self, "SELECT count(*) FROM Track WHERE Composer IS NULL") } == 977)
    }

    @Test func savesNewRowsAndUpdates() throws {
        let chinook = try ChinookCopy()
        let manager = chinook.manager
        try manager.addTableClasses(Chinook.classes)
        let (lastArtist, lastAlbum, lastTrack) = try chinook.sql { db in
            (
                try db.fetchValue(Int64.self, "SELECT max(ArtistId) FROM Artist") ?? 0,
                try db.fetchValue(Int64.self, "SELECT max(AlbumId) FROM Album") ?? 0,
                try db.fetchValue(Int64.self, "SELECT max(TrackId) FROM Track") ?? 0
            )
        }
        let rock = try #require(try Chinook.Genre.fetchOne(id: 1, manager: manager))
        let mpeg = try #require(try Chinook.MediaType.fetchOne(id: 1, manager: manager))

        let artist = Artist(dbManager: manager)
        artist.name = "The Swift Ensemble"
        let album = Album(dbManager: manager)
        album.title = "Key Paths"
        album.artist = artist
        let track = Track(dbManager: manager)
        track.name = "Projection"
        track.album = album
        track.genre = rock
        track.mediaType = mpeg
        track.milliseconds = 250_000
        track.unitPrice = 1.29
        // Saving the track saves the new album and artist it references, in one transaction.
        try track.save()
        #expect(artist.idNum == lastArtist + 1 && album.idNum == lastAlbum + 1 && track.idNum == lastTrack + 1)
        #expect(manager.countForTable("Track") == 3504)

        let row = try chinook.sql { db in
            try db.fetchDictionary(
                "SELECT t.Name, t.AlbumId, a.Title, a.ArtistId, r.Name AS Artist, t.GenreId, t.MediaTypeId, t.Composer, "
                    + "t.Milliseconds, t.Bytes, t.UnitPrice FROM Track t JOIN Album a USING (AlbumId) "
                    + "JOIN Artist r USING (ArtistId) WHERE TrackId = ?", track.idNum)
        }
        #expect(
            row == [
                [
                    "Name": .text("Projection"), "AlbumId": .integer(album.idNum), "Title": .text("Key Paths"),
                    "ArtistId": .integer(artist.idNum), "Artist": .text("The Swift Ensemble"), "GenreId": .integer(1),
                    "MediaTypeId": .integer(1), "Composer": .null, "Milliseconds": .integer(250_000), "Bytes": .null,
                    "UnitPrice": .real(1.29),
                ]
            ])

        // Read back through a second manager, so nothing comes from memory.
        let reader = try DBBManager(databaseURL: chinook.url)
        try reader.addTableClasses(Chinook.classes)
        let loaded = try #require(try Track.fetchOne(id: track.idNum, manager: reader))
        #expect(loaded.name == "Projection")
        #expect(loaded.album?.title == "Key Paths")
        #expect(loaded.album?.artist?.name == "The Swift Ensemble")
        #expect(loaded.genre?.name == "Rock")
        #expect(loaded.composer == nil && loaded.bytes == nil)
        #expect(loaded.unitPrice == 1.29)

        // Update an existing row.
        let balls = try #require(try Track.fetchOne(id: 3, manager: manager))
        let oldName = balls.name
        balls.composer = "Udo Dirkschneider"
        balls.milliseconds += 1
        try balls.save()
        let updated = try chinook.sql { db in
            try db.fetchDictionary("SELECT Name, Composer, Milliseconds, AlbumId FROM Track WHERE TrackId = 3")
        }
        #expect(
            updated == [
                [
                    "Name": .text(oldName), "Composer": .text("Udo Dirkschneider"), "Milliseconds": .integer(230_620),
                    "AlbumId": .integer(3),
                ]
            ])
        #expect(manager.countForTable("Track") == 3504)
    }

    @Test func registeringAnExtraPropertyAddsOneColumn() throws {
        let chinook = try ChinookCopy()
        let before = try chinook.sql { try $0.columns(in: "Artist") }
        let tablesBefore = try chinook.sql { try $0.tableNames() }
        let statements = try chinook.statements {
            try chinook.manager.addTableClasses([Chinook.ArtistWithCountry.self])
        }
        #expect(statements.filter { $0.hasPrefix("ALTER") } == ["ALTER TABLE Artist ADD COLUMN country Text"])
        #expect(!statements.contains { $0.hasPrefix("DROP") || $0.hasPrefix("CREATE TABLE") })
        let after = try chinook.sql { try $0.columns(in: "Artist") }
        #expect(Array(after.prefix(before.count)) == before)
        #expect(after.dropFirst(before.count).map(\.name) == ["country"])
        #expect(try chinook.sql { try $0.tableNames() } == tablesBefore)
        #expect(chinook.manager.countForTable("Artist") == 275)

        let artist = try #require(try Chinook.ArtistWithCountry.fetchOne(id: 1, manager: chinook.manager))
        #expect(artist.name == "AC/DC" && artist.country == nil)
        artist.country = "Australia"
        try artist.save()

        #expect(try chinook.sql { try $0.fetchValue(String.self, "PRAGMA integrity_check") } == "ok")
        // The sqlite3 shell, another program, reads the file we wrote.
        #expect(try sqlite3Shell(chinook.url, "SELECT count(*) FROM Track") == "3503")
        #expect(
            try sqlite3Shell(chinook.url, "SELECT Name || '|' || country FROM Artist WHERE ArtistId = 1")
                == "AC/DC|Australia")
        #expect(try sqlite3Shell(chinook.url, "PRAGMA integrity_check") == "ok")
    }

    @Test func conflictingMappingIsAnErrorAndChangesNothing() throws {
        let chinook = try ChinookCopy()
        let before = try chinook.schema()
        let error = #expect(throws: DBBError.self) {
            try chinook.manager.addTableClasses([Chinook.NumberedTrack.self])
        }
        #expect(error?.resultCode == .mismatch)
        #expect(error?.message == "column Track.Name is declared NVARCHAR(200) but property number stores Integer")
        // The message names the migration step that is probably missing.
        #expect(
            chinook.manager.errorMessage()
                == "column Track.Name is declared NVARCHAR(200) but property number stores Integer; if the property's "
                + "type changed, run a migration first: .changeType(of: \"Name\", in: \"Track\", to: …)")
        // Not even the column for `length`, which sorts before `number`, was added.
        #expect(try chinook.schema() == before)
        #expect(throws: DBBError.self) { try Chinook.NumberedTrack.fetchAll(manager: chinook.manager) }
        #expect(try sqlite3Shell(chinook.url, "PRAGMA integrity_check") == "ok")
    }

    @Test func selfReferencingForeignKeys() throws {
        let chinook = try ChinookCopy()
        let manager = chinook.manager
        let before = try chinook.schema()
        try manager.addTableClasses([Chinook.Employee.self])
        #expect(try chinook.schema() == before)

        let jane = try #require(try Chinook.Employee.fetchOne(id: 3, manager: manager))
        #expect(jane.firstName == "Jane" && jane.lastName == "Peacock" && jane.title == "Sales Support Agent")
        #expect(jane.reportsTo?.lastName == "Edwards")
        #expect(jane.reportsTo?.reportsTo?.lastName == "Adams")
        #expect(jane.reportsTo?.reportsTo?.reportsTo == nil)
        // Chinook stores dates as text ("1973-08-29 00:00:00"); they read as UTC dates.
        var calendar = Calendar(identifier: .gregorian)
        calendar.timeZone = TimeZone(identifier: "UTC")!
        #expect(jane.birthDate == calendar.date(from: DateComponents(year: 1973, month: 8, day: 29)))

        // A chain of new objects: the boss is written before the employee whose ReportsTo points at them.
        let lastEmployee =
            try chinook.sql { try $0.fetchValue(Int64.self, "SELECT max(EmployeeId) FROM Employee") } ?? 0
        let boss = Chinook.Employee(dbManager: manager)
        boss.lastName = "Boss"
        boss.firstName = "Bea"
        let worker = Chinook.Employee(dbManager: manager)
        worker.lastName = "Worker"
        worker.firstName = "Wim"
        worker.reportsTo = boss
        try worker.save()
        #expect(boss.idNum == lastEmployee + 1 && worker.idNum == lastEmployee + 2)
        // A cycle: each reports to the other; the second foreign key is set by the fix-up pass.
        let left = Chinook.Employee(dbManager: manager)
        left.lastName = "Left"
        left.firstName = "Lou"
        let right = Chinook.Employee(dbManager: manager)
        right.lastName = "Right"
        right.firstName = "Rae"
        left.reportsTo = right
        right.reportsTo = left
        try Chinook.Employee.save([left, right], manager: manager)
        let reports = try chinook.sql { db in
            try db.fetchValues(
                String.self,
                "SELECT EmployeeId || '>' || ifnull(ReportsTo, '-') FROM Employee WHERE EmployeeId > ? ORDER BY EmployeeId",
                lastEmployee)
        }
        // Within a cycle the insert order is not specified; compare as a set.
        #expect(
            Set(reports) == [
                "\(boss.idNum)>-", "\(worker.idNum)>\(boss.idNum)", "\(left.idNum)>\(right.idNum)",
                "\(right.idNum)>\(left.idNum)",
            ])
        #expect(try chinook.sql { try $0.fetchValue(String.self, "PRAGMA foreign_key_check") } == nil)
    }
}
