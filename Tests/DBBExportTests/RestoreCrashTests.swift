import DBBExport
import DBBSQL
import Foundation
import Testing

/// `dbb-backup restore` killed with SIGKILL at random points: the target is always the old database or
/// the whole new one, never a mixture or a damaged file, and the next run removes the temporary files
/// the killed ones left. `Scripts/crash-test.sh` runs many more rounds (`DBB_CRASH_ROUNDS`).
@Suite("Restore crash safety")
struct RestoreCrashTests {
    static let rows = 20_000

    /// What the target holds, read by the system's sqlite3 shell: "new" (the whole dump), "old" (the
    /// crashed database that was there), "none", or a description of anything else.
    static func state(of target: URL) throws -> String {
        guard FileManager.default.fileExists(atPath: target.path) else { return "none" }
        let read = try sqlite3Shell(
            target,
            "PRAGMA integrity_check; SELECT group_concat(name) FROM (SELECT name FROM sqlite_master ORDER BY name);")
        switch read {
        case "ok\nt":
            let count = try sqlite3Shell(target, "SELECT count(*) FROM t")
            return count == "\(rows)" ? "new" : "t with \(count) rows"
        case "ok\nold":
            let count = try sqlite3Shell(target, "SELECT count(*) FROM old")
            return count == "5000" ? "old" : "old with \(count) rows"
        default:
            return read
        }
    }

    @Test("SIGKILL during restore leaves no file or the whole database, old target or whole new one")
    func killedDuringRestore() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("source.sqlite")
        let db = try DBBDatabase(path: source.path)
        try db.executeStatements(
            """
            CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT, b BLOB);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(Self.rows))
            INSERT INTO t SELECT x, printf('row %d', x), randomblob(60) FROM c;
            """)
        try db.close()
        let dump = folder.file("source.json.gz")
        try DBBExport.dump(databaseAt: source, to: dump)
        let tool = URL(fileURLWithPath: BackupToolTests.tool)
        let outputs = try TemporaryFolder()

        // How long one whole restore takes here, so the kills spread over all of it.
        let started = Date()
        let whole = try ChildProcess(
            tool, ["restore", "-q", dump.path, folder.path("timed.sqlite")], outputIn: outputs.url)
        #expect(whole.wait() == 0, "\(whole.errorOutput)")
        let duration = Date().timeIntervalSince(started)
        try FileManager.default.removeItem(at: folder.file("timed.sqlite"))

        let rounds = ChildProcess.rounds(default: 10)
        var seen: [String: Int] = [:]
        for round in 0..<(2 * rounds) {
            let overExisting = round % 2 == 1
            let target = folder.file(overExisting ? "existing.sqlite" : "fresh.sqlite")
            if overExisting {
                try RestoreTargetTests.leaveCrashedWALDatabase(at: target, in: folder, largeLog: true)
            } else {
                for suffix in ["", "-wal", "-shm", "-journal"] { unlink(target.path + suffix) }
            }
            let child = try ChildProcess(
                tool, ["restore", "-q", "--force", dump.path, target.path], outputIn: outputs.url)
            usleep(UInt32(Double.random(in: 0...(duration * 0.9)) * 1_000_000))
            child.killNow()
            let state = try Self.state(of: target)
            seen[state, default: 0] += 1
            let allowed = overExisting ? ["old", "new"] : ["none", "new"]
            #expect(allowed.contains(state), "round \(round): the target holds \(state)")
        }
        // The next runs, not killed, remove what the killed ones left behind, and a whole restore over a
        // crashed WAL database gives the new database.
        try RestoreTargetTests.leaveCrashedWALDatabase(
            at: folder.file("existing.sqlite"), in: folder, largeLog: false)
        for target in ["existing.sqlite", "fresh.sqlite", "last.sqlite"] {
            let child = try ChildProcess(
                tool, ["restore", "-q", "--force", dump.path, folder.path(target)], outputIn: outputs.url)
            #expect(child.wait() == 0, "\(child.errorOutput)")
            #expect(try Self.state(of: folder.file(target)) == "new", "\(target)")
        }
        let left = try folder.contents().filter { $0.hasPrefix(".") && $0.contains(".tmp") }
        #expect(left == [], "temporary files left: \(left)")
        print("restore crash rounds, by what the target held after the kill: \(seen)")
        #expect(seen.values.reduce(0, +) == 2 * rounds, "\(seen)")
    }
}
