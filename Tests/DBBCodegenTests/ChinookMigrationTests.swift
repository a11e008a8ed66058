import DBBBuilder
import Foundation
import Testing

// The next release of two of the generated Chinook classes (`Generated/Chinook.swift`): `Track.composer` renamed
// `writer` and its length in seconds instead of milliseconds; `Customer`'s address split into a class of its own.

@DBBTable(name: "Track", idColumn: "TrackId", timestamps: false)
final class MigratedTrack: DBBTableObject {
    @Column("Name") var name = ""
    @ForeignKey("AlbumId") var album: Album?
    @ForeignKey("MediaTypeId") var mediaType: MediaType?
    @ForeignKey("GenreId") var genre: Genre?
    @Column("Writer") var writer: String?
    @Column("Seconds") var seconds = 0.0
    @Column("Bytes") var bytes: Int?
    @Column("UnitPrice") var unitPrice = 0.0
}

@DBBTable(name: "Customer", idColumn: "CustomerId", timestamps: false)
final class MigratedCustomer: DBBTableObject {
    @Column("FirstName") var firstName = ""
    @Column("LastName") var lastName = ""
    @Column("Company") var company: String?
    @Column("Phone") var phone: String?
    @Column("Fax") var fax: String?
    @Column("Email") var email = ""
    @ForeignKey("SupportRepId") var supportRep: Employee?
}

@DBBTable(name: "CustomerAddress", idColumn: "CustomerAddressId", timestamps: false)
final class CustomerAddress: DBBTableObject {
    @ForeignKey("CustomerId") var customer: MigratedCustomer?
    @Column("Address") var address: String?
    @Column("City") var city: String?
    @Column("Country") var country: String?
}

@Suite struct ChinookMigrationTests {
    static let migrator: DBBMigrator = {
        var migrator = DBBMigrator()
        migrator.registerMigration(
            "Track: composer renamed writer, milliseconds as seconds",
            [
                .renameProperty("Composer", to: "Writer", in: "Track"),
                .changeType(of: "Milliseconds", in: "Track", to: .float) { value in
                    value.int64Value.map { Double($0) / 1000 }
                },
                .renameProperty("Milliseconds", to: "Seconds", in: "Track"),
            ])
        migrator.registerMigration(
            "Customer's address in a class of its own",
            [
                .sql(
                    """
                    CREATE TABLE CustomerAddress (CustomerAddressId INTEGER PRIMARY KEY,
                        CustomerId INTEGER NOT NULL REFERENCES Customer (CustomerId), Address NVARCHAR(70),
                        City NVARCHAR(40), Country NVARCHAR(40));
                    INSERT INTO CustomerAddress (CustomerId, Address, City, Country)
                        SELECT CustomerId, Address, City, Country FROM Customer ORDER BY CustomerId;
                    """),
                .dropProperty("Address", in: "Customer"), .dropProperty("City", in: "Customer"),
                .dropProperty("State", in: "Customer"), .dropProperty("Country", in: "Customer"),
                .dropProperty("PostalCode", in: "Customer"),
            ])
        return migrator
    }()

    @Test func theMigratedFileHoldsEveryRowAndTheNextReleasesClassesReadIt() throws {
        let folder = try TemporaryFolder()
        let url = try copyOfFixture("chinook.sqlite", into: folder)
        let original = try DBBDatabase(path: try fixture("chinook.sqlite").path, mode: .readOnly)
        defer { try? original.close() }
        let composers = try original.fetchValues(String?.self, "SELECT Composer FROM Track ORDER BY TrackId")
        let milliseconds = try original.fetchValues(Int.self, "SELECT Milliseconds FROM Track ORDER BY TrackId")
        let cities = try original.fetchValues(String?.self, "SELECT City FROM Customer ORDER BY CustomerId")
        let manager = try DBBManager(databaseURL: url)
        let report = try Self.migrator.migrate(manager)
        #expect(report.applied.count == 2)
        try manager.addTableClasses([
            Album.self, Artist.self, Employee.self, Genre.self, MediaType.self, MigratedTrack.self,
            MigratedCustomer.self, CustomerAddress.self,
        ])
        #expect(manager.registrationWarnings.isEmpty)
        let tracks = try MigratedTrack.fetchAll(manager: manager)
        #expect(tracks.count == 3503)
        #expect(tracks.map(\.writer) == composers)
        #expect(tracks.map(\.seconds) == milliseconds.map { Double($0) / 1000 })
        #expect(tracks.first?.album?.title == "For Those About To Rock We Salute You")
        let addresses = try CustomerAddress.fetchAll(manager: manager)
        #expect(addresses.map(\.city) == cities)
        #expect(addresses.first?.customer?.lastName == "Gonçalves")
        #expect(try MigratedCustomer.fetchCount(manager: manager) == 59)
        // The tables' keys, foreign keys and indexes are those of the original file.
        try manager.queue.inDatabase { db in
            #expect(try db.fetchValues(String.self, "PRAGMA integrity_check") == ["ok"])
            #expect(try db.fetchDictionary("PRAGMA foreign_key_check").isEmpty)
            #expect(try db.indexNames(in: "Track").filter { $0.hasPrefix("IFK_") }.count == 3)
            #expect(try db.indexNames(in: "Customer") == ["IFK_CustomerSupportRepId"])
            let track = try db.fetchValue(String.self, "SELECT sql FROM sqlite_schema WHERE name = 'Track'") ?? ""
            #expect(track.contains("CONSTRAINT [PK_Track] PRIMARY KEY ([TrackId])"))
            #expect(track.contains("REFERENCES [MediaType] ([MediaTypeId])"))
            let seconds = try db.columns(in: "Track").first { $0.name == "Seconds" }
            #expect(seconds?.declaredType.uppercased() == "REAL" && seconds?.isNotNull == true)
            #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM InvoiceLine JOIN Track USING (TrackId)") == 2240)
        }
    }

    @Test func theToolWritesTheMigratedClassesFromTheMigratedFile() throws {
        let folder = try TemporaryFolder()
        let url = try copyOfFixture("chinook.sqlite", into: folder)
        let manager = try DBBManager(databaseURL: url)
        try Self.migrator.migrate(manager)
        try manager.close()
        let run = try Codegen.run(["--database", url.path, "--table", "Track"])
        #expect(run.exitCode == 0, "\(run.standardError)")
        #expect(run.standardOutput.contains("@Column(\"Writer\") var writer: String?"))
        #expect(run.standardOutput.contains("@Column(\"Seconds\") var seconds = 0.0"))
        #expect(!run.standardOutput.contains("Composer"))
    }
}
