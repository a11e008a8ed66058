import DBBBuilder
import FluentKit
import Foundation

// The classes of the comparison, once per contender, with the data and the model shapes of Tools/Benchmarks.
// Every contender reads and writes the same tables (`Person`, `Meeting`, `Project` and the project's join
// tables, laid out by the library), and holds its objects in classes of its own: the baseline's classes know
// nothing of either library.

// MARK: Data

/// One person's values, from which every contender builds its own objects.
struct PersonSeed: Sendable {
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
struct ProjectSeed: Sendable {
    struct Meeting: Sendable {
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

// MARK: The library, mapped by the @DBBTable macro (as in Tools/Benchmarks)

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

// MARK: Fluent 4, on the library's tables

// Fluent's own wrappers read the library's layout: @Boolean with the integer format for the `bigint` flag, and
// @Timestamp with a format of seconds since 2001 for the stamps. Dates that are not stamps are `Double` fields
// with a `Date` view. Models are `@unchecked Sendable`, as Fluent asks of them under Swift 6.

/// Seconds since 2001-01-01 in a `double precision` column, as the library stores dates.
struct ReferenceDateTimestampFormat: TimestampFormat {
    func parse(_ value: Double) -> Date? { Date(timeIntervalSinceReferenceDate: value) }
    func serialize(_ date: Date) -> Double? { date.timeIntervalSinceReferenceDate }
}

final class FluentPerson: Model, PersonFields, @unchecked Sendable {
    static let schema = "Person"
    @ID(custom: "id", generatedBy: .database) var id: Int64?
    @Timestamp(key: "createdTime", on: .create, format: ReferenceDateTimestampFormat()) var createdTime: Date?
    @Timestamp(key: "modifiedTime", on: .update, format: ReferenceDateTimestampFormat()) var modifiedTime: Date?
    @Field(key: "name") var name: String
    @Field(key: "code") var code: String
    @Field(key: "budget") var budget: Double
    @OptionalField(key: "startDate") var startSeconds: Double?
    @Boolean(key: "active", format: .integer) var active: Bool

    init() {}

    var startDate: Date? {
        get { startSeconds.map(Date.init(timeIntervalSinceReferenceDate:)) }
        set { startSeconds = newValue?.timeIntervalSinceReferenceDate }
    }
    var rowID: Int64 { id ?? 0 }
    var created: Date? { createdTime }
}

final class FluentMeeting: Model, MeetingFields, @unchecked Sendable {
    static let schema = "Meeting"
    @ID(custom: "id", generatedBy: .database) var id: Int64?
    @Timestamp(key: "createdTime", on: .create, format: ReferenceDateTimestampFormat()) var createdTime: Date?
    @Timestamp(key: "modifiedTime", on: .update, format: ReferenceDateTimestampFormat()) var modifiedTime: Date?
    @Field(key: "purpose") var purpose: String
    @Field(key: "startTime") var startSeconds: Double
    @Field(key: "minutes") var minutes: Int

    init() {}

    var startTime: Date {
        get { Date(timeIntervalSinceReferenceDate: startSeconds) }
        set { startSeconds = newValue.timeIntervalSinceReferenceDate }
    }
    var rowID: Int64 { id ?? 0 }
}

/// A row of the join table of a project's tags: Fluent reaches it as the project's children.
final class FluentProjectTag: Model, @unchecked Sendable {
    static let schema = "Project_tags"
    @ID(custom: "id", generatedBy: .database) var id: Int64?
    @Parent(key: "Project_ID") var project: FluentProject
    @Field(key: "tags") var tag: String

    init() {}
}

/// A row of the join table of a project's meetings: the pivot of its siblings.
final class FluentProjectMeeting: Model, @unchecked Sendable {
    static let schema = "Project_meetings"
    @ID(custom: "id", generatedBy: .database) var id: Int64?
    @Parent(key: "Project_ID") var project: FluentProject
    @Parent(key: "meetings") var meeting: FluentMeeting

    init() {}
}

/// A row of the join table of a project's lead (the library stores references in join tables too).
final class FluentProjectLead: Model, @unchecked Sendable {
    static let schema = "Project_lead"
    @ID(custom: "id", generatedBy: .database) var id: Int64?
    @Parent(key: "Project_ID") var project: FluentProject
    @Parent(key: "lead") var person: FluentPerson

    init() {}
}

final class FluentProject: Model, ProjectFields, @unchecked Sendable {
    static let schema = "Project"
    @ID(custom: "id", generatedBy: .database) var id: Int64?
    @Timestamp(key: "createdTime", on: .create, format: ReferenceDateTimestampFormat()) var createdTime: Date?
    @Timestamp(key: "modifiedTime", on: .update, format: ReferenceDateTimestampFormat()) var modifiedTime: Date?
    @Field(key: "name") var name: String
    @Field(key: "budget") var budget: Double
    @Children(for: \.$project) var tagRows: [FluentProjectTag]
    @Siblings(through: FluentProjectMeeting.self, from: \.$project, to: \.$meeting) var meetingRows: [FluentMeeting]
    @Siblings(through: FluentProjectLead.self, from: \.$project, to: \.$person) var leadRows: [FluentPerson]

    // What the eager-loaded relations give, in the shape every contender's project has.
    var tags: [String] = []
    var meetings: [FluentMeeting] = []
    var lead: FluentPerson?

    init() {}

    var rowID: Int64 { id ?? 0 }
}
