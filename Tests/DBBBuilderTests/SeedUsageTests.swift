import DBBBuilder
import DBBTestSupport
import Foundation
import Testing

/// The seed README's usage, written the way its examples are, through `import DBBBuilder` only.
@Suite struct SeedUsageTests {
    final class Person: DBBTableObject {
        var firstName = ""
        var lastName = ""
        var age = 0
        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            let map: [String: DBBPropertyPersistence] = [
                "firstName": DBBPropertyPersistence(\Person.firstName),
                "lastName": DBBPropertyPersistence(\Person.lastName),
                "age": DBBPropertyPersistence(\Person.age, type: .int),
            ]
            dbManager.addPersistenceMapping(map, for: self, indexer: DBBIndexer(columnNames: ["lastName"]))
        }
    }

    final class Meeting: DBBTableObject {
        var purpose = ""
        var participants = [Person]()
        var startTime: Date?
        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            attributesDictionary = ["purpose": ColumnAttributes.notNull]
            let map: [String: DBBPropertyPersistence] = [
                "purpose": DBBPropertyPersistence(\Meeting.purpose, type: .string),
                "participants": DBBPropertyPersistence(
                    \Meeting.participants, type: .dbbObjectArray(objectType: Person.self)),
                "startTime": DBBPropertyPersistence(\Meeting.startTime, type: .date),
            ]
            dbManager.addPersistenceMapping(map, for: self)
        }
    }

    @Test func theSeedsTour() throws {
        let folder = try TemporaryFolder()
        let dbFileURL = folder.file("seed.sqlite")
        let dbManager = try DBBManager(databaseURL: dbFileURL)
        let tableClasses = [Person.self, Meeting.self] as [DBBTableObject.Type]
        try dbManager.addTableClasses(tableClasses)

        let joe = Person(dbManager: dbManager)
        joe.firstName = "Joe"
        joe.lastName = "Brown"
        joe.age = 40
        let mary = Person(dbManager: dbManager)
        mary.firstName = "Mary"
        mary.lastName = "Brown"
        mary.age = 38
        let billy = Person(dbManager: dbManager)
        billy.firstName = "Billy"
        billy.lastName = "O'Hara"
        billy.age = 9
        let people = [joe, mary, billy]
        let success = Person.saveObjects(people, dbManager: dbManager)
        if success == false {
            Issue.record("Error saving person array: \(dbManager.errorMessage())")
        }

        let meeting = Meeting(dbManager: dbManager)
        meeting.purpose = "Planning"
        meeting.participants = [joe, billy]
        meeting.startTime = Date(timeIntervalSinceReferenceDate: 700_000_000)
        #expect(meeting.saveToDB())

        guard let everyone = Person.allInstances(manager: dbManager) as [DBBTableObject] as? [Person] else {
            Issue.record("allInstances did not return people")
            return
        }
        #expect(everyone.map(\.firstName) == ["Joe", "Mary", "Billy"])

        let options = DBBQueryOptions.options(
            withConditions: ["lastName = \("O'Hara".dbb_SQLEscaped())"], sortColumns: ["firstName"])
        #expect(Person.instancesWithOptions(options, manager: dbManager)?.map(\.firstName) == ["Billy"])
        let browns = DBBQueryOptions.options(
            withConditions: ["lastName = 'Brown'"], sortColumns: ["age"], ascendingSort: false)
        #expect(Person.instancesWithOptions(browns, manager: dbManager)?.map(\.firstName) == ["Joe", "Mary"])
        let withJoe = DBBQueryOptions.options(withConditions: ["participants IN (\(joe.idNum))"])
        let meetings = Meeting.instancesWithOptions(withJoe, manager: dbManager) ?? []
        #expect(meetings.map(\.purpose) == ["Planning"])
        #expect(meetings.first?.participants.map(\.firstName) == ["Joe", "Billy"])
        #expect(meetings.first?.startTime == meeting.startTime)

        #expect(dbManager.countForTable(Person.tableName) == 3)
        #expect(joe.shortName == "Person")
        #expect(Person.deleteInstance(billy, manager: dbManager))
        #expect(Person.allInstanceIDs(manager: dbManager) == [joe.idNum, mary.idNum])
        #expect(Meeting.instanceWithIDNumber(meeting.idNum, manager: dbManager)?.participants.count == 1)

        let nameless = Meeting(dbManager: dbManager)
        nameless.purpose = "x"
        #expect(Meeting.saveObjects([nameless], dbManager: dbManager))
        #expect(Meeting.deleteAllInstances(manager: dbManager))
        #expect(dbManager.countForTable("Meeting") == 0)

        dbManager.setCurrentDBVersion(1.1)
        #expect(dbManager.hasLatestDBVersion(currentVersion: 1.0).hasLatest)
        dbManager.vacuumDB()
        #expect(dbManager.dropIndex(named: "Person_lastName"))
    }

    @Test func pickAndChooseModulesAreReachableThroughTheUmbrella() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE t (x)")
        try db.execute("INSERT INTO t VALUES (?)", 42)
        #expect(try db.fetchValue(Int.self, "SELECT x FROM t") == 42)
        let type: DBBStorageType = .stringArray
        #expect(type.joinSQLType == "Text")
        #expect(
            DBBQueryOptions.options(sortColumns: ["a"], ascendingSort: false).sorting == [
                "a", ColumnSorting.descending,
            ])
    }
}
