// Runs the named workloads (all of them when none is named), printing times and ratios to raw sqlite3.
// Run in release: swift run -c release --package-path Tools/Benchmarks dbb-benchmarks [workload …]
import Foundation

let allWorkloads = ["export"]
let requested = Array(CommandLine.arguments.dropFirst())

for name in requested.isEmpty ? allWorkloads : requested {
    switch name {
    case "export":
        ExportBenchmark.run()
    case "-h", "--help":
        print("usage: dbb-benchmarks [workload …]   workloads: \(allWorkloads.joined(separator: ", "))")
    default:
        print("unknown workload '\(name)'; known workloads: \(allWorkloads.joined(separator: ", "))")
        exit(2)
    }
}
