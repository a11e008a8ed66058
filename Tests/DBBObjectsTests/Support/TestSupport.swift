import DBBObjects
@_exported import DBBTestSupport
import Foundation
import Testing

/// Where a test's manager keeps its database.
enum Storage: String, CaseIterable, CustomTestStringConvertible {
    case memory
    case file

    var testDescription: String { rawValue }
}

/// A test's manager: SQL of the test's own on its connection, and the statements it runs.
protocol ManagerHolder {
    var manager: DBBManager { get }
}

extension ManagerHolder {
    /// Runs SQL of the test's own on the manager's connection.
    func sql<T>(_ body: (DBBDatabase) throws -> T) throws -> T { try manager.queue.inDatabase(body) }

    /// The SQL statements a closure runs through the manager.
    func statements(during body: () throws -> Void) throws -> [String] {
        let log = StatementLog()
        try sql { db in db.setTrace { statement, _ in log.append(statement) } }
        defer { try? sql { db in db.setTrace(nil) } }
        try body()
        return log.statements
    }
}

/// A manager with the test models registered, and the folder that holds its file.
struct TestManager: ManagerHolder {
    let folder: TemporaryFolder
    let manager: DBBManager

    init(_ storage: Storage, classes: [DBBTableObject.Type] = Models.all) throws {
        folder = try TemporaryFolder()
        switch storage {
        case .memory: manager = try DBBManager.inMemory()
        case .file: manager = try DBBManager(databaseURL: folder.file("test.sqlite"))
        }
        try manager.addTableClasses(classes)
    }
}

final class StatementLog: @unchecked Sendable {
    // @unchecked: appended to on the manager's queue only, read after the work finished.
    private(set) var statements: [String] = []
    func append(_ statement: String) { statements.append(statement) }
}

/// Counts how often something happens, on any thread: a mapping dictionary built, a read finished.
final class Counter: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var count = 0
    func increment() {
        lock.lock()
        count += 1
        lock.unlock()
    }
    var value: Int {
        lock.lock()
        defer { lock.unlock() }
        return count
    }
}
