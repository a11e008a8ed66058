import DBBExport
import DBBPostgres
import Foundation

/// Whether a file starts as an SQLite database does (`SQLite format 3` and a NUL).
func isSQLiteFile(_ path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: 16)) == Data("SQLite format 3\0".utf8)
}

/// Whether a file starts as a gzip stream does, as every dump does.
func isDumpFile(_ path: String) -> Bool {
    guard let handle = FileHandle(forReadingAtPath: path) else { return false }
    defer { try? handle.close() }
    return (try? handle.read(upToCount: 2)) == Data([0x1F, 0x8B])
}

/// A temporary folder for the dumps and databases that `verify` makes to compare any pair, removed when released.
final class ScratchFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dbb-backup-verify-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
    }

    deinit {
        try? FileManager.default.removeItem(at: url)
    }

    /// Dumps a schema of PostgreSQL (the flags' `--schema`) into the folder; returns the dump's path.
    func dump(ofPostgres source: String, flags: PostgresOptions, maximumValueLength: Int) throws -> String {
        let target = url.appendingPathComponent("left.json.gz")
        _ = try runReportingPostgresErrors {
            let connection = try connectPostgres(source)
            defer { try? connection.close() }
            let options = DBBPostgresDumpOptions(
                schema: try flags.targetSchema(url: source, connection: connection),
                maximumValueLength: maximumValueLength)
            try DBBPostgresDump.dump(from: connection, to: target, options: options)
        }
        return target.path
    }

    /// Dumps an SQLite file into the folder; returns the dump's path.
    func dump(ofSQLite source: String, maximumValueLength: Int) throws -> String {
        let target = url.appendingPathComponent("left.json.gz")
        var options = DBBDumpOptions()
        options.maximumValueLength = maximumValueLength
        _ = try runReportingErrors {
            try DBBExport.dump(databaseAt: URL(fileURLWithPath: source), to: target, options: options)
        }
        return target.path
    }

    /// Restores a dump into an SQLite file in the folder; returns the file's path.
    func restore(_ dump: String, maximumValueLength: Int) throws -> String {
        let target = url.appendingPathComponent("right.sqlite")
        var options = DBBRestoreOptions()
        options.maximumValueLength = maximumValueLength
        _ = try runReportingErrors {
            try DBBExport.restore(dumpAt: URL(fileURLWithPath: dump), to: target, options: options)
        }
        return target.path
    }
}
