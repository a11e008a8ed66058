import DBBObjects
import Foundation

// Three releases of one model, each mapped onto the same tables (`Book`, `Author`), as an application's classes
// would be in three releases: the migrations between them are what the migration tests check.

/// Release 1: a book with its year as an integer, tags, and its author in a join table.
final class BookV1: DBBTableObject {
    override class var tableName: String { "Book" }
    var title = ""
    var year = 0
    var tags: [String] = []
    var author: AuthorV1?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "title": .init(\BookV1.title), "year": .init(\BookV1.year), "tags": .init(\BookV1.tags),
                "author": .init(\BookV1.author),
            ], for: self, indexer: DBBIndexer(columnsToIndex: ["year"]))
    }
}

final class AuthorV1: DBBTableObject {
    override class var tableName: String { "Author" }
    var name = ""

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["name": .init(\AuthorV1.name)], for: self)
    }
}

/// Release 2: `year` renamed `published`, `tags` renamed `labels`.
final class BookV2: DBBTableObject {
    override class var tableName: String { "Book" }
    var title = ""
    var published = 0
    var labels: [String] = []
    var author: AuthorV1?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "title": .init(\BookV2.title), "published": .init(\BookV2.published),
                "labels": .init(\BookV2.labels), "author": .init(\BookV2.author),
            ], for: self, indexer: DBBIndexer(columnsToIndex: ["published"]))
    }
}

/// Release 3: `published` holds text, the author is a foreign-key column, `labels` is gone.
final class BookV3: DBBTableObject {
    override class var tableName: String { "Book" }
    var title = ""
    var published = ""
    var author: AuthorV1?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "title": .init(\BookV3.title), "published": .init(\BookV3.published),
                "author": .init(\BookV3.author, foreignKey: true),
            ], for: self, indexer: DBBIndexer(columnsToIndex: ["published"]))
    }
}

/// A class that references books, for renames of the class it references.
final class ShelfV1: DBBTableObject {
    override class var tableName: String { "Shelf" }
    var books: [BookV1] = []

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["books": .init(\ShelfV1.books)], for: self)
    }
}

/// `Book` renamed `Volume`.
final class Volume: DBBTableObject {
    var title = ""
    var year = 0
    var tags: [String] = []
    var author: AuthorV1?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "title": .init(\Volume.title), "year": .init(\Volume.year), "tags": .init(\Volume.tags),
                "author": .init(\Volume.author),
            ], for: self, indexer: DBBIndexer(columnsToIndex: ["year"]))
    }
}

/// The shelf once `Book` is `Volume`: its join table is its own (`Shelf_books`), holding ids.
final class ShelfV2: DBBTableObject {
    override class var tableName: String { "Shelf" }
    var books: [Volume] = []

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["books": .init(\ShelfV2.books)], for: self)
    }
}

enum MigrationFixtures {
    /// Writes release 1's data: three books by two authors, the first two on a shelf.
    static func writeRelease1(_ manager: DBBManager) throws {
        try manager.addTableClasses([AuthorV1.self, BookV1.self, ShelfV1.self])
        let ursula = AuthorV1(dbManager: manager)
        ursula.name = "Ursula K. Le Guin"
        let italo = AuthorV1(dbManager: manager)
        italo.name = "Italo Calvino"
        var books: [BookV1] = []
        for (title, year, tags, author) in [
            ("The Dispossessed", 1974, ["utopia", "physics"], ursula), ("Invisible Cities", 1972, ["cities"], italo),
            ("The Lathe of Heaven", 1971, [], ursula),
        ] {
            let book = BookV1(dbManager: manager)
            book.title = title
            book.year = year
            book.tags = tags
            book.author = author
            books.append(book)
        }
        try BookV1.save(books, manager: manager)
        let shelf = ShelfV1(dbManager: manager)
        shelf.books = Array(books.prefix(2))
        try shelf.save()
    }
}
