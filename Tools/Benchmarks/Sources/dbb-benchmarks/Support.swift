import CSQLite
import Foundation

// What every workload shares: running and failing, a temporary folder, timing, the report line, and a bare
// sqlite3 connection for the hand-written side of each comparison.

/// Runs the workload `name`. A failure prints "<name> benchmark failed: …" and ends the process with status 1,
/// so that a run of all workloads stops there instead of going on as if it had passed.
func runWorkload(_ name: String, _ body: () throws -> Void) {
    do {
        try body()
    } catch {
        print("\(name) benchmark failed: \(error)")
        exit(1)
    }
}

/// Runs `body` with a new folder in the temporary directory (`<prefix>-<UUID>`), removed afterwards.
func withTemporaryFolder<Result>(_ prefix: String, _ body: (URL) throws -> Result) throws -> Result {
    let folder = FileManager.default.temporaryDirectory
        .appendingPathComponent("\(prefix)-\(UUID().uuidString)", isDirectory: true)
    try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
    defer { try? FileManager.default.removeItem(at: folder) }
    return try body(folder)
}

/// The CPU time the process spends in `body`, in seconds. CPU time rather than wall time, so that other
/// processes on a busy machine do not distort the ratios; SQLite's file writes are made in the process too.
func time(_ body: () throws -> Void) throws -> Double {
    let start = cpuTime()
    try body()
    return cpuTime() - start
}

/// The wall-clock time `body` takes, in seconds: for workloads that measure I/O or other processes too.
func wallTime(_ body: () throws -> Void) throws -> Double {
    let elapsed = try ContinuousClock().measure(body)
    return Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
}

func cpuTime() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

/// A column's text, read with its byte length.
func text(_ statement: OpaquePointer, _ column: Int32) -> String {
    guard let bytes = sqlite3_column_text(statement, column) else { return "" }
    let count = Int(sqlite3_column_bytes(statement, column))
    return String(decoding: UnsafeBufferPointer(start: bytes, count: count), as: UTF8.self)
}

/// SQLITE_TRANSIENT: SQLite copies the bound bytes.
let sqliteTransient = unsafeBitCast(-1, to: sqlite3_destructor_type.self)

/// A bare sqlite3 connection with the manager's settings (WAL, synchronous NORMAL), opened without SQLite's
/// connection mutex, as one thread uses it.
final class RawDatabase {
    let handle: OpaquePointer

    init(_ url: URL) throws {
        var handle: OpaquePointer?
        guard
            sqlite3_open_v2(url.path, &handle, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, nil)
                == SQLITE_OK, let handle
        else {
            throw RawError(message: "cannot open \(url.path)")
        }
        self.handle = handle
        try execute("PRAGMA journal_mode = WAL")
        try execute("PRAGMA synchronous = NORMAL")
    }

    deinit { sqlite3_close_v2(handle) }

    func error() -> RawError { RawError(message: String(cString: sqlite3_errmsg(handle))) }

    func execute(_ sql: String) throws {
        guard sqlite3_exec(handle, sql, nil, nil, nil) == SQLITE_OK else { throw error() }
    }

    func prepare(_ sql: String) throws -> OpaquePointer {
        var statement: OpaquePointer?
        guard sqlite3_prepare_v2(handle, sql, -1, &statement, nil) == SQLITE_OK, let statement else { throw error() }
        return statement
    }

    /// Runs `sql`, its parameters bound to `texts` in order, and calls `body` with the statement at each row.
    func forEachRow(_ sql: String, binding texts: [String] = [], _ body: (OpaquePointer) -> Void) throws {
        let statement = try prepare(sql)
        defer { sqlite3_finalize(statement) }
        for (position, text) in texts.enumerated() {
            sqlite3_bind_text(statement, Int32(position + 1), text, -1, sqliteTransient)
        }
        while true {
            let result = sqlite3_step(statement)
            if result == SQLITE_DONE { return }
            guard result == SQLITE_ROW else { throw error() }
            body(statement)
        }
    }
}

struct RawError: Error, CustomStringConvertible {
    let message: String
    var description: String { message }
}

/// The command line's options; the workload names are what is left.
struct BenchmarkOptions {
    nonisolated(unsafe) static var current = BenchmarkOptions()

    var jsonPath: String?
    var runs = 5
    var scale = 1
    var workloads: Set<String> = []
    var contenders: Set<String> = []
    /// `--layout lean`: the comparison's tables in the lean layout (`INTEGER PRIMARY KEY`, no timestamps).
    var leanLayout = false

    static func parse(_ arguments: [String]) throws -> (BenchmarkOptions, [String]) {
        var options = BenchmarkOptions()
        var names: [String] = []
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let value = rest.popFirst() else { throw RawError(message: "\(flag) needs a value") }
            return value
        }
        func count(_ flag: String) throws -> Int {
            guard let number = Int(try value(flag)), number > 0 else {
                throw RawError(message: "\(flag) needs a positive whole number")
            }
            return number
        }
        func list(_ flag: String) throws -> Set<String> {
            Set(try value(flag).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": options.jsonPath = try value(argument)
            case "--runs": options.runs = try count(argument)
            case "--scale": options.scale = try count(argument)
            case "--only": options.workloads = try list(argument)
            case "--contenders": options.contenders = try list(argument)
            case "--layout":
                switch try value(argument) {
                case "lean": options.leanLayout = true
                case "dbbBuilder": options.leanLayout = false
                case let other: throw RawError(message: "--layout is lean or dbbBuilder, not \(other)")
                }
            default: names.append(argument)
            }
        }
        return (options, names)
    }
}
