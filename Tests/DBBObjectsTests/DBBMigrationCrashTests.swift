import DBBObjects
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// Processes that run a migration (renames, a table rebuild, a class rename) are killed with SIGKILL at random
/// points: each file must hold either the old schema or the new one, whole, with every row, and the new one
/// whenever the process reported the migration done.
@Suite("Migration crash safety") struct DBBMigrationCrashTests {
    static let batches = 400
    static let members = 12

    /// Row counts that must survive the migration whichever way it went.
    static func counts(_ db: DBBDatabase, migrated: Bool) throws -> [Int] {
        let team = migrated ? "CrashSquad" : "CrashTeam"
        let tags = migrated ? "CrashMember_labels" : "CrashMember_tags"
        return try [
            "SELECT count(*) FROM CrashMember", "SELECT count(*) FROM \(tags)", "SELECT count(*) FROM \(team)",
            "SELECT count(*) FROM \(team)_members", "SELECT count(*) FROM CrashMember_buddy",
        ].map { try db.fetchValue(Int.self, $0) ?? -1 }
    }

    @Test("SIGKILL at random points while migrating leaves the old schema or the new one, whole")
    func killedWhileMigrating() throws {
        let folder = try TemporaryFolder()
        let seed = folder.file("seed.sqlite")
        let seeding = try ChildProcess(
            try DBBObjectsCrashTests.child, ["seed", seed.path, "\(Self.batches)", "\(Self.members)"],
            outputIn: folder.url)
        #expect(seeding.wait() == 0, "\(seeding.errorOutput)")
        let members = Self.batches * Self.members
        let expected = [members, members * 3, Self.batches, members, members - Self.batches]
        var outcomes: [Bool: Int] = [:]
        for round in 0..<ChildProcess.rounds(default: 20) {
            let database = folder.file("round\(round).sqlite")
            try FileManager.default.copyItem(at: seed, to: database)
            let process = try ChildProcess(
                try DBBObjectsCrashTests.child, ["migrate", database.path], outputIn: folder.url)
            // The last rounds run to the end; the others are killed from the start to well past a typical finish.
            if round < ChildProcess.rounds(default: 20) - 2 {
                usleep(UInt32.random(in: 0...400_000))
                _ = process.killNow()
            } else {
                #expect(process.wait() == 0, "\(process.errorOutput)")
            }
            #expect(process.errorOutput.isEmpty, "\(process.errorOutput)")
            let reported = process.output.contains("migrated")
            let db = try DBBDatabase(path: database.path, mode: .readWrite, busyTimeout: 5)
            defer { try? db.close() }
            #expect(try db.fetchValues(String.self, "PRAGMA integrity_check") == ["ok"])
            let recorded =
                try db.tableExists(DBBMigrator.recordTable)
                && (try db.fetchValue(Int.self, "SELECT count(*) FROM \(DBBMigrator.recordTable)") ?? 0) == 1
            #expect(!reported || recorded, "round \(round): reported migrated but not recorded")
            let tables = Set(try db.tableNames())
            #expect(!tables.contains { $0.hasPrefix("dbb_rebuild_") })
            if recorded {
                #expect(tables.isSuperset(of: ["CrashSquad", "CrashSquad_members", "CrashMember_labels"]))
                #expect(!tables.contains("CrashTeam") && !tables.contains("CrashMember_tags"))
                let positions = try db.fetchValues(String.self, "SELECT DISTINCT typeof(position) FROM CrashMember")
                #expect(positions == ["text"])
                #expect(try db.columnExists("round", in: "CrashMember"))
            } else {
                #expect(tables.isSuperset(of: ["CrashTeam", "CrashTeam_members", "CrashMember_tags"]))
                #expect(!tables.contains("CrashSquad"))
                #expect(
                    try db.fetchValues(String.self, "SELECT DISTINCT typeof(position) FROM CrashMember") == ["integer"])
            }
            #expect(try Self.counts(db, migrated: recorded) == expected, "round \(round)")
            outcomes[recorded, default: 0] += 1
        }
        #expect(outcomes[true, default: 0] >= 2, "the migration completed in some rounds: \(outcomes)")
    }
}
