import DBBSQL
import Foundation
import Testing

/// Locations and helpers shared by the DBBSQL tests.
enum TestSupport {
    /// The repository root: the nearest directory above this file that holds `Package.swift`.
    static let repositoryRoot: URL = {
        var directory = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
        while directory.path != "/" {
            if FileManager.default.fileExists(atPath: directory.appendingPathComponent("Package.swift").path) {
                return directory
            }
            directory.deleteLastPathComponent()
        }
        fatalError("no Package.swift above \(#filePath)")
    }()

    /// The shared, read-only test databases (`<root>/../shared/data`).
    static let sharedData: URL = repositoryRoot.deletingLastPathComponent()
        .appendingPathComponent("shared/data").standardizedFileURL

    /// The path of a shared database file.
    static func sharedDatabasePath(_ name: String) -> String {
        sharedData.appendingPathComponent(name).path
    }
}

/// A fresh temporary folder, removed when the value is released.
final class TemporaryDirectory {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory
            .appendingPathComponent("DBBSQLTests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// The path of a file inside the folder.
    func path(_ name: String) -> String { url.appendingPathComponent(name).path }

    /// Copies a shared database into the folder (tests that write never touch the shared files).
    func copyOfShared(_ name: String) throws -> String {
        let target = path(name)
        try FileManager.default.copyItem(atPath: TestSupport.sharedDatabasePath(name), toPath: target)
        return target
    }
}

/// Where a test database lives: the same test body runs against both.
enum DatabaseKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case inMemory
    case file

    var testDescription: String { rawValue }
}

/// Runs a body with a fresh database of the given kind; a file database lives in a temporary folder.
func withDatabase<T>(_ kind: DatabaseKind, _ body: (DBBDatabase) throws -> T) throws -> T {
    switch kind {
    case .inMemory:
        return try body(DBBDatabase.inMemory())
    case .file:
        let directory = try TemporaryDirectory()
        return try withExtendedLifetime(directory) {
            let database = try DBBDatabase(path: directory.path("test.sqlite"))
            defer { try? database.close() }
            return try body(database)
        }
    }
}

/// Runs a body and returns the ``DBBError`` it throws, recording an issue when it throws nothing or something else.
func expectDBBError(
    sourceLocation: SourceLocation = #_sourceLocation, _ body: () throws -> Void
) -> DBBError? {
    do {
        try body()
        Issue.record("expected a DBBError, but nothing was thrown", sourceLocation: sourceLocation)
    } catch let error as DBBError {
        return error
    } catch {
        Issue.record("expected a DBBError, got \(error)", sourceLocation: sourceLocation)
    }
    return nil
}

/// Captures the SQL statements a connection runs, through the trace hook.
final class SQLRecorder {
    private(set) var statements: [String] = []

    init(_ database: DBBDatabase) {
        database.setTrace { [weak self] sql, _ in self?.statements.append(sql) }
    }
}
