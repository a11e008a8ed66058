import DBBBuilder
import Foundation
import GRDB

// The classes of the comparison, once per contender. Every contender reads and writes the same tables
// (`Person`, `Meeting`, `Project` and the project's join tables, laid out by the library), and holds its
// objects in plain final classes of its own: the baseline's classes know nothing of the library.

// MARK: Data

/// One person's values, from which every contender builds its own objects.
struct PersonSeed {
    var name: String
    var code: String
    var budget: Double
    var startDate: Date?
    var active: Bool

    /// `count` people with unique names; 50 codes, so a code matches 2% of them; budgets spread over 0–10,000.
    static func make(_ count: Int, prefix: String = "Person") -> [PersonSeed] {
        (0..<count).map { index -> PersonSeed in
            let spread = (index &* 7919) % count
            let start: Date? =
                index % 10 == 0 ? nil : Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index) * 60)
            return PersonSeed(
                name: "\(prefix) \(spread)-\(index)", code: "C\(index % 50)",
                budget: Double((index &* 7919) % 100_000) / 10, startDate: start, active: index % 3 == 0)
        }
    }
}

/// One project's values: 5 tags, 3 meetings, and the index of its lead among the people.
struct ProjectSeed {
    struct Meeting {
        var purpose: String
        var startTime: Date
        var minutes: Int
    }
    var name: String
    var budget: Double
    var tags: [String]
    var meetings: [Meeting]
    var lead: Int

    static func make(_ count: Int, leads: Int) -> [ProjectSeed] {
        (0..<count).map { index in
            ProjectSeed(
                name: "Project \(index)", budget: Double(index) * 10,
                tags: (0..<5).map { "tag\((index + $0 * 7) % 40)" },
                meetings: (0..<3).map { number in
                    Meeting(
                        purpose: "Meeting \(number) of project \(index)",
                        startTime: Date(timeIntervalSinceReferenceDate: 700_000_000 + Double(index * 3 + number) * 900),
                        minutes: 30 + number * 15)
                },
                lead: (index &* 31) % leads)
        }
    }
}

// MARK: What every contender's classes have

/// The properties of a person, so one digest function serves every contender.
protocol PersonFields: AnyObject {
    var rowID: Int64 { get }
    var created: Date? { get }
    var name: String { get set }
    var code: String { get set }
    var budget: Double { get set }
    var startDate: Date? { get set }
    var active: Bool { get set }
}

protocol MeetingFields: AnyObject {
    var rowID: Int64 { get }
    var purpose: String { get set }
    var startTime: Date { get set }
    var minutes: Int { get set }
}

protocol ProjectFields: AnyObject {
    associatedtype Lead: PersonFields
    associatedtype Item: MeetingFields
    var rowID: Int64 { get }
    var name: String { get set }
    var budget: Double { get set }
    var tags: [String] { get set }
    var meetings: [Item] { get set }
    var lead: Lead? { get set }
}

extension PersonFields {
    func fill(from seed: PersonSeed) {
        name = seed.name
        code = seed.code
        budget = seed.budget
        startDate = seed.startDate
        active = seed.active
    }

    func hash(into hasher: inout Hasher) {
        hasher.combine(rowID)
        hasher.combine(name)
        hasher.combine(code)
        hasher.combine(budget)
        hasher.combine(startDate)
        hasher.combine(active)
        hasher.combine(created == nil)
    }
}

/// A digest of what a fetch built, equal for every contender that built the same objects.
func digest(_ people: [some PersonFields]) -> Int {
    var hasher = Hasher()
    hasher.combine(people.count)
    for person in people { person.hash(into: &hasher) }
    return hasher.finalize()
}

/// A digest of projects and everything they hold; shared leads must be one object per person.
func digest<Project: ProjectFields>(_ projects: [Project]) -> Int {
    var hasher = Hasher()
    hasher.combine(projects.count)
    var leads: [Int64: ObjectIdentifier] = [:]
    var sameLeadObjects = true
    for project in projects {
        hasher.combine(project.rowID)
        hasher.combine(project.name)
        hasher.combine(project.budget)
        hasher.combine(project.tags)
        for meeting in project.meetings {
            hasher.combine(meeting.rowID)
            hasher.combine(meeting.purpose)
            hasher.combine(meeting.startTime)
            hasher.combine(meeting.minutes)
        }
        if let lead = project.lead {
            lead.hash(into: &hasher)
            let identity = ObjectIdentifier(lead)
            if leads[lead.rowID, default: identity] != identity { sameLeadObjects = false }
            leads[lead.rowID] = identity
        }
    }
    hasher.combine(sameLeadObjects)
    return hasher.finalize()
}

// MARK: Baseline: plain final classes

final class PlainPerson: PersonFields {
    var id: Int64 = 0
    var createdTime: Date?
    var modifiedTime: Date?
    var name = ""
    var code = ""
    var budget = 0.0
    var startDate: Date?
    var active = false
    var rowID: Int64 { id }
    var created: Date? { createdTime }
}

final class PlainMeeting: MeetingFields {
    var id: Int64 = 0
    var createdTime: Date?
    var modifiedTime: Date?
    var purpose = ""
    var startTime = Date(timeIntervalSinceReferenceDate: 0)
    var minutes = 0
    var rowID: Int64 { id }
}

final class PlainProject: ProjectFields {
    var id: Int64 = 0
    var createdTime: Date?
    var modifiedTime: Date?
    var name = ""
    var budget = 0.0
    var tags: [String] = []
    var meetings: [PlainMeeting] = []
    var lead: PlainPerson?
    var rowID: Int64 { id }
}

// MARK: The library, mapped by key paths only (as the README writes it)

final class KeyPathPerson: DBBTableObject, PersonFields {
    var name = ""
    var code = ""
    var budget = 0.0
    var startDate: Date?
    var active = false
    var rowID: Int64 { idNum }
    var created: Date? { createdTime }
    override class var tableName: String { "Person" }

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        attributesDictionary = ["name": ColumnAttribute.unique]
        dbManager.addPersistenceMapping(
            [
                "name": .init(\KeyPathPerson.name), "code": .init(\KeyPathPerson.code),
                "budget": .init(\KeyPathPerson.budget), "startDate": .init(\KeyPathPerson.startDate),
                "active": .init(\KeyPathPerson.active),
            ], for: self, indexer: DBBIndexer(columnsToIndex: ["code"]))
    }
}

final class KeyPathMeeting: DBBTableObject, MeetingFields {
    var purpose = ""
    var startTime = Date(timeIntervalSinceReferenceDate: 0)
    var minutes = 0
    var rowID: Int64 { idNum }
    override class var tableName: String { "Meeting" }

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "purpose": .init(\KeyPathMeeting.purpose), "startTime": .init(\KeyPathMeeting.startTime),
                "minutes": .init(\KeyPathMeeting.minutes),
            ], for: self)
    }
}

final class KeyPathProject: DBBTableObject, ProjectFields {
    var name = ""
    var budget = 0.0
    var tags: [String] = []
    var meetings: [KeyPathMeeting] = []
    var lead: KeyPathPerson?
    var rowID: Int64 { idNum }
    override class var tableName: String { "Project" }

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "name": .init(\KeyPathProject.name), "budget": .init(\KeyPathProject.budget),
                "tags": .init(\KeyPathProject.tags), "meetings": .init(\KeyPathProject.meetings),
                "lead": .init(\KeyPathProject.lead),
            ], for: self)
    }
}

// MARK: The library, with direct get/set closures (as dbb-codegen writes them)

final class ClosurePerson: DBBTableObject, PersonFields {
    var name = ""
    var code = ""
    var budget = 0.0
    var startDate: Date?
    var active = false
    var rowID: Int64 { idNum }
    var created: Date? { createdTime }
    override class var tableName: String { "Person" }

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        attributesDictionary = ["name": ColumnAttribute.unique]
        dbManager.addPersistenceMapping(
            [
                "name": .init(\ClosurePerson.name, get: { $0.name }, set: { $0.name = $1 }),
                "code": .init(\ClosurePerson.code, get: { $0.code }, set: { $0.code = $1 }),
                "budget": .init(\ClosurePerson.budget, get: { $0.budget }, set: { $0.budget = $1 }),
                "startDate": .init(\ClosurePerson.startDate, get: { $0.startDate }, set: { $0.startDate = $1 }),
                "active": .init(\ClosurePerson.active, get: { $0.active }, set: { $0.active = $1 }),
            ], for: self, indexer: DBBIndexer(columnsToIndex: ["code"]))
    }
}

final class ClosureMeeting: DBBTableObject, MeetingFields {
    var purpose = ""
    var startTime = Date(timeIntervalSinceReferenceDate: 0)
    var minutes = 0
    var rowID: Int64 { idNum }
    override class var tableName: String { "Meeting" }

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "purpose": .init(\ClosureMeeting.purpose, get: { $0.purpose }, set: { $0.purpose = $1 }),
                "startTime": .init(\ClosureMeeting.startTime, get: { $0.startTime }, set: { $0.startTime = $1 }),
                "minutes": .init(\ClosureMeeting.minutes, get: { $0.minutes }, set: { $0.minutes = $1 }),
            ], for: self)
    }
}

final class ClosureProject: DBBTableObject, ProjectFields {
    var name = ""
    var budget = 0.0
    var tags: [String] = []
    var meetings: [ClosureMeeting] = []
    var lead: ClosurePerson?
    var rowID: Int64 { idNum }
    override class var tableName: String { "Project" }

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "name": .init(\ClosureProject.name, get: { $0.name }, set: { $0.name = $1 }),
                "budget": .init(\ClosureProject.budget, get: { $0.budget }, set: { $0.budget = $1 }),
                "tags": .init(\ClosureProject.tags), "meetings": .init(\ClosureProject.meetings),
                "lead": .init(\ClosureProject.lead),
            ], for: self)
    }
}

// MARK: The library, mapped by the @DBBTable macro (direct accessors, declared once per class)

@DBBTable(name: "Person")
final class MacroPerson: DBBTableObject, PersonFields {
    @Unique var name = ""
    @Indexed var code = ""
    var budget = 0.0
    var startDate: Date?
    var active = false
    var rowID: Int64 { idNum }
    var created: Date? { createdTime }
}

@DBBTable(name: "Meeting")
final class MacroMeeting: DBBTableObject, MeetingFields {
    var purpose = ""
    var startTime = Date(timeIntervalSinceReferenceDate: 0)
    var minutes = 0
    var rowID: Int64 { idNum }
}

@DBBTable(name: "Project")
final class MacroProject: DBBTableObject, ProjectFields {
    var name = ""
    var budget = 0.0
    var tags: [String] = []
    var meetings: [MacroMeeting] = []
    var lead: MacroPerson?
    var rowID: Int64 { idNum }
}

// MARK: GRDB, with hand-written records

// The records read their columns by position from an explicit column list, as GRDB's own optimized records do
// (its `FetchRecordOptimizedTests`): reading by name looks each column up, case-insensitively, on every row.

/// Dates in the library's layout: REAL seconds since 2001 (GRDB's own default is text).
private func seconds(_ date: Date?) -> Double? { date?.timeIntervalSinceReferenceDate }
private func date(_ seconds: Double?) -> Date? { seconds.map(Date.init(timeIntervalSinceReferenceDate:)) }

final class GRDBPerson: FetchableRecord, PersistableRecord, PersonFields {
    static let databaseTableName = "Person"
    /// The columns `init(row:)` reads, in order.
    static let columns = "id, createdTime, modifiedTime, name, code, budget, startDate, active"
    var id: Int64?
    var createdTime: Date?
    var modifiedTime: Date?
    var name = ""
    var code = ""
    var budget = 0.0
    var startDate: Date?
    var active = false
    var rowID: Int64 { id ?? 0 }
    var created: Date? { createdTime }

    init() {}

    init(row: Row) throws {
        id = row[0]
        createdTime = date(row[1])
        modifiedTime = date(row[2])
        name = row[3]
        code = row[4]
        budget = row[5]
        startDate = date(row[6])
        active = row[7]
    }

    func encode(to container: inout PersistenceContainer) throws {
        container["id"] = id
        container["createdTime"] = seconds(createdTime)
        container["modifiedTime"] = seconds(modifiedTime)
        container["name"] = name
        container["code"] = code
        container["budget"] = budget
        container["startDate"] = seconds(startDate)
        container["active"] = active
    }

    func didInsert(_ inserted: InsertionSuccess) { id = inserted.rowID }
}

final class GRDBMeeting: FetchableRecord, MeetingFields {
    var id: Int64 = 0
    var createdTime: Date?
    var modifiedTime: Date?
    var purpose = ""
    var startTime = Date(timeIntervalSinceReferenceDate: 0)
    var minutes = 0
    var rowID: Int64 { id }
    /// The columns `init(row:)` reads, in order.
    static let columns = "id, createdTime, modifiedTime, purpose, startTime, minutes"

    init(row: Row) throws {
        id = row[0]
        createdTime = date(row[1])
        modifiedTime = date(row[2])
        purpose = row[3]
        startTime = date(row[4]) ?? startTime
        minutes = row[5]
    }
}

final class GRDBProject: FetchableRecord, ProjectFields {
    var id: Int64 = 0
    var createdTime: Date?
    var modifiedTime: Date?
    var name = ""
    var budget = 0.0
    var tags: [String] = []
    var meetings: [GRDBMeeting] = []
    var lead: GRDBPerson?
    var rowID: Int64 { id }
    /// The columns `init(row:)` reads, in order.
    static let columns = "id, createdTime, modifiedTime, name, budget"

    init(row: Row) throws {
        id = row[0]
        createdTime = date(row[1])
        modifiedTime = date(row[2])
        name = row[3]
        budget = row[4]
    }
}
