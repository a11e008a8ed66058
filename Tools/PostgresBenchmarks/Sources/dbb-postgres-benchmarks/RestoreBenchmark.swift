import DBBBuilder
import DBBPostgres
import Dispatch
import Foundation

/// `--only restore`: a dump restored into PostgreSQL by `DBBPostgresRestore` (with its verification pass, and
/// without), against pgloader loading the SQLite file directly and against `psql` `\copy` of CSV files prepared
/// beforehand: into tables without keys or indexes (the floor: the server's own bulk load), and the same
/// `\copy` followed by the primary keys, indexes and foreign keys the restore made (the floor with the
/// restore's end state). Two sources: the export benchmark's generated database of one million rows
/// (`ExportData`) and the Sakila fixture.
///
/// `--runs N` rounds: each round runs every contender once, in the same order, into fresh databases dropped
/// after it; the report gives each contender's median, with the fastest and slowest round.
///
/// Memory: this process's resident-set high-water mark, reset before the restore (`/proc/self/clear_refs`) and
/// read after it (`VmHWM`); pgloader's and psql's peaks with `/usr/bin/time`.
enum RestoreBenchmark {
    static func run(server: BenchmarkServer, scale: Int, runs: Int) async throws {
        let admin = try await DatabaseAdmin(server.address)
        let folder = URL(fileURLWithPath: NSTemporaryDirectory())
            .appendingPathComponent("dbb-restore-bench-\(getpid())", isDirectory: true)
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        do {
            print("postgres restore: server \(server.summary)")
            let generated = folder.appendingPathComponent("export.sqlite")
            try ExportData.generate(at: generated, rowCount: 1_000_000 / scale)
            let sakila = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
                .appendingPathComponent("../../../../Tests/Fixtures/sakila.sqlite").standardizedFileURL
            for (index, source) in [generated, sakila].enumerated() {
                try await measure(
                    source, number: index, runs: runs, server: server, admin: admin, folder: folder)
            }
            await admin.close()
        } catch {
            await admin.close()
            throw error
        }
    }

    private static func measure(
        _ source: URL, number: Int, runs: Int, server: BenchmarkServer, admin: DatabaseAdmin, folder: URL
    ) async throws {
        let name = source.deletingPathExtension().lastPathComponent
        let dump = folder.appendingPathComponent("\(name).json.gz")
        try DBBExport.dump(databaseAt: source, to: dump)
        let rows = try DBBExport.inspect(dumpAt: dump).totalRows
        let address = server.address

        // Each round runs every contender once, in the same order, so that the machine's drift reaches them
        // alike; the report gives each one's median.
        var results: [String: [(seconds: Double, peakKiB: Int)]] = [:]
        var contenders: [String] = []
        func add(_ contender: String, _ seconds: Double, _ peakKiB: Int) {
            if results[contender] == nil { contenders.append(contender) }
            results[contender, default: []].append((seconds, peakKiB))
        }
        var plan: DBBPostgresRestorePlan?
        var orphans: Set<String> = []
        var loaded = ""
        var create = ""
        var load = ""
        let psql = try psqlCommand(address)
        for round in 0..<max(1, runs) {
            var databases: [String] = []
            // The library, with its verification pass (the default), then without.
            var restored = ""
            for verify in [true, false] {
                let database = try await admin.create("restore_\(number)_\(round)_\(verify ? "v" : "n")")
                databases.append(database)
                restored = database
                resetPeakMemory()
                let start = Date()
                let (report, phases) = try await onQueue { () throws -> (DBBPostgresRestoreReport, String) in
                    let connection = try DBBPostgresConnection.connect(address.library(database))
                    defer { try? connection.close() }
                    // When each phase began and when its last progress came: the gap after loading is the keys,
                    // indexes and foreign keys.
                    var times: [(phase: DBBPostgresRestore.Phase, first: Date, last: Date)] = []
                    let report = try DBBPostgresRestore.restore(
                        dumpAt: dump, into: connection,
                        options: DBBPostgresRestoreOptions(schema: "restored", verifies: verify)
                    ) { phase, _ in
                        let now = Date()
                        if times.last?.phase == phase {
                            times[times.count - 1].last = now
                        } else {
                            times.append((phase, now, now))
                        }
                    }
                    let end = Date()
                    var parts: [String] = []
                    for (index, entry) in times.enumerated() {
                        parts.append(
                            String(
                                format: "%@ %.2f s", entry.phase.rawValue, entry.last.timeIntervalSince(entry.first)))
                        let next = index + 1 < times.count ? times[index + 1].first : end
                        if entry.phase == .loading {
                            parts.append(String(format: "keys and indexes %.2f s", next.timeIntervalSince(entry.last)))
                        }
                    }
                    return (report, parts.joined(separator: ", "))
                }
                let seconds = Date().timeIntervalSince(start)
                print("  (round \(round + 1), \(verify ? "verified" : "--no-verify"): \(phases))")
                add(verify ? "DBBPostgresRestore, verified" : "DBBPostgresRestore --no-verify", seconds, peakMemory())
                plan = report.plan
                orphans = Set(report.orphans.map(\.foreignKey))
                if round == 0, !report.reloadedTables.isEmpty {
                    print("  (loaded again: \(report.reloadedTables.joined(separator: ", ")))")
                }
            }
            guard let plan else { return }

            // pgloader, from the SQLite file.
            let pgloaderDatabase = try await admin.create("pgloader_\(number)_\(round)")
            databases.append(pgloaderDatabase)
            let url =
                "postgresql://\(address.username):\(address.password ?? "")@\(address.host):\(address.port)/"
                + pgloaderDatabase
            let pgloader = try timed(folder, "pgloader --quiet '\(source.path)' '\(url)' > /dev/null 2>&1")
            add("pgloader 3.6 (SQLite file)", pgloader.seconds, pgloader.peakKiB)
            // pgloader exits with 0 when tables fail: count the rows it loaded.
            loaded = try output(
                "\(psql) -At -d \(pgloaderDatabase) -c \"SELECT count(*) || ' tables, ' || "
                    + "coalesce(sum((xpath('/row/c/text()', query_to_xml('SELECT count(*) AS c FROM public.' || "
                    + "quote_ident(table_name), false, true, '')))[1]::text::bigint), 0) || ' rows' FROM "
                    + "information_schema.tables WHERE table_schema = 'public'\"")

            // The floor: CSV files written from the restored tables (once), loaded by psql into bare tables.
            if round == 0 {
                var export = ""
                for table in plan.tables {
                    let quoted = DBBDatabase.quoteIdentifier(table.name)
                    let csv = folder.appendingPathComponent("\(number)-\(table.name.utf8.count)-\(load.count).csv").path
                    var columns = table.columns.map { "\(DBBDatabase.quoteIdentifier($0.name)) \($0.type)" }
                    if let rowID = table.rowIDColumn {
                        columns.insert("\(DBBDatabase.quoteIdentifier(rowID)) bigint", at: 0)
                    }
                    export += "\\copy restored.\(quoted) TO '\(csv)' WITH (FORMAT csv)\n"
                    create += "CREATE TABLE \(quoted) (\(columns.joined(separator: ", ")));\n"
                    load += "\\copy \(quoted) FROM '\(csv)' WITH (FORMAT csv)\n"
                }
                let file = folder.appendingPathComponent("export.sql")
                try Data(export.utf8).write(to: file)
                _ = try timed(folder, "\(psql) -d \(restored) -f '\(file.path)'")
            }
            let createFile = folder.appendingPathComponent("create.sql")
            try Data(create.utf8).write(to: createFile)
            let floorDatabase = try await admin.create("floor_\(number)_\(round)")
            databases.append(floorDatabase)
            _ = try timed(folder, "\(psql) -d \(floorDatabase) -f '\(createFile.path)'")
            let loadScript = folder.appendingPathComponent("load.sql")
            try Data(("BEGIN;\n" + load + "COMMIT;\n").utf8).write(to: loadScript)
            let floor = try timed(folder, "\(psql) -d \(floorDatabase) -f '\(loadScript.path)'")
            add("psql \\copy of prepared CSV (the floor)", floor.seconds, floor.peakKiB)

            // The second floor: the same load, then the keys, indexes and foreign keys the restore made, with the
            // index builds' memory the restore gives them, so that the end state is the restore's.
            let keyedDatabase = try await admin.create("floor_keys_\(number)_\(round)")
            databases.append(keyedDatabase)
            _ = try timed(folder, "\(psql) -d \(keyedDatabase) -f '\(createFile.path)'")
            let keyedScript = folder.appendingPathComponent("load-keys.sql")
            try Data(
                ("BEGIN;\nSET LOCAL maintenance_work_mem = '256MB';\n" + load + keysSQL(plan, orphans: orphans)
                    + "COMMIT;\n").utf8
            ).write(to: keyedScript)
            let keyed = try timed(folder, "\(psql) -d \(keyedDatabase) -f '\(keyedScript.path)'")
            add("psql \\copy, then keys and indexes", keyed.seconds, keyed.peakKiB)
            for database in databases { try await admin.drop(database) }
        }

        func seconds(of contender: String) -> Double { median((results[contender] ?? []).map(\.seconds)) }
        func peakKiB(of contender: String) -> Int { (results[contender] ?? []).map(\.peakKiB).max() ?? 0 }
        let floor = seconds(of: "psql \\copy of prepared CSV (the floor)")
        let keyed = seconds(of: "psql \\copy, then keys and indexes")
        print(
            "postgres restore: \(name): \(rows) rows in \(plan?.tables.count ?? 0) tables (pgloader loaded "
                + "\(loaded.trimmingCharacters(in: .whitespacesAndNewlines))); medians of \(max(1, runs)) rounds")
        for contender in contenders {
            let times = (results[contender] ?? []).map(\.seconds)
            let (middle, peakMiB) = (seconds(of: contender), peakKiB(of: contender) / 1024)
            print(
                "  \(contender.padding(toLength: 40, withPad: " ", startingAt: 0)) "
                    + String(
                        format: "%7.2f s (%.2f–%.2f)  %5.1fx the floor  %5.1fx with keys  peak %4ld MiB", middle,
                        times.min() ?? 0, times.max() ?? 0, middle / floor, middle / keyed, peakMiB
                    ))
        }
        let ours = seconds(of: "DBBPostgresRestore, verified")
        let ourPeakKiB = peakKiB(of: "DBBPostgresRestore, verified")
        // When the keys alone take more than the floor, no restore that builds them is within 2x of it.
        let bareTarget =
            ours <= 2 * floor
            ? "met"
            : keyed > 2 * floor
                ? String(format: "MISSED (unreachable: the floor with keys is %.1fx)", keyed / floor)
                : "MISSED"
        print(
            "  targets: faster than pgloader \(ours < seconds(of: "pgloader 3.6 (SQLite file)") ? "met" : "MISSED"), "
                + "within 2x the floor \(bareTarget), within 2x the floor with keys "
                + "\(ours <= 2 * keyed ? "met" : "MISSED"), under 64 MiB "
                + "\(ourPeakKiB < 64 * 1024 ? "met" : "MISSED") (the whole process)")
    }

    /// The primary keys, unique and plain indexes and foreign keys of a restore's plan, as SQL for tables of
    /// the same names in the public schema; a foreign key the restore left `NOT VALID` (orphan rows) is added
    /// so too.
    private static func keysSQL(_ plan: DBBPostgresRestorePlan, orphans: Set<String>) -> String {
        func list(_ names: [String]) -> String { names.map(DBBDatabase.quoteIdentifier).joined(separator: ", ") }
        var sql = ""
        for table in plan.tables {
            let quoted = DBBDatabase.quoteIdentifier(table.name)
            if !table.primaryKey.isEmpty {
                sql += "ALTER TABLE \(quoted) ADD PRIMARY KEY (\(list(table.primaryKey)));\n"
            }
            for index in table.indexes {
                let columns = index.columns.map {
                    DBBDatabase.quoteIdentifier($0.name) + ($0.descending ? " DESC" : "")
                }
                sql +=
                    "CREATE \(index.unique ? "UNIQUE " : "")INDEX \(DBBDatabase.quoteIdentifier(index.name)) ON "
                    + "\(quoted) (\(columns.joined(separator: ", ")));\n"
            }
        }
        for table in plan.tables {
            for key in table.foreignKeys {
                sql +=
                    "ALTER TABLE \(DBBDatabase.quoteIdentifier(table.name)) ADD CONSTRAINT "
                    + "\(DBBDatabase.quoteIdentifier(key.name)) FOREIGN KEY (\(list(key.columns))) REFERENCES "
                    + "\(DBBDatabase.quoteIdentifier(key.parentTable)) (\(list(key.parentColumns))) ON UPDATE "
                    + "\(key.onUpdate) ON DELETE \(key.onDelete)\(orphans.contains(key.name) ? " NOT VALID" : "");\n"
            }
        }
        return sql
    }

    /// Runs a synchronous call on a dispatch queue, where `DBBPostgres` may wait.
    private static func onQueue<T: Sendable>(_ body: @escaping @Sendable () throws -> T) async throws -> T {
        try await withCheckedThrowingContinuation { continuation in
            DispatchQueue(label: "restore-benchmark").async { continuation.resume(with: Result { try body() }) }
        }
    }

    private static func psqlCommand(_ address: ServerAddress) throws -> String {
        let versions = (try? FileManager.default.contentsOfDirectory(atPath: "/usr/lib/postgresql")) ?? []
        let candidates = ["/usr/bin/psql"] + versions.map { "/usr/lib/postgresql/\($0)/bin/psql" }
        guard let psql = candidates.first(where: FileManager.default.isExecutableFile(atPath:)) else {
            throw BenchmarkError("psql is not installed")
        }
        return "PGPASSWORD='\(address.password ?? "")' \(psql) -q -v ON_ERROR_STOP=1 -h \(address.host) "
            + "-p \(address.port) -U \(address.username)"
    }

    /// Runs a shell command under `/usr/bin/time`: its wall seconds and peak memory in KiB.
    private static func timed(_ folder: URL, _ command: String) throws -> (seconds: Double, peakKiB: Int) {
        let memory = folder.appendingPathComponent("memory")
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", "/usr/bin/time -f %M -o '\(memory.path)' sh -c \"$0\"", command]
        let start = Date()
        try process.run()
        process.waitUntilExit()
        let seconds = Date().timeIntervalSince(start)
        guard process.terminationStatus == 0 else {
            throw BenchmarkError("\(command.prefix(60))… exited with \(process.terminationStatus)")
        }
        let text = (try? String(contentsOf: memory, encoding: .utf8)) ?? ""
        return (seconds, Int(text.split(separator: "\n").last.map(String.init) ?? "") ?? 0)
    }

    /// Runs a shell command and returns its standard output.
    private static func output(_ command: String) throws -> String {
        let process = Process()
        process.executableURL = URL(fileURLWithPath: "/bin/sh")
        process.arguments = ["-c", command]
        let pipe = Pipe()
        process.standardOutput = pipe
        try process.run()
        let data = pipe.fileHandleForReading.readDataToEndOfFile()
        process.waitUntilExit()
        return String(decoding: data, as: UTF8.self)
    }

    private static func resetPeakMemory() {
        try? "5".write(toFile: "/proc/self/clear_refs", atomically: false, encoding: .utf8)
    }

    /// This process's resident-set high-water mark in KiB.
    private static func peakMemory() -> Int {
        let status = (try? String(contentsOfFile: "/proc/self/status", encoding: .utf8)) ?? ""
        let line = status.split(separator: "\n").first { $0.hasPrefix("VmHWM:") } ?? ""
        return Int(line.split(separator: " ").dropFirst().first ?? "") ?? 0
    }
}
