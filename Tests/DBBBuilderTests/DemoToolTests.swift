import DBBBuilder
import DBBTestSupport
import Foundation
import Testing

/// `dbb-demo`, the README's first command, run as a process.
@Suite struct DemoToolTests {
    @Test func theTourRunsWithNoArgumentsAndLeavesNothingBehind() throws {
        // A temporary directory of its own, so the demo tests running beside this one do not show in it.
        let temporary = try TemporaryFolder()
        let run = try ToolProcess.run("dbb-demo", [], environment: ["TMPDIR": temporary.url.path])
        #expect(run.exitCode == 0, "\(run.standardError)")
        let output = run.standardOutput
        #expect(output.contains("saved 4 projects; ids [1, 2, 3, 4]"))
        #expect(output.contains("Person rows: 4"))
        #expect(output.contains("Meeting rows: 8"))
        #expect(output.contains("Cygnus: 250000, led by Ada Byron"))
        #expect(output.contains("tagged urgent: [\"Apollo\", \"Delta\"]"))
        #expect(output.contains("found by a bound value: Brian O'Brien, 52"))
        #expect(output.contains("Borealis: budget 50000, tags [\"research\", \"funded\"]"))
        #expect(output.contains("projects now: [\"Apollo\", \"Borealis\", \"Cygnus\"]"))
        #expect(output.contains("restored 3 projects"))
        #expect(output.contains("the restored objects match the originals: yes"))
        #expect(output.contains("done; removed the database and its folder (run with --keep to keep them)"))
        #expect(try temporary.contents() == [])
    }

    @Test func eachStepNamesTheSourceOfItsCode() throws {
        let run = try ToolProcess.run("dbb-demo", [])
        #expect(run.exitCode == 0, "\(run.standardError)")
        let lines = run.standardOutput.components(separatedBy: "\n")
        #expect(lines.contains("The classes Person, Company, Project and Meeting are in Tools/dbb-demo/Models.swift."))
        let headings = lines.filter { $0.hasPrefix("== ") }
        #expect(headings.count == 6)
        for heading in headings {
            // `== Title  [Tools/dbb-demo/ObjectTour.swift:21]`: that line of that file starts the step.
            let place = try #require(heading.split(separator: "[").last?.dropLast(), "\(heading)")
            let parts = place.split(separator: ":")
            let source = try String(
                contentsOf: repositoryRoot.appendingPathComponent(String(parts[0])), encoding: .utf8)
            let line = try #require(Int(parts[1]))
            let title = heading.dropFirst(3).components(separatedBy: "  [")[0]
            #expect(
                source.components(separatedBy: "\n")[line - 1].contains("section(\"\(title)\")"), "\(heading)")
        }
        let sql = try ToolProcess.run("dbb-demo", ["--sql"])
        #expect(sql.standardOutput.contains("== Pragmas  [Tools/dbb-demo/SQLTour.swift:"))
    }

    @Test func keepKeepsTheDatabaseAndSaysWhere() throws {
        let temporary = try TemporaryFolder()
        let run = try ToolProcess.run("dbb-demo", ["--keep"], environment: ["TMPDIR": temporary.url.path])
        #expect(run.exitCode == 0, "\(run.standardError)")
        let kept = try #require(
            run.standardOutput.components(separatedBy: "\n").first { $0.hasPrefix("kept the database: ") })
        let path = String(kept.dropFirst("kept the database: ".count))
        #expect(path.hasPrefix(temporary.url.path))
        #expect(run.standardOutput.contains("look inside with: sqlite3 \(path) .tables"))
        let manager = try DBBManager(databaseURL: URL(fileURLWithPath: path))
        let count = try manager.queue.inDatabase { db in try db.fetchValue(Int.self, "SELECT count(*) FROM Project") }
        #expect(count == 3)
        try manager.close()
        let folder = URL(fileURLWithPath: path).deletingLastPathComponent()
        #expect(
            try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted().filter {
                $0.hasSuffix(".gz") || $0.hasSuffix(".sqlite")
            }
                == ["demo.json.gz", "demo.sqlite", "restored.sqlite"])
    }

    @Test func aNamedDatabaseIsKeptAndReadableAndNeverOverwritten() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("named.sqlite")
        let run = try ToolProcess.run("dbb-demo", ["--database", url.path])
        #expect(run.exitCode == 0, "\(run.standardError)")
        #expect(FileManager.default.fileExists(atPath: url.path + "-wal") == false)
        let manager = try DBBManager(databaseURL: url)
        let count = try manager.queue.inDatabase { db in try db.fetchValue(Int.self, "SELECT count(*) FROM Project") }
        #expect(count == 3)
        try manager.close()

        let bytes = try Data(contentsOf: url)
        let again = try ToolProcess.run("dbb-demo", ["--database", url.path])
        #expect(again.exitCode != 0)
        #expect(again.standardError.contains("exists already"))
        #expect(try Data(contentsOf: url) == bytes)
    }

    @Test func helpExplainsItAndTheSQLTourRuns() throws {
        let help = try ToolProcess.run("dbb-demo", ["--help"])
        #expect(help.exitCode == 0)
        #expect(help.standardOutput.contains("USAGE: dbb-demo"))
        #expect(help.standardOutput.contains("dumps the database with DBBExport"))
        let sql = try ToolProcess.run("dbb-demo", ["--sql"])
        #expect(sql.exitCode == 0, "\(sql.standardError)")
        #expect(sql.standardOutput.contains("== Decodable rows"))
        let wrong = try ToolProcess.run("dbb-demo", ["--no-such-option"])
        #expect(wrong.exitCode == 64)
    }
}
