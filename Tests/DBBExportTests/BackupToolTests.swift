import DBBExport
import DBBSQL
import Foundation
import Testing

/// `dbb-backup` run as a process: arguments in; files, output and exit codes checked.
@Suite("dbb-backup command-line tool")
struct BackupToolTests {
    /// The tool's binary, built beside the test bundle (the test target depends on it); a path that names
    /// nothing, so that running it fails, when it is not built.
    static let tool = ToolProcess.executable("dbb-backup")?.path ?? "/nonexistent/dbb-backup"

    /// Runs the tool.
    static func run(_ arguments: String...) throws -> (status: Int32, stdout: String, stderr: String) {
        let result = try ToolProcess.run("dbb-backup", arguments)
        return (result.exitCode, result.standardOutput, result.standardError)
    }

    @Test("dump, inspect, verify and restore a real database end to end")
    func roundTrip() throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture("sakila.sqlite", into: folder)
        let dump = folder.file("sakila.json.gz").path
        let restored = folder.file("restored.sqlite").path

        let dumped = try Self.run("dump", original.path, dump)
        #expect(dumped.status == 0, "\(dumped.stderr)")
        #expect(dumped.stdout.contains("dumped 46273 rows of 16 tables"))
        #expect(dumped.stderr.isEmpty)  // no progress bar when stderr is not a terminal

        let inspected = try Self.run("inspect", dump)
        #expect(inspected.status == 0)
        #expect(inspected.stdout.contains("schema: 16 tables, 26 indexes, 5 views, 30 triggers"))
        #expect(inspected.stdout.contains("rental") && inspected.stdout.contains("16044 rows"))

        let restoredRun = try Self.run("restore", dump, restored, "--check-integrity")
        #expect(restoredRun.status == 0, "\(restoredRun.stderr)")
        #expect(try SQLComparison.differences(original: original, restored: URL(fileURLWithPath: restored)) == [])

        let verified = try Self.run("verify", dump, "--against", restored)
        #expect(verified.status == 0)
        #expect(verified.stdout.contains("identical to"))

        let quiet = try Self.run("restore", "--quiet", "--force", dump, restored)
        #expect(quiet.status == 0)
        #expect(quiet.stdout.isEmpty && quiet.stderr.isEmpty)
    }

    @Test("inspect and verify print machine-readable JSON")
    func jsonOutput() throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture("chinook.sqlite", into: folder)
        let dump = folder.file("chinook.json.gz").path
        #expect(try Self.run("dump", "-q", "--level", "9", original.path, dump).status == 0)

        let inspected = try Self.run("inspect", "--json", dump)
        #expect(inspected.status == 0)
        let inspect = try #require(
            try JSONSerialization.jsonObject(with: Data(inspected.stdout.utf8)) as? [String: Any])
        #expect(inspect["totalRows"] as? Int == 15607)
        #expect((inspect["schema"] as? [[String: Any]])?.count == 23)  // 11 tables, 11 indexes, 1 automatic index
        #expect((inspect["header"] as? [String: Any])?["sqliteVersion"] as? String == DBBDatabase.sqliteVersion)

        let db = try DBBDatabase(path: original.path)
        try db.execute("UPDATE Artist SET Name = 'Changed' WHERE ArtistId = 3")
        let verified = try Self.run("verify", "--json", dump, "--against", original.path)
        #expect(verified.status == 1)
        let verify = try #require(try JSONSerialization.jsonObject(with: Data(verified.stdout.utf8)) as? [String: Any])
        #expect(verify["ok"] as? Bool == false)
        #expect(verify["identical"] as? Bool == false)
        let difference = try #require(verify["difference"] as? [String: Any])
        #expect(difference["table"] as? String == "Artist")
        #expect(difference["row"] as? Int == 3)
        #expect(difference["column"] as? String == "Name")
        let tables = try #require(verify["tables"] as? [[String: Any]])
        #expect(tables.first { $0["name"] as? String == "Track" }?["rowCount"] as? Int == 3503)
    }

    @Test("exit codes tell failures apart, and a failed restore leaves the target alone")
    func exitCodes() throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture("mbtiles_plain_2.sqlite", into: folder)
        let dump = folder.file("tiles.json.gz").path
        #expect(try Self.run("dump", "--table", "images", "-t", "map", original.path, dump).status == 0)
        let partial = try DBBExport.inspect(dumpAt: URL(fileURLWithPath: dump))
        #expect(partial.tables.map(\.name) == ["map", "images"])

        // The target exists: 73, and the file is untouched.
        let existing = folder.file("existing.sqlite")
        try Data("keep".utf8).write(to: existing)
        let refused = try Self.run("restore", dump, existing.path)
        #expect(refused.status == 73)
        #expect(refused.stderr.contains("--force"))
        #expect(try Data(contentsOf: existing) == Data("keep".utf8))
        #expect(try Self.run("dump", original.path, dump).status == 73)

        // A damaged dump: 65, for restore and verify, with the error in JSON when asked.
        var bytes = try Data(contentsOf: URL(fileURLWithPath: dump))
        bytes = bytes.prefix(bytes.count - 100)
        let damaged = folder.file("damaged.json.gz")
        try bytes.write(to: damaged)
        let failed = try Self.run("restore", "--force", damaged.path, existing.path)
        #expect(failed.status == 65)
        #expect(failed.stderr.contains("truncated"))
        #expect(try Data(contentsOf: existing) == Data("keep".utf8))
        let failedJSON = try Self.run("verify", "--json", damaged.path)
        #expect(failedJSON.status == 65)
        let error = try #require(try JSONSerialization.jsonObject(with: Data(failedJSON.stdout.utf8)) as? [String: Any])
        #expect((error["error"] as? [String: Any])?["kind"] as? String == "truncated")

        // Missing input: 66; unknown table and bad options: 64; not a database: 65.
        #expect(try Self.run("verify", folder.file("missing.json.gz").path).status == 66)
        #expect(try Self.run("dump", "-t", "nope", original.path, folder.file("n.json.gz").path).status == 64)
        #expect(try Self.run("dump", "--level", "11", original.path).status == 64)
        #expect(try Self.run("frobnicate").status == 64)
        #expect(try Self.run("dump", existing.path, folder.file("e.json.gz").path).status == 65)
        #expect(
            try folder.contents() == ["damaged.json.gz", "existing.sqlite", "mbtiles_plain_2.sqlite", "tiles.json.gz"])
    }

    @Test("--help documents every subcommand")
    func help() throws {
        let help = try Self.run("--help")
        #expect(help.status == 0)
        for command in ["dump", "restore", "inspect", "verify", "Exit codes"] {
            #expect(help.stdout.contains(command))
        }
        let restoreHelp = try Self.run("restore", "--help")
        #expect(restoreHelp.status == 0)
        #expect(restoreHelp.stdout.contains("--force") && restoreHelp.stdout.contains("--check-integrity"))
    }

    @Test(
        "a progress bar is drawn on stderr when it is a terminal, and not with --quiet",
        .enabled(if: FileManager.default.isExecutableFile(atPath: "/usr/bin/script")))
    func progressBarOnTerminal() throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture("chinook.sqlite", into: folder)
        let dump = folder.file("c.json.gz").path
        let script = URL(fileURLWithPath: "/usr/bin/script")
        // script(1) runs the tool with a pseudo-terminal as its stdout and stderr.
        let shown = try ToolProcess.run(
            executable: script, ["-qec", "\(Self.tool) dump \(original.path) \(dump)", "/dev/null"])
        let text = shown.standardOutput
        #expect(shown.exitCode == 0)
        #expect(text.contains("\rdumping ["))
        #expect(text.contains("/15607 rows"))
        let quiet = try ToolProcess.run(
            executable: script,
            ["-qec", "\(Self.tool) restore --quiet \(dump) \(folder.file("r.sqlite").path)", "/dev/null"])
        #expect(quiet.exitCode == 0)
        #expect(quiet.output.isEmpty)
    }
}
