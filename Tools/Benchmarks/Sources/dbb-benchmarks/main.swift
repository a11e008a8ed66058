// Runs the named workloads (all of them when none is named).
let known = ["objects"]
let requested = Array(CommandLine.arguments.dropFirst())
for workload in requested.isEmpty ? known : requested {
    switch workload {
    case "objects": ObjectsBenchmark.run()
    default: print("unknown workload \(workload); known: \(known.joined(separator: ", "))")
    }
}
