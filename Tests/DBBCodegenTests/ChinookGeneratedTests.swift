import DBBBuilder
import Foundation
import Testing

/// A copy of chinook.sqlite in a temporary folder, opened by a manager with the generated classes of
/// `Generated/Chinook.swift` registered.
struct ChinookCopy {
    static let classes: [DBBTableObject.Type] = [
        Album.self, Artist.self, Customer.self, Employee.self, Genre.self, Invoice.self, InvoiceLine.self,
        MediaType.self, Playlist.self, PlaylistTrack.self, Track.self,
    ]

    let folder: TemporaryFolder
    let url: URL
    let manager: DBBManager

    init() throws {
        folder = try TemporaryFolder()
        url = try copyOfFixture("chinook.sqlite", into: folder)
        manager = try DBBManager(databaseURL: url)
        try manager.addTableClasses(Self.classes)
    }

    func sqlite(_ sql: String) throws -> String { try sqlite3Shell(url, sql) }
}

/// The generated Chinook classes (`Generated/Chinook.swift`), compiled with the tests, kept equal to the
/// tool's output, and used on a copy of the real database.
@Suite struct ChinookGeneratedTests {
    @Test func theCommittedFileIsTheToolsOutputByteForByte() throws {
        let run = try Codegen.run(["--database", Codegen.chinook.path, "--all-tables"])
        #expect(run.exitCode == 0)
        let committed = try Data(contentsOf: Codegen.generatedFolder.appendingPathComponent("Chinook.swift"))
        #expect(Data(run.standardOutput.utf8) == committed)
        #expect(
            run.standardError
                == "dbb-codegen: note: class PlaylistTrack uses the rowid of table PlaylistTrack as its id: its "
                + "primary key is composite (PlaylistId, TrackId)\n")
    }

    @Test func everyTableLoadsEveryRowAndWritesItBackUnchanged() throws {
        let result = try GeneratedTablesCheck.run(fixture: "chinook.sqlite", classes: ChinookCopy.classes)
        #expect(result.problems == [])
        #expect(result.tables.count == 11)
        #expect(result.tables.map(\.rows).reduce(0, +) == 15_607)
    }

    @Test func aCompositeKeyTableIsMappedThroughItsRowid() throws {
        let chinook = try ChinookCopy()
        #expect(PlaylistTrack.idColumnName == "rowid")
        let entries = try PlaylistTrack.fetch(
            options: .options(withConditions: ["playlist = 1"], sortColumns: ["track"]), manager: chinook.manager)
        #expect(entries.count == 3290)
        #expect(entries.first?.track?.name == "For Those About To Rock (We Salute You)")
        #expect(entries.first?.playlist?.name == "Music")
        let rowid = try chinook.sqlite(
            "SELECT rowid FROM PlaylistTrack WHERE PlaylistId = 1 ORDER BY TrackId LIMIT 1")
        #expect(entries.first.map { String($0.idNum) } == rowid)

        // A new entry takes the next rowid; the composite key still refuses a duplicate.
        let entry = PlaylistTrack(dbManager: chinook.manager)
        entry.playlist = entries.first?.playlist
        entry.track = try Track.fetchOne(id: 2819, manager: chinook.manager)
        try entry.save()
        #expect(entry.idNum == 8716)
        #expect(try chinook.sqlite("SELECT PlaylistId, TrackId FROM PlaylistTrack WHERE rowid = 8716") == "1|2819")
        let duplicate = PlaylistTrack(dbManager: chinook.manager)
        duplicate.playlist = entry.playlist
        duplicate.track = entry.track
        #expect(throws: DBBError.self) { try duplicate.save() }
        #expect(try chinook.sqlite("SELECT count(*) FROM PlaylistTrack") == "8716")
    }

    @Test func theGeneratedClassesDescribeTheExistingTables() {
        #expect(Album.tableName == "Album")
        #expect(Album.idColumnName == "AlbumId")
        #expect(!Album.hasTimestampColumns)
        #expect(InvoiceLine.idColumnName == "InvoiceLineId")
        #expect(Track.idColumnName == "TrackId")
    }

    @Test func registeringChangesNoExistingTable() throws {
        let schemaSQL =
            "SELECT type || ' ' || name || ' ' || ifnull(sql, '') FROM sqlite_master "
            + "WHERE name NOT LIKE 'DBVersion%' AND name NOT LIKE 'sqlite_%' ORDER BY name"
        let before = try sqlite3Shell(Codegen.chinook, schemaSQL)
        let chinook = try ChinookCopy()
        #expect(try chinook.sqlite(schemaSQL) == before)
        #expect(before.contains("CREATE TABLE [Album]"))
    }

    @Test func readsRowCounts() throws {
        let chinook = try ChinookCopy()
        let manager = chinook.manager
        #expect(Album.allInstances(manager: manager).count == 347)
        #expect(Artist.allInstances(manager: manager).count == 275)
        #expect(Track.allInstances(manager: manager).count == 3503)
        #expect(Employee.allInstances(manager: manager).count == 8)
        #expect(Invoice.allInstances(manager: manager).count == 412)
        #expect(manager.countForTable("Customer") == 59)
        #expect(manager.countForTable("InvoiceLine") == 2240)
    }

    @Test func readsAnAlbumAndItsArtistThroughTheReference() throws {
        let chinook = try ChinookCopy()
        let album = try #require(try Album.fetchOne(id: 1, manager: chinook.manager))
        #expect(album.title == "For Those About To Rock We Salute You")
        #expect(album.artist?.idNum == 1)
        #expect(album.artist?.name == "AC/DC")
    }

    @Test func readsATrackWithItsGenreMediaTypeAndAlbum() throws {
        let chinook = try ChinookCopy()
        let track = try #require(try Track.fetchOne(id: 1, manager: chinook.manager))
        #expect(track.name == "For Those About To Rock (We Salute You)")
        #expect(track.genre?.name == "Rock")
        #expect(track.mediaType?.name == "MPEG audio file")
        #expect(track.album?.title == "For Those About To Rock We Salute You")
        #expect(track.composer == "Angus Young, Malcolm Young, Brian Johnson")
        #expect(track.milliseconds == 343_719)
        #expect(track.bytes == 11_170_334)
        #expect(track.unitPrice == 0.99)
    }

    @Test func readsAnInvoiceLineThroughTwoReferencesAndQueriesByForeignKey() throws {
        let chinook = try ChinookCopy()
        let manager = chinook.manager
        let line = try #require(try InvoiceLine.fetchOne(id: 1, manager: manager))
        #expect(line.invoice?.idNum == 1)
        #expect(line.track?.name == "Balls to the Wall")
        #expect(line.track?.genre?.name == "Rock")
        #expect(line.unitPrice == 0.99)
        #expect(line.quantity == 1)

        let rock = DBBQueryOptions.options(withConditions: ["genre = 1"])
        #expect(try Track.fetch(options: rock, manager: manager).count == 1297)
        #expect(try Playlist.fetchOne(id: 1, manager: manager)?.name == "Music")
    }

    @Test func readsDateTimeTextAndSelfReferences() throws {
        let chinook = try ChinookCopy()
        let employee = try #require(try Employee.fetchOne(id: 2, manager: chinook.manager))
        #expect(employee.firstName == "Nancy")
        #expect(employee.birthDate == "1958-12-08 00:00:00")
        #expect(employee.hireDate == "2002-05-01 00:00:00")
        #expect(employee.reportsTo?.firstName == "Andrew")
        #expect(employee.reportsTo?.reportsTo == nil)

        let invoice = try #require(try Invoice.fetchOne(id: 1, manager: chinook.manager))
        #expect(invoice.invoiceDate == "2021-01-01 00:00:00")
        #expect(invoice.total == 1.98)
        #expect(invoice.customer?.idNum == 2)
        #expect(invoice.customer?.lastName == "Köhler")
        #expect(invoice.customer?.supportRep?.firstName == "Steve")

        let customer = try #require(try Customer.fetchOne(id: 1, manager: chinook.manager))
        #expect(customer.firstName == "Luís")
        #expect(customer.company == "Embraer - Empresa Brasileira de Aeronáutica S.A.")
        #expect(customer.supportRep?.lastName == "Peacock")
    }

    @Test func updatesARowAndKeepsTheDateTextFormat() throws {
        let chinook = try ChinookCopy()
        let manager = chinook.manager
        let album = try #require(try Album.fetchOne(id: 1, manager: manager))
        album.title = "For Those About To Rock"
        try album.save()
        #expect(
            try chinook.sqlite("SELECT Title, ArtistId FROM Album WHERE AlbumId = 1") == "For Those About To Rock|1")

        let invoice = try #require(try Invoice.fetchOne(id: 1, manager: manager))
        invoice.invoiceDate = "2021-01-02 10:30:00"
        invoice.total = 2.97
        try invoice.save()
        #expect(
            try chinook.sqlite(
                "SELECT InvoiceDate, typeof(InvoiceDate), Total, CustomerId FROM Invoice WHERE InvoiceId = 1")
                == "2021-01-02 10:30:00|text|2.97|2")
        #expect(try chinook.sqlite("SELECT count(*) FROM Album") == "347")
    }

    @Test func insertsRowsThatReferToEachOther() throws {
        let chinook = try ChinookCopy()
        let manager = chinook.manager
        let artist = Artist(dbManager: manager)
        artist.name = "The Generated"
        let album = Album(dbManager: manager)
        album.title = "Boilerplate"
        album.artist = artist
        try artist.save()
        try album.save()
        #expect(artist.idNum == 276)
        #expect(album.idNum == 348)
        #expect(
            try chinook.sqlite("SELECT a.Title, r.Name FROM Album a JOIN Artist r USING (ArtistId) WHERE AlbumId = 348")
                == "Boilerplate|The Generated")
        let reloaded = try #require(try Album.fetchOne(id: 348, manager: manager))
        #expect(reloaded.artist?.name == "The Generated")
    }
}
