import DBBExport
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// `dbb-backup` never prints a password: every subcommand, its errors and summaries, text and JSON, and the
/// argument parser's own messages show `user:password@` as `user:***@`, whether or not it is a URL that parses.
@Suite("dbb-backup hides passwords")
struct BackupToolPasswordTests {
    static let secret = "hunter2-\(UUID().uuidString.prefix(8))"

    /// Runs the tool and checks that neither output holds the password; returns the run.
    static func run(_ arguments: [String]) throws -> ToolRun {
        let run = try ToolProcess.run("dbb-backup", arguments)
        #expect(!run.standardOutput.contains(secret), "\(arguments): \(run.standardOutput)")
        #expect(!run.standardError.contains(secret), "\(arguments): \(run.standardError)")
        return run
    }

    @Test("each subcommand's errors about a path or URL holding a password show it as ***")
    func errorsOfEverySubcommand() throws {
        let folder = try TemporaryFolder()
        let database = try copyOfFixture("chinook.sqlite", into: folder)
        let dump = folder.file("chinook.json.gz")
        try DBBExport.dump(databaseAt: database, to: dump)
        // A URL with a typo, taken for a file path; a folder name that holds user:password@.
        let typo = "postgres//app:\(Self.secret)@127.0.0.1:54101/restored"
        let missing = folder.path("app:\(Self.secret)@db/missing")
        let cases: [(arguments: [String], status: Int32, says: String)] = [
            (["dump", missing, folder.path("x.json.gz")], 66, "app:***@db"),
            (["dump", database.path, missing], 74, "app:***@db"),
            (["restore", dump.path, typo], 74, "postgres//app:***@127.0.0.1:54101/restored"),
            (["restore", missing, folder.path("r.sqlite")], 66, "app:***@db"),
            (["inspect", missing], 66, "app:***@db"),
            (["verify", missing], 66, "app:***@db"),
            (["verify", dump.path, "--against", missing], 66, "app:***@db"),
            (["restore", dump.path, "postgres://app:\(Self.secret)@127.0.0.1:notaport/x"], 64, "app:***@127.0.0.1"),
            (["inspect", dump.path, "app:\(Self.secret)@extra"], 64, "app:***@extra"),
        ]
        for (arguments, status, says) in cases {
            let run = try Self.run(arguments)
            #expect(run.exitCode == status, "\(arguments): \(run.standardError)")
            #expect(run.standardError.hasPrefix("dbb-backup: error: "), "\(arguments): \(run.standardError)")
            #expect(run.standardError.contains(says), "\(arguments): \(run.standardError)")
        }
        let json = try Self.run(["inspect", "--json", missing])
        #expect(json.exitCode == 66)
        #expect(json.standardOutput.contains("app:***@db"), "\(json.standardOutput)")
        #expect(try folder.contents().sorted() == ["chinook.json.gz", "chinook.sqlite"])
    }

    @Test("summaries that name a path holding a password show it as ***")
    func summaries() throws {
        let folder = try TemporaryFolder()
        let database = try copyOfFixture("chinook.sqlite", into: folder)
        let inner = folder.file("app:\(Self.secret)@db")
        try FileManager.default.createDirectory(at: inner, withIntermediateDirectories: true)
        let dump = inner.appendingPathComponent("chinook.json.gz").path
        let restored = inner.appendingPathComponent("copy.sqlite").path

        let dumped = try Self.run(["dump", database.path, dump])
        #expect(dumped.exitCode == 0, "\(dumped.standardError)")
        #expect(dumped.standardOutput.contains("to \(folder.url.path)/app:***@db/chinook.json.gz"))
        let back = try Self.run(["restore", dump, restored])
        #expect(back.exitCode == 0, "\(back.standardError)")
        #expect(back.standardOutput.contains("into \(folder.url.path)/app:***@db/copy.sqlite"))
        let verified = try Self.run(["verify", dump, "--against", restored])
        #expect(verified.exitCode == 0, "\(verified.standardError)")
        #expect(verified.standardOutput.contains("identical to \(folder.url.path)/app:***@db/copy.sqlite"))
        let json = try Self.run(["verify", "--json", dump, "--against", restored])
        #expect(json.exitCode == 0)
        #expect(json.standardOutput.contains("app:***@db/copy.sqlite"), "\(json.standardOutput)")
        let inspected = try Self.run(["inspect", dump])
        #expect(inspected.exitCode == 0)
        #expect(inspected.standardOutput.contains("total: "))
        // The files are where they were asked for, under the name as given.
        #expect(FileManager.default.fileExists(atPath: restored))
    }
}
