internal import DBBSQL
internal import DBBSchema
public import Foundation

extension DBBManager {
    /// How a manager opens its database file.
    public enum Mode: Sendable, Hashable {
        /// Read and write; the file is created when missing and switched to WAL journaling (the default).
        case readWrite
        /// Read only: the file is opened without changing a byte of it. Classes are mapped onto the tables
        /// it has (checked, never created or altered), no `DBVersion` table is added, the journal mode is
        /// left as it is, and every save, delete or other write is refused with a `.misuse` error.
        case readOnly
    }

    /// Opens a database file for reading and writing, or only for reading.
    ///
    /// ```swift
    /// let reader = try DBBManager(databaseURL: someoneElsesFile, mode: .readOnly)
    /// try reader.addTableClasses([Artist.self, Album.self])   // checks their tables, creates nothing
    /// let albums = try Album.fetchAll(manager: reader)
    /// ```
    ///
    /// - Parameters:
    ///   - databaseURL: a file URL (not a directory). A read-only file must exist.
    ///   - mode: ``Mode/readWrite`` (as ``init(databaseURL:)``) or ``Mode/readOnly``. A read-only file is
    ///     opened by a connection that cannot write: where the file may be written, a read-write one kept
    ///     `query_only` (reading a WAL file makes SQLite create `-wal` and `-shm` files beside it, and only a
    ///     connection that may write removes them again when it closes), else a read-only one.
    /// - Throws: `DBBError` when the file cannot be opened or is not an SQLite database.
    public convenience init(databaseURL: URL, mode: Mode) throws {
        try self.init(databaseURL: databaseURL, mode: mode, readers: 0)
    }

    /// Refuses a write through a read-only manager, before anything is written.
    ///
    /// - Parameter action: what was asked, for the message (`"saving Person objects"`).
    /// - Throws: `DBBError` (misuse) when the manager is read-only.
    func requireWritable(_ action: @autoclosure () -> String) throws {
        if let scope = activeScope, !scope.isWrite {
            let action = action()
            throw record(
                DBBError.misuse(
                    "\(action) inside manager.read, which only reads", recovery: "use manager.write to write",
                    context: action))
        }
        guard mode == .readOnly else { return }
        let action = action()
        throw record(
            DBBError.misuse(
                "this manager was opened read-only; \(action) would change the file",
                recovery: "open the file with DBBManager(databaseURL:) to write to it", context: action))
    }
}

extension DBBRegisteredClass {
    /// Checks that the file has the class's table and join tables with every mapped column, without
    /// creating or altering anything: a read-only manager maps classes onto the tables as they are.
    ///
    /// - Throws: `DBBError` (misuse) naming a missing table or column, or (mismatch) a column whose type
    ///   conflicts with the mapping.
    func checkSchema<Connection: DBBObjectConnection>(in db: Connection) throws {
        func missing(_ what: String) -> DBBError {
            DBBError.misuse(
                "\(what), and a read-only manager does not create it",
                recovery:
                    "open the file read-write once to create it, or register only classes the file has tables for",
                context: "registering \(tableName) read-only")
        }
        guard try db.tableExists(tableName) else { throw missing("the file has no table \(tableName)") }
        let alters = try description.alterStatements(existing: try db.columns(in: tableName))
        if !alters.isEmpty { throw missing("table \(tableName) lacks columns the mapping needs (\(alters.count))") }
        for join in description.joinTables {
            guard try db.tableExists(join.tableName) else {
                throw missing("the file has no join table \(join.tableName)")
            }
            let joinAlters = try DBBTableDescription.alterJoinStatements(
                join, existing: try db.columns(in: join.tableName))
            if !joinAlters.isEmpty { throw missing("join table \(join.tableName) lacks a column the mapping needs") }
        }
    }
}
