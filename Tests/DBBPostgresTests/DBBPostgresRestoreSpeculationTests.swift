import DBBExport
import DBBPostgres
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// The one-pass restore: each table is created from its first rows and the plan is made after the load, from
/// counts of every value. Its plan must be the one a planning pass makes (types, notes, identities, keys), its
/// refusals the planning pass's, and a table whose first rows mislead must come out as planned all the same.
@Suite(.postgres)
struct DBBPostgresRestoreSpeculationTests {
    /// Columns whose first rows (more than a sample: 5,000) mislead, and a table without them: reals then an integer in a DECIMAL column
    /// (double precision, then numeric), integers then text in an INTEGER column (bigint, then text), and in
    /// the last table text then BLOBs (text, then bytea) and text then text with NUL (text, then bytea).
    static let misleading = """
        CREATE TABLE price (id INTEGER PRIMARY KEY AUTOINCREMENT, amount DECIMAL(5,2) NOT NULL DEFAULT 0, label TEXT);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
        INSERT INTO price (amount, label) SELECT i + 0.25, 'p' || i FROM n;
        INSERT INTO price (amount, label) VALUES (10, 'whole'), (0.5, NULL), (1.5, 'deleted');
        DELETE FROM price WHERE id = 5003;
        CREATE TABLE code (id INTEGER PRIMARY KEY, value INTEGER);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 5000)
        INSERT INTO code SELECT i, i * 3 FROM n;
        INSERT INTO code VALUES (5001, 'x-5001'), (5002, 7);
        CREATE TABLE plain (k TEXT PRIMARY KEY, v REAL) WITHOUT ROWID;
        INSERT INTO plain VALUES ('a', 1.5), ('b', NULL), ('c', -2.25);
        CREATE TABLE note (body TEXT, extra);
        WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 6000)
        INSERT INTO note SELECT 'note ' || i, CASE WHEN i > 5000 THEN CAST(X'00FF' || i AS BLOB) ELSE 'e' || i END FROM n;
        """

    static func misleadingDump(in folder: TemporaryFolder) throws -> URL {
        let database = folder.file("misleading.sqlite")
        let db = try DBBDatabase(path: database.path)
        try db.executeStatements(misleading)
        try db.execute("INSERT INTO note VALUES (?, NULL)", "with \u{0} inside")
        try db.close()
        let dump = folder.file("misleading.json.gz")
        try DBBExport.dump(databaseAt: database, to: dump)
        return dump
    }

    /// The dumps whose plans are compared: the fixtures, DBBBuilder's layout, mixed columns, a virtual table.
    static func dumps(in folder: TemporaryFolder) throws -> [URL] {
        var dumps = try ["chinook.sqlite", "northwind.sqlite", "sakila.sqlite", "mbtiles_plain_2.sqlite"].map {
            try DBBPostgresRestoreTests.dumpOfFixture($0, in: folder)
        }
        dumps.append(
            try DBBPostgresRestoreTests.dump(of: DBBPostgresRestoreTests.builderLayout, in: folder, name: "app"))
        dumps.append(try misleadingDump(in: folder))
        dumps.append(repositoryRoot.appendingPathComponent("Tests/Corpus/HostileDumps/missing-module.json.gz"))
        return dumps
    }

    @Test("the one-pass restore ends with the plan of a planning pass, for every fixture, strict or not")
    func restoredPlanIsThePlanningPasss() async throws {
        let folder = try TemporaryFolder()
        let dumps = try Self.dumps(in: folder)
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            for (index, dump) in dumps.enumerated() {
                for strict in [false, true] {
                    // The strict restores compare plans only: the verification is the other restore's.
                    let options = DBBPostgresRestoreOptions(
                        schema: "s\(index)\(strict ? "s" : "")", strict: strict, verifies: !strict)
                    let planned = Result { try DBBPostgresRestore.plan(dumpAt: dump, options: options) }
                    let restored = Result { try DBBPostgresRestore.restore(dumpAt: dump, into: db, options: options) }
                    switch (planned, restored) {
                    case (.success(let plan), .success(let report)):
                        #expect(report.plan == plan, "\(dump.lastPathComponent), strict: \(strict)")
                        #expect(report.verified == !strict)
                    case (.failure(let planError), .failure(let restoreError)):
                        #expect("\(restoreError)" == "\(planError)", "\(dump.lastPathComponent)")
                        #expect(try !DBBPostgresRestoreTests.schemaExists(options.schema, db))
                    default:
                        Issue.record(
                            "\(dump.lastPathComponent), strict \(strict): plan \(planned), restore \(restored)")
                    }
                }
            }
        }
    }

    /// One test over every hostile dump, on one connection: a test case each would hold a connection each at
    /// once, beside the other suites'.
    @Test("every hostile dump is refused by the one-pass restore as by the planning pass, leaving nothing")
    func hostileDumpsAreRefusedAsPlanned() async throws {
        let names = DBBPostgresRestoreTests.hostileDumps
        #expect(names.count >= 16)
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            for name in names {
                let dump = repositoryRoot.appendingPathComponent("Tests/Corpus/HostileDumps/\(name)")
                let options = DBBPostgresRestoreOptions(schema: "h")
                let planError = #expect(throws: (any Error).self, "\(name)") {
                    try DBBPostgresRestore.plan(dumpAt: dump, options: options)
                }
                let restoreError = #expect(throws: (any Error).self, "\(name)") {
                    try DBBPostgresRestore.restore(dumpAt: dump, into: db, options: options)
                }
                #expect(restoreError.map { "\($0)" } == planError.map { "\($0)" }, "\(name)")
                #expect(try !DBBPostgresRestoreTests.schemaExists("h", db), "\(name)")
            }
        }
    }

    @Test("tables whose first rows mislead are loaded again and end exactly as planned; the others are loaded once")
    func misleadingTablesAreLoadedAgain() async throws {
        let folder = try TemporaryFolder()
        let dump = try Self.misleadingDump(in: folder)
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            let options = DBBPostgresRestoreOptions(schema: "m")
            let report = try DBBPostgresRestore.restore(dumpAt: dump, into: db, options: options)
            #expect(report.reloadedTables == ["price", "code", "note"])
            #expect(report.plan == (try DBBPostgresRestore.plan(dumpAt: dump, options: options)))
            let types = try db.fetchAll(
                "SELECT table_name::text || '.' || column_name::text, data_type::text FROM information_schema.columns "
                    + "WHERE table_schema = 'm' AND table_name <> 'dbb_sqlite_metadata' ORDER BY 1")
            #expect(
                types == [
                    [.text("code.id"), .text("bigint")], [.text("code.value"), .text("text")],
                    [.text("note.body"), .text("bytea")], [.text("note.extra"), .text("bytea")],
                    [.text("note.rowid"), .text("bigint")], [.text("plain.k"), .text("text")],
                    [.text("plain.v"), .text("double precision")], [.text("price.amount"), .text("numeric")],
                    [.text("price.id"), .text("bigint")], [.text("price.label"), .text("text")],
                ])
            // Every row, once: the rows sent before a table stopped were dropped with it.
            let counts = try db.fetchAll(
                "SELECT (SELECT count(*) FROM m.price), (SELECT count(*) FROM m.code), (SELECT count(*) FROM m.note), "
                    + "(SELECT count(*) FROM m.plain)")
            #expect(counts == [[.integer(5002), .integer(5002), .integer(6001), .integer(3)]])
            let values = try db.fetchAll(
                "SELECT (SELECT amount::text FROM m.price WHERE id = 1), (SELECT amount::text FROM m.price WHERE id = 5001), "
                    + "(SELECT value FROM m.code WHERE id = 5001), (SELECT value FROM m.code WHERE id = 5000), "
                    + "(SELECT extra FROM m.note WHERE rowid = 5001)")
            #expect(
                values == [
                    [
                        .text("1.25"), .text("10"), .text("x-5001"), .text("15000"),
                        .blob(Data([0, 0xFF]) + Data("5001".utf8)),
                    ]
                ])
            // The identity of the table loaded again continues SQLite's sequence (5003 was deleted).
            let next = try db.fetchAll("INSERT INTO m.price (label) VALUES ('new') RETURNING id, amount::text")
            #expect(next == [[.integer(5004), .text("0")]])
            let nextNote = try db.fetchAll("INSERT INTO m.note (body) VALUES ('\\x6e'::bytea) RETURNING rowid")
            #expect(nextNote == [[.integer(6002)]])
            #expect(report.plan.notes.contains { $0.object == "column code.value" && $0.action.contains("mixes") })
            // --strict refuses it as the planning pass does, after loading, and leaves nothing.
            let strict = DBBPostgresRestoreOptions(schema: "strict", strict: true)
            let planError = #expect(throws: DBBExportError.self) {
                try DBBPostgresRestore.plan(dumpAt: dump, options: strict)
            }
            let restoreError = #expect(throws: DBBExportError.self) {
                try DBBPostgresRestore.restore(dumpAt: dump, into: db, options: strict)
            }
            #expect(restoreError != nil && restoreError == planError)
            #expect(try !DBBPostgresRestoreTests.schemaExists("strict", db))
        }
    }
}
