import DBBObjects
import Foundation
import Testing

/// A class mapped with the seed's `addPersistenceMapContents(_:forTableNamed:)`, with a `CGFloat`.
final class Shape: DBBTableObject {
    var label = ""
    var width: CGFloat = 0
    var ratios: [CGFloat] = []
    var depth: CGFloat?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        let map: [String: DBBPropertyPersistence] = [
            "label": .init(\Shape.label, columnName: "shapeLabel"),
            "width": .init(\Shape.width),
            "ratios": .init(\Shape.ratios),
            "depth": .init(\Shape.depth),
        ]
        dbManager.addPersistenceMapContents(
            map, forTableNamed: shortName, indexer: DBBIndexer(columnsToIndex: ["label"]))
    }
}

/// The seed's remaining manager APIs: the default manager, the data folder, in-memory managers, mapping
/// by table name, `CGFloat`, sorting by column names and grouping. Serialized: two tests set `XDG_DATA_HOME`.
@Suite(.serialized) struct DBBManagerSeedAPITests {
    @Test func theDefaultManagerIsSetOnceAndIsAClearErrorBefore() throws {
        let error = #expect(throws: DBBError.self) { _ = try DBBManager.default }
        #expect(error?.kind == .misuse)
        #expect(error?.message == "no default manager was set")
        let manager = DBBManager.inMemoryDatabaseManager()
        try DBBManager.setDefault(manager)
        #expect(try DBBManager.default === manager)
        #expect(throws: DBBError.self) { try DBBManager.setDefault(try DBBManager.inMemory()) }
        #expect(try DBBManager.default === manager)
    }

    @Test func theDataFolderFollowsTheXDGConvention() throws {
        #expect(
            try DBBManager.dataFolder(environment: ["XDG_DATA_HOME": "/data/x", "HOME": "/home/a"]).path == "/data/x")
        #expect(try DBBManager.dataFolder(environment: ["HOME": "/home/a"]).path == "/home/a/.local/share")
        // A relative XDG_DATA_HOME is ignored, as the specification says.
        #expect(
            try DBBManager.dataFolder(environment: ["XDG_DATA_HOME": "data", "HOME": "/home/a"]).path
                == "/home/a/.local/share")
        #expect(throws: DBBError.self) { try DBBManager.dataFolder(environment: [:]) }
    }

    @Test func aDatabaseInTheDataFolderIsCreatedWithItsFolder() throws {
        let folder = try TemporaryFolder()
        let dataHome = folder.url.appendingPathComponent("share")
        setenv("XDG_DATA_HOME", dataHome.path, 1)
        defer { unsetenv("XDG_DATA_HOME") }
        let url = try DBBManager.databaseURLInDocumentsFolder(named: "app.sqlite", subfolder: "MyApp")
        #expect(url.path == dataHome.path + "/MyApp/app.sqlite")
        #expect(!FileManager.default.fileExists(atPath: url.deletingLastPathComponent().path))
        let manager = try DBBManager.createDatabaseInDocumentsFolder(named: "app.sqlite", subfolder: "MyApp")
        #expect(manager.databaseURL?.path == url.path)
        try manager.addTableClasses([Shape.self])
        try manager.close()
        #expect(FileManager.default.fileExists(atPath: url.path))
        for bad in ["", "a/b", ".."] {
            #expect(throws: DBBError.self) { _ = try DBBManager.createDatabaseInDocumentsFolder(named: bad) }
        }
    }

    @Test func theOriginalsHelperSignaturesOpenAndRegister() throws {
        let folder = try TemporaryFolder()
        let dataHome = folder.url.appendingPathComponent("share")
        setenv("XDG_DATA_HOME", dataHome.path, 1)
        defer { unsetenv("XDG_DATA_HOME") }
        let documents = try DBBManager.createDatabaseInDocumentsFolder(named: "docs.sqlite", tableClasses: [Shape.self])
        #expect(documents.databaseURL?.path == dataHome.path + "/docs.sqlite")
        let shape = Shape(dbManager: documents)
        try shape.save()
        #expect(try Shape.fetchCount(manager: documents) == 1)
        try documents.close()

        let support = try DBBManager.createDatabaseInAppSupportFolder(
            named: "app.sqlite", subFolders: "MyApp/Databases", with: [Shape.self])
        #expect(support.databaseURL?.path == dataHome.path + "/MyApp/Databases/app.sqlite")
        #expect(try Shape.fetchCount(manager: support) == 0)
        try support.close()
        let top = try DBBManager.createDatabaseInAppSupportFolder(named: "top.sqlite", subFolders: nil, with: [])
        #expect(top.databaseURL?.path == dataHome.path + "/top.sqlite")
        try top.close()
        for bad in ["MyApp/../x", "/abs", "a//b"] {
            let error = #expect(throws: DBBError.self) {
                _ = try DBBManager.createDatabaseInAppSupportFolder(named: "x.sqlite", subFolders: bad, with: [])
            }
            #expect(error?.kind == .misuse, "\(bad)")
        }
        #expect(!FileManager.default.fileExists(atPath: dataHome.path + "/x.sqlite"))

        let memory = DBBManager.inMemoryDatabaseManager()
        try memory.addTableClasses([Shape.self])
        #expect(memory.databaseURL == nil)
    }

    @Test func theSeedsDatabaseLastErrorMessageTellsWhyASaveFailed() throws {
        let manager = try DBBManager.inMemory()
        try manager.addTableClasses([Shape.self])
        #expect(manager.database.lastErrorMessage() == "")
        let shape = Shape(dbManager: manager)
        shape.label = "square"
        try manager.queue.inDatabase { db in try db.execute("DROP TABLE Shape") }
        // As seed 001 writes it.
        if !shape.saveToDB() {
            print(manager.database.lastErrorMessage())
        }
        #expect(manager.database.lastErrorMessage().contains("Shape"))
        #expect(manager.database.lastErrorMessage() == manager.errorMessage())
    }

    @Test func theSeedsMappingByTableNameAndCGFloatProperties() throws {
        let test = try TestManager(.memory, classes: [Shape.self])
        let shape = Shape(dbManager: test.manager)
        (shape.label, shape.width, shape.ratios, shape.depth) = ("square", 2.5, [1, 0.5], nil)
        try shape.save()
        let loaded = try #require(try Shape.fetchOne(id: shape.idNum, manager: test.manager))
        #expect((loaded.label, loaded.width, loaded.ratios, loaded.depth) == ("square", 2.5, [1, 0.5], nil))
        let columns = try test.sql { db in try db.columns(in: "Shape").map { "\($0.name) \($0.declaredType)" } }
        #expect(
            columns == [
                "id INTEGER", "createdTime REAL", "modifiedTime REAL", "depth REAL", "shapeLabel TEXT", "width REAL",
            ])
        #expect(try test.sql { db in try db.indexNames(in: "Shape") } == ["Shape_shapeLabel"])
    }

    @Test func sortColumnsMayBeColumnNames() throws {
        let world = try DBBObjectsQueryTests.world()
        let byColumn = DBBQueryOptions.options(sortColumns: ["itemName"], ascendingSort: false)
        #expect(
            try Project.fetch(options: byColumn, manager: world.manager).map(\.name) == [
                "Cygnus", "Borealis", "Apollo",
            ])
        let byProperty = DBBQueryOptions.options(sortColumns: ["name"], ascendingSort: false)
        #expect(
            try Project.fetch(options: byProperty, manager: world.manager).map(\.name) == [
                "Cygnus", "Borealis", "Apollo",
            ])
        let bad = DBBQueryOptions.options(sortColumns: ["nothing"])
        #expect(throws: DBBError.self) { try Project.fetch(options: bad, manager: world.manager) }
    }

    @Test func groupByWorksWithConditionsSortingAndPaging() throws {
        let world = try DBBObjectsQueryTests.world()
        // People: Ann Lee 34, Bo O'Brien 51, Cy Lee 28, Di Park 51, Ed Ng 40.
        var options = DBBQueryOptions.options(sortColumns: ["lastName"])
        options.groupBy = ["lastName"]
        let firstOfEachName = try Person.fetch(options: options, manager: world.manager)
        #expect(firstOfEachName.map(\.firstName) == ["Ann", "Ed", "Bo", "Di"])
        #expect(firstOfEachName.allSatisfy { $0.age > 0 })  // every property is loaded
        #expect(try Person.fetchCount(options: options, manager: world.manager) == 4)

        options.addCondition("age < ?", 50)
        #expect(try Person.fetch(options: options, manager: world.manager).map(\.firstName) == ["Ann", "Ed"])
        options.limit = 1
        options.offset = 1
        #expect(try Person.fetch(options: options, manager: world.manager).map(\.firstName) == ["Ed"])
        #expect(try Person.fetchCount(options: options, manager: world.manager) == 1)

        var byAge = DBBQueryOptions.options(sortColumns: ["age"], ascendingSort: false)
        byAge.groupBy = ["age"]
        #expect(try Person.fetch(options: byAge, manager: world.manager).map(\.age) == [51, 40, 34, 28])
        byAge.groupBy = ["nicknames"]
        #expect(throws: DBBError.self) { try Person.fetch(options: byAge, manager: world.manager) }
    }
}
