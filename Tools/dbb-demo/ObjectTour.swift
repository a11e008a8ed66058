import DBBBuilder
import Foundation

/// Prints a section heading with the place of the code that follows it (`Tools/dbb-demo/ObjectTour.swift:21`),
/// so a reader of the output can find it.
func section(_ title: String, fileID: String = #fileID, line: Int = #line) {
    print("\n== \(title)  [\(sourceLocation(fileID: fileID, line: line))]")
}

/// A place in the demo's sources, as a path from the repository's root.
func sourceLocation(fileID: String = #fileID, line: Int? = nil) -> String {
    // `#fileID` is `module/File.swift`; the module's sources are in Tools/dbb-demo.
    let file = fileID.split(separator: "/").last.map(String.init) ?? fileID
    return "Tools/dbb-demo/\(file)" + (line.map { ":\($0)" } ?? "")
}

/// The tour's classes, in the order they are registered and counted.
let tourClasses: [DBBTableObject.Type] = [Person.self, Company.self, Project.self, Meeting.self]

/// The object tour: a small database of people, companies, projects and meetings, the typical operations
/// on it, and a backup that is restored into a second file.
func runObjectTour(databaseAt url: URL, backupFolder: URL) async throws {
    print("DBBBuilder on SQLite \(DBBDatabase.sqliteVersion); database: \(url.path)")
    print("The classes Person, Company, Project and Meeting are in \(modelsSource).")
    let manager = try DBBManager(databaseURL: url)
    try manager.addTableClasses(tourClasses)

    section("Registering the classes created the tables")
    let tables = try await manager.queue.inDatabase { db in try db.tableNames() }
    print("  " + tables.joined(separator: ", "))

    section("Saving objects with references and arrays")
    func person(_ first: String, _ last: String, _ age: Int) -> Person {
        let person = Person(dbManager: manager)
        (person.firstName, person.lastName, person.age) = (first, last, age)
        person.email = "\(first.lowercased())@example.com"
        return person
    }
    let ada = person("Ada", "Byron", 36)
    let brian = person("Brian", "O'Brien", 52)
    let chen = person("Chen", "Wei", 29)
    let dana = person("Dana", "Scully", 41)
    let acme = Company(dbManager: manager)
    acme.name = "Acme"
    acme.founded = Date(timeIntervalSince1970: 946_684_800)  // 2000-01-01
    acme.employees = [ada, brian, chen]
    acme.ceo = brian
    let start = Date(timeIntervalSince1970: 1_767_225_600)  // 2026-01-01
    var projects: [Project] = []
    for (index, spec) in [
        ("Apollo", 120_000, ["space", "urgent"]), ("Borealis", 45_000, ["research"]),
        ("Cygnus", 250_000, ["space"]), ("Delta", 8_000, ["urgent", "internal"]),
    ].enumerated() {
        let project = Project(dbManager: manager)
        project.name = spec.0
        project.code = "P-\(index + 1)"
        project.budget = Float(spec.1)
        project.tags = spec.2
        project.startDate = start.addingTimeInterval(Double(index) * 30 * 86_400)
        project.projectLead = [ada, chen, ada, dana][index]
        project.company = acme
        projects.append(project)
    }
    for (project, attendees) in zip(projects, [[ada, brian], [chen], [ada, dana, chen], [dana]]) {
        for week in 0..<2 {
            let meeting = Meeting(dbManager: manager)
            meeting.purpose = "\(project.name) review \(week + 1)"
            meeting.startTime = project.startDate?.addingTimeInterval(Double(week) * 7 * 86_400)
            meeting.participants = attendees
            meeting.project = project
            project.meetings.append(meeting)
        }
    }
    // One call, one transaction: the projects and every unsaved object they reach.
    try await Project.save(projects, manager: manager)
    print("  saved \(projects.count) projects; ids \(projects.map(\.idNum))")
    for type in tourClasses {
        print("  \(type.tableName) rows: \(manager.countForTable(type.tableName))")
    }

    section("Queries with conditions and sorting")
    let big = DBBQueryOptions.options(withConditions: ["budget > 40000"], sortColumns: ["budget"], ascendingSort: false)
    for project in try await Project.fetch(options: big, manager: manager) {
        print("  \(project.name): \(Int(project.budget)), led by \(project.projectLead?.fullName ?? "nobody")")
    }
    let urgent = DBBQueryOptions.options(withConditions: ["tags = 'urgent'"], sortColumns: ["name"])
    let urgentProjects = try await Project.fetch(options: urgent, manager: manager)
    print("  tagged urgent: \(urgentProjects.map(\.name))")
    let withChen = DBBQueryOptions.options(
        withConditions: ["participants IN (\(chen.idNum))"], sortColumns: ["purpose"])
    let chensMeetings = try await Meeting.fetch(options: withChen, manager: manager)
    print("  meetings with Chen: \(chensMeetings.map(\.purpose))")
    var byName = DBBQueryOptions()
    byName.addCondition("lastName = ?", "O'Brien")
    if let found = try await Person.fetch(options: byName, manager: manager).first {
        print("  found by a bound value: \(found.fullName), \(found.age), \(found.email ?? "-")")
    }
    let apolloMeetings = DBBQueryOptions.options(withConditions: ["project = \(projects[0].idNum)"])
    let apollos = try await Meeting.fetch(options: apolloMeetings, manager: manager)
    print("  Apollo's meetings: \(apollos.map(\.purpose))")

    section("Updating an object")
    let borealis = try await Project.fetchOne(id: projects[1].idNum, manager: manager)
    if let borealis {
        borealis.budget += 5_000
        borealis.tags.append("funded")
        try await borealis.save()
        let again = try await Project.fetchOne(id: borealis.idNum, manager: manager)
        print("  Borealis: budget \(Int(again?.budget ?? 0)), tags \(again?.tags ?? [])")
    }

    section("Deleting objects")
    let delta = projects[3]
    let deltaMeetings = delta.meetings
    try await Meeting.delete(deltaMeetings, manager: manager)
    try await Project.delete([delta], manager: manager)
    print("  deleted Delta and its \(deltaMeetings.count) meetings")
    print("  projects now: \(Project.allInstances(manager: manager).map(\.name))")
    print("  meetings now: \(manager.countForTable(Meeting.tableName)); Delta's join rows are gone too")

    section("A backup through DBBExport, restored into a new file")
    let dumpURL = backupFolder.appendingPathComponent("demo.json.gz")
    let restoredURL = backupFolder.appendingPathComponent("restored.sqlite")
    let dumped = try DBBExport.dump(databaseAt: url, to: dumpURL)
    let size = (try? FileManager.default.attributesOfItem(atPath: dumpURL.path)[.size] as? Int) ?? 0
    print("  dumped \(dumped.tables.count) tables to \(dumpURL.lastPathComponent) (\(size) bytes)")
    try DBBExport.restore(dumpAt: dumpURL, to: restoredURL)
    let restored = try DBBManager(databaseURL: restoredURL)
    try restored.addTableClasses(tourClasses)
    let copies = Project.allInstances(manager: restored)
    print("  restored \(copies.count) projects: \(copies.map(\.name))")
    let same = zip(copies, Project.allInstances(manager: manager)).allSatisfy {
        $0.name == $1.name && $0.tags == $1.tags && $0.meetings.map(\.purpose) == $1.meetings.map(\.purpose)
            && $0.projectLead?.fullName == $1.projectLead?.fullName
    }
    print("  the restored objects match the originals: \(same ? "yes" : "NO")")
    // The demo's projects and meetings point at each other and so keep the managers alive: close explicitly,
    // which also folds the write-ahead log into the database file.
    try restored.close()
    try manager.close()
}
