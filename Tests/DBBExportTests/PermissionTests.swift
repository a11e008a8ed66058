import DBBExport
import DBBSQL
import Foundation
import Testing

/// Files the user may not write: refused with the reason, before any work.
@Suite("Permissions and locks")
struct PermissionTests {
    /// Makes a file read-only for this process: a read-only bind mount over it when running as root (whom
    /// permissions do not stop), else its permission bits. Returns what undoes it.
    static func makeReadOnly(_ url: URL) throws -> () -> Void {
        guard geteuid() == 0 else {
            try FileManager.default.setAttributes([.posixPermissions: 0o444], ofItemAtPath: url.path)
            return { try? FileManager.default.setAttributes([.posixPermissions: 0o644], ofItemAtPath: url.path) }
        }
        let mount = URL(fileURLWithPath: "/bin/mount")
        let bind = try ToolProcess.run(executable: mount, ["--bind", url.path, url.path], mergingStandardError: true)
        try #require(bind.exitCode == 0, "\(bind.standardOutput)")
        let undo = { _ = try? ToolProcess.run(executable: URL(fileURLWithPath: "/bin/umount"), [url.path]) }
        let remount = try ToolProcess.run(
            executable: mount, ["-o", "remount,ro,bind", url.path], mergingStandardError: true)
        if remount.exitCode != 0 { undo() }
        try #require(remount.exitCode == 0, "\(remount.standardOutput)")
        return undo
    }

    @Test(
        "restoring over a database the user cannot write fails before any row is read, and changes nothing",
        .enabled(if: geteuid() != 0 || FileManager.default.isExecutableFile(atPath: "/bin/mount")))
    func readOnlyTarget() throws {
        let folder = try TemporaryFolder()
        let (_, dump) = try RestoreTargetTests.sourceAndDump(in: folder)
        let target = folder.file("target.sqlite")
        let db = try DBBDatabase(path: target.path)
        try db.executeStatements("CREATE TABLE keep (x); INSERT INTO keep VALUES ('kept')")
        try db.close()
        let before = try Data(contentsOf: target)
        let contents = try folder.contents()
        let undo = try Self.makeReadOnly(target)
        defer { undo() }
        let error = TargetCheckTests.failsAtOnce {
            try DBBExport.restore(
                dumpAt: dump, to: target, options: DBBRestoreOptions(replaceExisting: true), progress: $0)
        }
        #expect(error?.kind == .io)
        #expect(error?.message.hasPrefix("cannot write the target database") == true, "\(String(describing: error))")
        let run = try ToolProcess.run("dbb-backup", ["restore", "-q", "--force", dump.path, target.path])
        #expect(run.exitCode == 74, "\(run.standardError)")
        #expect(run.standardError.contains("cannot write the target database"), "\(run.standardError)")
        #expect(try Data(contentsOf: target) == before)
        #expect(try folder.contents() == contents)
    }
}
