import DBBBuilder
import DBBPostgres
import Foundation
import Testing

/// Enums and Codable values on PostgreSQL: the same raw values and JSON text as on SQLite.
@Suite(.postgres)
struct DBBPostgresEnumTests {
    enum Shelf: String, DBBPersistableValue {
        case fiction
        case poetry
        case reference = "ref"
    }

    struct Location: DBBCodableValue, Equatable {
        var room = ""
        var row = 0
    }

    @DBBTable
    final class Volume: DBBTableObject {
        var title = ""
        var shelf = Shelf.fiction
        var formerShelves: [Shelf] = []
        var location = Location()
        var overflow: Location?
    }

    @Test func enumsAndCodableValuesRoundTripAndFilterByRawValue() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        let manager = try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration)
            try manager.addTableClasses([Volume.self])
            return manager
        }
        try synchronously {
            let atlas = Volume(dbManager: manager)
            atlas.title = "Atlas"
            atlas.shelf = .reference
            atlas.formerShelves = [.poetry, .fiction]
            atlas.location = Location(room: "B", row: 4)
            let odes = Volume(dbManager: manager)
            odes.title = "Odes"
            odes.shelf = .poetry
            odes.overflow = Location(room: "C", row: 1)
            try Volume.save([atlas, odes], manager: manager)

            var options = DBBQueryOptions()
            options.filter(\Volume.shelf == .reference)
            let found = try Volume.fetch(options: options, manager: manager)
            #expect(found.map(\.title) == ["Atlas"])
            #expect(found.first?.formerShelves == [.poetry, .fiction])
            #expect(found.first?.location == Location(room: "B", row: 4))
            #expect(found.first?.overflow == nil)
            var bound = DBBQueryOptions()
            bound.addCondition("shelf = ?", Shelf.poetry)
            #expect(try Volume.fetch(options: bound, manager: manager).map(\.overflow) == [Location(room: "C", row: 1)])

            let stored = try manager.read {
                try manager.postgresConnection().fetchAll(#"SELECT "shelf", "location" FROM "Volume" ORDER BY "id""#)
            }
            #expect(
                stored == [
                    [.text("ref"), .text(#"{"room":"B","row":4}"#)], [.text("poetry"), .text(#"{"room":"","row":0}"#)],
                ])
        }
    }
}
