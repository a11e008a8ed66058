import DBBObjects
import DBBSQL
import DBBTestSupport
import Foundation
import Synchronization
import Testing

/// A note of a new application, in the lean layout.
final class LeanNote: DBBTableObject {
    override class var layout: DBBTableLayout { .lean }
    var title = ""
    var tags: [String] = []

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["title": .init(\LeanNote.title), "tags": .init(\LeanNote.tags)], for: self)
    }
}

/// Release 1's book (DBBBuilder's layout) once converted to the lean layout.
final class LeanBook: DBBTableObject {
    override class var tableName: String { "Book" }
    override class var layout: DBBTableLayout { .lean }
    var title = ""
    var year = 0

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["title": .init(\LeanBook.title), "year": .init(\LeanBook.year)], for: self)
    }
}

@Suite("Lean layout") struct DBBLeanLayoutTests {
    @Test func aLeanTableHasNoAutoincrementAndNoTimestamps() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses([LeanNote.self])
        let sql = try DBBMigrationStepTests.sql(manager, "LeanNote")
        #expect(sql == "CREATE TABLE LeanNote (id Integer PRIMARY KEY, title Text)")
        #expect(
            try DBBMigrationStepTests.sql(manager, "LeanNote_tags")
                == "CREATE TABLE LeanNote_tags (id Integer PRIMARY KEY AUTOINCREMENT, LeanNote_ID Integer, tags Text)")
        let note = LeanNote(dbManager: manager)
        note.title = "first"
        note.tags = ["a", "b"]
        try note.save()
        let loaded = try #require(try LeanNote.fetchOne(id: note.idNum, manager: manager))
        #expect(loaded.title == "first" && loaded.tags == ["a", "b"])
        #expect(loaded.createdTime == nil && loaded.modifiedTime == nil)
    }

    @Test func saveOfOneObjectWithoutJoinRowsIsOneStatementWithoutATransaction() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses([LeanNote.self, LeanBook.self])
        let statements = Mutex<[String]>([])
        try manager.queue.inDatabase { db in
            db.setTrace { sql, _ in statements.withLock { $0.append(sql) } }
        }
        let book = LeanBook(dbManager: manager)
        book.title = "one"
        try book.save()
        book.title = "two"
        try book.save()
        // A new object whose arrays are empty has no join rows either.
        let note = LeanNote(dbManager: manager)
        try note.save()
        let traced = statements.withLock { $0 }
        #expect(traced.count == 3, "\(traced)")
        #expect(traced.first?.hasPrefix("INSERT INTO Book") == true)
        #expect(traced.dropFirst().first?.hasPrefix("UPDATE Book") == true)
        #expect(traced.last?.hasPrefix("INSERT INTO LeanNote") == true)
        // With join rows it is one transaction.
        note.tags = ["x"]
        try note.save()
        #expect(statements.withLock { $0 }.dropFirst(3).first == "BEGIN IMMEDIATE TRANSACTION")
        #expect(try LeanBook.fetchOne(id: book.idNum, manager: manager)?.title == "two")
    }

    @Test func aMigrationConvertsATableToTheLeanLayoutAndBack() throws {
        let (folder, url) = try DBBMigratorTests.release1()
        _ = folder
        let manager = try DBBManager(databaseURL: url)
        try DBBMigrationStepTests.migrate(manager, "lean", [.convertLayout(of: "Book", to: .lean)])
        let sql = try #require(try DBBMigrationStepTests.sql(manager, "Book"))
        #expect(!sql.contains("AUTOINCREMENT") && !sql.contains("createdTime") && !sql.contains("modifiedTime"))
        #expect(try DBBMigrationStepTests.names(manager, "index").contains("Book_year"))
        try manager.addTableClasses([LeanBook.self])
        #expect(try LeanBook.fetchAll(manager: manager).map(\.idNum) == [1, 2, 3])
        #expect(try LeanBook.fetchAll(manager: manager).map(\.year) == [1974, 1972, 1971])
        try manager.close()
        let back = try DBBManager(databaseURL: url)
        try DBBMigrationStepTests.migrate(back, "DBBBuilder again", [.convertLayout(of: "Book", to: .dbbBuilder)])
        let again = try #require(try DBBMigrationStepTests.sql(back, "Book"))
        #expect(again.contains("PRIMARY KEY AUTOINCREMENT, createdTime Real, modifiedTime Real"))
        try back.addTableClasses([AuthorV1.self, BookV1.self])
        let book = BookV1(dbManager: back)
        book.title = "New"
        try book.save()
        #expect(book.idNum == 4)
        #expect(try BookV1.fetchAll(manager: back).map(\.tags) == [["utopia", "physics"], ["cities"], [], []])
    }
}
