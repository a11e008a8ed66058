import DBBSQL
@_exported import DBBTestSupport
import Foundation
import Testing

/// The real databases of the fixtures folder (`Tests/Fixtures`).
let fixtureDatabaseNames = [
    "chinook.sqlite", "chinook_autoincrement.sqlite", "chinook_sqlitetutorial.db", "northwind.sqlite",
    "sakila.sqlite", "mbtiles_plain_2.sqlite",
]

/// Checks with SQL alone, not with the library under test, that two databases hold the same schema,
/// header values and rows: every table's rows with their rowids, storage classes and exact values.
enum SQLComparison {
    /// Returns a list of the differences found (empty when the databases are identical).
    static func differences(original: URL, restored: URL) throws -> [String] {
        let db = try DBBDatabase(path: restored.path, mode: .readOnly)
        defer { try? db.close() }
        try db.execute("ATTACH DATABASE ? AS src", "file:\(original.path)?mode=ro")
        var found: [String] = []
        let master = "SELECT type, name, tbl_name, sql FROM %@.sqlite_master WHERE name NOT LIKE 'sqlite_autoindex%'"
        for (a, b) in [("src", "main"), ("main", "src")] {
            let sql =
                master.replacingOccurrences(of: "%@", with: a) + " EXCEPT "
                + master.replacingOccurrences(of: "%@", with: b)
            for row in try db.fetchCursor(sql).map({ $0.values }) {
                found.append("schema object only in \(a): \(row)")
            }
        }
        for pragma in ["user_version", "application_id", "page_size", "encoding", "auto_vacuum"] {
            let left = try db.fetchValue(String.self, "PRAGMA src.\(pragma)")
            let right = try db.fetchValue(String.self, "PRAGMA main.\(pragma)")
            if left != right { found.append("\(pragma): \(left ?? "nil") vs \(right ?? "nil")") }
        }
        let tables = try db.fetchValues(
            String.self,
            "SELECT name FROM src.sqlite_master WHERE type = 'table' AND sql NOT LIKE 'CREATE VIRTUAL TABLE%'")
        for table in tables {
            let quoted = DBBDatabase.quoteIdentifier(table)
            let columns = try db.fetchValues(
                String.self, "SELECT name FROM pragma_table_xinfo(?, 'src') WHERE hidden <> 1", table)
            var expressions = columns.map { column -> String in
                let c = DBBDatabase.quoteIdentifier(column)
                return "typeof(\(c)), CASE typeof(\(c)) WHEN 'real' THEN printf('%!.17g', \(c)) ELSE hex(\(c)) END"
            }
            let lowered = Set(columns.map { $0.lowercased() })
            if let alias = ["rowid", "_rowid_", "oid"].first(where: { !lowered.contains($0) }),
                (try? db.prepare("SELECT \(alias) FROM src.\(quoted) LIMIT 0")) != nil
            {
                expressions.insert(alias, at: 0)
            }
            let select = "SELECT \(expressions.joined(separator: ", ")) FROM %@.\(quoted)"
            for (a, b) in [("src", "main"), ("main", "src")] {
                let sql =
                    "SELECT count(*) FROM (" + select.replacingOccurrences(of: "%@", with: a) + " EXCEPT "
                    + select.replacingOccurrences(of: "%@", with: b) + ")"
                let count = try db.fetchValue(Int.self, sql) ?? -1
                if count != 0 { found.append("table \(table): \(count) row(s) only in \(a)") }
            }
            let left = try db.fetchValue(Int.self, "SELECT count(*) FROM src.\(quoted)")
            let right = try db.fetchValue(Int.self, "SELECT count(*) FROM main.\(quoted)")
            if left != right { found.append("table \(table): \(left ?? -1) rows vs \(right ?? -1)") }
        }
        let integrity = try db.fetchValues(String.self, "PRAGMA main.integrity_check")
        if integrity != ["ok"] { found.append("integrity_check: \(integrity)") }
        return found
    }
}

/// Compresses bytes with the system's gzip, for hand-made dumps.
func gzip(_ data: Data) throws -> Data {
    let result = try ToolProcess.run(executable: URL(fileURLWithPath: "/bin/gzip"), ["-c"], input: data)
    #expect(result.exitCode == 0)
    return result.output
}

/// Decompresses a gzip file with the system's gzip.
func gunzip(_ url: URL) throws -> Data {
    let result = try ToolProcess.run(executable: URL(fileURLWithPath: "/bin/gzip"), ["-dc", url.path])
    #expect(result.exitCode == 0, "gzip -dc failed: \(result.standardError)")
    return result.output
}

/// Runs a program to completion and returns its exit status and peak resident memory in KiB.
///
/// The peak is the child's own high-water mark (`VmHWM` in `/proc/<pid>/status`), read every few
/// milliseconds while it runs. (`wait4`'s `ru_maxrss` would not do: a spawned child inherits the
/// parent's peak when it execs, and the test process is large.)
func runMeasuringPeakMemory(_ executable: String, _ arguments: [String]) throws -> (status: Int32, peakKiB: Int) {
    var pid: pid_t = 0
    let argv: [UnsafeMutablePointer<CChar>?] = ([executable] + arguments).map { strdup($0) } + [nil]
    defer { for pointer in argv { free(pointer) } }
    var actions = posix_spawn_file_actions_t()
    posix_spawn_file_actions_init(&actions)
    defer { posix_spawn_file_actions_destroy(&actions) }
    posix_spawn_file_actions_addopen(&actions, 1, "/dev/null", O_WRONLY, 0)
    posix_spawn_file_actions_addopen(&actions, 2, "/dev/null", O_WRONLY, 0)
    let code = posix_spawn(&pid, executable, &actions, nil, argv, environ)
    guard code == 0 else { throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EINVAL) }
    var status: Int32 = 0
    var peak = 0
    while true {
        if let text = try? String(contentsOfFile: "/proc/\(pid)/status", encoding: .utf8),
            let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
            let kib = Int(line.split(separator: " ").dropFirst().first ?? "")
        {
            peak = max(peak, kib)
        }
        let result = waitpid(pid, &status, WNOHANG)
        if result == pid || (result < 0 && errno != EINTR) { break }
        usleep(2000)
    }
    // WEXITSTATUS, spelled out: the exit code sits in bits 8–15 of a normal exit status.
    return ((status >> 8) & 0xFF, peak)
}
