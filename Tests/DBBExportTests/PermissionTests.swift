import DBBExport
import DBBSQL
import Foundation
import Testing

/// Files the user may not write or reach, and a source locked for longer than the wait: each is refused
/// with the reason, before any work, within the documented time.
@Suite("Permissions and locks")
struct PermissionTests {
    /// Runs `dbb-backup` as a user without privileges: as `nobody` through `setpriv` when the tests run as
    /// root (who may read and write anything), else as the current user.
    static func runToolUnprivileged(_ arguments: [String]) throws -> ToolRun {
        guard geteuid() == 0 else { return try ToolProcess.run("dbb-backup", arguments) }
        return try ToolProcess.run(
            executable: URL(fileURLWithPath: "/usr/bin/setpriv"),
            ["--reuid=65534", "--regid=65534", "--clear-groups", BackupToolTests.tool] + arguments)
    }

    static let canDropPrivileges =
        geteuid() != 0 || FileManager.default.isExecutableFile(atPath: "/usr/bin/setpriv")

    @Test(
        "a source whose folder denies search permission is named as unreachable, not as missing",
        .enabled(if: canDropPrivileges, "running as root needs /usr/bin/setpriv to drop privileges"))
    func unreachableSource() throws {
        let folder = try TemporaryFolder()
        let closed = folder.file("closed")
        try FileManager.default.createDirectory(at: closed, withIntermediateDirectories: false)
        let source = closed.appendingPathComponent("app.sqlite")
        let db = try DBBDatabase(path: source.path)
        try db.execute("CREATE TABLE t (x)")
        try db.close()
        let open = folder.file("open")
        try FileManager.default.createDirectory(at: open, withIntermediateDirectories: false)
        // The folder denies search (x) to the unprivileged user; the output folder lets it write.
        try FileManager.default.setAttributes(
            [.posixPermissions: geteuid() == 0 ? 0o700 : 0o600], ofItemAtPath: closed.path)
        defer { try? FileManager.default.setAttributes([.posixPermissions: 0o700], ofItemAtPath: closed.path) }
        try FileManager.default.setAttributes([.posixPermissions: 0o777], ofItemAtPath: open.path)
        try FileManager.default.setAttributes([.posixPermissions: 0o755], ofItemAtPath: folder.url.path)
        let run = try Self.runToolUnprivileged(
            ["dump", "-q", source.path, open.appendingPathComponent("app.json.gz").path])
        #expect(run.exitCode == 66, "\(run.standardError)")
        #expect(run.standardError.contains("cannot be reached: Permission denied"), "\(run.standardError)")
        #expect(!run.standardError.contains("does not exist"), "\(run.standardError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: open.path) == [])
    }

    @Test("a missing source is still reported as missing")
    func missingSource() throws {
        let folder = try TemporaryFolder()
        #expect {
            try DBBExport.dump(databaseAt: folder.file("none/app.sqlite"), to: folder.file("app.json.gz"))
        } throws: { error in
            let error = error as? DBBExportError
            return error?.kind == .missingInput && error?.message == "the database file does not exist"
        }
    }

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

    @Test("a source another connection keeps locked is waited for 5 s in all, then refused")
    func sourceLockedTooLong() throws {
        let folder = try TemporaryFolder()
        let source = folder.file("locked.sqlite")
        let writer = try DBBDatabase(path: source.path)
        try writer.executeStatements("PRAGMA journal_mode = DELETE; CREATE TABLE t (a); INSERT INTO t VALUES (1)")
        try writer.beginTransaction(.exclusive)
        try writer.execute("INSERT INTO t VALUES (2)")
        defer {
            try? writer.rollback()
            try? writer.close()
        }
        let started = Date()
        #expect {
            try DBBExport.dump(databaseAt: source, to: folder.file("locked.json.gz"))
        } throws: { error in
            (error as? DBBError)?.resultCode == .busy
        }
        let waited = Date().timeIntervalSince(started)
        #expect(waited >= 4.5 && waited < 6.5, "waited \(waited) s")
        #expect(try folder.contents() == ["locked.sqlite", "locked.sqlite-journal"])
    }
}
