import Foundation

// What the comparison shares: the command line's options, timing, the error type and the median.

/// The command line's options.
struct BenchmarkOptions: Sendable {
    var jsonPath: String?
    var runs = 5
    var scale = 1
    var workloads: Set<String> = []
    var contenders: Set<String> = []
    var help = false

    static func parse(_ arguments: [String]) throws -> BenchmarkOptions {
        var options = BenchmarkOptions()
        var rest = arguments[...]
        func value(_ flag: String) throws -> String {
            guard let value = rest.popFirst() else { throw BenchmarkError("\(flag) needs a value") }
            return value
        }
        func count(_ flag: String) throws -> Int {
            guard let number = Int(try value(flag)), number > 0 else {
                throw BenchmarkError("\(flag) needs a positive whole number")
            }
            return number
        }
        func list(_ flag: String) throws -> Set<String> {
            Set(try value(flag).split(separator: ",").map { $0.trimmingCharacters(in: .whitespaces) })
        }
        while let argument = rest.popFirst() {
            switch argument {
            case "--json": options.jsonPath = try value(argument)
            case "--runs": options.runs = try count(argument)
            case "--scale": options.scale = try count(argument)
            case "--only": options.workloads = try list(argument)
            case "--contenders": options.contenders = try list(argument)
            case "-h", "--help": options.help = true
            default: throw BenchmarkError("unknown argument '\(argument)'")
            }
        }
        return options
    }
}

struct BenchmarkError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}

/// One timed run: wall-clock seconds, which count the round trips to the server and the server's work, and
/// the CPU seconds of this process alone (the client's share).
struct Sample: Sendable {
    var wall: Double
    var cpu: Double
}

/// Times `body`. Wall time is what the comparison ranks by: on a server, waiting for round trips is part of the
/// cost, and CPU time of the client alone would hide it.
func measure(_ body: () async throws -> Void) async throws -> Sample {
    let startCPU = cpuTime()
    let clock = ContinuousClock()
    let start = clock.now
    try await body()
    let elapsed = clock.now - start
    let wall = Double(elapsed.components.seconds) + Double(elapsed.components.attoseconds) / 1e18
    return Sample(wall: wall, cpu: cpuTime() - startCPU)
}

func cpuTime() -> Double {
    var now = timespec()
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &now)
    return Double(now.tv_sec) + Double(now.tv_nsec) / 1e9
}

func median(_ values: [Double]) -> Double {
    let sorted = values.sorted()
    guard !sorted.isEmpty else { return .nan }
    let middle = sorted.count / 2
    return sorted.count % 2 == 1 ? sorted[middle] : (sorted[middle - 1] + sorted[middle]) / 2
}
