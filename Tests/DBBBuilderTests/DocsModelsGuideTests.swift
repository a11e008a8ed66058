import DBBBuilder
import DBBTestSupport
import Foundation
import Testing

// The example model of Docs/Models.md, in the guide's macro form, compiled and used as the guides use it.
// DBBObjectsTests compiles the guides' snippets against its key-path twin (DocsModelsTests.swift).

/// A struct, so that the guide's top-level function is an instance method here.
struct MacroExampleModel {
    @DBBTable(indexes: [DBBIndexer(columnsToIndex: ["lastName", "firstName"])])
    final class Person: DBBTableObject {
        var firstName = ""
        var lastName = ""
        var age = 0
        var email: String?
    }

    @DBBTable
    final class Meeting: DBBTableObject {
        var purpose = ""
        var startTime: Date?
        var participants: [Person] = []
        var project: Project?
    }

    @DBBTable
    final class Project: DBBTableObject {
        @Indexed @Column("itemName") var name = ""
        @Unique var code = ""
        var startDate: Date?
        var budget: Float = 0
        var tags: [String] = []
        var meetings: [Meeting] = []
        var projectLead: Person?
    }

    enum MeetingKind: String, DBBPersistableValue {
        case standUp, review, retrospective
    }

    struct Room: DBBCodableValue {
        var building = ""
        var floor = 0
    }

    @DBBTable
    final class Booking: DBBTableObject {
        var meeting: Meeting?
        var kind = MeetingKind.standUp
        var room = Room()
        var previousRooms: [Room] = []
    }

    func openExampleModel(databaseURL: URL) throws -> DBBManager {
        let manager = try DBBManager(databaseURL: databaseURL)
        try manager.addTableClasses([Person.self, Meeting.self, Project.self])
        return manager
    }
}

@Suite struct DocsModelsGuideTests {
    @Test func theGuideShowsOnlyCodeThatIsHere() throws {
        #expect(try DocSnippets.missingBlocks(guide: "Docs/Models.md") == [])
    }

    @Test func propertiesOfYourOwnTypesAreStored() throws {
        let folder = try TemporaryFolder()
        let manager = try MacroExampleModel().openExampleModel(databaseURL: folder.file("model.sqlite"))
        try manager.addTableClasses([MacroExampleModel.Booking.self])
        let review = MacroExampleModel.Meeting(dbManager: manager)
        review.purpose = "Design review"
        let booking = MacroExampleModel.Booking(dbManager: manager)
        booking.meeting = review
        booking.kind = .review
        booking.room = MacroExampleModel.Room(building: "B", floor: 2)
        booking.previousRooms = [MacroExampleModel.Room(building: "A", floor: 1)]
        try booking.save()
        var options = DBBQueryOptions()
        options.addCondition("kind = ?", MacroExampleModel.MeetingKind.review)
        let reviews = try MacroExampleModel.Booking.fetch(options: options, manager: manager)
        #expect(reviews.count == 1)
        #expect(reviews.first?.meeting?.purpose == "Design review")
        #expect(reviews.first?.room.building == "B" && reviews.first?.room.floor == 2)
        #expect(reviews.first?.previousRooms.map(\.building) == ["A"])
        let kinds = try manager.queue.inDatabase { db in try db.fetchValues(String.self, "SELECT kind FROM Booking") }
        #expect(kinds == ["review"])
    }

    @Test func theModelSavesAndQueriesAsTheGuidesDo() throws {
        let folder = try TemporaryFolder()
        let manager = try MacroExampleModel().openExampleModel(databaseURL: folder.file("model.sqlite"))
        let ada = MacroExampleModel.Person(dbManager: manager)
        (ada.firstName, ada.lastName, ada.age) = ("Ada", "Byron", 36)
        let apollo = MacroExampleModel.Project(dbManager: manager)
        (apollo.name, apollo.code, apollo.tags) = ("Apollo", "P-1", ["space", "urgent"])
        apollo.projectLead = ada
        let kickoff = MacroExampleModel.Meeting(dbManager: manager)
        kickoff.purpose = "Kick-off"
        kickoff.participants = [ada]
        kickoff.project = apollo
        apollo.meetings = [kickoff]
        try apollo.save()

        let urgent = DBBQueryOptions.options(withConditions: ["tags = 'urgent'"])
        let found = try #require(try MacroExampleModel.Project.fetch(options: urgent, manager: manager).first)
        #expect(found.projectLead?.lastName == "Byron")
        #expect(found.meetings.first?.participants.map(\.firstName) == ["Ada"])
        let duplicate = MacroExampleModel.Project(dbManager: manager)
        duplicate.code = "P-1"
        #expect(throws: DBBError.self) { try duplicate.save() }

        // The statements Docs/OnDiskLayout.md shows for `Project`, exactly: the macro lays it out as key paths do.
        let guide = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Docs/OnDiskLayout.md"), encoding: .utf8)
        let documented = guide.components(separatedBy: "\n").filter { $0.hasPrefix("CREATE") }
            .map { $0.replacingOccurrences(of: " IF NOT EXISTS", with: "") }
        let db = try DBBDatabase(path: folder.file("model.sqlite").path)
        defer { try? db.close() }
        let stored = try db.fetchValues(
            String.self,
            "SELECT sql FROM sqlite_master WHERE tbl_name LIKE 'Project%' AND sql IS NOT NULL ORDER BY rowid")
        #expect(!documented.isEmpty)
        #expect(documented == stored)
    }
}
