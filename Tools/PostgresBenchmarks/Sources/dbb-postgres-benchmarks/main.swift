// Runs the five workloads of the SQLite comparison on PostgreSQL: hand-written postgres-nio code, Fluent 4 and
// the library's macro classes, against one server started for the run (or the one DBB_POSTGRES_URL names).
// Run in release: swift run -c release --package-path Tools/PostgresBenchmarks dbb-postgres-benchmarks [options]
import Foundation

let usage = """
    usage: dbb-postgres-benchmarks [--json PATH] [--runs N] [--scale N] [--only W1,W2,…] [--contenders A,B,…]
      --json PATH writes the table as JSON; --runs N timed runs after the warm-up (default 5; for restore,
      rounds of every contender, reported as medians);
      --scale N divides every count by N (short runs for profiling); --only picks workloads W1–W5, or
      restore (a dump restored into PostgreSQL against pgloader and psql COPY; run only when named);
      --contenders picks contenders by name ("hand-written", "hand-written COPY", "hand-written sync",
      "Fluent 4", "DBBBuilder")
      The server: a throwaway one (initdb and pg_ctl from PATH or /usr/lib/postgresql/*/bin), or the one
      DBB_POSTGRES_URL names (postgres://user:password@host:port/database; the role needs CREATEDB).
    """

let options: BenchmarkOptions
do {
    options = try BenchmarkOptions.parse(Array(CommandLine.arguments.dropFirst()))
} catch {
    print("\(error)\n\(usage)")
    exit(2)
}
if options.help {
    print(usage)
    exit(0)
}

let server: BenchmarkServer
do {
    server = try await BenchmarkServer.start()
} catch {
    print("postgres benchmark failed: \(describe(error))")
    exit(1)
}
var failed = false
do {
    if options.workloads.contains("restore") {
        try await RestoreBenchmark.run(server: server, scale: options.scale, runs: options.runs)
    }
    if options.workloads.isEmpty || !options.workloads.subtracting(["restore"]).isEmpty {
        try await Comparison.run(options, server: server)
    }
} catch {
    print("postgres benchmark failed: \(describe(error))")
    failed = true
}
server.stop()
exit(failed ? 1 : 0)
