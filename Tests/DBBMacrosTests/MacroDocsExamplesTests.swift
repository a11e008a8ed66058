import DBBMacros
import DBBObjects
import DBBQuery
import DBBTestSupport
import Foundation
import Testing

// The macro examples of Docs/Mapping.md and Docs/ExistingDatabases.md, compiled and run. DBBObjectsTests' `docsMatchTheTests` finds the
// guide's blocks here.

/// Docs/ExistingDatabases.md's classes.
enum ExistingDatabasesGuide {
    @DBBTable(idColumn: "ArtistId", timestamps: false)
    final class Artist: DBBTableObject {
        @Column("Name") var name: String?
    }

    @DBBTable(idColumn: "AlbumId", timestamps: false)
    final class Album: DBBTableObject {
        @Column("Title") var title = ""
        @ForeignKey("ArtistId") var artist: Artist?
    }
}

enum MacroGuide {
    @DBBTable
    final class Person: DBBTableObject {
        var name = ""
    }

    @DBBTable
    final class Meeting: DBBTableObject {
        var purpose = ""
    }

    @DBBTable
    final class Project: DBBTableObject {
        @Indexed @Column("itemName") var name = ""
        @Unique var code = ""
        var startDate: Date?
        var budget: Float = 0
        var tags: [String] = []
        @CascadeDelete var meetings: [Meeting] = []
        var projectLead: Person?
        @Transient var isExpanded = false
    }

    @DBBTable(idColumn: "ArtistId", timestamps: false)
    final class Artist: DBBTableObject {
        @Column("Name") var name: String?
    }

    @DBBTable(name: "Album", idColumn: "AlbumId", timestamps: false)
    final class Record: DBBTableObject {
        @Column("Title") var title = ""
        @ForeignKey("ArtistId") var artist: Artist?
    }

    @DBBTable(indexes: [DBBIndexer(columnsToIndex: ["lastName", "firstName"], unique: true)])
    final class Member: DBBTableObject {
        var lastName = ""
        var firstName = ""
    }

    @DBBTable
    final class Timesheet: DBBTableObject {
        var owner: Person
        var hours = 0.0

        required init(dbManager: DBBManager) {
            owner = Person(dbManager: dbManager)
            super.init(dbManager: dbManager)
        }
    }

    enum LoanStatus: String, DBBPersistableValue {
        case active, returned, overdue
    }

    struct Address: DBBCodableValue {
        var street = ""
        var city = ""
    }

    @DBBTable
    final class Borrower: DBBTableObject {
        var name = ""
        var status = LoanStatus.active
        var history: [LoanStatus] = []
        var address = Address()
    }
}

@Suite struct MacroDocsExamplesTests {
    @Test func theGuidesMacroClassesSaveAndLoad() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("guide.sqlite"))
        try manager.addTableClasses([
            MacroGuide.Person.self, MacroGuide.Meeting.self, MacroGuide.Project.self, MacroGuide.Member.self,
            MacroGuide.Timesheet.self,
        ])
        let meeting = MacroGuide.Meeting(dbManager: manager)
        meeting.purpose = "Kick-off"
        try meeting.save()
        let project = MacroGuide.Project(dbManager: manager)
        project.name = "Apollo"
        project.code = "A"
        project.tags = ["space", "moon"]
        project.meetings = [meeting]
        project.isExpanded = true
        try project.save()
        let loaded = try #require(MacroGuide.Project.allInstances(manager: manager).first)
        #expect(loaded.name == "Apollo")
        #expect(loaded.tags == ["space", "moon"])
        #expect(loaded.meetings.map(\.purpose) == ["Kick-off"])
        #expect(loaded.isExpanded == false)
        let columns = try manager.queue.inDatabase { db in try db.columns(in: "Project").map(\.name) }
        #expect(columns == ["id", "createdTime", "modifiedTime", "budget", "code", "itemName", "startDate"])

        let sheet = MacroGuide.Timesheet(dbManager: manager)
        sheet.owner.name = "Ada"
        try sheet.owner.save()
        sheet.hours = 7.5
        try sheet.save()
        let loadedSheet = try #require(try MacroGuide.Timesheet.fetchOne(id: sheet.idNum, manager: manager))
        #expect(loadedSheet.owner.name == "Ada")
        #expect(loadedSheet.hours == 7.5)

        let member = MacroGuide.Member(dbManager: manager)
        member.lastName = "Lovelace"
        try member.save()
        let twin = MacroGuide.Member(dbManager: manager)
        twin.lastName = "Lovelace"
        #expect(throws: DBBError.self) { try twin.save() }
        try MacroGuide.Project.delete([loaded], manager: manager)
        #expect(manager.countForTable("Meeting") == 0)
    }

    @Test func theGuidesEnumAndCodablePropertiesSaveAndQuery() throws {
        typealias Borrower = MacroGuide.Borrower
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("borrowers.sqlite"))
        try manager.addTableClasses([Borrower.self])
        let ann = Borrower(dbManager: manager)
        ann.name = "Ann"
        ann.status = .overdue
        ann.history = [.active, .overdue]
        ann.address = MacroGuide.Address(street: "1 Main St", city: "Springfield")
        let bo = Borrower(dbManager: manager)
        bo.name = "Bo"
        try Borrower.save([ann, bo], manager: manager)

        var options = DBBQueryOptions()
        options.filter(\Borrower.status == .overdue)
        let overdue = try Borrower.fetch(options: options, manager: manager)
        #expect(overdue.map(\.name) == ["Ann"])
        #expect(overdue.first?.history == [.active, .overdue])
        #expect(overdue.first?.address.city == "Springfield")
    }

    @Test func existingDatabasesGuide() throws {
        typealias Artist = ExistingDatabasesGuide.Artist
        typealias Album = ExistingDatabasesGuide.Album
        let folder = try TemporaryFolder()
        let chinookCopy = try copyOfFixture("chinook.sqlite", into: folder)
        let manager = try DBBManager(databaseURL: chinookCopy)
        try manager.addTableClasses([Artist.self, Album.self])
        let album = try Album.fetchOne(id: 1, manager: manager)
        // album?.title is "For Those About To Rock We Salute You", album?.artist?.name is "AC/DC"
        #expect(album?.title == "For Those About To Rock We Salute You")
        #expect(album?.artist?.name == "AC/DC")
        // Registration changed nothing: no timestamp columns, no join tables.
        let columns = try manager.queue.inDatabase { db in try db.columns(in: "Album").map(\.name) }
        #expect(columns == ["AlbumId", "Title", "ArtistId"])
    }

    @Test func theGuidesRecordReadsChinooksAlbums() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: try copyOfFixture("chinook.sqlite", into: folder))
        try manager.addTableClasses([MacroGuide.Artist.self, MacroGuide.Record.self])
        let record = try #require(try MacroGuide.Record.fetchOne(id: 1, manager: manager))
        #expect(record.title == "For Those About To Rock We Salute You")
        #expect(record.artist?.name == "AC/DC")
    }
}
