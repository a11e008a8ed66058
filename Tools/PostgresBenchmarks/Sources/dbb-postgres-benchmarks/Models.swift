import DBBBuilder
import FluentKit
import Foundation

// The classes of the comparison, once per contender, with the data and the model shapes of Tools/Benchmarks.
// Every contender reads and writes the same tables (`Person`, `Meeting`, `Project` and the project's join
// tables, laid out by the library), and holds its objects in classes of its own: the baseline's classes know
// nothing of either library.

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
