import DBBBuilder
import Foundation

// A table rebuild (a migration's type change) against SQLite's own copy of the same rows: `CREATE TABLE`,
// `INSERT INTO … SELECT` and the same index, in one transaction. The rebuild is that copy plus a drop, a rename
// and the index again, so the target is within 2×. The two alternate, --runs times each, on fresh files of
// 1,000,000 rows (divided by --scale); the medians are printed.

enum RebuildBenchmark {
    static let columns =
        "(id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, modifiedTime Real, name Text, amount Integer, "
        + "score Real, flag Boolean)"

    static func run() {
        runWorkload("rebuild") {
            let rows = max(1, 1_000_000 / BenchmarkOptions.current.scale)
            let runs = BenchmarkOptions.current.runs
            var copies: [Double] = []
            var rebuilds: [Double] = []
            try withTemporaryFolder("dbb-rebuild") { folder in
                for round in 0..<runs {
                    let copyManager = try bigTable(folder.appendingPathComponent("copy\(round).sqlite"), rows: rows)
                    copies.append(
                        try seconds {
                            try copyManager.queue.inDatabase { db in
                                try db.inTransaction(.immediate) { db in
                                    try db.execute("CREATE TABLE Copy \(columns)")
                                    try db.execute("INSERT INTO Copy SELECT * FROM Big")
                                    try db.execute("CREATE INDEX Copy_name ON Copy (name)")
                                }
                            }
                        })
                    try copyManager.close()
                    let manager = try bigTable(folder.appendingPathComponent("rebuild\(round).sqlite"), rows: rows)
                    var migrator = DBBMigrator()
                    migrator.registerMigration("amount as real", [.changeType(of: "amount", in: "Big", to: .float)])
                    rebuilds.append(try seconds { try migrator.migrate(manager) })
                    guard try manager.rowCount(inTable: "Big") == rows else {
                        throw DBBError.library(.mismatch, message: "the rebuild lost rows")
                    }
                    try manager.close()
                }
            }
            let copy = copies.sorted()[copies.count / 2]
            let rebuild = rebuilds.sorted()[rebuilds.count / 2]
            print(
                String(
                    format: "rebuild of %d rows, medians of %d alternating runs: rebuild %.3f s, "
                        + "CREATE TABLE + INSERT INTO … SELECT + CREATE INDEX %.3f s, ratio %.2f (target < 2)",
                    rows, runs, rebuild, copy, rebuild / copy))
        }
    }

    /// A manager of a new file holding the table `Big` and its index.
    static func bigTable(_ url: URL, rows: Int) throws -> DBBManager {
        let manager = try DBBManager(databaseURL: url)
        try manager.queue.inDatabase { db in
            try db.inTransaction(.immediate) { db in
                try db.execute("CREATE TABLE Big \(columns)")
                try db.execute(
                    """
                    WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < ?)
                    INSERT INTO Big (createdTime, modifiedTime, name, amount, score, flag)
                    SELECT i * 1.5, i * 2.5, 'name ' || (i % 9973), i, i / 7.0, i % 2 FROM n
                    """, rows)
                try db.execute("CREATE INDEX Big_name ON Big (name)")
            }
        }
        return manager
    }

    static func seconds(_ body: () throws -> Void) rethrows -> Double {
        let start = DispatchTime.now().uptimeNanoseconds
        try body()
        return Double(DispatchTime.now().uptimeNanoseconds - start) / 1e9
    }
}
