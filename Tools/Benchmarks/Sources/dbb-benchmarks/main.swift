// Runs the named workloads (all of them when none is named), printing times and ratios to raw sqlite3.
// Run in release: swift run -c release --package-path Tools/Benchmarks dbb-benchmarks [workload …]
import Foundation

/// The workloads by name, in the order a run of all of them takes.
let workloads: KeyValuePairs<String, () -> Void> = [
    "sql": SQLBenchmark.run, "objects": ObjectsBenchmark.run, "query": QueryBenchmark.run,
    "export": ExportBenchmark.run,
]
let names = workloads.map(\.key)
let requested = Array(CommandLine.arguments.dropFirst())

if requested.isEmpty {
    // Each workload in a process of its own, so memory one leaves behind does not count in the next one's
    // peak (the export workload reports its peak memory).
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    for workload in names {
        let process = Process()
        process.executableURL = executable
        process.arguments = [workload]
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
        print("usage: dbb-benchmarks [workload …]   workloads: \(names.joined(separator: ", "))")
    } else {
        print("unknown workload '\(workload)'; known workloads: \(names.joined(separator: ", "))")
        exit(2)
    }
}
