import DBBBuilder
import DBBTestSupport
import Foundation
import Testing

/// Every example of the seed's DBBQueryOptions and Helpers sections, written against this API. (The seed's
/// text has typos — `Date()addingTimeInterval`, `dbb_DateComparisonString`, `[conditions]` nested in an
/// array; they are written here as they were meant.)
@Suite struct SeedQueryExamplesTests {
    final class Employee: DBBTableObject {
        var name = ""
        var employer = ""
        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            attributesDictionary = ["name": ColumnAttributes.notNull]
            dbManager.addPersistenceMapping(
                ["name": .init(\Employee.name), "employer": .init(\Employee.employer)], for: self)
        }
    }

    final class Event: DBBTableObject {
        var title = ""
        var entryDate = Date()
        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                ["title": .init(\Event.title), "entryDate": .init(\Event.entryDate)], for: self,
                indexer: DBBIndexer(columnsToIndex: ["entryDate"], unique: false))
        }
    }

    struct Company {
        var owner: String
    }

    @Test func theEscapedConditionExample() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses([Employee.self])
        for (name, employer) in [("Ann", "Bud's"), ("Bo", "Acme"), ("Cy", "Bud's")] {
            _ = try Employee.savedInstance(values: ["name": name, "employer": employer], manager: manager)
        }
        let company = Company(owner: "Bud's")
        let isBossCondition = "employer = \(company.owner.dbb_SQLEscaped())"
        let options = legacyOptions.withConditions([isBossCondition])
        let staff = try #require(Employee.instancesWithOptions(options, manager: manager))
        #expect(staff.map(\.name) == ["Ann", "Cy"])
    }

    @Test func theDateComparisonExample() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses([Event.self])
        let now = Date()
        for (title, daysAgo) in [("old", 30.0), ("recent", 2.0), ("today", 0.0)] {
            let event = Event(dbManager: manager)
            event.title = title
            event.entryDate = now.addingTimeInterval(-daysAgo * 86_400)
            try event.save()
        }
        let lastOccurrenceTimeInterval: TimeInterval = 7 * 86_400
        let lastOccurrence = Date().addingTimeInterval(-lastOccurrenceTimeInterval)
        let conditions = ["entryDate > \(lastOccurrence.dbb_dateComparisonString())"]
        let options = legacyOptions.withConditions(conditions)
        guard let recentEvents = Event.instancesWithOptions(options, manager: manager) as [DBBTableObject]? as? [Event]
        else {
            Issue.record("no events")
            return
        }
        #expect(recentEvents.map(\.title) == ["recent", "today"])
    }

    @Test func theConstructorsAndOptionProperties() throws {
        var options = DBBQueryOptions.options(
            withConditions: ["score > 50", "OR", "name = 'x'"], properties: ["name"], sortColumns: ["name"],
            ascendingSort: false, distinct: true)
        #expect(options.conditions == ["score > 50", "OR", "name = 'x'"])
        #expect(options.propertyNames == ["name"])
        #expect(options.sorting == ["name", ColumnSorting.descending])
        #expect(options.distinct)
        options.joinPropertiesToPopulate = ["tags"]
        #expect(options.joinPropertiesToPopulate == ["tags"])
        let legacy = legacyOptions
        #expect(legacy.ascending(["name"]).sorting == ["name"])
        #expect(legacy.descending(["name"]).sorting == ["name", "DESC"])
        #expect(legacy.properties(["name"]).propertyNames == ["name"])
    }

    @Test func theHelpers() throws {
        #expect(ColumnAttributes.notNull == "NOT NULL" && ColumnAttributes.unique == "UNIQUE")
        #expect(ColumnSorting.ascending == "ASC" && ColumnSorting.descending == "DESC")
        #expect("John Brown's body".dbb_SQLEscaped() == "'John Brown''s body'")
        let date = Date(timeIntervalSinceReferenceDate: 1_000)
        #expect(Date.dbb_dateFromTimeInterval(date.dbb_timeIntervalForDate()) == date)

        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("helpers.sqlite"))
        try manager.addTableClasses([Employee.self, Event.self])
        #expect(Employee(dbManager: manager).shortName == "Employee")
        _ = try Employee.savedInstance(values: ["name": "Ann"], manager: manager)
        #expect(manager.countForTable("Employee") == 1)
        #expect(
            Employee.saveObjects([Employee(dbManager: manager), Event(dbManager: manager)], dbManager: manager) == false
        )
        #expect(manager.errorMessage().contains("Event"))
        manager.vacuumDB()
        #expect(manager.dropIndex(named: "Event_entryDate"))
    }
}

/// The seed's `queryOptionsWith…` constructors are deprecated; these calls come from a deprecated context,
/// reached through a protocol, so testing them adds no warning to the build.
protocol LegacyQueryConstructors: Sendable {
    func withConditions(_ conditions: [String]) -> DBBQueryOptions
    func ascending(_ columns: [String]) -> DBBQueryOptions
    func descending(_ columns: [String]) -> DBBQueryOptions
    func properties(_ names: [String]) -> DBBQueryOptions
}

/// The seed's constructors, through the protocol (calling the struct directly would warn).
let legacyOptions: any LegacyQueryConstructors = LegacyOptions()

struct LegacyOptions: LegacyQueryConstructors {
    @available(*, deprecated)
    func withConditions(_ conditions: [String]) -> DBBQueryOptions {
        DBBQueryOptions.queryOptionsWithConditions(conditions)
    }
    @available(*, deprecated)
    func ascending(_ columns: [String]) -> DBBQueryOptions {
        DBBQueryOptions.queryOptionsWithAscendingSortForColumns(columns)
    }
    @available(*, deprecated)
    func descending(_ columns: [String]) -> DBBQueryOptions {
        DBBQueryOptions.queryOptionsWithDescendingSortForColumns(columns)
    }
    @available(*, deprecated)
    func properties(_ names: [String]) -> DBBQueryOptions { DBBQueryOptions.queryOptionsWithPropertyNames(names) }
}
