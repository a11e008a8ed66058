import DBBObjects
import Foundation
import Testing

/// A manager of the test models: serial in memory, serial on a file, or on a file with two readers.
enum ManagerKind: String, CaseIterable, CustomTestStringConvertible, Sendable {
    case memory
    case file
    case pool

    var testDescription: String { rawValue }

    func manager(in folder: TemporaryFolder) throws -> DBBManager {
        let manager: DBBManager
        switch self {
        case .memory: manager = try DBBManager.inMemory()
        case .file: manager = try DBBManager(databaseURL: folder.file("test.sqlite"))
        case .pool: manager = try DBBManager(databaseURL: folder.file("test.sqlite"), readers: 2)
        }
        try manager.addTableClasses(Models.all)
        return manager
    }
}
