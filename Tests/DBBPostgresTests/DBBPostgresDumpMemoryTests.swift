import DBBExport
import DBBPostgres
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A dump of PostgreSQL streams: a million rows and a 100 MB value are dumped by `dbb-backup` in bounded memory.
@Suite(.postgres)
struct DBBPostgresDumpMemoryTests {
    /// The ceiling here: the documented two copies of the largest batch (postgres-nio's message and the batch
    /// copied from it; the batch holding the value is that one row) plus 50 MiB (the gzip members in flight, the
    /// process itself), with room for a third copy of the value — 336 MiB with a value of 100 MB.
    static let peakLimitKiB = (3 * 100_000_000 / 1024) + 50 * 1024

    /// Runs a child to its end, polling its peak resident memory (`VmHWM`).
    static func runMeasuringPeak(_ executable: URL, _ arguments: [String], in folder: URL) throws -> (
        status: Int32, peakKiB: Int, errors: String
    ) {
        let child = try ChildProcess(executable, arguments, outputIn: folder)
        var peak = 0
        var raw: Int32 = 0
        while true {
            if let text = try? String(contentsOfFile: "/proc/\(child.pid)/status", encoding: .utf8),
                let line = text.split(separator: "\n").first(where: { $0.hasPrefix("VmHWM:") }),
                let kib = Int(line.split(separator: " ").dropFirst().first ?? "")
            {
                peak = max(peak, kib)
            }
            let result = waitpid(child.pid, &raw, WNOHANG)
            if result == child.pid || (result < 0 && errno != EINTR) { break }
            usleep(5_000)
        }
        // WEXITSTATUS, spelled out: the exit code sits in bits 8–15 of a normal exit status.
        let status: Int32? = (raw >> 8) & 0xFF
        return (status ?? -1, peak, child.errorOutput)
    }

    /// Opt-in (`DBB_DUMP_LARGE_BATCH=1`): it moves about a GiB through the server, the dump and a restore.
    @Test(
        "a batch too large for one array of the server is read again in smaller ones",
        .enabled(if: ProcessInfo.processInfo.environment["DBB_DUMP_LARGE_BATCH"] == "1"))
    func batchOverTheArrayLimit() async throws {
        let folder = try TemporaryFolder()
        let configuration = try await TestPostgres.freshDatabase()
        let rows = 66
        let length = 16 << 20
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            _ = try db.execute("CREATE TABLE wide (id bigint PRIMARY KEY, v text)")
            // The first batch asks for 64 rows: 64 values of 16 MiB pass the server's 1 GiB limit on one array.
            _ = try db.execute(
                "INSERT INTO wide SELECT i, repeat(chr(64 + i % 26), \(length)) FROM generate_series(1, \(rows)) AS i")
        }
        let dump = folder.file("wide.json.gz")
        let tool = try #require(ToolProcess.executable("dbb-backup"))
        let run = try Self.runMeasuringPeak(
            tool, ["dump", "-q", DBBPostgresDumpTests.url(of: configuration), dump.path], in: folder.url)
        #expect(run.status == 0, "\(run.errors)")
        print("dump of \(rows) values of 16 MiB: peak \(run.peakKiB / 1024) MiB")
        let sqlite = folder.file("wide.sqlite")
        try DBBExport.restore(dumpAt: dump, to: sqlite)
        let db = try DBBDatabase(path: sqlite.path, mode: .readOnly)
        defer { try? db.close() }
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM wide") == rows)
        #expect(
            try db.fetchValue(
                Int.self, "SELECT count(*) FROM wide WHERE length(v) = ? AND substr(v, ?, 1) = char(64 + id % 26)",
                length, length) == rows)
    }

    @Test("a million rows and a 100 MB value are dumped in bounded memory, and restore exactly")
    func millionRowsAndALongValue() async throws {
        let folder = try TemporaryFolder()
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            _ = try db.execute("CREATE TABLE many (id bigint PRIMARY KEY, label text, ratio double precision)")
            _ = try db.execute(
                "INSERT INTO many SELECT i, 'row ' || i, i / 7.0 FROM generate_series(1, 1000000) AS i")
            _ = try db.execute("CREATE TABLE long (id bigint PRIMARY KEY, bytes bytea)")
            // 100,000,000 bytes: 0x00 to 0xff over and over.
            _ = try db.execute(
                "INSERT INTO long SELECT 1, decode(repeat(string_agg(lpad(to_hex(b), 2, '0'), ''), 390625), 'hex') "
                    + "FROM generate_series(0, 255) AS b")
            let length = try db.fetchAll("SELECT octet_length(bytes) FROM long")
            #expect(length == [[.integer(100_000_000)]])
        }
        let dump = folder.file("big.json.gz")
        let tool = try #require(ToolProcess.executable("dbb-backup"))
        let run = try Self.runMeasuringPeak(
            tool, ["dump", "-q", DBBPostgresDumpTests.url(of: configuration), dump.path, "--max-value-size", "128M"],
            in: folder.url)
        #expect(run.status == 0, "\(run.errors)")
        #expect(run.peakKiB < Self.peakLimitKiB, "peak \(run.peakKiB) KiB")
        print("dump of 1,000,000 rows and a 100 MB value: peak \(run.peakKiB / 1024) MiB")
        let sqlite = folder.file("big.sqlite")
        var options = DBBRestoreOptions()
        options.maximumValueLength = 128 << 20
        try DBBExport.restore(dumpAt: dump, to: sqlite, options: options)
        let db = try DBBDatabase(path: sqlite.path, mode: .readOnly)
        defer { try? db.close() }
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM many") == 1_000_000)
        #expect(try db.fetchValue(String.self, "SELECT label FROM many WHERE id = 777777") == "row 777777")
        #expect(try db.fetchValue(Double.self, "SELECT ratio FROM many WHERE id = 3") == 3 / 7.0)
        let bytes = try #require(try db.fetchValue(Data.self, "SELECT bytes FROM long"))
        #expect(bytes.count == 100_000_000)
        #expect(bytes.prefix(3) == Data([0, 1, 2]) && bytes.suffix(2) == Data([254, 255]))
    }
}
