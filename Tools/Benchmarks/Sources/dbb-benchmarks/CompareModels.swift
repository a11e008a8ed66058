import DBBBuilder
import Foundation
import GRDB

// The classes of the comparison, once per contender. Every contender reads and writes the same tables
// (`Person`, `Meeting`, `Project` and the project's join tables, laid out by the library), and holds its
// objects in plain final classes of its own: the baseline's classes know nothing of the library.

/// The layout of the comparison's tables, `--layout lean` or DBBBuilder's (the default).
let comparisonLayout: DBBTableLayout = BenchmarkOptions.current.leanLayout ? .lean : .dbbBuilder

// MARK: Baseline: plain final classes

/// A plain class with DBBBuilder's timestamps.
protocol TimestampedPlain: AnyObject {
    var createdTime: Date? { get set }
    var modifiedTime: Date? { get set }
}

final class PlainPerson: PersonFields, TimestampedPlain {
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

final class PlainMeeting: MeetingFields, TimestampedPlain {
    var id: Int64 = 0
    var createdTime: Date?
    var modifiedTime: Date?
    var purpose = ""
    var startTime = Date(timeIntervalSinceReferenceDate: 0)
    var minutes = 0
    var rowID: Int64 { id }
}

final class PlainProject: ProjectFields, TimestampedPlain {
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
    override class var layout: DBBTableLayout { comparisonLayout }

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
    override class var layout: DBBTableLayout { comparisonLayout }

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
    override class var layout: DBBTableLayout { comparisonLayout }

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
    override class var layout: DBBTableLayout { comparisonLayout }

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
    override class var layout: DBBTableLayout { comparisonLayout }

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
    override class var layout: DBBTableLayout { comparisonLayout }

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

@DBBTable(name: "Person", layout: comparisonLayout)
final class MacroPerson: DBBTableObject, PersonFields {
    @Unique var name = ""
    @Indexed var code = ""
    var budget = 0.0
    var startDate: Date?
    var active = false
    var rowID: Int64 { idNum }
    var created: Date? { createdTime }
}

@DBBTable(name: "Meeting", layout: comparisonLayout)
final class MacroMeeting: DBBTableObject, MeetingFields {
    var purpose = ""
    var startTime = Date(timeIntervalSinceReferenceDate: 0)
    var minutes = 0
    var rowID: Int64 { idNum }
}

@DBBTable(name: "Project", layout: comparisonLayout)
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
