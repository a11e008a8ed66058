import DBBBuilder
import DBBPostgres
import Foundation

/// The five workloads of the SQLite comparison (Tools/Benchmarks), on PostgreSQL: every contender in one
/// process against one server, contenders alternating, a warm-up then the median of `runs` timed runs; ratios
/// are to postgres-nio code as an expert writes it (prepared statements, one autocommit round trip per single
/// save, batches of multi-row INSERTs or COPY), reading into plain final classes.
///
/// - W1: 100,000 people saved in one `saveObjects` call (one transaction).
/// - W2: all 100,000 people fetched.
/// - W3: 10,000 projects fetched with their 5 tags, 3 meetings and lead (one of 1,000 people).
/// - W4: 200 queries `code = ? AND budget > ?` with bound values, sorted by name, limit 1,000.
/// - W5: 5,000 people saved one at a time, each in its own transaction (one autocommit statement).
///
/// Each writing run gets a new database, a copy of an empty layout the library made; the reading workloads
/// share databases the library filled, which no contender writes to.
enum Comparison {
    struct Workload {
        let id: String
        let title: String
        /// The largest ratio to the baseline the library may take.
        let target: Double
    }

    static let workloads = [
        Workload(id: "W1", title: "insert 100,000 people, one saveObjects", target: 2.0),
        Workload(id: "W2", title: "fetch 100,000 people", target: 1.15),
        Workload(id: "W3", title: "fetch 10,000 projects, tags, meetings, lead", target: 1.2),
        Workload(id: "W4", title: "200 queries, 2 bound conditions, sort, limit", target: 1.05),
        Workload(id: "W5", title: "5,000 single saves, a transaction each", target: 1.15),
    ]

    static let baseline = "hand-written"
    static let library = "DBBBuilder"
    static let peer = "Fluent 4"

    static func contenders() -> [any Contender] {
        [
            HandWrittenContender(.prepared), HandWrittenContender(.copy), HandWrittenContender(.synchronous),
            FluentContender(), LibraryContender(),
        ]
    }

    static func run(_ options: BenchmarkOptions, server: BenchmarkServer) async throws {
        let admin = try await DatabaseAdmin(server.address)
        do {
            try await run(options, server: server, admin: admin)
            await admin.close()
        } catch {
            await admin.close()
            throw error
        }
    }

    private static func run(_ options: BenchmarkOptions, server: BenchmarkServer, admin: DatabaseAdmin)
        async throws
    {
        let scale = options.scale
        let address = server.address
        let contenders = contenders().filter { options.contenders.isEmpty || options.contenders.contains($0.name) }
        let chosen = workloads.filter { options.workloads.isEmpty || options.workloads.contains($0.id) }
        print(
            "postgres compare: \(chosen.map(\.id).joined(separator: ", ")) · \(options.runs) runs after a warm-up, "
                + "median wall seconds\(scale > 1 ? " · counts divided by \(scale)" : "")\n  server: \(server.summary)"
        )

        // The library lays out every table once; each writing run starts from a copy of the empty layout.
        let layout = try await admin.create("layout")
        try synchronously {
            let manager = try DBBManager(postgres: address.library(layout), readers: 0)
            try manager.addTableClasses([MacroPerson.self, MacroMeeting.self, MacroProject.self])
            try manager.close()
        }

        let peopleCount = 100_000 / scale
        let people = PersonSeed.make(peopleCount)
        var filled: [String: String] = [:]
        /// A copy of the layout filled by the library (made once per name), with fresh statistics.
        func database(_ name: String, _ fill: (DBBManager) throws -> Void) async throws -> String {
            if let database = filled[name] { return database }
            let database = try await admin.create(name, template: "layout")
            try synchronously {
                let manager = try DBBManager(postgres: address.library(database), readers: 0)
                try manager.addTableClasses([MacroPerson.self, MacroMeeting.self, MacroProject.self])
                try fill(manager)
                try manager.close()
            }
            try await admin.analyze(database)
            filled[name] = database
            return database
        }

        var results: [(Workload, [String: [Sample]])] = []
        for workload in chosen {
            let taking = contenders.filter { $0.takesPart(in: workload.id) }
            let samples: [String: [Sample]]
            switch workload.id {
            case "W1":
                samples = try await writing(taking, runs: options.runs, seeds: people, admin: admin, address: address) {
                    try await $0.insertAll()
                }
            case "W5":
                let few = PersonSeed.make(5_000 / scale, prefix: "Single")
                samples = try await writing(taking, runs: options.runs, seeds: few, admin: admin, address: address) {
                    try await $0.saveEach()
                }
            case "W2":
                let file = try await database("people") { try save(people, manager: $0) }
                samples = try await reading(
                    taking, runs: options.runs, database: file, address: address, run: { try await $0.fetchPeople() },
                    digest: { $0.peopleDigest })
            case "W3":
                let file = try await database("graph") { manager in
                    try saveGraph(
                        people: PersonSeed.make(1_000 / scale, prefix: "Lead"),
                        projects: ProjectSeed.make(10_000 / scale, leads: 1_000 / scale), manager: manager)
                }
                samples = try await reading(
                    taking, runs: options.runs, database: file, address: address,
                    run: { try await $0.fetchProjects() }, digest: { $0.projectsDigest })
            default:
                let file = try await database("people") { try save(people, manager: $0) }
                let parameters = (0..<200).map { index in
                    (code: "C\(index % 50)", budget: Double(index % 7) * 500 + 1_000)
                }
                samples = try await reading(
                    taking, runs: options.runs, database: file, address: address,
                    run: { try await $0.query(parameters) }, digest: { $0.queryDigest })
            }
            results.append((workload, samples))
        }
        let names = contenders.map(\.name)
        printTable(results, contenders: names)
        if let path = options.jsonPath {
            try writeJSON(results, contenders: names, options: options, server: server.summary, to: path)
        }
    }

    // MARK: Runs

    /// Times a writing workload: every run of every contender starts from a new copy of the empty layout, and
    /// what it stored is compared with what the first contender stored. Contenders alternate (the order
    /// rotates each round); the first round is a warm-up.
    private static func writing(
        _ contenders: [any Contender], runs: Int, seeds: [PersonSeed], admin: DatabaseAdmin, address: ServerAddress,
        _ body: (any Contender) async throws -> Void
    ) async throws -> [String: [Sample]] {
        var samples: [String: [Sample]] = [:]
        var reference: Int?
        for round in 0...runs {
            for contender in rotated(contenders, by: round) {
                let database = try await admin.create("write", template: "layout")
                try await contender.open(address, database: database)
                contender.prepare(seeds)
                let sample = try await measure { try await body(contender) }
                let ids = contender.savedIDs
                try await contender.close()
                let stored = try await admin.personTableDigest(database)
                try await admin.drop(database)
                guard ids.count == seeds.count, Set(ids).count == ids.count, !ids.contains(0) else {
                    throw BenchmarkError("\(contender.name) left objects without ids")
                }
                if reference == nil { reference = stored }
                guard stored == reference else { throw BenchmarkError("\(contender.name) stored other rows") }
                if round > 0 { samples[contender.name, default: []].append(sample) }
            }
        }
        return samples
    }

    /// Times a reading workload on one database, each contender keeping its connection open over its runs.
    private static func reading(
        _ contenders: [any Contender], runs: Int, database: String, address: ServerAddress,
        run: (any Contender) async throws -> Void, digest: (any Contender) -> Int
    ) async throws -> [String: [Sample]] {
        for contender in contenders { try await contender.open(address, database: database) }
        var samples: [String: [Sample]] = [:]
        do {
            var reference: Int?
            for round in 0...runs {
                for contender in rotated(contenders, by: round) {
                    let sample = try await measure { try await run(contender) }
                    let value = digest(contender)
                    if reference == nil { reference = value }
                    guard value == reference else {
                        throw BenchmarkError("\(contender.name) built other objects than \(contenders[0].name)")
                    }
                    if round > 0 { samples[contender.name, default: []].append(sample) }
                }
            }
        } catch {
            for contender in contenders { try? await contender.close() }
            throw error
        }
        for contender in contenders { try await contender.close() }
        return samples
    }

    private static func rotated(_ contenders: [any Contender], by round: Int) -> [any Contender] {
        let shift = round % contenders.count
        return Array(contenders[shift...] + contenders[..<shift])
    }

    // MARK: Data

    private static func save(_ seeds: [PersonSeed], manager: DBBManager) throws {
        let people = seeds.map { seed in
            let person = MacroPerson(dbManager: manager)
            person.fill(from: seed)
            return person
        }
        try MacroPerson.save(people, manager: manager)
    }

    private static func saveGraph(people seeds: [PersonSeed], projects: [ProjectSeed], manager: DBBManager) throws {
        let people = seeds.map { seed in
            let person = MacroPerson(dbManager: manager)
            person.fill(from: seed)
            return person
        }
        let objects = projects.map { seed in
            let project = MacroProject(dbManager: manager)
            project.name = seed.name
            project.budget = seed.budget
            project.tags = seed.tags
            project.meetings = seed.meetings.map { values in
                let meeting = MacroMeeting(dbManager: manager)
                meeting.purpose = values.purpose
                meeting.startTime = values.startTime
                meeting.minutes = values.minutes
                return meeting
            }
            project.lead = people[seed.lead]
            return project
        }
        try MacroProject.save(objects, manager: manager)
    }

    // MARK: Report

    private static func printTable(_ results: [(Workload, [String: [Sample]])], contenders: [String]) {
        let others = contenders.filter { $0 != baseline }
        let width = 52
        var header = "workload".padding(toLength: width, withPad: " ", startingAt: 0) + baseline.leftPadded(to: 14)
        for name in others { header += name.leftPadded(to: 22) }
        print("\nmedian wall seconds (ratio to \(baseline))")
        print(header + "   target (\(library))")
        for (workload, samples) in results {
            let base = median(samples[baseline, default: []].map(\.wall))
            var line = "\(workload.id) \(workload.title)".padding(toLength: width, withPad: " ", startingAt: 0)
            line += String(format: "%12.3f s", base)
            for name in others {
                guard let times = samples[name] else {
                    line += "—".leftPadded(to: 22)
                    continue
                }
                let seconds = median(times.map(\.wall))
                line += String(format: "%12.3f s %6.2f×", seconds, seconds / base)
            }
            print(line + verdict(workload, samples, base: base))
            var spread = "   min–max".padding(toLength: width, withPad: " ", startingAt: 0)
            for name in [baseline] + others {
                let times = samples[name, default: []].map(\.wall)
                var text = "—"
                if let least = times.min(), let most = times.max() { text = String(format: "%.3f–%.3f", least, most) }
                spread += text.leftPadded(to: name == baseline ? 14 : 22)
            }
            print(spread)
        }
        print("\nmedian CPU seconds of this process (the client's share; the server's work is not in it)")
        print(header)
        for (workload, samples) in results {
            var line = "\(workload.id) \(workload.title)".padding(toLength: width, withPad: " ", startingAt: 0)
            line += String(format: "%12.3f s", median(samples[baseline, default: []].map(\.cpu)))
            for name in others {
                guard let times = samples[name] else {
                    line += "—".leftPadded(to: 22)
                    continue
                }
                line += String(format: "%12.3f s        ", median(times.map(\.cpu)))
            }
            print(line)
        }
    }

    /// Whether the library met its target ratio and was no slower than Fluent.
    private static func verdict(_ workload: Workload, _ samples: [String: [Sample]], base: Double) -> String {
        guard let times = samples[library] else { return "" }
        let seconds = median(times.map(\.wall))
        let fluent = samples[peer].map { median($0.map(\.wall)) } ?? .infinity
        let met = seconds / base <= workload.target && seconds <= fluent
        return String(format: "   ≤ %.2f, ahead of Fluent: ", workload.target) + (met ? "ok" : "MISSED")
    }

    private static func writeJSON(
        _ results: [(Workload, [String: [Sample]])], contenders: [String], options: BenchmarkOptions,
        server: String, to path: String
    ) throws {
        var workloadsJSON: [[String: Any]] = []
        for (workload, samples) in results {
            let base = median(samples[baseline, default: []].map(\.wall))
            var entries: [String: Any] = [:]
            for name in contenders {
                guard let values = samples[name] else { continue }
                let wall = median(values.map(\.wall))
                entries[name] = [
                    // Without the baseline in the run there is no ratio (JSON has no NaN).
                    "median_seconds": wall, "ratio": (wall / base).isFinite ? (wall / base) as Any : NSNull(),
                    "median_cpu_seconds": median(values.map(\.cpu)),
                    "samples": values.map(\.wall), "cpu_samples": values.map(\.cpu),
                ]
            }
            workloadsJSON.append([
                "id": workload.id, "title": workload.title, "target": workload.target, "contenders": entries,
            ])
        }
        let document: [String: Any] = [
            "baseline": baseline, "runs": options.runs, "scale": options.scale, "server": server,
            "timing": "wall seconds (and this process's CPU seconds), median of the runs after one warm-up run",
            "workloads": workloadsJSON,
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
