import DBBExport
import DBBSQL
import Foundation
import Testing

/// The target is checked before any work: a directory, a missing or unwritable folder fail at once, before
/// a row is read; and the library's messages speak of its options, not of a tool's flags.
@Suite("Target checks")
struct TargetCheckTests {
    /// Runs a dump or restore that must fail before any progress, and returns its error.
    static func failsAtOnce(
        _ body: (_ progress: @escaping (DBBExportProgress) -> Void) throws -> DBBDumpReport,
        sourceLocation: SourceLocation = #_sourceLocation
    ) -> DBBExportError? {
        var reports = 0
        do {
            _ = try body { _ in reports += 1 }
            Issue.record("it did not fail", sourceLocation: sourceLocation)
        } catch let error as DBBExportError {
            #expect(reports == 0, "work was done before the target failed", sourceLocation: sourceLocation)
            return error
        } catch {
            Issue.record("unexpected error \(error)", sourceLocation: sourceLocation)
        }
        return nil
    }

    @Test("a directory or a missing folder as the target fails before any row is read")
    func unusableTargets() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("t.json.gz")
        try BadInputTests.write(BadInputTests.handMade(), to: dump)
        let database = folder.file("t.sqlite")
        try DBBExport.restore(dumpAt: dump, to: database)
        let directory = folder.file("a directory")
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: false)
        try Data("inside".utf8).write(to: directory.appendingPathComponent("file"))
        let before = try folder.contents()

        let replacing = DBBDumpOptions(replaceExisting: true)
        let dumpIntoDirectory = Self.failsAtOnce {
            try DBBExport.dump(databaseAt: database, to: directory, options: replacing, progress: $0)
        }
        #expect(dumpIntoDirectory?.kind == .io)
        #expect(dumpIntoDirectory?.message == "the target is a directory")
        #expect(dumpIntoDirectory?.path == directory.path)
        let restoreIntoDirectory = Self.failsAtOnce {
            try DBBExport.restore(
                dumpAt: dump, to: directory, options: DBBRestoreOptions(replaceExisting: true), progress: $0)
        }
        #expect(restoreIntoDirectory?.message == "the target is a directory")
        let missingFolder = folder.file("missing/t.json.gz")
        #expect(
            Self.failsAtOnce { try DBBExport.dump(databaseAt: database, to: missingFolder, progress: $0) }?.message
                == "the target's directory does not exist")
        #expect(
            Self.failsAtOnce {
                try DBBExport.restore(dumpAt: dump, to: folder.file("missing/t.sqlite"), progress: $0)
            }?.message == "the target's directory does not exist")
        #expect(try folder.contents() == before)
        #expect(try FileManager.default.contentsOfDirectory(atPath: directory.path) == ["file"])
    }

    @Test(
        "a folder that cannot be written fails before any row is read",
        .enabled(if: getuid() != 0, "root writes in any folder"))
    func unwritableFolder() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("t.json.gz")
        try BadInputTests.write(BadInputTests.handMade(), to: dump)
        let locked = folder.file("locked")
        try FileManager.default.createDirectory(at: locked, withIntermediateDirectories: false)
        try FileManager.default.setAttributes([.posixPermissions: 0o500], ofItemAtPath: locked.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: locked.path) }
        let error = Self.failsAtOnce {
            try DBBExport.restore(dumpAt: dump, to: locked.appendingPathComponent("t.sqlite"), progress: $0)
        }
        #expect(error?.kind == .io)
        #expect(error?.message.hasPrefix("cannot write in the target's directory") == true)
    }

    @Test("an existing target is refused in the library's words: its options, not a tool's flags")
    func existingTargetWording() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("t.json.gz")
        try BadInputTests.write(BadInputTests.handMade(), to: dump)
        let target = folder.file("t.sqlite")
        try Data("keep".utf8).write(to: target)
        for attempt in [
            { try DBBExport.restore(dumpAt: dump, to: target) },
            { try DBBExport.dump(databaseAt: target, to: dump) },
        ] as [() throws -> DBBDumpReport] {
            do {
                _ = try attempt()
                Issue.record("the existing target was not refused")
            } catch let error as DBBExportError {
                #expect(error.kind == .targetExists)
                #expect(error.message.contains("replaceExisting"), "\(error)")
                #expect(!error.description.contains("--"), "\(error)")
            }
        }
    }
}
