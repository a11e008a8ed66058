import DBBExport
import DBBSQL
import Foundation
import Testing

/// The code of Docs/DBBExport.md, compiled here and run on copies of the fixtures.
struct DBBExportGuide {
    func backUp(database: URL, to dump: URL, restoringInto copy: URL) throws {
        let report = try DBBExport.dump(databaseAt: database, to: dump)
        print("dumped \(report.tables.count) tables, \(report.totalRows) rows, \(report.compressedBytes) bytes")
        try DBBExport.restore(dumpAt: dump, to: copy)
    }

    func backUpSome(database: URL, to dump: URL) throws -> DBBDumpReport {
        let options = DBBDumpOptions(tables: ["Artist", "Album"], compressionLevel: 9, replaceExisting: true)
        return try DBBExport.dump(databaseAt: database, to: dump, options: options)
    }

    func restoreChecked(dump: URL, to copy: URL) throws {
        let options = DBBRestoreOptions(replaceExisting: true, checkIntegrity: true)
        try DBBExport.restore(dumpAt: dump, to: copy, options: options)
    }

    func dumpWithProgress(database: URL, to dump: URL) throws -> [Double] {
        var fractions: [Double] = []
        try DBBExport.dump(databaseAt: database, to: dump) { progress in
            fractions.append(progress.fractionDone)
            print("\(progress.currentTable ?? "-"): \(progress.rowsDone) of \(progress.rowCount) rows")
        }
        return fractions
    }

    func check(dump: URL, against database: URL) throws -> String {
        let header = try DBBExport.inspect(dumpAt: dump)  // header and schema only: fast at any size
        let verified = try DBBExport.verify(dumpAt: dump)  // every byte: gzip CRC, JSON, values, row counts
        guard verified.totalRows == header.totalRows else { return "rows are missing" }
        if let difference = try DBBExport.compare(dumpAt: dump, withDatabaseAt: database) {
            return "differs: \(difference)"
        }
        return "\(verified.tables.count) tables, \(verified.totalRows) rows, identical"
    }

    func restoreReportingDamage(dump: URL, to copy: URL) -> String {
        do {
            try DBBExport.restore(dumpAt: dump, to: copy)
            return "restored"
        } catch let error as DBBExportError {
            switch error.kind {
            case .targetExists: return "\(copy.lastPathComponent) exists; pass replaceExisting to replace it"
            case .truncated, .corruptCompression: return "the dump is damaged: \(error.message)"
            default: return "\(error.kind): \(error.message)"
            }
        } catch {
            return "SQLite refused the dump: \(error)"
        }
    }
}

@Suite("Docs/DBBExport.md")
struct DBBExportGuideTests {
    let guide = DBBExportGuide()

    @Test func theGuideShowsOnlyCodeThatIsHere() throws {
        #expect(try DocSnippets.missingBlocks(guide: "Docs/DBBExport.md") == [])
    }

    @Test func dumpRestoreAndCheck() throws {
        let folder = try TemporaryFolder()
        let chinook = try fixture("chinook.sqlite")
        let dump = folder.file("chinook.json.gz")
        let copy = folder.file("copy.sqlite")
        try guide.backUp(database: chinook, to: dump, restoringInto: copy)
        #expect(try guide.check(dump: dump, against: copy) == "11 tables, 15607 rows, identical")
        #expect(try guide.check(dump: dump, against: chinook) == "11 tables, 15607 rows, identical")

        let changed = try DBBDatabase(path: copy.path)
        try changed.execute("UPDATE Artist SET Name = 'AC-DC' WHERE ArtistId = 1")
        try changed.close()
        let differs = try guide.check(dump: dump, against: copy)
        #expect(differs.hasPrefix("differs: "))
        #expect(differs.contains("Artist"))
    }

    @Test func optionsSelectTablesReplaceAndCheckIntegrity() throws {
        let folder = try TemporaryFolder()
        let chinook = try fixture("chinook.sqlite")
        let dump = try folder.write("old", to: "part.json.gz")
        let report = try guide.backUpSome(database: chinook, to: dump)
        #expect(report.header.isPartial)
        #expect(report.tables.map(\.name).sorted() == ["Album", "Artist"])
        #expect(report.tables.map(\.rowCount).reduce(0, +) == 347 + 275)
        let copy = try folder.write("old", to: "part.sqlite")
        try guide.restoreChecked(dump: dump, to: copy)
        let db = try DBBDatabase(path: copy.path, mode: .readOnly)
        #expect(try db.tableNames() == ["Album", "Artist"])
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM Album") == 347)
    }

    @Test func progressRunsFromZeroToOne() throws {
        let folder = try TemporaryFolder()
        let fractions = try guide.dumpWithProgress(
            database: try fixture("chinook.sqlite"), to: folder.file("chinook.json.gz"))
        #expect(fractions.count > 11)
        #expect(fractions == fractions.sorted())
        #expect(fractions.last == 1)
    }

    @Test func errorsSayWhatIsWrong() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("chinook.json.gz")
        let copy = folder.file("copy.sqlite")
        try guide.backUp(database: try fixture("chinook.sqlite"), to: dump, restoringInto: copy)
        #expect(
            guide.restoreReportingDamage(dump: dump, to: copy)
                == "copy.sqlite exists; pass replaceExisting to replace it")

        let bytes = try Data(contentsOf: dump)
        let cut = folder.file("cut.json.gz")
        try bytes.prefix(bytes.count / 2).write(to: cut)
        let damaged = guide.restoreReportingDamage(dump: cut, to: folder.file("cut.sqlite"))
        #expect(damaged.hasPrefix("the dump is damaged: "))
        #expect(!FileManager.default.fileExists(atPath: folder.path("cut.sqlite")))

        // Plain JSON that is not a dump, compressed as a dump would be.
        let foreign = folder.file("foreign.json.gz")
        _ = try ToolProcess.run(
            executable: URL(fileURLWithPath: "/bin/sh"), ["-c", "echo '{\"a\":1}' | gzip > '\(foreign.path)'"])
        #expect(
            guide.restoreReportingDamage(dump: foreign, to: folder.file("foreign.sqlite")).hasPrefix("notADump: "))
        #expect(try folder.contents() == ["chinook.json.gz", "copy.sqlite", "cut.json.gz", "foreign.json.gz"])
    }
}
