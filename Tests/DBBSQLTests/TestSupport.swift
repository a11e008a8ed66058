import DBBSQL
@_exported import DBBTestSupport
import Foundation
import Testing

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
        let directory = try TemporaryFolder()
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
