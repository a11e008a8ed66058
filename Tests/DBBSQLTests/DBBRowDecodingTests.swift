import DBBSQL
import Foundation
import Testing

@Suite("Decoding rows into Decodable types")
struct DBBRowDecodingTests {
    struct Address: Codable, Equatable {
        var street: String
        var zip: String
    }

    struct Person: Decodable, Equatable {
        var id: Int64
        var firstName: String
        var nickname: String?
        var age: UInt8
        var height: Double
        var isAdmin: Bool
        var born: Date
        var homepage: URL?
        var avatar: Data
        var tags: [String]
        var address: Address
        var scores: [String: Int]?

        enum CodingKeys: String, CodingKey {
            case id, nickname, age, height, born, homepage, avatar, tags, address, scores
            case firstName = "first_name"
            case isAdmin = "is_admin"
        }
    }

    private func makeFixture(_ db: DBBDatabase) throws {
        try db.execute(
            """
            CREATE TABLE person (id INTEGER PRIMARY KEY, first_name TEXT, nickname TEXT, age INTEGER, height REAL,
                                 is_admin INTEGER, born REAL, homepage TEXT, avatar BLOB, tags TEXT, address TEXT,
                                 scores TEXT)
            """)
        let insert = """
            INSERT INTO person (first_name, nickname, age, height, is_admin, born, homepage, avatar, tags, address, scores)
            VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?)
            """
        try db.execute(
            insert, "Ann", "annie", 41, 1.72, true, Date(timeIntervalSince1970: 100),
            URL(string: "https://ann.example"),
            Data([1, 2, 3]), ["a", "b"], ["street": "Main St 1", "zip": "01581"], ["math": 3])
        try db.execute(
            insert, "Bo", nil, 9, 1.2, false, Date(timeIntervalSince1970: -5.5), nil, Data(), [String](),
            ["street": "", "zip": "0"], nil)
    }

    @Test(
        "column names map to properties through CodingKeys; dates, URLs, data and JSON columns decode",
        arguments: DatabaseKind.allCases)
    func decodesEveryKind(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            try makeFixture(db)
            let people = try db.fetchAll(Person.self, "SELECT * FROM person ORDER BY id")
            #expect(
                people == [
                    Person(
                        id: 1, firstName: "Ann", nickname: "annie", age: 41, height: 1.72, isAdmin: true,
                        born: Date(timeIntervalSince1970: 100), homepage: URL(string: "https://ann.example"),
                        avatar: Data([1, 2, 3]), tags: ["a", "b"], address: Address(street: "Main St 1", zip: "01581"),
                        scores: ["math": 3]),
                    Person(
                        id: 2, firstName: "Bo", nickname: nil, age: 9, height: 1.2, isAdmin: false,
                        born: Date(timeIntervalSince1970: -5.5), homepage: nil, avatar: Data(), tags: [],
                        address: Address(street: "", zip: "0"), scores: nil),
                ])
            let bo = try db.fetchOne(Person.self, "SELECT * FROM person WHERE first_name = ?", "Bo")
            #expect(bo?.id == 2)
            #expect(try db.fetchOne(Person.self, "SELECT * FROM person WHERE id = :id", arguments: ["id": 9]) == nil)
        }
    }

    @Test("dates decode with the connection's date strategy")
    func dateStrategy() throws {
        struct Event: Decodable { var at: Date }
        let db = try DBBDatabase.inMemory()
        db.codingOptions.dateStrategy = .secondsSinceReferenceDate
        #expect(try db.fetchOne(Event.self, "SELECT 0.0 AS at")?.at == Date(timeIntervalSinceReferenceDate: 0))
        db.codingOptions.dateStrategy = .secondsSince1970
        #expect(try db.fetchOne(Event.self, "SELECT 0.0 AS at")?.at == Date(timeIntervalSince1970: 0))
        #expect(
            try db.fetchOne(Event.self, "SELECT '2021-01-01 00:00:00' AS at")?.at
                == Date(timeIntervalSince1970: 1_609_459_200))
    }

    @Test("a missing column or a value that does not fit names the column")
    func decodingErrors() throws {
        struct Named: Decodable { var name: String }
        struct Counted: Decodable { var count: Int8 }
        struct Listed: Decodable { var list: [Int] }
        let db = try DBBDatabase.inMemory()
        let missing = expectDBBError { _ = try db.fetchAll(Named.self, "SELECT 1 AS other") }
        #expect(missing?.resultCode == .mismatch)
        #expect(missing?.message.contains("no column named name") == true)
        #expect(missing?.sql == "SELECT 1 AS other")
        let null = expectDBBError { _ = try db.fetchAll(Named.self, "SELECT NULL AS name") }
        #expect(null?.message.contains("column name holds null") == true)
        let overflow = expectDBBError { _ = try db.fetchAll(Counted.self, "SELECT 1000 AS count") }
        #expect(overflow?.message.contains("column count") == true)
        let badJSON = expectDBBError { _ = try db.fetchAll(Listed.self, "SELECT 'oops' AS list") }
        #expect(badJSON?.resultCode == .mismatch)
        #expect(badJSON?.message.contains("list") == true)
    }
}
