internal import DBBSQL
internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Puts a finished temporary database in place of a restore's target, or leaves the target exactly as it was.
///
/// A target that is an SQLite database is not renamed over: another connection may have it open, and its
/// journal or write-ahead log would be read as part of the new file. The new database is copied into it
/// through SQLite's own locking (the online backup API) instead, after SQLite has recovered whatever a
/// crashed writer left. Any other target (none, or not a database) is replaced by a rename, its stale side
/// files removed first.
///
/// A WAL target's page size cannot change while it is in WAL mode, so a restore over one builds the new
/// database in the target's page size (see `DBBExport.restore`), and the copy never changes its journal mode.
/// When the copy fails (a full disk, an I/O error), the target is rolled back before the error is
/// returned, and the side files the attempt created removed: the copy leaves no
/// hot journal for the next reader to find, and no empty `-wal` or `-shm` beside a database that had none.
struct DatabaseTarget {
    /// The target, and the finished temporary database beside it.
    let file: TargetFile
    /// The target's header, read before any connection opens it.
    let header: DatabaseFileHeader
    /// The target's side files (`-journal`, `-wal`, `-shm`) that existed before the copy began.
    let sideFilesBefore: Set<String>

    /// Installs the temporary database of a restore at its target.
    ///
    /// - Parameters:
    ///   - file: the target, with the finished temporary database beside it.
    ///   - checksFreeSpace: whether to refuse, before the target is touched, a copy the disk has no room for.
    /// - Throws: ``DBBExportError`` (io) when the disk has no room for the copy (checked before the target is
    ///   touched) or when a target that failed cannot be rolled back; `DBBError` for what SQLite reports
    ///   while copying (the target is then as it was).
    static func install(_ file: TargetFile, checksFreeSpace: Bool = true) throws {
        guard file.replaceExisting, let header = DatabaseFileHeader(path: file.path) else {
            try file.commit()
            return
        }
        let target = DatabaseTarget(
            file: file, header: header,
            sideFilesBefore: Set(TargetFile.sideFileSuffixes.filter { exists(file.path + $0) }))
        try target.copy(checksFreeSpace: checksFreeSpace)
    }

    /// Copies the temporary database into the target, or rolls the target back and rethrows.
    private func copy(checksFreeSpace: Bool) throws {
        guard let newHeader = DatabaseFileHeader(path: file.temporaryPath) else {
            throw DBBExportError(.io, "the new database cannot be read back", path: file.temporaryPath)
        }
        if checksFreeSpace { try requireSpace(newPageSize: newHeader.pageSize) }
        let destination: DBBDatabase
        do {
            // Reading the schema also rolls back a hot journal, or replays a write-ahead log, a crash left.
            destination = try DBBDatabase(path: file.path, mode: .readWrite, busyTimeout: DBBExport.busyTimeout)
        } catch let error as DBBError where error.resultCode == .notADatabase || error.resultCode == .corrupt {
            // A file with an SQLite header that SQLite cannot read is replaced like any other file.
            removeCreatedSideFiles()
            try file.commit()
            return
        } catch {
            // Nothing was written; opening on a full disk may have left an empty `-wal` and `-shm`.
            removeCreatedSideFiles()
            throw error
        }
        var source: DBBDatabase?
        do {
            let opened = try DBBDatabase(path: file.temporaryPath, mode: .readOnly)
            source = opened
            try opened.backup(into: destination, timeout: DBBExport.busyTimeout)
        } catch {
            try? source?.close()
            try? destination.close()
            // The temporary file goes first: rolling back may need its room.
            file.discard()
            try rollBack(after: error)
            if let error = error as? DBBError, error.resultCode == .readOnly, header.isWAL {
                // The new database was built in the target's page size; another process changed it meanwhile.
                throw DBBExportError(
                    .io,
                    "the target's page size changed during the restore (\(error.message)); restore again",
                    path: file.path)
            }
            throw error
        }
        try? source?.close()
        // The temporary file goes before the last connection closes, so that the checkpoint SQLite runs
        // then has room to grow the database. The copy is committed: closing cannot undo it.
        file.discard()
        try? destination.close()
    }

    /// Rolls back what a failed copy left: a hot journal (which SQLite, in the error state a full disk leaves
    /// it in, rolls back only when a connection next reads the file) and the side files the attempt created.
    ///
    /// - Throws: ``DBBExportError`` (io) when the target cannot be rolled back now; the message carries the
    ///   copy's error, and says that SQLite rolls the target back when it next opens it.
    private func rollBack(after failure: any Error) throws {
        var recoveryError: (any Error)?
        do {
            // Opening reads the schema, which rolls back a hot journal: the file's pages are put back as
            // they were and the journal deleted. Closing the last connection of a WAL database removes its
            // `-wal` and `-shm`.
            let db = try DBBDatabase(path: file.path, mode: .readWrite, busyTimeout: 1)
            defer { try? db.close() }
            try db.close()
        } catch {
            recoveryError = error
        }
        removeCreatedSideFiles()
        guard let recoveryError else { return }
        let journal = exists(file.path + "-journal") ? " (keep its -journal file: it holds the old pages)" : ""
        throw DBBExportError(
            .io,
            "\(failure); the target could not be rolled back now (\(recoveryError)): SQLite rolls it back when it "
                + "next opens it\(journal)", path: file.path)
    }

    /// Removes a `-wal` and `-shm` pair the failed copy created and left unused, as opening a WAL database on
    /// a full disk does (an empty log, and a WAL index SQLite could not make whole). A connection that uses
    /// a WAL index has made it at least 32 KiB long (its first region), and its log is empty only before its
    /// first write; a shorter index is in nobody's use. A journal is never removed here: one that survives the
    /// rollback is needed to finish it.
    private func removeCreatedSideFiles() {
        let wal = file.path + "-wal"
        let shm = file.path + "-shm"
        guard !sideFilesBefore.contains("-wal"), !sideFilesBefore.contains("-shm") else { return }
        guard Self.size(of: wal) ?? 0 == 0, Self.size(of: shm) ?? 0 < 32768 else { return }
        unlink(wal)
        unlink(shm)
    }

    /// Refuses a copy the disk has no room for, before the target is touched.
    ///
    /// Into a WAL database of the same page size, every new page is first appended to the write-ahead log
    /// (24 bytes of frame header each). Otherwise the rollback journal keeps every old page (8 bytes of frame
    /// each) and the file grows to the new size. A margin covers the filesystem's rounding to blocks.
    ///
    /// - Throws: ``DBBExportError`` (io) naming the room needed and the room free.
    private func requireSpace(newPageSize: Int) throws {
        guard let newSize = Self.size(of: file.temporaryPath), let oldSize = Self.size(of: file.path) else { return }
        let walSize = Self.size(of: file.path + "-wal") ?? 0
        var needed: Int64
        if header.isWAL && header.pageSize == newPageSize {
            needed = newSize / Int64(newPageSize) * Int64(newPageSize + 24) + 32
        } else {
            needed =
                oldSize / Int64(header.pageSize) * Int64(header.pageSize + 8) + 2 * 65536 + max(0, newSize - oldSize)
            if header.isWAL { needed += walSize }
        }
        needed += needed / 256 + 65536
        guard let free = Self.freeSpace(near: file.path), free < needed else { return }
        throw DBBExportError(
            .io,
            "not enough free space to replace the database: the copy needs about \(Self.megabytes(needed)), "
                + "\(Self.megabytes(free)) are free; the target was not touched", path: file.path)
    }

    /// The bytes this process may still write on the filesystem holding `path`, or `nil` when unknown.
    static func freeSpace(near path: String) -> Int64? {
        var info = statvfs()
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent().path
        guard statvfs(directory, &info) == 0 else { return nil }
        // The superuser may also use the blocks a filesystem reserves for it.
        let blocks = geteuid() == 0 ? info.f_bfree : info.f_bavail
        return Int64(clamping: UInt64(blocks).multipliedReportingOverflow(by: UInt64(info.f_frsize)).partialValue)
    }

    static func megabytes(_ bytes: Int64) -> String {
        String(format: "%.1f MiB", Double(bytes) / 1_048_576)
    }

    /// The size of a file, or `nil` when it does not exist.
    static func size(of path: String) -> Int64? {
        var status = stat()
        guard stat(path, &status) == 0 else { return nil }
        return Int64(status.st_size)
    }
}

/// Whether a file (of any kind) exists at `path`.
private func exists(_ path: String) -> Bool {
    var status = stat()
    return lstat(path, &status) == 0
}

/// The first 100 bytes of an SQLite database file, read without SQLite: whether the file is a database at all,
/// its page size, and whether it is in WAL mode.
///
/// Related SQLite documentation: https://www.sqlite.org/fileformat.html#the_database_header
struct DatabaseFileHeader {
    /// The page size in bytes.
    let pageSize: Int
    /// Whether the file is in WAL mode (its read and write versions are 2).
    let isWAL: Bool

    /// Reads a file's header; `nil` when the file does not exist, cannot be read, or does not start with
    /// SQLite's magic string.
    init?(path: String) {
        let descriptor = open(path, O_RDONLY)
        guard descriptor >= 0 else { return nil }
        defer { close(descriptor) }
        var bytes = [UInt8](repeating: 0, count: 100)
        let count = bytes.withUnsafeMutableBytes { read(descriptor, $0.baseAddress, 100) }
        guard count == 100, bytes.starts(with: Array("SQLite format 3\0".utf8)) else { return nil }
        let raw = Int(bytes[16]) << 8 | Int(bytes[17])
        pageSize = raw == 1 ? 65536 : raw
        guard pageSize >= 512 else { return nil }
        isWAL = bytes[18] == 2 && bytes[19] == 2
    }

    /// Whether the file at `path` starts as an SQLite database does.
    static func isDatabase(_ path: String) -> Bool {
        DatabaseFileHeader(path: path) != nil
    }
}
