import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A file written under a temporary name beside its target and moved into place only on success.
struct TargetFile {
    /// The final path.
    let path: String
    /// The temporary path beside it, in the same directory (so the final rename is atomic).
    let temporaryPath: String
    /// Whether an existing file at `path` may be replaced.
    let replaceExisting: Bool

    /// Checks the target and picks a temporary name beside it.
    ///
    /// Everything that would make the final rename fail is checked here, before any work is done.
    ///
    /// - Throws: ``DBBExportError`` (targetExists) when the target exists and may not be replaced,
    ///   (io) when it is a directory or another file that is not a regular file, or when its directory
    ///   does not exist or cannot be written.
    init(path: String, replaceExisting: Bool) throws {
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
        }
        guard access(directory, W_OK) == 0 else {
            throw DBBExportError(.io, "cannot write in the target's directory: \(systemErrorText())", path: path)
        }
        self.path = path
        self.replaceExisting = replaceExisting
        let random = UInt64.random(in: 0...UInt64.max)
        temporaryPath =
            url.deletingLastPathComponent().appendingPathComponent(
                ".\(url.lastPathComponent).\(String(random, radix: 36)).tmp"
            ).path
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

    /// Moves the finished temporary file into place.
    ///
    /// Without `replaceExisting` the move fails, leaving any file that appeared meanwhile untouched.
    ///
    /// - Throws: ``DBBExportError`` (targetExists or io).
    func commit() throws {
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

    /// Removes the temporary file and any SQLite side files it left.
    func discard() {
        for suffix in ["", "-journal", "-wal", "-shm"] {
            unlink(temporaryPath + suffix)
        }
    }

    private func syncDirectory() {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        let descriptor = open(directory, O_RDONLY)
        if descriptor >= 0 {
            fsync(descriptor)
            close(descriptor)
        }
    }
}
