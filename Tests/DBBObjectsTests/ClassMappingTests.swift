import DBBObjects
import Foundation
import Testing

/// Classes that declare their mapping once, as a class property with direct accessors.
enum ClassMapped {
    static let mappingReads = Counter()

    final class Owner: DBBTableObject {
        var name = ""
        var score = 0
        var rating: Double?
        var tags: [String] = []
        var notes: [String]?
        var partner: Owner?
        var friends: [Owner] = []
        var rivals: [Owner]?
        var home: Place?

        override class var persistenceMapping: DBBTableMapping {
            mappingReads.increment()
            return super.persistenceMapping.merging(
                DBBTableMapping(
                    [
                        "name": .init(get: { (owner: Owner) -> String in owner.name }, set: { $0.name = $1 }),
                        "score": .init(
                            columnName: "points", get: { (owner: Owner) -> Int in owner.score }, set: { $0.score = $1 }),
                        "rating": .init(get: { (owner: Owner) -> Double? in owner.rating }, set: { $0.rating = $1 }),
                        "tags": .init(get: { (owner: Owner) -> [String] in owner.tags }, set: { $0.tags = $1 }),
                        "notes": .init(get: { (owner: Owner) -> [String]? in owner.notes }, set: { $0.notes = $1 }),
                        "partner": .init(get: { (owner: Owner) -> Owner? in owner.partner }, set: { $0.partner = $1 }),
                        "friends": .init(get: { (owner: Owner) -> [Owner] in owner.friends }, set: { $0.friends = $1 }),
                        "rivals": .init(get: { (owner: Owner) -> [Owner]? in owner.rivals }, set: { $0.rivals = $1 }),
                        "home": .init(
                            columnName: "placeId", foreignKey: true, get: { (owner: Owner) -> Place? in owner.home },
                            set: { $0.home = $1 }),
                    ],
                    attributes: ["name": "\(ColumnAttribute.notNull) \(ColumnAttribute.unique)"],
                    indexers: [DBBIndexer(columnsToIndex: ["score"])]))
        }
    }

    final class Place: DBBTableObject {
        var city = ""

        override class var persistenceMapping: DBBTableMapping {
            DBBTableMapping(["city": .init(get: { (place: Place) -> String in place.city }, set: { $0.city = $1 })])
        }
    }

    /// A chain: each level declares its own properties and builds on its superclass's mapping.
    class Animal: DBBTableObject {
        var legs = 0

        override class var persistenceMapping: DBBTableMapping {
            super.persistenceMapping.merging(
                DBBTableMapping(["legs": .init(get: { (animal: Animal) -> Int in animal.legs }, set: { $0.legs = $1 })])
            )
        }
    }

    final class Pet: Animal {
        var petName = ""

        override class var persistenceMapping: DBBTableMapping {
            super.persistenceMapping.merging(
                DBBTableMapping(
                    ["petName": .init(get: { (pet: Pet) -> String in pet.petName }, set: { $0.petName = $1 })]))
        }
    }

    /// A class mapped from its initializer whose superclass declares a class-level mapping.
    final class Dog: Animal {
        var breed = ""

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["breed": .init(\Dog.breed)], for: self)
        }
    }

    /// Both forms name `label`: the class-level entry (column `labelText`) wins.
    final class Both: DBBTableObject {
        var label = ""

        override class var persistenceMapping: DBBTableMapping {
            DBBTableMapping([
                "label": .init(
                    columnName: "labelText", get: { (both: Both) -> String in both.label }, set: { $0.label = $1 })
            ])
        }

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(["label": .init(\Both.label)], for: self)
        }
    }
}

// Serialized: one test counts the reads of `ClassMapped.Owner.persistenceMapping`, which the others cause too.
@Suite(.serialized) struct ClassMappingTests {
    private typealias Owner = ClassMapped.Owner
    private typealias Place = ClassMapped.Place

    @Test(arguments: Storage.allCases) func everyKindRoundTripsThroughDirectAccessors(storage: Storage) throws {
        let test = try TestManager(storage, classes: [Place.self, Owner.self])
        let manager = test.manager
        let place = Place(dbManager: manager)
        place.city = "Oslo"
        let ann = Owner(dbManager: manager)
        ann.name = "Ann"
        let bob = Owner(dbManager: manager)
        bob.name = "Bob"
        bob.score = 7
        bob.rating = 4.5
        bob.tags = ["a", "b", "a"]
        bob.notes = ["n"]
        bob.partner = ann
        bob.friends = [ann]
        bob.rivals = [ann, ann]
        bob.home = place
        try place.save()
        try Owner.save([ann, bob], manager: manager)

        let loaded = try #require(try Owner.fetchOne(id: bob.idNum, manager: manager))
        #expect(loaded.name == "Bob")
        #expect(loaded.score == 7)
        #expect(loaded.rating == 4.5)
        #expect(loaded.tags == ["a", "b", "a"])
        #expect(loaded.notes == ["n"])
        #expect(loaded.partner?.name == "Ann")
        #expect(loaded.friends.map(\.name) == ["Ann"])
        #expect(loaded.rivals?.map(\.name) == ["Ann", "Ann"])
        #expect(loaded.home?.city == "Oslo")
        let stored = try test.sql { db in
            try db.fetchValue(Int.self, "SELECT points FROM Owner WHERE id = ?", bob.idNum)
        }
        #expect(stored == 7)
        let annLoaded = try #require(try Owner.fetchOne(id: ann.idNum, manager: manager))
        #expect(annLoaded.rating == nil)
        #expect(annLoaded.home == nil)
    }

    @Test func theClassMappingIsReadOncePerRegistrationNotPerObject() throws {
        let before = ClassMapped.mappingReads.value
        let test = try TestManager(.memory, classes: [Place.self, Owner.self])
        #expect(ClassMapped.mappingReads.value == before + 1)
        let owners = (0..<50).map { index in
            let owner = Owner(dbManager: test.manager)
            owner.name = "owner \(index)"
            return owner
        }
        try Owner.save(owners, manager: test.manager)
        #expect(try Owner.fetchAll(manager: test.manager).count == 50)
        #expect(ClassMapped.mappingReads.value == before + 1)
    }

    @Test func declaredAttributesAndIndexersShapeTheTable() throws {
        let test = try TestManager(.memory, classes: [Place.self, Owner.self])
        let tableSQL = try test.sql { db in
            try db.fetchValue(String.self, "SELECT sql FROM sqlite_master WHERE name = 'Owner'")
        }
        #expect(tableSQL?.contains("name Text NOT NULL UNIQUE") == true)
        #expect(tableSQL?.contains("placeId Integer") == true)
        let indexes = try test.sql { db in
            try db.fetchDictionary("SELECT name FROM sqlite_master WHERE type = 'index' AND tbl_name = 'Owner'")
                .compactMap { $0["name"]?.stringValue }
        }
        #expect(indexes.contains("Owner_points"))
        let joins = try test.sql { db in
            try db.fetchDictionary(
                "SELECT name FROM sqlite_master WHERE type = 'table' AND name GLOB 'Owner_*' ORDER BY name"
            )
            .compactMap { $0["name"]?.stringValue }
        }
        #expect(joins == ["Owner_friends", "Owner_notes", "Owner_partner", "Owner_rivals", "Owner_tags"])
    }

    @Test func subclassesBuildOnTheirSuperclassMapping() throws {
        let test = try TestManager(.memory, classes: [ClassMapped.Pet.self, ClassMapped.Dog.self])
        let pet = ClassMapped.Pet(dbManager: test.manager)
        pet.legs = 4
        pet.petName = "Rex"
        let dog = ClassMapped.Dog(dbManager: test.manager)
        dog.legs = 3
        dog.breed = "Collie"
        try pet.save()
        try dog.save()

        let loadedPet = try #require(try ClassMapped.Pet.fetchOne(id: pet.idNum, manager: test.manager))
        #expect(loadedPet.legs == 4)
        #expect(loadedPet.petName == "Rex")
        let loadedDog = try #require(try ClassMapped.Dog.fetchOne(id: dog.idNum, manager: test.manager))
        #expect(loadedDog.legs == 3)
        #expect(loadedDog.breed == "Collie")
        let dogColumns = try test.sql { db in try db.columns(in: "Dog").map(\.name) }
        #expect(dogColumns == ["id", "createdTime", "modifiedTime", "breed", "legs"])
    }

    @Test func aClassLevelEntryWinsOverAnInitializerEntryOfTheSameName() throws {
        let test = try TestManager(.memory, classes: [ClassMapped.Both.self])
        let columns = try test.sql { db in try db.columns(in: "Both").map(\.name) }
        #expect(columns == ["id", "createdTime", "modifiedTime", "labelText"])
    }
}

/// Key-path entries read and write stored properties through their storage, and properties with observers or
/// accessors through the key path, so what those run still runs on every load.
@Suite struct KeyPathStorageTests {
    final class Reading: DBBTableObject {
        var title = ""
        var pages = 0
        var rating: Double?
        var finished: Date?
        var read = false
        var shelf = "" {
            didSet { shelfSets += 1 }
        }
        var shelfSets = 0
        var storedChapters = 0
        var chapters: Int {
            get { storedChapters }
            set { storedChapters = newValue }
        }

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                [
                    "title": .init(\Reading.title), "pages": .init(\Reading.pages), "rating": .init(\Reading.rating),
                    "finished": .init(\Reading.finished), "read": .init(\Reading.read),
                    "shelf": .init(\Reading.shelf), "chapters": .init(\Reading.chapters),
                ], for: self)
        }
    }

    @Test func everyKindOfPropertyRoundTripsAndObserversRunOnLoad() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses([Reading.self])
        let finished = Date(timeIntervalSinceReferenceDate: 700_000_000.5)
        for (index, title) in ["Dune", "Emma"].enumerated() {
            let reading = Reading(dbManager: manager)
            reading.title = title
            reading.pages = 400 + index
            reading.rating = index == 0 ? 4.5 : nil
            reading.finished = index == 0 ? finished : nil
            reading.read = index == 0
            reading.shelf = "shelf \(index)"
            reading.chapters = 20 + index
            try reading.save()
        }
        let readings = try Reading.fetchAll(manager: manager)
        #expect(readings.map(\.title) == ["Dune", "Emma"])
        #expect(readings.map(\.pages) == [400, 401])
        #expect(readings.map(\.rating) == [4.5, nil])
        #expect(readings.map(\.finished) == [finished, nil])
        #expect(readings.map(\.read) == [true, false])
        #expect(readings.map(\.shelf) == ["shelf 0", "shelf 1"])
        #expect(readings.map(\.chapters) == [20, 21])
        // The observed property was set through its setter: its observer ran once per loaded object.
        #expect(readings.map(\.shelfSets) == [1, 1])

        readings[1].title = "Emma (annotated)"
        readings[1].rating = 3
        try readings[1].save()
        let reloaded = try #require(try Reading.fetchOne(id: readings[1].idNum, manager: manager))
        #expect(reloaded.title == "Emma (annotated)")
        #expect(reloaded.rating == 3)
        #expect(reloaded.pages == 401)
    }
}
