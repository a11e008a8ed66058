internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// A file written under a temporary name beside its target and moved into place only on success.
///
/// The temporary name is `.<target name>.<purpose>-<process id>.<random>.tmp`, so a later run can tell
/// the files a killed run left (their process is gone) from those a running one is writing, and removes
/// them before it starts.
struct TargetFile {
    /// What a temporary file is written for; part of its name.
    enum Purpose: String {
        case dump = "dbb-dump"
        case restore = "dbb-restore"
    }

    /// The final path.
    let path: String
    /// The temporary path beside it, in the same directory (so the final rename is atomic).
    let temporaryPath: String
    /// Whether an existing file at `path` may be replaced.
    let replaceExisting: Bool
    /// What the file is written for.
    let purpose: Purpose

    /// SQLite's side files of a database file: its rollback journal, write-ahead log and WAL index.
    static let sideFileSuffixes = ["-journal", "-wal", "-shm"]

    /// Checks the target, removes the temporary files killed runs left beside it, and picks a temporary name.
    ///
    /// Everything that would make the final rename fail is checked here, before any work is done.
    ///
    /// - Throws: ``DBBExportError`` (targetExists) when the target exists and may not be replaced,
    ///   (io) when it is a directory or another file that is not a regular file, when its directory
    ///   does not exist or cannot be written, or when it is a database to restore over (or has a side file)
    ///   that cannot be written.
    init(path: String, replaceExisting: Bool, purpose: Purpose) throws {
        let url = URL(fileURLWithPath: path)
        let directory = url.deletingLastPathComponent().path
        var isDirectory: ObjCBool = false
        guard FileManager.default.fileExists(atPath: directory, isDirectory: &isDirectory), isDirectory.boolValue else {
            throw DBBExportError(.io, "the target's directory does not exist", path: path)
        }
        var existing = stat()
        if stat(path, &existing) == 0 {
            guard existing.st_mode & S_IFMT != S_IFDIR else {
                throw DBBExportError(.io, "the target is a directory", path: path)
            }
            guard existing.st_mode & S_IFMT == S_IFREG else {
                throw DBBExportError(.io, "the target exists and is not a regular file", path: path)
            }
            guard replaceExisting else {
                throw DBBExportError(
                    .targetExists, "the target file exists; set the options' replaceExisting to replace it",
                    path: path)
            }
            // A database is copied into, not renamed over (`DatabaseTarget`): it, and the side files SQLite
            // writes beside it, must be writable, which is known now rather than after the whole restore.
            if purpose == .restore && DatabaseFileHeader.isDatabase(path) {
                for file in [path] + Self.sideFileSuffixes.map({ path + $0 })
                where file == path || FileManager.default.fileExists(atPath: file) {
                    guard access(file, W_OK) == 0 else {
                        throw DBBExportError(
                            .io, "cannot write the target database: \(systemErrorText())", path: file)
                    }
                }
            }
        }
        guard access(directory, W_OK) == 0 else {
            throw DBBExportError(.io, "cannot write in the target's directory: \(systemErrorText())", path: path)
        }
        self.path = path
        self.replaceExisting = replaceExisting
        self.purpose = purpose
        let prefix = ".\(url.lastPathComponent).\(purpose.rawValue)-"
        Self.removeAbandoned(in: directory, prefix: prefix)
        let random = UInt64.random(in: 0...UInt64.max)
        temporaryPath =
            url.deletingLastPathComponent().appendingPathComponent(
                "\(prefix)\(getpid()).\(String(random, radix: 36)).tmp"
            ).path
    }

    /// Removes the temporary files (and their SQLite side files) whose writing process no longer runs.
    private static func removeAbandoned(in directory: String, prefix: String) {
        guard let names = try? FileManager.default.contentsOfDirectory(atPath: directory) else { return }
        for name in names where name.hasPrefix(prefix) {
            let rest = name.dropFirst(prefix.count)
            guard let dot = rest.firstIndex(of: "."), let pid = pid_t(rest[..<dot]), pid > 0,
                rest.hasSuffix(".tmp") || sideFileSuffixes.contains(where: { rest.hasSuffix(".tmp" + $0) })
            else { continue }
            // ESRCH: no such process. A process that runs (or that we may not signal) keeps its files.
            if kill(pid, 0) != 0 && errno == ESRCH {
                unlink(directory + "/" + name)
            }
        }
    }

    /// Checks that the target is not the input file, which the final rename would replace.
    ///
    /// - Throws: ``DBBExportError`` (io) when both paths name the same file.
    func requireDifferent(from input: String) throws {
        var target = stat()
        var source = stat()
        guard stat(path, &target) == 0, stat(input, &source) == 0 else { return }
        if target.st_dev == source.st_dev && target.st_ino == source.st_ino {
            throw DBBExportError(.io, "the target is the input file itself", path: path)
        }
    }

    /// Writes the temporary file's contents to the disk, so the rename never publishes a file whose
    /// data a power loss could still take back.
    ///
    /// - Throws: ``DBBExportError`` (io) when the file cannot be synced.
    func syncTemporary() throws {
        let descriptor = open(temporaryPath, O_RDWR)
        guard descriptor >= 0 else {
            throw DBBExportError(.io, "cannot open the new file to sync it: \(systemErrorText())", path: temporaryPath)
        }
        defer { close(descriptor) }
        guard fsync(descriptor) == 0 else {
            throw DBBExportError(.io, "cannot sync the new file to the disk: \(systemErrorText())", path: temporaryPath)
        }
    }

    /// Syncs the finished temporary file and moves it into place, then syncs the directory so the rename
    /// itself is durable. For a restored database, SQLite side files beside the target, left by a
    /// database that was there before, are removed first: they would otherwise be read as part of the
    /// new file. (A target that is a database is not renamed over but copied into; see `DatabaseTarget`.)
    ///
    /// Without `replaceExisting` the move fails, leaving any file that appeared meanwhile untouched.
    ///
    /// - Throws: ``DBBExportError`` (targetExists or io).
    func commit() throws {
        try syncTemporary()
        if purpose == .restore { removeSideFiles() }
        if replaceExisting {
            guard rename(temporaryPath, path) == 0 else {
                throw DBBExportError(.io, "cannot move the new file into place: \(systemErrorText())", path: path)
            }
        } else {
            // link() fails when the target exists, so a file that appeared meanwhile is never replaced.
            if link(temporaryPath, path) == 0 {
                unlink(temporaryPath)
            } else if errno == EEXIST {
                throw DBBExportError(.targetExists, "the target file appeared while it was being written", path: path)
            } else if FileManager.default.fileExists(atPath: path) {
                throw DBBExportError(.targetExists, "the target file appeared while it was being written", path: path)
            } else {
                guard rename(temporaryPath, path) == 0 else {
                    throw DBBExportError(.io, "cannot move the new file into place: \(systemErrorText())", path: path)
                }
            }
        }
        syncDirectory()
    }

    /// Removes the target's SQLite side files (`-journal`, `-wal`, `-shm`).
    func removeSideFiles() {
        for suffix in Self.sideFileSuffixes {
            unlink(path + suffix)
        }
    }

    /// Removes the temporary file and any SQLite side files it left.
    func discard() {
        for suffix in [""] + Self.sideFileSuffixes {
            unlink(temporaryPath + suffix)
        }
    }

    /// Syncs the target's directory, so a rename or removal in it survives a power loss.
    func syncDirectory() {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let descriptor = open(directory, O_RDONLY)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
    }
}
