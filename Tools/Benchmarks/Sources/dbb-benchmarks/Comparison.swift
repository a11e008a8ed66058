import CSQLite
import DBBBuilder
import Foundation

/// The five workloads of the object layer, each run by every contender in one process, contenders
/// alternating, a warm-up then the median of `runs` timed runs; ratios are to hand-written sqlite3 code that
/// reads into plain final classes.
///
/// - W1: 100,000 people saved in one `saveObjects` call (one transaction).
/// - W2: all 100,000 people fetched.
/// - W3: 10,000 projects fetched with their 5 tags, 3 meetings and lead (one of 1,000 people).
/// - W4: 200 queries `code = ? AND budget > ?` with bound values, sorted by name, limit 1,000.
/// - W5: 5,000 people saved one at a time, each in its own transaction.
enum Comparison {
    struct Workload {
        let id: String
        let title: String
        /// The largest ratio to the baseline the macro form and the closures form may take.
        let target: Double
    }

    /// The targets of W1, W2 and W5 are tighter in the lean layout, which has none of DBBBuilder's timestamps.
    static let workloads = [
        Workload(id: "W1", title: "insert 100,000 people, one saveObjects", target: lean ? 1.15 : 1.3),
        Workload(id: "W2", title: "fetch 100,000 people", target: lean ? 1.15 : 1.3),
        Workload(id: "W3", title: "fetch 10,000 projects, tags, meetings, lead", target: 2.0),
        Workload(id: "W4", title: "200 queries, 2 bound conditions, sort, limit", target: 1.15),
        Workload(id: "W5", title: "5,000 single saves, a transaction each", target: lean ? 1.15 : 1.3),
    ]
    private static var lean: Bool { comparisonLayout == .lean }
    /// The key-path form's target for W2.
    static let keyPathFetchTarget = 3.0

    static func contenders() -> [any Contender] {
        // GRDB's records are written for DBBBuilder's layout (they read and write the timestamps).
        (comparisonLayout == .lean ? [RawContender()] : [RawContender(), GRDBContender()]) + [
            LibraryContender<KeyPathPerson, KeyPathMeeting, KeyPathProject>("key paths"),
            LibraryContender<ClosurePerson, ClosureMeeting, ClosureProject>("closures"),
            LibraryContender<MacroPerson, MacroMeeting, MacroProject>("macro"),
        ]
    }

    static func run() {
        runWorkload("compare") { try withTemporaryFolder("dbb-compare", run(in:)) }
    }

    private static func run(in folder: URL) throws {
        let options = BenchmarkOptions.current
        let scale = options.scale
        let peopleCount = 100_000 / scale
        let contenders = contenders().filter { options.contenders.isEmpty || options.contenders.contains($0.name) }
        let chosen = workloads.filter { options.workloads.isEmpty || options.workloads.contains($0.id) }
        print(
            "compare: \(chosen.map(\.id).joined(separator: ", ")) · \(options.runs) runs after a warm-up, median "
                + "CPU seconds · SQLite \(DBBDatabase.sqliteVersion)\(scale > 1 ? " · counts divided by \(scale)" : "")"
                + (lean ? " · lean layout" : " · DBBBuilder's layout")
        )

        // The library lays out every table; each run that writes starts from a copy of the empty layout.
        let template = folder.appendingPathComponent("layout.sqlite")
        try makeLayout(template)
        let people = PersonSeed.make(peopleCount)
        var results: [(Workload, [String: [Double]])] = []
        for workload in chosen {
            let samples: [String: [Double]]
            switch workload.id {
            case "W1":
                samples = try writing(contenders, runs: options.runs, template: template, folder: folder) { contender in
                    contender.prepare(people)
                    return { try contender.insertAll() }
                }
            case "W5":
                let few = Array(PersonSeed.make(5_000 / scale, prefix: "Single"))
                samples = try writing(contenders, runs: options.runs, template: template, folder: folder) { contender in
                    contender.prepare(few)
                    return { try contender.saveEach() }
                }
            case "W2":
                let file = try filled(template, folder: folder, name: "people") { manager in
                    try save(people, manager: manager)
                }
                samples = try reading(
                    contenders, runs: options.runs, file: file, run: { try $0.fetchPeople() },
                    digest: { $0.peopleDigest })
            case "W3":
                let file = try filled(template, folder: folder, name: "graph") { manager in
                    try saveGraph(
                        people: PersonSeed.make(1_000 / scale, prefix: "Lead"),
                        projects: ProjectSeed.make(10_000 / scale, leads: 1_000 / scale), manager: manager)
                }
                samples = try reading(
                    contenders, runs: options.runs, file: file, run: { try $0.fetchProjects() },
                    digest: { $0.projectsDigest })
            default:
                let file = try filled(template, folder: folder, name: "people") { manager in
                    try save(people, manager: manager)
                }
                let parameters = (0..<200).map { index in
                    (code: "C\(index % 50)", budget: Double(index % 7) * 500 + 1_000)
                }
                samples = try reading(
                    contenders, runs: options.runs, file: file, run: { try $0.query(parameters) },
                    digest: { $0.queryDigest })
            }
            results.append((workload, samples))
        }
        printTable(results, contenders: contenders.map(\.name))
        if let path = options.jsonPath {
            try writeJSON(results, contenders: contenders.map(\.name), runs: options.runs, scale: scale, to: path)
        }
    }

    // MARK: Runs

    /// Times a writing workload: every run of every contender starts from a fresh copy of the empty layout.
    /// Contenders alternate (the order rotates each round); the first round is a warm-up.
    private static func writing(
        _ contenders: [any Contender], runs: Int, template: URL, folder: URL,
        _ prepare: (any Contender) throws -> () throws -> Void
    ) throws -> [String: [Double]] {
        var samples: [String: [Double]] = [:]
        var reference: Int?
        for round in 0...runs {
            for contender in rotated(contenders, by: round) {
                let file = folder.appendingPathComponent("write-\(round).sqlite")
                try FileManager.default.copyItem(at: template, to: file)
                try contender.open(file)
                let body = try prepare(contender)
                let seconds = try time(body)
                let ids = contender.savedIDs
                try contender.close()
                let stored = try tableDigest(file)
                try removeDatabase(file)
                guard ids.count > 0, Set(ids).count == ids.count, !ids.contains(0) else {
                    throw RawError(message: "\(contender.name) left objects without ids")
                }
                if reference == nil { reference = stored }
                guard stored == reference else { throw RawError(message: "\(contender.name) stored other rows") }
                if round > 0 { samples[contender.name, default: []].append(seconds) }
            }
        }
        return samples
    }

    /// Times a reading workload on one file, each contender keeping its connection open over its runs.
    private static func reading(
        _ contenders: [any Contender], runs: Int, file: URL, run: (any Contender) throws -> Void,
        digest: (any Contender) -> Int
    ) throws -> [String: [Double]] {
        for contender in contenders { try contender.open(file) }
        defer { for contender in contenders { try? contender.close() } }
        var samples: [String: [Double]] = [:]
        var reference: Int?
        for round in 0...runs {
            for contender in rotated(contenders, by: round) {
                let seconds = try time { try run(contender) }
                let value = digest(contender)
                if reference == nil { reference = value }
                guard value == reference else {
                    throw RawError(message: "\(contender.name) built other objects than \(contenders[0].name)")
                }
                if round > 0 { samples[contender.name, default: []].append(seconds) }
            }
        }
        return samples
    }

    private static func rotated(_ contenders: [any Contender], by round: Int) -> [any Contender] {
        let shift = round % contenders.count
        return Array(contenders[shift...] + contenders[..<shift])
    }

    // MARK: Data files

    private static func makeLayout(_ url: URL) throws {
        let manager = try DBBManager(databaseURL: url)
        try manager.addTableClasses([KeyPathPerson.self, KeyPathMeeting.self, KeyPathProject.self])
        try manager.close()
    }

    /// A copy of the layout filled by the library (made once per name).
    private static func filled(_ template: URL, folder: URL, name: String, _ fill: (DBBManager) throws -> Void)
        throws -> URL
    {
        let file = folder.appendingPathComponent("\(name).sqlite")
        if FileManager.default.fileExists(atPath: file.path) { return file }
        try FileManager.default.copyItem(at: template, to: file)
        let manager = try DBBManager(databaseURL: file)
        try manager.addTableClasses([KeyPathPerson.self, KeyPathMeeting.self, KeyPathProject.self])
        try fill(manager)
        try manager.close()
        return file
    }

    private static func save(_ seeds: [PersonSeed], manager: DBBManager) throws {
        let people = seeds.map { seed in
            let person = KeyPathPerson(dbManager: manager)
            person.fill(from: seed)
            return person
        }
        try KeyPathPerson.save(people, manager: manager)
    }

    private static func saveGraph(people seeds: [PersonSeed], projects: [ProjectSeed], manager: DBBManager) throws {
        let people = seeds.map { seed in
            let person = KeyPathPerson(dbManager: manager)
            person.fill(from: seed)
            return person
        }
        let objects = projects.map { seed in
            let project = KeyPathProject(dbManager: manager)
            project.name = seed.name
            project.budget = seed.budget
            project.tags = seed.tags
            project.meetings = seed.meetings.map { values in
                let meeting = KeyPathMeeting(dbManager: manager)
                meeting.purpose = values.purpose
                meeting.startTime = values.startTime
                meeting.minutes = values.minutes
                return meeting
            }
            project.lead = people[seed.lead]
            return project
        }
        try KeyPathProject.save(objects, manager: manager)
    }

    /// What a writing workload stored, read by hand: equal for contenders that stored the same rows.
    private static func tableDigest(_ url: URL) throws -> Int {
        var hasher = Hasher()
        try RawDatabase(url).forEachRow(
            "SELECT id, name, code, budget, startDate, active, "
                + (lean ? "0, 0" : "createdTime IS NOT NULL, modifiedTime IS NOT NULL") + " FROM Person ORDER BY id"
        ) { row in
            hasher.combine(sqlite3_column_int64(row, 0))
            hasher.combine(text(row, 1))
            hasher.combine(text(row, 2))
            hasher.combine(sqlite3_column_double(row, 3))
            hasher.combine(sqlite3_column_type(row, 4) == SQLITE_NULL ? nil : sqlite3_column_double(row, 4))
            hasher.combine(sqlite3_column_int64(row, 5))
            hasher.combine(sqlite3_column_int64(row, 6))
            hasher.combine(sqlite3_column_int64(row, 7))
        }
        return hasher.finalize()
    }

    private static func removeDatabase(_ url: URL) throws {
        for suffix in ["", "-wal", "-shm"] {
            let file = URL(fileURLWithPath: url.path + suffix)
            if FileManager.default.fileExists(atPath: file.path) { try FileManager.default.removeItem(at: file) }
        }
    }

    // MARK: Report

    static func median(_ values: [Double]) -> Double {
        let sorted = values.sorted()
        guard !sorted.isEmpty else { return .nan }
        let middle = sorted.count / 2
        return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
    }

    private static let baseline = "raw sqlite3"

    private static func printTable(_ results: [(Workload, [String: [Double]])], contenders: [String]) {
        let others = contenders.filter { $0 != baseline }
        var header = "workload".padding(toLength: 52, withPad: " ", startingAt: 0) + "   raw (s)"
        for name in others { header += name.leftPadded(to: 12) }
        print(header + "   target (macro, closures; and no slower than GRDB)")
        for (workload, samples) in results {
            let raw = median(samples[baseline] ?? [])
            var line = "\(workload.id) \(workload.title)".padding(toLength: 52, withPad: " ", startingAt: 0)
            line += String(format: "%10.3f", raw)
            for name in others {
                line += String(format: "%11.2f×", median(samples[name] ?? []) / raw)
            }
            var target = String(format: "   ≤ %.2f", workload.target)
            let grdb = samples["GRDB 7.10"].map(median) ?? .infinity
            for form in ["macro", "closures"] {
                guard let times = samples[form] else { continue }
                let met = median(times) / raw <= workload.target && median(times) <= grdb
                target += " \(form) " + (met ? "ok" : "MISSED")
            }
            if workload.id == "W2", let keyPaths = samples["key paths"] {
                let ratio = median(keyPaths) / raw
                target += String(format: "; key paths ≤ %.1f", keyPathFetchTarget) + " "
                target += ratio <= keyPathFetchTarget ? "ok" : "MISSED"
            }
            print(line + target)
        }
    }

    private static func writeJSON(
        _ results: [(Workload, [String: [Double]])], contenders: [String], runs: Int, scale: Int, to path: String
    ) throws {
        var workloadsJSON: [[String: Any]] = []
        for (workload, samples) in results {
            let raw = median(samples[baseline] ?? [])
            var entries: [String: Any] = [:]
            for name in contenders {
                let values = samples[name] ?? []
                entries[name] = ["median_seconds": median(values), "ratio": median(values) / raw, "samples": values]
            }
            workloadsJSON.append([
                "id": workload.id, "title": workload.title, "target": workload.target, "contenders": entries,
            ])
        }
        let document: [String: Any] = [
            "baseline": baseline, "layout": lean ? "lean" : "dbbBuilder", "runs": runs, "scale": scale,
            "sqlite": DBBDatabase.sqliteVersion,
            "timing": "CPU seconds, median of the runs after one warm-up run", "workloads": workloadsJSON,
        ]
        let data = try JSONSerialization.data(withJSONObject: document, options: [.prettyPrinted, .sortedKeys])
        try data.write(to: URL(fileURLWithPath: path))
        print("wrote \(path)")
    }
}

extension String {
    fileprivate func leftPadded(to width: Int) -> String {
        count >= width ? " " + self : String(repeating: " ", count: width - count) + self
    }
}
