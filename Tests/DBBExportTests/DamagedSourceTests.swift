import DBBExport
import DBBSQL
import Foundation
import Testing

/// Damaged sources give dumps that can be restored, or are refused with the reason: the dump checks rowids
/// and NOT NULL columns as it streams and compares what it reads with what it counted, `--check` runs
/// `integrity_check` first, and `--allow-damaged` dumps what can be read and restored, with a warning. And
/// verify agrees with restore on every dump: both load the rows under the same constraints.
@Suite("Damaged sources")
struct DamagedSourceTests {
    /// A way a database file can be damaged, and what a restore of an unchecked dump of it meets.
    enum Damage: String, CaseIterable, CustomTestStringConvertible {
        /// Two entries of the table b-tree's root page point to one leaf, so its rows come twice.
        case repeatedRowIDs
        /// Two entries of the root page are swapped, so rowids come out of order (none twice).
        case rowIDsOutOfOrder
        /// A NULL in a column the schema declares NOT NULL.
        case nullInNotNullColumn
        /// Two rows with the same value under a UNIQUE index.
        case duplicateUnderUniqueIndex

        var testDescription: String { rawValue }
    }

    static let rows = 2000

    /// Writes a damaged copy of a small database at `url`.
    static func makeDamaged(_ damage: Damage, at url: URL) throws {
        let db = try DBBDatabase(path: url.path)
        try db.executeStatements(
            """
            PRAGMA journal_mode = DELETE;
            CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT, code TEXT);
            WITH RECURSIVE c(x) AS (SELECT 1 UNION ALL SELECT x + 1 FROM c WHERE x < \(rows))
            INSERT INTO t SELECT x, printf('name %d, padded to fill a few pages of rows', x), 'c' || x FROM c;
            CREATE INDEX t_code ON t (code);
            """)
        switch damage {
        case .repeatedRowIDs, .rowIDsOutOfOrder:
            let root = try #require(try db.fetchValue(Int.self, "SELECT rootpage FROM sqlite_master WHERE name = 't'"))
            let pageSize = try #require(try db.fetchValue(Int.self, "PRAGMA page_size"))
            try db.close()
            try editRootPage(of: url, root: root, pageSize: pageSize, repeat: damage == .repeatedRowIDs)
            return
        case .nullInNotNullColumn:
            try db.executeStatements(
                """
                UPDATE t SET name = NULL WHERE id = 700;
                PRAGMA writable_schema = ON;
                UPDATE sqlite_master SET sql = 'CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT NOT NULL, code TEXT)'
                    WHERE name = 't';
                PRAGMA writable_schema = OFF;
                """)
        case .duplicateUnderUniqueIndex:
            try db.executeStatements(
                """
                UPDATE t SET code = 'c1' WHERE id = 900;
                PRAGMA writable_schema = ON;
                UPDATE sqlite_master SET sql = 'CREATE UNIQUE INDEX t_code ON t (code)' WHERE name = 't_code';
                PRAGMA writable_schema = OFF;
                """)
        }
        try db.close()
    }

    /// Points the second child of the table's root page at the first one's leaf (`repeat`), or swaps them.
    static func editRootPage(of url: URL, root: Int, pageSize: Int, repeat: Bool) throws {
        var bytes = try Data(contentsOf: url)
        let page = (root - 1) * pageSize
        #expect(bytes[page] == 0x05, "the root page is an interior table page")
        let cellCount = Int(bytes[page + 3]) << 8 | Int(bytes[page + 4])
        try #require(cellCount >= 2)
        // The cell pointer array follows the 12-byte header; a cell starts with its child's 4-byte page number.
        func cell(_ index: Int) -> Int {
            page + (Int(bytes[page + 12 + 2 * index]) << 8 | Int(bytes[page + 13 + 2 * index]))
        }
        let first = bytes[cell(0)..<cell(0) + 4]
        let second = bytes[cell(1)..<cell(1) + 4]
        bytes.replaceSubrange(cell(1)..<cell(1) + 4, with: first)
        if !`repeat` { bytes.replaceSubrange(cell(0)..<cell(0) + 4, with: second) }
        try bytes.write(to: url)
    }

    @Test(
        "an unchecked dump of a damaged source is refused, or restores; verify and restore agree",
        arguments: Damage.allCases)
    func uncheckedDump(of damage: Damage) throws {
        let folder = try TemporaryFolder()
        let source = folder.file("damaged.sqlite")
        try Self.makeDamaged(damage, at: source)
        #expect(try sqlite3Shell(source, "PRAGMA integrity_check") != "ok")
        let dump = folder.file("damaged.json.gz")
        let dumped = try ToolProcess.run("dbb-backup", ["dump", "-q", source.path, dump.path])
        switch damage {
        case .repeatedRowIDs, .rowIDsOutOfOrder, .nullInNotNullColumn:
            // The checks made while streaming find these: no dump that restore would refuse is written.
            #expect(dumped.exitCode == 65, "\(dumped.standardError)")
            #expect(dumped.standardError.contains("the database is damaged"), "\(dumped.standardError)")
            #expect(dumped.standardError.contains("--allow-damaged"), "\(dumped.standardError)")
            #expect(try folder.contents() == ["damaged.sqlite"])
        case .duplicateUnderUniqueIndex:
            // Only the integrity check finds this one; the dump is written, and verify refuses it as restore does.
            #expect(dumped.exitCode == 0, "\(dumped.standardError)")
            let verified = try ToolProcess.run("dbb-backup", ["verify", "-q", dump.path])
            let restored = try ToolProcess.run("dbb-backup", ["restore", "-q", dump.path, folder.path("r.sqlite")])
            #expect(verified.exitCode == 65, "\(verified.standardError)")
            #expect(restored.exitCode == 65, "\(restored.standardError)")
            #expect(verified.standardError.contains("UNIQUE constraint failed"), "\(verified.standardError)")
            #expect(restored.standardError.contains("UNIQUE constraint failed"), "\(restored.standardError)")
            #expect(!FileManager.default.fileExists(atPath: folder.path("r.sqlite")))
        }
    }

    @Test("dump --check refuses a source that fails integrity_check, with its findings", arguments: Damage.allCases)
    func checkedDump(of damage: Damage) throws {
        let folder = try TemporaryFolder()
        let source = folder.file("damaged.sqlite")
        try Self.makeDamaged(damage, at: source)
        let run = try ToolProcess.run("dbb-backup", ["dump", "-q", "--check", source.path, folder.path("d.json.gz")])
        #expect(run.exitCode == 65, "\(run.standardError)")
        #expect(run.standardError.contains("fails its integrity check"), "\(run.standardError)")
        #expect(try folder.contents() == ["damaged.sqlite"])
    }

    @Test(
        "dump --allow-damaged writes what can be read and restored, and says so in its report and header",
        arguments: Damage.allCases)
    func allowedDamage(of damage: Damage) throws {
        let folder = try TemporaryFolder()
        let source = folder.file("damaged.sqlite")
        try Self.makeDamaged(damage, at: source)
        let dump = folder.file("d.json.gz")
        var options = DBBDumpOptions()
        options.allowsDamaged = true
        options.checksIntegrity = true
        let report = try DBBExport.dump(databaseAt: source, to: dump, options: options)
        #expect(report.header.damage.first?.hasPrefix("integrity_check: ") == true, "\(report.header.damage)")
        #expect(try DBBExport.inspect(dumpAt: dump).header.damage == report.header.damage)
        let expectedRows: Int
        switch damage {
        case .repeatedRowIDs:
            // The leaf read twice gives its rows once; the leaf nothing points to any more is lost.
            #expect(report.header.damage.contains { $0.contains("row(s) a restore would refuse were left out") })
            expectedRows = report.totalRows
            #expect(expectedRows < Self.rows)
        case .rowIDsOutOfOrder:
            #expect(report.header.damage.contains { $0.contains("rowids out of order") })
            expectedRows = Self.rows
        case .nullInNotNullColumn:
            #expect(report.header.damage.contains { $0.contains("column name, declared NOT NULL, holds NULL") })
            expectedRows = Self.rows - 1
        case .duplicateUnderUniqueIndex:
            expectedRows = Self.rows
        }
        #expect(report.totalRows == expectedRows)
        // The tool warns on stderr, even with --quiet.
        let tool = try ToolProcess.run(
            "dbb-backup", ["dump", "-q", "--check", "--allow-damaged", source.path, folder.path("t.json.gz")])
        #expect(tool.exitCode == 0)
        #expect(
            tool.standardError.contains("warning: the dump was dumped from a damaged database"), "\(tool.standardError)"
        )
        // verify and restore agree: the unique index is the one damage the streaming checks cannot mend.
        let target = folder.file("r.sqlite")
        let verified = Result { try DBBExport.verify(dumpAt: dump) }
        let restored = Result { try DBBExport.restore(dumpAt: dump, to: target) }
        let verifyPassed = (try? verified.get()) != nil
        let restorePassed = (try? restored.get()) != nil
        #expect(verifyPassed == restorePassed, "\(verified) \(restored)")
        if damage == .duplicateUnderUniqueIndex {
            #expect(throws: DBBError.self) { try restored.get() }
        } else {
            _ = try restored.get()
            #expect(try sqlite3Shell(target, "PRAGMA integrity_check; SELECT count(*) FROM t") == "ok\n\(expectedRows)")
        }
    }
}
