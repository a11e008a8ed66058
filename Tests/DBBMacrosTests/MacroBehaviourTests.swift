import DBBMacros
import DBBObjects
import DBBQuery
import DBBTestSupport
import Foundation
import Testing

@Suite struct MacroBehaviourTests {
    typealias EveryKind = MacroModels.EveryKind
    typealias Friend = MacroModels.Friend

    private static func manager(_ folder: TemporaryFolder, _ classes: [DBBTableObject.Type]) throws -> DBBManager {
        let manager = try DBBManager(databaseURL: folder.file("macro.sqlite"))
        try manager.addTableClasses(classes)
        return manager
    }

    @Test func everyKindSavesAndLoads() throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder, [Friend.self, EveryKind.self])
        let ann = Friend(dbManager: manager)
        ann.name = "Ann"
        ann.code = "A"
        let bob = Friend(dbManager: manager)
        bob.name = "Bob"
        bob.code = "B"
        let object = EveryKind(dbManager: manager)
        #expect(object.noInitialValue == 0 && object.noInitialText == "" && object.transientCount == 0)
        object.flag = true
        object.int = -42
        object.int8 = -8
        object.int16 = -16
        object.int32 = -32
        object.int64 = .min
        object.uint = 42
        object.uint8 = 255
        object.uint16 = 65_535
        object.uint32 = 4_000_000_000
        object.uint64 = UInt64(Int64.max)
        object.float = 1.5
        object.double = 2.25
        object.text = "text ✓"
        object.date = Date(timeIntervalSinceReferenceDate: 12_345.5)
        object.data = Data([0, 1, 2, 255])
        object.optionalFlag = false
        object.optionalInt = 3
        object.optionalUInt8 = 9
        object.optionalDouble = nil
        object.optionalText = "maybe"
        object.optionalDate = Date(timeIntervalSinceReferenceDate: 1)
        object.optionalData = Data([7])
        object.flags = [true, false, true]
        object.ints = [3, 1, 2]
        object.int16s = [-1, 1]
        object.uint64s = [0, 10]
        object.floats = [0.5]
        object.doubles = [1.25, -1.25]
        object.texts = ["b", "a", "b"]
        object.dates = [Date(timeIntervalSinceReferenceDate: 5), Date(timeIntervalSinceReferenceDate: 6)]
        object.optionalTexts = ["x"]
        object.friend = ann
        object.friends = [bob, ann, bob]
        object.optionalFriends = [ann]
        object.unannotatedCount = 8
        object.negative = -3.5
        object.words = ["three"]
        object.stamp = Date(timeIntervalSinceReferenceDate: 200)
        object.noInitialValue = 11
        object.noInitialText = "set"
        object.scratch = 99
        try Friend.save([ann, bob], manager: manager)
        try object.save()

        let loaded = try #require(try EveryKind.fetchOne(id: object.idNum, manager: manager))
        #expect(loaded !== object)
        #expect(loaded.flag == true)
        #expect(loaded.int == -42)
        #expect(loaded.int8 == -8)
        #expect(loaded.int16 == -16)
        #expect(loaded.int32 == -32)
        #expect(loaded.int64 == .min)
        #expect(loaded.uint == 42)
        #expect(loaded.uint8 == 255)
        #expect(loaded.uint16 == 65_535)
        #expect(loaded.uint32 == 4_000_000_000)
        #expect(loaded.uint64 == UInt64(Int64.max))
        #expect(loaded.float == 1.5)
        #expect(loaded.double == 2.25)
        #expect(loaded.text == "text ✓")
        #expect(loaded.date == Date(timeIntervalSinceReferenceDate: 12_345.5))
        #expect(loaded.data == Data([0, 1, 2, 255]))
        #expect(loaded.optionalFlag == false)
        #expect(loaded.optionalInt == 3)
        #expect(loaded.optionalUInt8 == 9)
        #expect(loaded.optionalDouble == nil)
        #expect(loaded.optionalText == "maybe")
        #expect(loaded.optionalDate == Date(timeIntervalSinceReferenceDate: 1))
        #expect(loaded.optionalData == Data([7]))
        #expect(loaded.flags == [true, false, true])
        #expect(loaded.ints == [3, 1, 2])
        #expect(loaded.int16s == [-1, 1])
        #expect(loaded.uint64s == [0, 10])
        #expect(loaded.floats == [0.5])
        #expect(loaded.doubles == [1.25, -1.25])
        #expect(loaded.texts == ["b", "a", "b"])
        #expect(loaded.dates == [Date(timeIntervalSinceReferenceDate: 5), Date(timeIntervalSinceReferenceDate: 6)])
        #expect(loaded.optionalTexts == ["x"])
        #expect(loaded.friend?.name == "Ann")
        #expect(loaded.friends.map(\.name) == ["Bob", "Ann", "Bob"])
        #expect(loaded.optionalFriends?.map(\.name) == ["Ann"])
        #expect(loaded.unannotatedCount == 8)
        #expect(loaded.negative == -3.5)
        #expect(loaded.words == ["three"])
        #expect(loaded.stamp == Date(timeIntervalSinceReferenceDate: 200))
        #expect(loaded.noInitialValue == 11)
        #expect(loaded.noInitialText == "set")
        #expect(loaded.scratch == 0)

        let columns = try manager.queue.inDatabase { db in try db.columns(in: "EveryKind").map(\.name) }
        #expect(!columns.contains("scratch"))
        #expect(!columns.contains("cache"))
        #expect(!columns.contains("transientCount"))
        #expect(!columns.contains("computed"))
        #expect(!columns.contains("shared"))
        #expect(columns.contains("unannotatedCount"))
    }

    @Test func markersShapeTheTableAndItsRules() throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder, [Friend.self, MacroModels.Keeper.self, MacroModels.Shelf.self])
        let schema = try manager.queue.inDatabase { db in
            try db.fetchValues(String.self, "SELECT name || ': ' || ifnull(sql, '') FROM sqlite_master ORDER BY name")
        }
        #expect(schema.contains { $0.hasPrefix("Friend: ") && $0.contains("name Text UNIQUE") })
        #expect(schema.contains { $0.hasPrefix("Friend: ") && $0.contains("code Text NOT NULL") })
        #expect(schema.contains { $0.hasPrefix("Friend_code: CREATE INDEX") })
        #expect(schema.contains { $0.hasPrefix("Shelf_titleyear: CREATE UNIQUE INDEX") })
        #expect(schema.contains { $0.hasPrefix("Shelf: ") && $0.contains("keeper Integer") })
        #expect(schema.contains { $0.hasPrefix("Keeper: ") && $0.contains("label Text NOT NULL") })

        let first = Friend(dbManager: manager)
        first.name = "same"
        try first.save()
        let second = Friend(dbManager: manager)
        second.name = "same"
        #expect(throws: DBBError.self) { try second.save() }

        let keeper = MacroModels.Keeper(dbManager: manager)
        keeper.label = "K"
        keeper.partner.name = "partner"
        let shelf = MacroModels.Shelf(dbManager: manager)
        shelf.title = "Shelf"
        shelf.keeper = keeper
        shelf.items = [keeper.partner]
        try keeper.partner.save()
        try keeper.save()
        try shelf.save()
        let loaded = try #require(try MacroModels.Shelf.fetchOne(id: shelf.idNum, manager: manager))
        #expect(loaded.keeper?.label == "K")
        #expect(loaded.keeper?.partner.name == "partner")
        #expect(loaded.items.map(\.name) == ["partner"])

        // Deleting the shelf deletes its items (cascade), not its keeper (a foreign key).
        let friendsBefore = manager.countForTable("Friend")
        try MacroModels.Shelf.delete([loaded], manager: manager)
        #expect(manager.countForTable("Friend") == friendsBefore - 1)
        #expect(manager.countForTable("Keeper") == 1)
    }

    @Test func subclassesAddToTheirSuperclassMapping() throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder, [Friend.self, MacroModels.Pet.self])
        let owner = Friend(dbManager: manager)
        owner.name = "Owner"
        let pet = MacroModels.Pet(dbManager: manager)
        pet.legs = 4
        pet.petName = "Rex"
        pet.owner = owner
        try owner.save()
        try pet.save()

        let loaded = try #require(try MacroModels.Pet.fetchOne(id: pet.idNum, manager: manager))
        #expect(loaded.legs == 4)
        #expect(loaded.petName == "Rex")
        #expect(loaded.owner?.name == "Owner")
        let columns = try manager.queue.inDatabase { db in try db.columns(in: "Pet").map(\.name) }
        #expect(columns == ["id", "createdTime", "modifiedTime", "legs", "nickname"])
    }
}

@Suite struct MacroTypedConditionTests {
    typealias Shelf = MacroModels.Shelf
    typealias Keeper = MacroModels.Keeper
    typealias Friend = MacroModels.Friend

    /// Macro entries carry closures and no key paths: typed conditions find their properties by name, directly
    /// and through a foreign-key reference and an array of references.
    @Test func typedConditionsNameMacroProperties() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("typed.sqlite"))
        try manager.addTableClasses([Friend.self, Keeper.self, Shelf.self])
        let keeper = Keeper(dbManager: manager)
        keeper.label = "north"
        for (title, year) in [("Atlas", 1990), ("Botany", 2005), ("Comets", 2010)] {
            let shelf = Shelf(dbManager: manager)
            shelf.title = title
            shelf.year = year
            let friend = Friend(dbManager: manager)
            friend.name = "friend of \(title)"
            shelf.items = [friend]
            if year > 2000 { shelf.keeper = keeper }
            try shelf.save()
        }

        var recent = DBBQueryOptions()
        recent.filter(\Shelf.year > 2000 && \Shelf.title != "Comets")
        #expect(try Shelf.fetch(options: recent, manager: manager).map(\.title) == ["Botany"])

        var kept = DBBQueryOptions()
        kept.filter(\Shelf.keeper?.label == "north")
        kept.sorting = ["title"]
        #expect(try Shelf.fetch(options: kept, manager: manager).map(\.title) == ["Botany", "Comets"])

        var holding = DBBQueryOptions()
        holding.filter(.any(\Shelf.items, where: \Friend.name == "friend of Atlas"))
        #expect(try Shelf.fetch(options: holding, manager: manager).map(\.title) == ["Atlas"])
    }
}
