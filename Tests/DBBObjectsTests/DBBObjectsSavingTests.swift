import DBBObjects
import Foundation
import Testing

@Suite struct DBBObjectsSavingTests {
    @Test(arguments: Storage.allCases) func graphRoundTripsWithCyclesIdentityAndOrder(storage: Storage) throws {
        let test = try TestManager(storage)
        let manager = test.manager
        let ann = Person(dbManager: manager)
        ann.firstName = "Ann"
        ann.nicknames = ["A", "Annie"]
        let bo = Person(dbManager: manager)
        bo.firstName = "Bo"
        ann.spouse = bo
        bo.spouse = ann
        let project = Project(dbManager: manager)
        project.name = "Apollo"
        project.tags = ["space", "moon", "urgent"]
        project.projectLead = ann
        let meeting = Meeting(dbManager: manager)
        meeting.purpose = "Kickoff"
        meeting.participants = [bo, ann]
        meeting.project = project
        project.meetings = [meeting]

        #expect(project.saveToDB())
        // Unsaved referenced objects were saved with the project.
        #expect(ann.idNum > 0 && bo.idNum > 0 && meeting.idNum > 0)
        #expect(manager.countForTable("Person") == 2)

        let loaded = try #require(Project.instanceWithIDNumber(project.idNum, manager: manager))
        #expect(loaded !== project)
        #expect(loaded.name == "Apollo")
        #expect(loaded.tags == ["space", "moon", "urgent"])
        let lead = try #require(loaded.projectLead)
        #expect(lead.firstName == "Ann")
        #expect(lead.nicknames == ["A", "Annie"])
        #expect(lead.spouse?.firstName == "Bo")
        #expect(lead.spouse?.spouse === lead)
        let loadedMeeting = try #require(loaded.meetings.first)
        #expect(loadedMeeting.participants.map(\.firstName) == ["Bo", "Ann"])
        #expect(loadedMeeting.participants[1] === lead)
        #expect(loadedMeeting.project === loaded)
    }

    @Test(arguments: Storage.allCases) func everyScalarAndArrayTypeRoundTrips(storage: Storage) throws {
        let test = try TestManager(storage)
        let sample = Sample(dbManager: test.manager)
        sample.flag = true
        sample.int = Int.min
        sample.int8 = Int8.min
        sample.int16 = Int16.max
        sample.int32 = Int32.min
        sample.int64 = Int64.max
        sample.uint = UInt(Int64.max)
        sample.uint8 = UInt8.max
        sample.uint16 = UInt16.max
        sample.uint32 = UInt32.max
        sample.uint64 = UInt64(Int64.max)
        sample.float = 3.25
        sample.double = -1.5e300
        sample.text = "naïve 🚀 \u{0}end"
        sample.date = Date(timeIntervalSinceReferenceDate: 123_456.789)
        sample.data = Data([0, 1, 2, 255])
        sample.optionalInt = 7
        sample.optionalText = nil
        sample.optionalDate = Date(timeIntervalSince1970: 0)
        sample.flags = [true, false, true]
        sample.ints = [3, 1, 2, -9]
        sample.doubles = [.infinity, 1.5, -.infinity]
        sample.floats = [0.5, 0.25]
        sample.texts = ["b", "", "a"]
        sample.dates = [Date(timeIntervalSinceReferenceDate: 10), Date(timeIntervalSinceReferenceDate: -10)]
        sample.optionalTexts = nil
        try sample.save()

        let loaded = try #require(try Sample.fetchOne(id: sample.idNum, manager: test.manager))
        #expect(loaded.flag == true)
        #expect(loaded.int == Int.min)
        #expect(loaded.int8 == Int8.min)
        #expect(loaded.int16 == Int16.max)
        #expect(loaded.int32 == Int32.min)
        #expect(loaded.int64 == Int64.max)
        #expect(loaded.uint == UInt(Int64.max))
        #expect(loaded.uint8 == UInt8.max)
        #expect(loaded.uint16 == UInt16.max)
        #expect(loaded.uint32 == UInt32.max)
        #expect(loaded.uint64 == UInt64(Int64.max))
        #expect(loaded.float == 3.25)
        // (A `Real` column stores -0.0 as 0: SQLite normalises whole REAL values in REAL-affinity columns.)
        #expect(loaded.double == -1.5e300)
        #expect(loaded.text == "naïve 🚀 \u{0}end")
        #expect(loaded.date == sample.date)
        #expect(loaded.data == Data([0, 1, 2, 255]))
        #expect(loaded.optionalInt == 7)
        #expect(loaded.optionalText == nil)
        #expect(loaded.optionalDate == Date(timeIntervalSince1970: 0))
        #expect(loaded.flags == [true, false, true])
        #expect(loaded.ints == [3, 1, 2, -9])
        #expect(loaded.doubles == [.infinity, 1.5, -.infinity])
        #expect(loaded.floats == [0.5, 0.25])
        #expect(loaded.texts == ["b", "", "a"])
        #expect(loaded.dates == sample.dates)
        #expect(loaded.optionalTexts == [])

        // Dates are stored as seconds since 2001 and booleans as 0/1, as DBBBuilder stores them.
        let stored = try test.sql { db in
            try db.fetchCursor("SELECT date, flag, typeof(optionalText) FROM Sample WHERE id = ?", sample.idNum).map {
                [$0.value(at: 0), $0.value(at: 1), $0.value(at: 2)]
            }
        }
        #expect(stored == [[.real(123_456.789), .integer(1), .text("null")]])
    }

    @Test func unsignedAboveInt64MaxIsAClearErrorAndNothingIsWritten() throws {
        let test = try TestManager(.memory)
        let sample = Sample(dbManager: test.manager)
        sample.uint64 = UInt64.max
        #expect(sample.saveToDB() == false)
        #expect(sample.idNum == 0)
        #expect(test.manager.errorMessage().contains("Int64.max"))
        #expect(test.manager.countForTable("Sample") == 0)
    }

    @Test(arguments: Storage.allCases) func settingAnOptionalToNilStoresNull(storage: Storage) throws {
        let test = try TestManager(storage)
        let person = Person(dbManager: test.manager)
        person.email = "ann@example.com"
        person.birthday = Date(timeIntervalSinceReferenceDate: 5)
        person.photo = Data([1, 2, 3])
        person.spouse = Person(dbManager: test.manager)
        try person.save()
        person.email = nil
        person.birthday = nil
        person.photo = nil
        person.spouse = nil
        try person.save()

        let row = try test.sql { db in
            try db.fetchDictionary("SELECT emailAddress, birthday FROM Person WHERE id = ?", person.idNum)
        }
        #expect(row == [["emailAddress": .null, "birthday": .null]])
        let joinRows = try test.sql { db in
            try db.fetchValue(
                Int.self,
                "SELECT (SELECT count(*) FROM Person_photo WHERE Person_ID = ?1)"
                    + " + (SELECT count(*) FROM Person_spouse WHERE Person_ID = ?1)", person.idNum)
        }
        #expect(joinRows == 0)
        let loaded = try #require(Person.instanceWithIDNumber(person.idNum, manager: test.manager))
        #expect(loaded.email == nil && loaded.birthday == nil && loaded.photo == nil && loaded.spouse == nil)
    }

    @Test func saveObjectsIsAllOrNothingAndAssignsIdsOnlyOnCommit() throws {
        let test = try TestManager(.file)
        let manager = test.manager
        let existing = Company(dbManager: manager)
        existing.name = "Acme"
        try existing.save()

        let owner = Person(dbManager: manager)
        owner.firstName = "Owner"
        let good = Company(dbManager: manager)
        good.name = "Globex"
        good.owner = owner
        let duplicate = Company(dbManager: manager)
        duplicate.name = "Acme"  // violates the UNIQUE attribute
        #expect(Company.saveObjects([good, duplicate], dbManager: manager) == false)
        #expect(manager.errorMessage().contains("UNIQUE"))
        #expect(good.idNum == 0 && duplicate.idNum == 0 && owner.idNum == 0)
        #expect(good.createdTime == nil)
        #expect(manager.countForTable("Company") == 1)
        #expect(manager.countForTable("Person") == 0)
        #expect(manager.countForTable("Company_owner") == 0)

        duplicate.name = "Initech"
        try Company.save([good, duplicate], manager: manager)
        #expect(good.idNum > 0 && duplicate.idNum > 0 && owner.idNum > 0)
        #expect(manager.countForTable("Company") == 3)
    }

    @Test func saveObjectsTakesOneClassOnly() throws {
        let test = try TestManager(.memory)
        let person = Person(dbManager: test.manager)
        let company = Company(dbManager: test.manager)
        #expect(Person.saveObjects([person, company], dbManager: test.manager) == false)
        #expect(test.manager.errorMessage().contains("Company"))
        #expect(test.manager.countForTable("Person") == 0)
    }

    @Test func dirtyStateTimestampsAndSaveActions() throws {
        let test = try TestManager(.memory, classes: [Tracked.self])
        let object = Tracked(dbManager: test.manager)
        object.makeDirty()
        #expect(object.isDirty)
        let before = Date()
        try object.save()
        #expect(object.isDirty == false)
        #expect(object.events == ["pre", "post"])
        #expect(object.preparedValue == "prepared")
        let created = try #require(object.createdTime)
        #expect(created >= before.addingTimeInterval(-1))
        #expect(object.modifiedTime == created)
        object.makeDirty(true)
        object.makeClean()
        #expect(object.isDirty == false)

        let loaded = try #require(Tracked.instanceWithIDNumber(object.idNum, manager: test.manager))
        #expect(loaded.preparedValue == "prepared")
        #expect(abs((loaded.createdTime ?? .distantPast).timeIntervalSince(created)) < 0.001)
    }

    @Test func updatingKeepsIdAndChangesModifiedTime() throws {
        let test = try TestManager(.file)
        let person = Person(dbManager: test.manager)
        person.firstName = "Ann"
        try person.save()
        let id = person.idNum
        let created = person.createdTime
        person.firstName = "Anna"
        person.nicknames = ["x"]
        try person.save()
        #expect(person.idNum == id)
        #expect(person.createdTime == created)
        #expect(test.manager.countForTable("Person") == 1)
        let loaded = try #require(Person.instanceWithIDNumber(id, manager: test.manager))
        #expect(loaded.firstName == "Anna")
        #expect(loaded.nicknames == ["x"])
    }

    @Test func dictionaryInitializersSetKnownPropertiesAndRejectWrongTypes() throws {
        let test = try TestManager(.memory)
        let person = try Person(
            dictionary: ["firstName": "Cy", "age": 41, "nicknames": ["C"], "unknown": 1], manager: test.manager)
        #expect(person.firstName == "Cy")
        #expect(person.age == 41)
        #expect(person.nicknames == ["C"])

        #expect(throws: DBBError.self) {
            _ = try Person(dictionary: ["age": "forty"], manager: test.manager)
        }
        #expect(test.manager.errorMessage().contains("age"))

        let saved = try Person.savedInstance(values: ["firstName": "Di", "age": Int64(30)], manager: test.manager)
        #expect(saved.idNum > 0)
        #expect(Person.instanceWithIDNumber(saved.idNum, manager: test.manager)?.age == 30)
        #expect(throws: DBBError.self) {
            _ = try Person.savedInstance(values: ["lastName": 5], manager: test.manager)
        }
        #expect(test.manager.countForTable("Person") == 1)
    }
}

final class Tracked: DBBTableObject {
    var preparedValue = ""
    var events: [String] = []

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["preparedValue": .init(\Tracked.preparedValue)], for: self)
    }

    override func performPreSaveActions() {
        preparedValue = "prepared"
        events.append("pre")
    }

    override func performPostSaveActions() { events.append("post") }
}
