import DBBObjects
import Foundation
import Testing

/// A mapping entry written for another class is refused when the class is registered, before any of its
/// accessors is called with an object it was not written for.
@Suite struct ForeignRootMappingTests {
    final class Borrowed: DBBTableObject {
        var title = ""
    }

    final class Borrower: DBBTableObject {
        var title = ""

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            // The key path names a property of another class.
            dbManager.addPersistenceMapping(["title": .init(\Borrowed.title)], for: self)
        }
    }

    final class ClosureBorrower: DBBTableObject {
        override class var persistenceMapping: DBBTableMapping {
            DBBTableMapping([
                "title": .init(get: { (other: Borrowed) -> String in other.title }, set: { $0.title = $1 })
            ])
        }
    }

    @Test(arguments: [Borrower.self, ClosureBorrower.self] as [DBBTableObject.Type])
    func registeringAClassWhoseEntryBelongsToAnotherClassIsAMisuseAndCreatesNoTable(type: DBBTableObject.Type) throws {
        let manager = try DBBManager.inMemory()
        let error = #expect(throws: DBBError.self) { try manager.addTableClasses([type]) }
        #expect(error?.resultCode == .misuse)
        #expect(error?.message.contains("title") == true)
        #expect(error?.message.contains("does not inherit") == true)
        let tables = try manager.queue.inDatabase { try $0.tableNames() }
        #expect(!tables.contains(type.tableName))
    }
}
