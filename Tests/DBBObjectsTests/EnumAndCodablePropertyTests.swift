import DBBObjects
import DBBQuery
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// Enums with raw values and `Codable` values mapped with key paths and with closures, as the macro maps them
/// (`Tests/DBBMacrosTests/MacroEnumAndCodableTests.swift`).
@Suite struct EnumAndCodablePropertyTests {
    enum Genre: String, DBBPersistableValue {
        case fiction, poetry, history
    }

    enum Rating: Int64, DBBPersistableValue {
        case poor = 1
        case good = 3
        case great = 5
    }

    struct Price: DBBCodableValue, Equatable {
        var amount: Int
        var currency: String
    }

    /// Mapped with key paths.
    final class KeyPathBook: DBBTableObject {
        var genre = Genre.fiction
        var rating: Rating?
        var genres: [Genre] = []
        var price = Price(amount: 0, currency: "EUR")
        var offers: [Price]?

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                [
                    "genre": .init(\KeyPathBook.genre), "rating": .init(\KeyPathBook.rating),
                    "genres": .init(\KeyPathBook.genres), "price": .init(\KeyPathBook.price),
                    "offers": .init(\KeyPathBook.offers),
                ], for: self)
        }
    }

    /// Mapped with closures alone, as `dbb-codegen --style closures` writes.
    final class ClosureBook: DBBTableObject {
        var genre = Genre.fiction
        var rating: Rating?
        var genres: [Genre] = []
        var price = Price(amount: 0, currency: "EUR")
        var offers: [Price]?

        override class var persistenceMapping: DBBTableMapping {
            DBBTableMapping([
                "genre": .init(get: { (book: ClosureBook) in book.genre }, set: { $0.genre = $1 }),
                "rating": .init(get: { (book: ClosureBook) in book.rating }, set: { $0.rating = $1 }),
                "genres": .init(get: { (book: ClosureBook) in book.genres }, set: { $0.genres = $1 }),
                "price": .init(get: { (book: ClosureBook) in book.price }, set: { $0.price = $1 }),
                "offers": .init(get: { (book: ClosureBook) in book.offers }, set: { $0.offers = $1 }),
            ])
        }
    }

    @Test(arguments: [true, false]) func everyFormStoresRawValuesAndJSON(keyPaths: Bool) throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("books.sqlite"))
        try manager.addTableClasses([KeyPathBook.self, ClosureBook.self])
        let table = keyPaths ? "KeyPathBook" : "ClosureBook"
        func make(_ genre: Genre, _ rating: Rating?, _ amount: Int) throws -> DBBTableObject {
            let values: [String: Any] = [
                "genre": genre.rawValue, "genres": [genre, .history], "price": Price(amount: amount, currency: "EUR"),
            ]
            let object: DBBTableObject =
                keyPaths
                ? try KeyPathBook(dictionary: values, manager: manager)
                : try ClosureBook(dictionary: values, manager: manager)
            if let book = object as? KeyPathBook {
                book.rating = rating
                book.offers = [Price(amount: amount - 1, currency: "USD")]
            }
            if let book = object as? ClosureBook {
                book.rating = rating
                book.offers = [Price(amount: amount - 1, currency: "USD")]
            }
            try object.save()
            return object
        }
        _ = try make(.poetry, .great, 12)
        _ = try make(.fiction, nil, 30)

        let db = try DBBDatabase(path: folder.file("books.sqlite").path)
        let rows = try db.fetchCursor("SELECT genre, rating, price FROM \(table) ORDER BY id").map { $0.values }
        #expect(rows[0] == [.text("poetry"), .integer(5), .text(#"{"amount":12,"currency":"EUR"}"#)])
        #expect(rows[1] == [.text("fiction"), .null, .text(#"{"amount":30,"currency":"EUR"}"#)])
        #expect(
            try db.fetchValues(String.self, "SELECT offers FROM \(table)_offers ORDER BY id") == [
                #"{"amount":11,"currency":"USD"}"#, #"{"amount":29,"currency":"USD"}"#,
            ])
        try db.close()

        var poetry = DBBQueryOptions()
        poetry.addCondition("genre = ?", Genre.poetry)
        if keyPaths {
            var typed = DBBQueryOptions()
            typed.filter(\KeyPathBook.rating == .great && \KeyPathBook.price == Price(amount: 12, currency: "EUR"))
            let found = try KeyPathBook.fetch(options: typed, manager: manager)
            #expect(found.map(\.genre) == [.poetry])
            let loaded = try KeyPathBook.fetch(options: poetry, manager: manager)
            #expect(loaded.map(\.genres) == [[.poetry, .history]])
            #expect(loaded.map(\.offers) == [[Price(amount: 11, currency: "USD")]])
            #expect(try KeyPathBook.fetchAll(manager: manager).map(\.rating) == [.great, nil])
        } else {
            let loaded = try ClosureBook.fetch(options: poetry, manager: manager)
            #expect(loaded.map(\.rating) == [.great])
            #expect(loaded.map(\.price) == [Price(amount: 12, currency: "EUR")])
            #expect(loaded.map(\.genres) == [[.poetry, .history]])
            #expect(
                try ClosureBook.fetchAll(manager: manager).map(\.offers) == [
                    [Price(amount: 11, currency: "USD")], [Price(amount: 29, currency: "USD")],
                ])
        }
    }

    @Test func anUnknownRawValueInAJoinTableIsAnErrorNamingTheValue() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("books.sqlite"))
        try manager.addTableClasses([KeyPathBook.self])
        let book = KeyPathBook(dbManager: manager)
        book.genres = [.history]
        try book.save()
        try manager.write { db in try db.execute("UPDATE KeyPathBook_genres SET genres = 'drama'") }
        let error = #expect(throws: DBBError.self) { try KeyPathBook.fetchAll(manager: manager) }
        #expect(error?.message.contains(#""drama" is not a case of Genre"#) == true, "\(String(describing: error))")
    }
}
