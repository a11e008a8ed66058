import Foundation

// The data and the shape of the comparison's classes, shared by Tools/Benchmarks (SQLite) and
// Tools/PostgresBenchmarks (PostgreSQL, where this file is a symbolic link), so that both run the same workloads.

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
