import DBBObjects
import DBBTestSupport
import Foundation
import Testing

/// Processes that save through the object layer are killed with SIGKILL at random points; the file must
/// stay intact, hold every batch whole or not at all, and hold every batch the process reported saved.
/// `Scripts/crash-test.sh` runs many more rounds (`DBB_CRASH_ROUNDS`).
@Suite("Crash safety") struct DBBObjectsCrashTests {
    static var child: URL {
        get throws {
            guard let url = ToolProcess.executable("dbb-crash-child") else {
                throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "dbb-crash-child is not built"])
            }
            return url
        }
    }

    static let membersPerBatch = 12

    /// Checks a database the child wrote: integrity, whole batches, and the batches it reported.
    /// - Returns: the batch numbers present.
    static func checkBatches(in url: URL, reported: Set<Int>, sourceLocation: SourceLocation = #_sourceLocation)
        throws -> Set<Int>
    {
        guard FileManager.default.fileExists(atPath: url.path) else {
            #expect(reported.isEmpty, "batches reported saved but no file", sourceLocation: sourceLocation)
            return []
        }
        // A child killed while its new file was still in rollback-journal mode (before WAL was switched on) leaves
        // a hot journal, which only a connection that may write rolls back, as the next application would.
        func open() throws -> DBBDatabase {
            do {
                let db = try DBBDatabase(path: url.path, mode: .readOnly, busyTimeout: 5)
                _ = try db.fetchValues(String.self, "SELECT name FROM sqlite_master")
                return db
            } catch let error as DBBError where error.extendedCode == 776 {  // SQLITE_READONLY_ROLLBACK
                return try DBBDatabase(path: url.path, mode: .readWrite, busyTimeout: 5)
            }
        }
        let db = try open()
        defer { try? db.close() }
        #expect(try db.fetchValues(String.self, "PRAGMA integrity_check") == ["ok"], sourceLocation: sourceLocation)
        let tables = Set(try db.fetchValues(String.self, "SELECT name FROM sqlite_master WHERE type = 'table'"))
        guard tables.contains("CrashTeam") else {
            #expect(reported.isEmpty, "batches reported saved but no table", sourceLocation: sourceLocation)
            return []
        }
        let batches = try db.fetchValues(Int.self, "SELECT batch FROM CrashTeam ORDER BY batch")
        #expect(Set(batches).count == batches.count, "a batch saved twice", sourceLocation: sourceLocation)
        let size = membersPerBatch
        // Per batch: its members, the team's array rows pointing at them, the lead, each member's three
        // tags and its buddy reference (all but the first member).
        let broken = try db.fetchValues(
            String.self,
            """
            SELECT t.batch || ': ' ||
                (SELECT count(*) FROM CrashMember m WHERE m.batch = t.batch) || ' members, ' ||
                (SELECT count(*) FROM CrashTeam_members j JOIN CrashMember m ON m.id = j.members
                    WHERE j.CrashTeam_ID = t.id AND m.batch = t.batch) || ' array rows, ' ||
                (SELECT count(*) FROM CrashTeam_lead l JOIN CrashMember m ON m.id = l.lead
                    WHERE l.CrashTeam_ID = t.id AND m.batch = t.batch AND m.position = 0) || ' lead, ' ||
                (SELECT count(*) FROM CrashMember_tags g JOIN CrashMember m ON m.id = g.CrashMember_ID
                    WHERE m.batch = t.batch) || ' tags, ' ||
                (SELECT count(*) FROM CrashMember_buddy b JOIN CrashMember m ON m.id = b.CrashMember_ID
                    JOIN CrashMember o ON o.id = b.buddy WHERE m.batch = t.batch AND o.batch = t.batch
                    AND o.position = m.position - 1) || ' buddies'
            FROM CrashTeam t
            """)
        let whole = "\(size) members, \(size) array rows, 1 lead, \(size * 3) tags, \(size - 1) buddies"
        for line in broken where !line.hasSuffix(": " + whole) {
            Issue.record("batch \(line), expected \(whole)", sourceLocation: sourceLocation)
        }
        // No member outside a saved batch: a batch is all or nothing, referenced objects included.
        let orphans = try db.fetchValue(
            Int.self, "SELECT count(*) FROM CrashMember WHERE batch NOT IN (SELECT batch FROM CrashTeam)")
        #expect(orphans == 0, sourceLocation: sourceLocation)
        let present = Set(batches)
        #expect(
            reported.isSubset(of: present), "reported but missing: \(reported.subtracting(present).sorted())",
            sourceLocation: sourceLocation)
        return present
    }

    @Test("SIGKILL at random points while saving batches loses no reported batch and tears none")
    func killedWhileSaving() throws {
        let folder = try TemporaryFolder()
        let database = folder.file("crash.sqlite")
        let rounds = ChildProcess.rounds(default: 20)
        var present: Set<Int> = []
        var reportedTotal = 0
        var killedRunning = 0
        for round in 0..<rounds {
            let first = (present.max() ?? 0) + 1
            let process = try ChildProcess(
                try Self.child, ["save", database.path, "\(first)", "\(Self.membersPerBatch)"], outputIn: folder.url)
            // From right after the start (opening, creating tables) to well into the saving loop.
            usleep(UInt32.random(in: 0...(round % 4 == 0 ? 60_000 : 350_000)))
            if process.killNow() { killedRunning += 1 }
            #expect(process.errorOutput.isEmpty, "\(process.errorOutput)")
            let reported = Set(
                process.output.split(separator: "\n").compactMap { line -> Int? in
                    line.hasPrefix("saved ") ? Int(line.dropFirst(6)) : nil
                })
            reportedTotal += reported.count
            present = try Self.checkBatches(in: database, reported: reported.union(present))
        }
        #expect(killedRunning == rounds, "every child was still running when killed")
        #expect(reportedTotal > 0, "the children saved something")
    }

    @Test("two processes opening one brand-new file at once both succeed")
    func concurrentColdStart() throws {
        let folder = try TemporaryFolder()
        for round in 0..<ChildProcess.rounds(default: 20) {
            let database = folder.file("cold\(round).sqlite")
            let children = try (0..<2).map { _ in
                try ChildProcess(try Self.child, ["coldstart", database.path], outputIn: folder.url)
            }
            for child in children {
                #expect(child.wait() == 0, "round \(round): \(child.errorOutput)")
                #expect(child.output == "ok\n")
            }
            let db = try DBBDatabase(path: database.path, mode: .readOnly)
            #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM CrashTeam") == 2)
            #expect(try db.fetchValues(String.self, "PRAGMA integrity_check") == ["ok"])
            try db.close()
        }
    }
}
