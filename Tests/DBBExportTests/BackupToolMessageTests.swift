import DBBExport
import DBBSQL
import Foundation
import Testing

/// What `dbb-backup` says: its version, its errors in one format and in its own words, and JSON output that
/// names things as the dump format does.
@Suite("dbb-backup messages")
struct BackupToolMessageTests {
    @Test("--version prints the package's version")
    func version() throws {
        let run = try ToolProcess.run("dbb-backup", ["--version"])
        #expect(run.exitCode == 0)
        #expect(run.standardOutput == DBBPackage.version + "\n")
        #expect(run.standardError.isEmpty)
    }

    @Test("a mistyped subcommand is answered with the one meant, and a database given to restore with dump")
    func suggestions() throws {
        for (typed, meant) in [("dumb", "dump"), ("restor", "restore"), ("verfy", "verify"), ("Inspect", "inspect")] {
            let run = try ToolProcess.run("dbb-backup", [typed, "a", "b"])
            #expect(run.exitCode == 64, "\(typed)")
            #expect(
                run.standardError.hasPrefix(
                    "dbb-backup: error: unknown subcommand '\(typed)'; did you mean '\(meant)'?"),
                "\(run.standardError)")
        }
        let folder = try TemporaryFolder()
        let database = try copyOfFixture("chinook.sqlite", into: folder)
        let target = folder.file("copy.sqlite")
        for arguments in [["restore", "-q", database.path, target.path], ["verify", "-q", database.path]] {
            let run = try ToolProcess.run("dbb-backup", arguments)
            #expect(run.exitCode == 65, "\(arguments[0])")
            #expect(
                run.standardError.contains("this is an SQLite database, not a dump; did you mean dump?"),
                "\(run.standardError)")
        }
        #expect(try folder.contents() == ["chinook.sqlite"])
    }

    @Test("every failure is reported as 'dbb-backup: error: …' with the exit code of its kind")
    func oneErrorFormat() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("t.json.gz")
        try BadInputTests.write(BadInputTests.handMade(), to: dump)
        let database = folder.file("t.sqlite")
        #expect(try ToolProcess.run("dbb-backup", ["restore", "-q", dump.path, database.path]).exitCode == 0)
        let notes = try folder.write("plain notes, not a database\n", to: "notes.txt")
        let cases: [(arguments: [String], status: Int32, says: String)] = [
            (["dump", "--level", "11", database.path], 64, "--level must be between 0 and 9"),
            (["frobnicate"], 64, "frobnicate"),
            (["restore", dump.path], 64, "Missing expected argument"),
            (["dump", "-t", "nope", database.path, folder.path("n.json.gz")], 64, "no table or view named nope"),
            (["verify", folder.path("missing.json.gz")], 66, "does not exist"),
            (["restore", dump.path, database.path], 73, "pass --force to replace it"),
            (["dump", notes.path, folder.path("notes.json.gz")], 65, "not an SQLite database"),
            (["verify", notes.path], 65, "not gzip-compressed"),
            (["dump", "--force", database.path, folder.url.path], 74, "the target is a directory"),
        ]
        for (arguments, status, says) in cases {
            let run = try ToolProcess.run("dbb-backup", arguments)
            #expect(run.exitCode == status, "\(arguments): \(run.standardError)")
            #expect(run.standardError.hasPrefix("dbb-backup: error: "), "\(arguments): \(run.standardError)")
            #expect(run.standardError.contains(says), "\(arguments): \(run.standardError)")
            #expect(!run.standardError.contains("Error:"), "\(arguments): \(run.standardError)")
            #expect(run.standardOutput.isEmpty, "\(arguments): \(run.standardOutput)")
        }
    }

    @Test("a file that is not a database is named as such, without the SQL that found it out")
    func notADatabase() throws {
        let folder = try TemporaryFolder()
        let notes = try folder.write(String(repeating: "plain notes\n", count: 100), to: "notes.txt")
        for arguments in [
            ["dump", notes.path, folder.path("notes.json.gz")],
            ["verify", "--json", try Self.smallDump(in: folder).path, "--against", notes.path],
        ] {
            let run = try ToolProcess.run("dbb-backup", arguments)
            #expect(run.exitCode == 65)
            let text = run.standardError + run.standardOutput
            #expect(text.contains("not an SQLite database") && text.contains(notes.path), "\(text)")
            #expect(!text.contains("SELECT") && !text.contains("sqlite_master"), "\(text)")
        }
        #expect(throws: DBBError.self) { try DBBExport.dump(databaseAt: notes, to: folder.file("n.json.gz")) }
        do {
            try DBBExport.dump(databaseAt: notes, to: folder.file("n.json.gz"))
        } catch let error as DBBError {
            #expect(error.resultCode == .notADatabase)
            #expect(error.sql == nil)
            #expect(error.context?.contains(notes.path) == true)
        }
    }

    /// A small valid dump.
    static func smallDump(in folder: TemporaryFolder) throws -> URL {
        let dump = folder.file("small.json.gz")
        try BadInputTests.write(BadInputTests.handMade(), to: dump)
        return dump
    }

    @Test("inspect --json and verify --json name the header, schema and tables as the dump format does")
    func jsonNames() throws {
        let folder = try TemporaryFolder()
        let dump = try Self.smallDump(in: folder)
        let inspected = try ToolProcess.run("dbb-backup", ["inspect", "--json", dump.path])
        #expect(inspected.exitCode == 0)
        let inspect = try #require(try JSONSerialization.jsonObject(with: inspected.output) as? [String: Any])
        #expect(inspect["format"] as? String == "dbb-dump" && inspect["version"] as? Int == 1)
        let header = try #require(inspect["header"] as? [String: Any])
        #expect(
            Set(header.keys) == [
                "sqliteVersion", "userVersion", "applicationId", "pageSize", "encoding", "autoVacuum", "created",
                "partial", "totalRows", "tables",
            ])
        #expect(header["userVersion"] as? Int == 7)
        #expect((header["tables"] as? [[String: Any]])?.first?["rowCount"] as? Int == 2)
        let schema = try #require((inspect["schema"] as? [[String: Any]])?.first)
        #expect(Set(schema.keys) == ["type", "name", "tbl_name", "sql"])
        #expect(schema["tbl_name"] as? String == "t")
        let tables = try #require(inspect["tables"] as? [[String: Any]])
        #expect(tables.count == 1 && tables[0]["name"] as? String == "t" && tables[0]["rowCount"] as? Int == 2)

        // Docs/BackupTool.md shows this very output.
        let guide = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Docs/BackupTool.md"), encoding: .utf8)
        let example = try #require(DocSnippets.blocks("json", in: guide).first)
        let documented = try JSONSerialization.jsonObject(with: Data(example.joined(separator: "\n").utf8))
        #expect(documented as? NSDictionary == inspect as NSDictionary)

        let verified = try ToolProcess.run("dbb-backup", ["verify", "--json", dump.path])
        #expect(verified.exitCode == 0)
        let verify = try #require(try JSONSerialization.jsonObject(with: verified.output) as? [String: Any])
        let section = try #require((verify["tables"] as? [[String: Any]])?.first)
        #expect(Set(section.keys) == ["name", "columns", "rowid", "rowCount"])
        #expect(section["columns"] as? [String] == ["id", "v"] && section["rowid"] as? Bool == false)
        #expect((verify["header"] as? [String: Any])?["applicationId"] as? Int == 0)
    }
}
