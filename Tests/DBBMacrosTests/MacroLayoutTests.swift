import DBBMacros
import DBBObjects
import DBBTestSupport
import Foundation
import Testing

/// The DESIGN's Project/Person/Meeting model twice: mapped with key paths from the initializer, and with the
/// macro. Both must write the same tables, columns, join tables and indexes: DBBBuilder's layout.
enum KeyPathTwins {
    final class Person: DBBTableObject {
        var name = ""
        var age = 0

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["name": .init(\Person.name), "age": .init(\Person.age)], for: self)
        }
    }

    final class Meeting: DBBTableObject {
        var purpose = ""
        var startTime: Date?
        var participants: [Person] = []

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            attributesDictionary = ["purpose": ColumnAttribute.notNull]
            dbManager.addPersistenceMapping(
                [
                    "purpose": .init(\Meeting.purpose), "startTime": .init(\Meeting.startTime),
                    "participants": .init(\Meeting.participants),
                ], for: self)
        }
    }

    final class Project: DBBTableObject {
        var name = ""
        var code = ""
        var startDate: Date?
        var budget: Float = 0
        var meetings: [Meeting] = []
        var tags: [String] = []
        var subProject: Project?
        var projectLead: Person?
        var logo: Data?

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            attributesDictionary = ["code": ColumnAttribute.unique, "meetings": ColumnAttribute.cascadingDeletion]
            dbManager.addPersistenceMapping(
                [
                    "name": .init(\Project.name, columnName: "itemName"),
                    "code": .init(\Project.code),
                    "startDate": .init(\Project.startDate),
                    "budget": .init(\Project.budget),
                    "meetings": .init(\Project.meetings),
                    "tags": .init(\Project.tags),
                    "subProject": .init(\Project.subProject),
                    "projectLead": .init(\Project.projectLead),
                    "logo": .init(\Project.logo),
                ], for: self, indexer: DBBIndexer(columnsToIndex: ["name"]))
        }
    }
}

enum MacroTwins {
    @DBBTable(name: "Person")
    final class MPerson: DBBTableObject {
        var name = ""
        var age = 0
    }

    @DBBTable(name: "Meeting")
    final class MMeeting: DBBTableObject {
        @NotNull var purpose = ""
        var startTime: Date?
        var participants: [MPerson] = []
    }

    @DBBTable(name: "Project")
    final class MProject: DBBTableObject {
        @Indexed @Column("itemName") var name = ""
        @Unique var code = ""
        var startDate: Date?
        var budget: Float = 0
        @CascadeDelete var meetings: [MMeeting] = []
        var tags: [String] = []
        var subProject: MProject?
        var projectLead: MPerson?
        var logo: Data?
    }
}

/// Chinook's own tables, mapped with the macro.
enum MacroChinook {
    @DBBTable(idColumn: "ArtistId", timestamps: false)
    final class Artist: DBBTableObject {
        @Column("Name") var name: String?
    }

    @DBBTable(idColumn: "AlbumId", timestamps: false)
    final class Album: DBBTableObject {
        @Column("Title") var title = ""
        @ForeignKey("ArtistId") var artist: Artist?
    }

    @DBBTable(name: "Track", idColumn: "TrackId", timestamps: false)
    final class Song: DBBTableObject {
        @Column("Name") var name = ""
        @ForeignKey("AlbumId") var album: Album?
        @Column("Composer") var composer: String?
        @Column("Milliseconds") var milliseconds = 0
        @Column("Bytes") var bytes: Int?
        @Column("UnitPrice") var unitPrice = 0.0
    }
}

@Suite struct MacroLayoutTests {
    private static func schema(of classes: [DBBTableObject.Type], in folder: TemporaryFolder, _ name: String) throws
        -> [String]
    {
        let manager = try DBBManager(databaseURL: folder.file(name))
        try manager.addTableClasses(classes)
        return try manager.queue.inDatabase { db in
            try db.fetchValues(
                String.self, "SELECT type || ' ' || name || ' ' || ifnull(sql, '') FROM sqlite_master ORDER BY name")
        }
    }

    @Test func theMacroWritesDBBBuildersLayoutLikeKeyPaths() throws {
        let folder = try TemporaryFolder()
        let keyPaths = try Self.schema(
            of: [KeyPathTwins.Person.self, KeyPathTwins.Meeting.self, KeyPathTwins.Project.self], in: folder, "k.sqlite"
        )
        let macro = try Self.schema(
            of: [MacroTwins.MPerson.self, MacroTwins.MMeeting.self, MacroTwins.MProject.self], in: folder, "m.sqlite")
        #expect(macro == keyPaths)
        #expect(macro.contains { $0.hasPrefix("table Project_meetings ") })
        #expect(macro.contains { $0.hasPrefix("index Project_itemName ") })
        #expect(macro.contains { $0.contains("code Text UNIQUE") })
    }

    @Test func macroObjectsReadWhatKeyPathObjectsWrote() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("shared.sqlite")
        do {
            let manager = try DBBManager(databaseURL: url)
            try manager.addTableClasses([
                KeyPathTwins.Person.self, KeyPathTwins.Meeting.self, KeyPathTwins.Project.self,
            ])
            let lead = KeyPathTwins.Person(dbManager: manager)
            lead.name = "Lead"
            let meeting = KeyPathTwins.Meeting(dbManager: manager)
            meeting.purpose = "Kick-off"
            meeting.participants = [lead]
            let project = KeyPathTwins.Project(dbManager: manager)
            project.name = "Apollo"
            project.code = "A1"
            project.budget = 2.5
            project.tags = ["x", "y"]
            project.meetings = [meeting]
            project.projectLead = lead
            project.logo = Data([1, 2])
            try lead.save()
            try meeting.save()
            try project.save()
            try manager.close()
        }
        let manager = try DBBManager(databaseURL: url)
        try manager.addTableClasses([MacroTwins.MPerson.self, MacroTwins.MMeeting.self, MacroTwins.MProject.self])
        let project = try #require(MacroTwins.MProject.allInstances(manager: manager).first)
        #expect(project.name == "Apollo")
        #expect(project.code == "A1")
        #expect(project.budget == 2.5)
        #expect(project.tags == ["x", "y"])
        #expect(project.meetings.map(\.purpose) == ["Kick-off"])
        #expect(project.meetings.first?.participants.map(\.name) == ["Lead"])
        #expect(project.projectLead?.name == "Lead")
        #expect(project.logo == Data([1, 2]))
    }

    @Test func macroClassesReadAndWriteChinook() throws {
        let folder = try TemporaryFolder()
        let url = try copyOfFixture("chinook.sqlite", into: folder)
        let manager = try DBBManager(databaseURL: url)
        let schema = {
            try manager.queue.inDatabase { db in
                try db.fetchValues(String.self, "SELECT ifnull(sql, name) FROM sqlite_master")
            }
        }
        let before = try schema()
        try manager.addTableClasses([MacroChinook.Artist.self, MacroChinook.Album.self, MacroChinook.Song.self])
        #expect(try schema() == before)

        #expect(MacroChinook.Artist.allInstances(manager: manager).count == 275)
        let album = try #require(try MacroChinook.Album.fetchOne(id: 1, manager: manager))
        #expect(album.title == "For Those About To Rock We Salute You")
        #expect(album.artist?.name == "AC/DC")
        let songs = try MacroChinook.Song.fetch(ids: [1, 3503], manager: manager)
        #expect(songs.map(\.name) == ["For Those About To Rock (We Salute You)", "Koyaanisqatsi"])
        #expect(songs[0].album?.artist?.name == "AC/DC")
        #expect(songs[0].composer == "Angus Young, Malcolm Young, Brian Johnson")
        #expect(songs[0].milliseconds == 343_719)
        #expect(songs[0].unitPrice == 0.99)

        let artist = MacroChinook.Artist(dbManager: manager)
        artist.name = "New Artist"
        let newAlbum = MacroChinook.Album(dbManager: manager)
        newAlbum.title = "New Album"
        newAlbum.artist = artist
        try artist.save()
        try newAlbum.save()
        #expect(artist.idNum == 276)
        let stored = try manager.queue.inDatabase { db in
            try db.fetchValue(Int64.self, "SELECT ArtistId FROM Album WHERE Title = 'New Album'")
        }
        #expect(stored == 276)
    }
}

@DBBTable(layout: .lean)
final class MacroLeanNote: DBBTableObject {
    var title = ""
}

@Suite struct MacroLeanLayoutTests {
    @Test func theMacroDeclaresTheLeanLayout() throws {
        #expect(MacroLeanNote.layout == .lean)
        #expect(!MacroLeanNote.hasTimestampColumns)
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses([MacroLeanNote.self])
        let sql = try manager.queue.inDatabase { db in
            try db.fetchValue(String.self, "SELECT sql FROM sqlite_schema WHERE name = 'MacroLeanNote'")
        }
        #expect(sql == "CREATE TABLE MacroLeanNote (id Integer PRIMARY KEY, title Text)")
    }
}
