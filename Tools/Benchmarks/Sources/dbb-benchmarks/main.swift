// Runs the named workloads (all of them when none is named), printing times and ratios to raw sqlite3.
// Run in release: swift run -c release --package-path Tools/Benchmarks dbb-benchmarks [workload …]
import Foundation

let known = ["sql", "objects", "query", "export"]
let requested = Array(CommandLine.arguments.dropFirst())

if requested.isEmpty {
    // Each workload in a process of its own, so memory one leaves behind does not count in the next one's
    // peak (the export workload reports its peak memory).
    let executable = URL(fileURLWithPath: "/proc/self/exe").resolvingSymlinksInPath()
    for workload in known {
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
    switch workload {
    case "sql": SQLBenchmark.run()
    case "objects": ObjectsBenchmark.run()
    case "query": QueryBenchmark.run()
    case "export": ExportBenchmark.run()
    case "-h", "--help": print("usage: dbb-benchmarks [workload …]   workloads: \(known.joined(separator: ", "))")
    default:
        print("unknown workload '\(workload)'; known workloads: \(known.joined(separator: ", "))")
        exit(2)
    }
}
