import CSQLite
import DBBBuilder
import Foundation

/// A query over 100,000 objects — two conditions, one on a join property, and a sort — through
/// `DBBQueryOptions`, against the same SQL and the same object building written by hand with the sqlite3
/// C API, in the same run. Target: at most 1.5× raw.
enum QueryBenchmark {
    static let itemCount = 100_000
    static let repetitions = 5
    static let palette = ["red", "green", "blue", "amber"]

    static func run() {
        runWorkload("query") {
            try withTemporaryFolder("dbb-query") { folder in
                print(
                    "query: \(itemCount) objects; \"score >= 500\" AND \"tags = 'red'\" (a join property), sorted by name"
                )
                print("workload                             raw (s)    DBBObjects (s)   ratio   target")
                try measure(QueryItem.self, label: "key paths", folder: folder)
                try measure(FastQueryItem.self, label: "get/set closures", folder: folder)
            }
        }
    }

    private static func measure(_ type: QueryItem.Type, label: String, folder: URL) throws {
        let url = folder.appendingPathComponent("\(type.tableName).sqlite")
        let manager = try DBBManager(databaseURL: url)
        try manager.addTableClasses([type])
        let items = (0..<itemCount).map { index -> QueryItem in
            let item = type.init(dbManager: manager)
            item.name = "item \((index &* 7919) % itemCount)"
            item.score = (index &* 31) % 1000
            item.value = Double(index) / 8
            item.tags = [palette[index % 4], palette[(index / 4) % 4]]
            return item
        }
        try type.save(items, manager: manager)

        var options = DBBQueryOptions.options(withConditions: ["score >= 500", "tags = 'red'"], sortColumns: ["name"])
        options.distinct = false
        let reader = try RawDatabase(url)
        var apiResult: [QueryItem] = []
        var rawResult: [QueryItem] = []
        let (apiTime, rawTime) = try bestOf(
            repetitions, { apiResult = try type.fetch(options: options, manager: manager) },
            { rawResult = try rawQuery(reader, type: type, manager: manager) })
        guard apiResult.map(\.idNum) == rawResult.map(\.idNum), apiResult.map(\.tags) == rawResult.map(\.tags),
            apiResult.map(\.name) == rawResult.map(\.name), !apiResult.isEmpty
        else {
            throw RawError(message: "the two sides returned different objects")
        }
        report("query \(apiResult.count) of 100,000 (\(label))", raw: rawTime, api: apiTime, target: 1.5)
    }

    /// The library's SQL, run and turned into objects by hand.
    private static func rawQuery(_ raw: RawDatabase, type: QueryItem.Type, manager: DBBManager) throws -> [QueryItem] {
        let table = type.tableName
        var items: [QueryItem] = []
        var byID: [Int64: QueryItem] = [:]
        try raw.forEachRow(
            "SELECT id, createdTime, modifiedTime, name, score, value FROM \(table) WHERE (score >= 500) AND "
                + "(id IN (SELECT \(table)_ID FROM \(table)_tags WHERE tags = 'red')) ORDER BY name ASC, id ASC"
        ) { row in
            let item = type.init(dbManager: manager)
            item.idNum = sqlite3_column_int64(row, 0)
            item.createdTime = Date(timeIntervalSinceReferenceDate: sqlite3_column_double(row, 1))
            item.modifiedTime = Date(timeIntervalSinceReferenceDate: sqlite3_column_double(row, 2))
            item.name = text(row, 3)
            item.score = Int(sqlite3_column_int64(row, 4))
            item.value = sqlite3_column_double(row, 5)
            items.append(item)
            byID[item.idNum] = item
        }
        let ids = "[" + items.map { String($0.idNum) }.joined(separator: ",") + "]"
        try raw.forEachRow(
            "SELECT \(table)_ID, tags FROM \(table)_tags WHERE \(table)_ID IN (SELECT value FROM json_each(?)) "
                + "ORDER BY \(table)_ID, id", binding: [ids]
        ) { row in
            byID[sqlite3_column_int64(row, 0)]?.tags.append(text(row, 1))
        }
        return items
    }
}

/// Three scalars and a string array, mapped by key path.
class QueryItem: DBBTableObject {
    var name = ""
    var score = 0
    var value = 0.0
    var tags: [String] = []

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "name": .init(\QueryItem.name), "score": .init(\QueryItem.score), "value": .init(\QueryItem.value),
                "tags": .init(\QueryItem.tags),
            ], for: self)
    }
}

/// The same properties with direct get/set closures for the scalars (its own table).
final class FastQueryItem: QueryItem {
    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "name": .init(\FastQueryItem.name, get: { $0.name }, set: { $0.name = $1 }),
                "score": .init(\FastQueryItem.score, get: { $0.score }, set: { $0.score = $1 }),
                "value": .init(\FastQueryItem.value, get: { $0.value }, set: { $0.value = $1 }),
            ], for: self)
    }
}
