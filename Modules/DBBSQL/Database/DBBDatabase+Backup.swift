internal import CSQLite
public import Foundation

extension DBBDatabase {
    /// Copies this connection's main database over another connection's, through SQLite's locking.
    ///
    /// The online backup API replaces every page of the destination in one write transaction of the
    /// destination connection, so other connections that have the destination open see either the old
    /// database or the new one, never a mixture, and a hot journal or write-ahead log the destination had
    /// is recovered (then overwritten) first. The destination keeps its journal mode.
    ///
    /// - Parameters:
    ///   - destination: the connection whose main database is replaced.
    ///   - timeout: how long to keep retrying while another connection holds a lock on the destination.
    /// - Throws: ``DBBError`` (busy) when the destination stays locked past the timeout; (readOnly) when
    ///   the destination is in WAL mode with a different page size; any other error SQLite reports.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/backup.html
    public func backup(into destination: DBBDatabase, timeout: TimeInterval = 5) throws {
        let source = try openHandle()
        let target = try destination.openHandle()
        guard let backup = sqlite3_backup_init(target, "main", source, "main") else {
            throw DBBError.fromConnection(
                target, code: sqlite3_errcode(target), context: "starting a backup into \(destination.path)")
        }
        let deadline = Date(timeIntervalSinceNow: timeout)
        var code: Int32
        while true {
            code = sqlite3_backup_step(backup, -1)
            guard code == SQLITE_BUSY || code == SQLITE_LOCKED, Date() < deadline else { break }
            usleep(10_000)
        }
        sqlite3_backup_finish(backup)
        guard code == SQLITE_DONE else {
            var error = DBBError.fromConnection(target, code: code, context: "copying \(path) into \(destination.path)")
            if code == SQLITE_BUSY || code == SQLITE_LOCKED {
                error.message = "the destination stayed locked by another connection (\(error.message))"
            }
            throw error
        }
    }
}
