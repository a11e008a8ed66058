// Runs the named workloads (all of them when none is named), printing times and ratios to raw sqlite3.
// Run in release: swift run -c release --package-path Tools/Benchmarks dbb-benchmarks [workload …] [options]
import Foundation

/// The workloads by name, in the order a run of all of them takes.
let workloads: KeyValuePairs<String, () -> Void> = [
    "sql": SQLBenchmark.run, "compare": Comparison.run, "export": ExportBenchmark.run, "pool": PoolBenchmark.run,
    "rebuild": RebuildBenchmark.run,
]
let names = workloads.map(\.key)
let usage = """
    usage: dbb-benchmarks [workload …] [--json PATH] [--runs N] [--scale N] [--only W1,W2,…] [--contenders A,B,…]
                          [--layout lean|dbbBuilder]
      workloads: \(names.joined(separator: ", ")) (all when none is named)
      compare options: --json PATH writes the table as JSON; --runs N timed runs after the warm-up (default 5);
        --scale N divides every count by N (short runs for profiling); --only picks workloads W1–W5;
        --contenders picks contenders by name ("raw sqlite3", "GRDB 7.10", "key paths", "closures",
        "macro"); --layout lean lays the tables out without timestamps or AUTOINCREMENT (GRDB sits it out)
      pool options: --scale N divides the object counts and the run time by N
      rebuild options: --runs N alternating runs (default 5); --scale N divides the 1,000,000 rows by N
    """

let arguments = Array(CommandLine.arguments.dropFirst())
let requested: [String]
do {
    let parsed = try BenchmarkOptions.parse(arguments)
    BenchmarkOptions.current = parsed.0
    requested = parsed.1
} catch {
    print("\(error)\n\(usage)")
    exit(2)
}

if requested.isEmpty {
    // Each workload in a process of its own, so memory one leaves behind does not count in the next one's
    // peak (the export workload reports its peak memory).
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    for workload in names {
        let process = Process()
        process.executableURL = executable
        process.arguments = [workload] + arguments
        try process.run()
        process.waitUntilExit()
        if process.terminationStatus != 0 { exit(process.terminationStatus) }
    }
    exit(0)
}

for workload in requested {
    if let run = workloads.first(where: { $0.key == workload })?.value {
        run()
    } else if workload == "-h" || workload == "--help" {
        print(usage)
    } else {
        print("unknown workload '\(workload)'; known workloads: \(names.joined(separator: ", "))")
        exit(2)
    }
}
