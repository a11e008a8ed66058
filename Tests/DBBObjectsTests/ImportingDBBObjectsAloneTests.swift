import DBBObjects
import Foundation
import Testing

// This file imports DBBObjects alone (and Foundation): a model class, its mapping, its registration, saving,
// queries with bound values and sorting, errors, and the manager's connection compile with that one import.

final class Gadget: DBBTableObject {
    var name = ""
    var weight = 0.0
    var labels: [String] = []
    var maker: Gadget?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        attributesDictionary = ["name": ColumnAttribute.notNull]
        let mapping: [String: DBBPropertyPersistence] = [
            "name": .init(\Gadget.name), "weight": .init(\Gadget.weight), "labels": .init(\Gadget.labels),
            "maker": .init(\Gadget.maker),
        ]
        dbManager.addPersistenceMapping(mapping, for: self, indexer: DBBIndexer(columnsToIndex: ["name"]))
    }
}

@Suite struct ImportingDBBObjectsAloneTests {
    @Test(arguments: Storage.allCases) func aModelAndItsCallsNeedOnlyThisImport(storage: Storage) throws {
        let test = try TestManager(storage, classes: [Gadget.self])
        let manager = test.manager
        let maker = Gadget(dbManager: manager)
        maker.name = "Acme"
        let gadgets = [("Lever", 2.5), ("Pulley", 1.0), ("Wedge", 4.0)].map { name, weight -> Gadget in
            let gadget = Gadget(dbManager: manager)
            (gadget.name, gadget.weight, gadget.labels, gadget.maker) = (name, weight, ["simple"], maker)
            return gadget
        }
        try Gadget.save(gadgets, manager: manager)

        var heavy = DBBQueryOptions.options(withConditions: ["labels = 'simple'"])
        heavy.addCondition("weight > ?", 1.5)
        heavy.sorting = ["name", ColumnSorting.descending]
        let found = try Gadget.fetch(options: heavy, manager: manager)
        #expect(found.map(\.name) == ["Wedge", "Lever"])
        #expect(found.first?.maker?.name == "Acme")

        let names = try manager.write { db in
            try db.fetchValues(String.self, "SELECT name FROM Gadget ORDER BY name")
        }
        #expect(names == ["Acme", "Lever", "Pulley", "Wedge"])

        do {
            try manager.write { db in try db.execute("INSERT INTO Gadget (name) VALUES (NULL)") }
            Issue.record("a NULL name was stored")
        } catch let error as DBBError {
            #expect(error.resultCode == .constraint)
        }
        #expect(try Gadget.fetchCount(manager: manager) == 4)
    }
}
