import DBBObjects
import Foundation

// A child process for the crash and concurrency tests: it saves through the object layer until it is
// killed, reporting each committed batch on standard output, opens a brand-new file at the same time
// as a sibling process, or migrates a file of saved batches until it is killed.
//
//   dbb-crash-child save <database> <first batch> <members per batch>
//   dbb-crash-child coldstart <database>
//   dbb-crash-child seed <database> <batches> <members per batch>
//   dbb-crash-child migrate <database>

/// A member of a team: scalars, an array of strings and a reference to another member.
final class CrashMember: DBBTableObject {
    var batch = 0
    var position = 0
    var tags: [String] = []
    var buddy: CrashMember?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "batch": .init(\CrashMember.batch),
                "position": .init(\CrashMember.position),
                "tags": .init(\CrashMember.tags),
                "buddy": .init(\CrashMember.buddy),
            ], for: self, indexer: DBBIndexer(columnsToIndex: ["batch"]))
    }
}

/// One batch: a team with an array of members and a reference to its lead.
final class CrashTeam: DBBTableObject {
    var batch = 0
    var name = ""
    var members: [CrashMember] = []
    var lead: CrashMember?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "batch": .init(\CrashTeam.batch),
                "name": .init(\CrashTeam.name),
                "members": .init(\CrashTeam.members),
                "lead": .init(\CrashTeam.lead),
            ], for: self)
    }
}

func makeTeam(batch: Int, size: Int, manager: DBBManager) -> CrashTeam {
    let team = CrashTeam(dbManager: manager)
    team.batch = batch
    team.name = "team \(batch)"
    var previous: CrashMember?
    for position in 0..<size {
        let member = CrashMember(dbManager: manager)
        member.batch = batch
        member.position = position
        member.tags = ["b\(batch)", "p\(position)", String(repeating: "x", count: 50 + position)]
        member.buddy = previous
        previous = member
        team.members.append(member)
    }
    team.lead = team.members.first
    return team
}

func report(_ line: String) {
    FileHandle.standardOutput.write(Data((line + "\n").utf8))
}

func fail(_ error: any Error) -> Never {
    FileHandle.standardError.write(Data("dbb-crash-child: \(error)\n".utf8))
    exit(1)
}

let arguments = CommandLine.arguments
guard arguments.count >= 3 else {
    FileHandle.standardError.write(Data("usage: dbb-crash-child save|coldstart|seed|migrate <database> …\n".utf8))
    exit(64)
}
/// The migration the kill test interrupts: two renames, a type change (a table rebuild) and a class rename.
var crashMigrator: DBBMigrator {
    var migrator = DBBMigrator()
    migrator.registerMigration(
        "v2",
        [
            .renameProperty("tags", to: "labels", in: "CrashMember"),
            .changeType(of: "position", in: "CrashMember", to: .string) { value in value.int64Value.map { "p\($0)" } },
            .renameProperty("batch", to: "round", in: "CrashMember"),
            .renameClass("CrashTeam", to: "CrashSquad"),
        ])
    return migrator
}

let url = URL(fileURLWithPath: arguments[2])
do {
    let manager = try DBBManager(databaseURL: url)
    if arguments[1] == "migrate" {
        report("ready")
        try crashMigrator.migrate(manager)
        // Reported only after the commit returned: the parent checks a reported migration survives a kill.
        report("migrated")
        exit(0)
    }
    try manager.addTableClasses([CrashMember.self, CrashTeam.self])
    switch arguments[1] {
    case "seed":
        let batches = arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1
        let size = arguments.count > 4 ? Int(arguments[4]) ?? 10 : 10
        let teams = (1...batches).map { makeTeam(batch: $0, size: size, manager: manager) }
        try CrashTeam.save(teams, manager: manager)
        try manager.close()
        report("ok")
    case "save":
        var batch = arguments.count > 3 ? Int(arguments[3]) ?? 1 : 1
        let size = arguments.count > 4 ? Int(arguments[4]) ?? 10 : 10
        report("ready")
        while true {
            let team = makeTeam(batch: batch, size: size, manager: manager)
            try CrashTeam.save([team], manager: manager)
            // Reported only after the commit returned: the parent checks these batches survive a kill.
            report("saved \(batch)")
            batch += 1
        }
    case "coldstart":
        try CrashTeam.save([makeTeam(batch: 1, size: 2, manager: manager)], manager: manager)
        report("ok")
    default:
        FileHandle.standardError.write(Data("unknown mode \(arguments[1])\n".utf8))
        exit(64)
    }
} catch {
    fail(error)
}
