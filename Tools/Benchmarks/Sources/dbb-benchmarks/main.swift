// Runs the named workloads (all of them when none is named), printing times and ratios to raw sqlite3.
// Run in release: swift run -c release --package-path Tools/Benchmarks dbb-benchmarks [workload …]
import Foundation

let known = ["sql", "objects", "query", "export"]
let requested = Array(CommandLine.arguments.dropFirst())
for workload in requested.isEmpty ? known : requested {
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
