import DBBMacros
import DBBObjects
import DBBQuery
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// `@DBBTable` classes mark themselves dirty when a persisted property is set; a save of a stored object that
/// is clean writes nothing; `refresh()` reloads an object after a rolled-back `write`.
@Suite struct MacroChangeTrackingTests {
    @DBBTable
    class Book: DBBTableObject {
        var title = ""
        var year = 0
        var tags: [String] = []
        var shelf: Shelf?
        @Transient var isSelected = false
    }

    @DBBTable
    final class Shelf: DBBTableObject {
        var label = ""
    }

    /// A subclass written without the macro: its own properties are not tracked, so its saves always write.
    final class SignedBook: Book {
        var signature = ""

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["signature": .init(\SignedBook.signature)], for: self)
        }
    }

    /// Mapped with key paths: not tracked, as DBBBuilder's classes were not.
    final class Note: DBBTableObject {
        var text = ""

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["text": .init(\Note.text)], for: self)
        }
    }

    private static func manager(_ folder: TemporaryFolder) throws -> DBBManager {
        let manager = try DBBManager(databaseURL: folder.file("tracking.sqlite"))
        try manager.addTableClasses([Book.self, Shelf.self, SignedBook.self, Note.self])
        return manager
    }

    private static func storedTitle(_ id: Int64, _ folder: TemporaryFolder) throws -> String? {
        let db = try DBBDatabase(path: folder.file("tracking.sqlite").path)
        defer { try? db.close() }
        return try db.fetchValue(String.self, "SELECT title FROM Book WHERE id = ?", id)
    }

    @Test func settingAPersistedPropertyMakesAnObjectDirtyAndLoadingLeavesItClean() throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder)
        #expect(Book.tracksChanges && Shelf.tracksChanges)
        #expect(!SignedBook.tracksChanges && !Note.tracksChanges)
        let book = Book(dbManager: manager)
        #expect(!book.isDirty)
        book.title = "Dune"
        #expect(book.isDirty)
        book.shelf = Shelf(dbManager: manager)
        try book.save()
        #expect(!book.isDirty)

        let loaded = try #require(try Book.fetchOne(id: book.idNum, manager: manager))
        #expect(!loaded.isDirty)
        #expect(loaded.shelf?.isDirty == false)
        loaded.isSelected = true
        #expect(!loaded.isDirty)
        loaded.tags.append("classic")
        #expect(loaded.isDirty)
    }

    @Test func aSaveOfACleanStoredObjectWritesNothing() throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder)
        let book = Book(dbManager: manager)
        book.title = "Dune"
        try book.save()
        let saved = try #require(book.modifiedTime)
        // Someone else changes the row; saving the clean object does not overwrite it.
        try manager.write { db in try db.execute("UPDATE Book SET title = 'Dune Messiah' WHERE id = ?", book.idNum) }
        try book.save()
        #expect(try Self.storedTitle(book.idNum, folder) == "Dune Messiah")
        #expect(book.modifiedTime == saved)
        book.year = 1965
        try book.save()
        #expect(try Self.storedTitle(book.idNum, folder) == "Dune")
        #expect(try #require(book.modifiedTime) > saved)

        // Classes that do not track changes write on every save, as DBBBuilder's did.
        let note = Note(dbManager: manager)
        note.text = "a"
        try note.save()
        try manager.write { db in try db.execute("UPDATE Note SET text = 'b'") }
        try note.save()
        #expect(try Note.fetchOne(id: note.idNum, manager: manager)?.text == "a")
        let signed = SignedBook(dbManager: manager)
        try signed.save()
        let reloaded = try #require(try SignedBook.fetchOne(id: signed.idNum, manager: manager))
        reloaded.signature = "F. H."
        try reloaded.save()
        #expect(try SignedBook.fetchOne(id: signed.idNum, manager: manager)?.signature == "F. H.")
    }

    @Test func refreshBringsBackWhatARolledBackWriteLeftOnTheObjects() throws {
        struct Cancelled: Error {}
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder)
        let book = Book(dbManager: manager)
        book.title = "Dune"
        book.tags = ["sf"]
        try book.save()
        #expect(throws: Cancelled.self) {
            try manager.write { _ in
                book.title = "Draft"
                book.tags = []
                try book.save()
                throw Cancelled()
            }
        }
        // The database is as it was; the object keeps the values set inside, and says it has changes.
        #expect(try Self.storedTitle(book.idNum, folder) == "Dune")
        #expect(book.title == "Draft")
        #expect(book.isDirty)
        try book.refresh()
        #expect(book.title == "Dune")
        #expect(book.tags == ["sf"])
        #expect(!book.isDirty)

        let unsaved = Book(dbManager: manager)
        let never = #expect(throws: DBBError.self) { try unsaved.refresh() }
        #expect(never?.kind == .misuse)
        try manager.write { db in try db.execute("DELETE FROM Book WHERE id = ?", book.idNum) }
        let gone = #expect(throws: DBBError.self) { try book.refresh() }
        #expect(gone?.kind == .rowDeleted)
    }
}
