import DBBObjects
import Foundation
import Testing

/// Classes laid out as DBBBuilder on Apple platforms lays them out. Nested so that their names (and
/// tables, `Person` and `Team`) do not collide with the other tests' models.
enum AppleLayout {
    final class Person: DBBTableObject {
        var firstName = ""
        var lastName = ""
        var age = 0
        var isMember = false
        var birthday: Date?
        var height = 0.0
        var nicknames: [String] = []
        var visits: [Date] = []
        var luckyNumbers: [Int] = []
        var answers: [Bool] = []
        var photo: Data?
        var spouse: Person?

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                [
                    "firstName": .init(\Person.firstName), "lastName": .init(\Person.lastName),
                    "age": .init(\Person.age), "isMember": .init(\Person.isMember),
                    "birthday": .init(\Person.birthday), "height": .init(\Person.height),
                    "nicknames": .init(\Person.nicknames), "visits": .init(\Person.visits),
                    "luckyNumbers": .init(\Person.luckyNumbers), "answers": .init(\Person.answers),
                    "photo": .init(\Person.photo), "spouse": .init(\Person.spouse),
                ], for: self, indexer: DBBIndexer(columnsToIndex: ["lastName"]))
        }
    }

    final class Team: DBBTableObject {
        var name = ""
        var members: [Person] = []
        var leader: Person?

        required init(dbManager: DBBManager) {
            super.init(dbManager: dbManager)
            dbManager.addPersistenceMapping(
                ["name": .init(\Team.name), "members": .init(\Team.members), "leader": .init(\Team.leader)],
                for: self)
        }
    }

    static let classes: [DBBTableObject.Type] = [Person.self, Team.self]

    /// A join table as DBBBuilder on Apple platforms creates it (owner column `<Table>_id`), and its index.
    static func joinTable(_ table: String, _ column: String, _ type: String) -> String {
        """
        CREATE TABLE IF NOT EXISTS \(table)_\(column) (id Integer PRIMARY KEY AUTOINCREMENT, \(table)_id Integer, \
        \(column) \(type));
        CREATE INDEX IF NOT EXISTS \(table)_\(column)_idx ON \(table)_\(column) (\(table)_id);

        """
    }

    /// Seconds since 2001-01-01 used in the hand-written file.
    static let annCreated = 700_000_000.25
    static let annModified = 700_000_100.5
    static let annBirthday = -300_000_000.0
    static let visit1 = 710_000_000.0  // whole seconds: NUMERIC affinity stores it as INTEGER
    static let visit2 = 710_086_400.75

    /// A database file written with plain SQL, the way DBBBuilder on Apple platforms writes one: its DDL
    /// (columns in another order than ours, owner columns spelled `_id`), dates as seconds since
    /// 2001-01-01, booleans as 0/1, references as ids in join tables, one join row per element.
    static func writeAppleFile(at url: URL) throws {
        let db = try DBBDatabase(url: url)
        try db.executeStatements(
            """
            CREATE TABLE IF NOT EXISTS DBVersion (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, \
            modifiedTime Real, version Real);
            INSERT INTO DBVersion (createdTime, modifiedTime, version) VALUES (690000000, 690000000, 2.0);
            CREATE TABLE IF NOT EXISTS Person (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, \
            modifiedTime Real, lastName Text, firstName Text, isMember Boolean, age Integer, height Real, birthday Real);
            CREATE INDEX IF NOT EXISTS Person_lastName ON Person (lastName);
            """
                + joinTable("Person", "nicknames", "Text") + joinTable("Person", "visits", "DateTimeStamp")
                + joinTable("Person", "luckyNumbers", "Integer") + joinTable("Person", "answers", "Boolean")
                + joinTable("Person", "photo", "BLOB") + joinTable("Person", "spouse", "Integer")
                    + """
                    CREATE TABLE IF NOT EXISTS Team (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, \
                    modifiedTime Real, name Text);
                    """
                + joinTable("Team", "members", "Integer") + joinTable("Team", "leader", "Integer")
                    + """
                    INSERT INTO Person VALUES (1, \(annCreated), \(annModified), 'Lee', 'Ann', 1, 41, 1.68, \(annBirthday));
                    INSERT INTO Person VALUES (2, 700000200, 700000200, 'Berg', 'Bo', 0, 39, 1.8, NULL);
                    INSERT INTO Person_nicknames (Person_id, nicknames) VALUES (2, 'Bobo'), (1, 'A'), (1, 'Annie');
                    INSERT INTO Person_visits (Person_id, visits) VALUES (1, \(visit1)), (1, \(visit2));
                    INSERT INTO Person_luckyNumbers (Person_id, luckyNumbers) VALUES (1, 7), (1, 3), (1, 7);
                    INSERT INTO Person_answers (Person_id, answers) VALUES (1, 1), (1, 0);
                    INSERT INTO Person_photo (Person_id, photo) VALUES (1, x'89504E47');
                    INSERT INTO Person_spouse (Person_id, spouse) VALUES (1, 2), (2, 1);
                    INSERT INTO Team VALUES (1, 700000300, 700000300, 'Core');
                    INSERT INTO Team_members (Team_id, members) VALUES (1, 2), (1, 1);
                    INSERT INTO Team_leader (Team_id, leader) VALUES (1, 1);
                    """)
        try db.close()
    }
}

@Suite struct CompatibilityTests {
    typealias Person = AppleLayout.Person
    typealias Team = AppleLayout.Team

    func schema(_ manager: DBBManager) throws -> [String] {
        try manager.queue.inDatabase { db in
            try db.fetchValues(
                String.self,
                "SELECT type || ' ' || name || ': ' || sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
        }
    }

    @Test func readsAndUpdatesADatabaseWrittenByDBBBuilderOnApplePlatforms() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("apple.sqlite")
        try AppleLayout.writeAppleFile(at: url)
        let manager = try DBBManager(databaseURL: url)
        let before = try schema(manager)
        try manager.addTableClasses(AppleLayout.classes)
        #expect(try schema(manager) == before)  // the layout is already complete: nothing to add
        #expect(manager.hasLatestDBVersion(currentVersion: 2.0) == (true, 2.0))

        let people = Person.allInstances(manager: manager)
        #expect(people.map(\.firstName) == ["Ann", "Bo"])
        let ann = people[0]
        let bo = people[1]
        #expect(ann.idNum == 1 && ann.lastName == "Lee" && ann.age == 41 && ann.height == 1.68)
        #expect(ann.isMember && !bo.isMember)
        #expect(ann.createdTime == Date(timeIntervalSinceReferenceDate: AppleLayout.annCreated))
        #expect(ann.modifiedTime == Date(timeIntervalSinceReferenceDate: AppleLayout.annModified))
        #expect(ann.birthday == Date(timeIntervalSinceReferenceDate: AppleLayout.annBirthday))
        #expect(bo.birthday == nil)
        #expect(ann.nicknames == ["A", "Annie"] && bo.nicknames == ["Bobo"])
        #expect(
            ann.visits == [
                Date(timeIntervalSinceReferenceDate: AppleLayout.visit1),
                Date(timeIntervalSinceReferenceDate: AppleLayout.visit2),
            ])
        #expect(ann.luckyNumbers == [7, 3, 7])
        #expect(ann.answers == [true, false])
        #expect(ann.photo == Data([0x89, 0x50, 0x4E, 0x47]))
        #expect(bo.photo == nil && bo.visits.isEmpty)
        #expect(ann.spouse === bo && bo.spouse === ann)

        let team = try #require(Team.allInstances(manager: manager).first)
        #expect(team.name == "Core")
        #expect(team.members.map(\.firstName) == ["Bo", "Ann"])
        #expect(team.leader?.firstName == "Ann")

        // Update through the API; the file keeps DBBBuilder's layout and values.
        ann.age = 42
        ann.isMember = false
        ann.nicknames = ["Nan"]
        ann.visits.append(Date(timeIntervalSinceReferenceDate: 720_000_000.5))
        try ann.save()
        let carl = Person(dbManager: manager)
        carl.firstName = "Carl"
        carl.spouse = bo
        team.members.append(carl)
        try team.save()
        #expect(try schema(manager) == before)

        let rows = try manager.queue.inDatabase { db in
            try db.fetchDictionary(
                "SELECT id, age, isMember, createdTime, modifiedTime > \(AppleLayout.annModified) AS touched "
                    + "FROM Person ORDER BY id")
        }
        #expect(rows.count == 3)
        #expect(rows[0]["age"] == .integer(42) && rows[0]["isMember"] == .integer(0))
        #expect(rows[0]["createdTime"] == .real(AppleLayout.annCreated))
        #expect(rows[0]["touched"] == .integer(1))
        #expect(rows[2]["id"] == .integer(3))
        let joins = try manager.queue.inDatabase { db in
            (
                nicknames: try db.fetchValues(
                    String.self, "SELECT Person_id || ':' || nicknames FROM Person_nicknames ORDER BY id"),
                visits: try db.fetchValues(
                    String.self,
                    "SELECT typeof(visits) || ':' || visits FROM Person_visits WHERE Person_id = 1 ORDER BY id"),
                members: try db.fetchValues(
                    Int64.self, "SELECT members FROM Team_members WHERE Team_id = 1 ORDER BY id"),
                spouses: try db.fetchValues(
                    String.self, "SELECT Person_id || ':' || spouse FROM Person_spouse ORDER BY Person_id, id")
            )
        }
        #expect(joins.nicknames == ["2:Bobo", "1:Nan"])
        #expect(joins.visits == ["integer:710000000", "real:710086400.75", "real:720000000.5"])
        #expect(joins.members == [2, 1, 3])
        #expect(joins.spouses == ["1:2", "2:1", "3:2"])

        // And a fresh manager reads the updated file back.
        let reader = try DBBManager(databaseURL: url)
        try reader.addTableClasses(AppleLayout.classes)
        let reread = try #require(try Team.fetchOne(id: 1, manager: reader))
        #expect(reread.members.map(\.firstName) == ["Bo", "Ann", "Carl"])
        #expect(reread.members[1].nicknames == ["Nan"] && reread.members[1].age == 42 && !reread.members[1].isMember)
        #expect(reread.members[2].spouse === reread.members[0])
        #expect(try sqlite3Shell(url, "PRAGMA integrity_check") == "ok")
    }

    /// The layout written here, derived from DESIGN §3 (and stored by SQLite without `IF NOT EXISTS`).
    static let expectedSchema: [String] = {
        func join(_ table: String, _ column: String, _ type: String) -> [String] {
            [
                "index \(table)_\(column)_idx: CREATE INDEX \(table)_\(column)_idx ON \(table)_\(column) (\(table)_ID)",
                "table \(table)_\(column): CREATE TABLE \(table)_\(column) (id Integer PRIMARY KEY AUTOINCREMENT, "
                    + "\(table)_ID Integer, \(column) \(type))",
            ]
        }
        let entries =
            [
                "table DBVersion: CREATE TABLE DBVersion (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, "
                    + "modifiedTime Real, version Real)",
                "table Person: CREATE TABLE Person (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, "
                    + "modifiedTime Real, age Integer, birthday Real, firstName Text, height Real, isMember Boolean, "
                    + "lastName Text)",
                "index Person_lastName: CREATE INDEX Person_lastName ON Person (lastName)",
                "table Team: CREATE TABLE Team (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, "
                    + "modifiedTime Real, name Text)",
                "table sqlite_sequence: CREATE TABLE sqlite_sequence(name,seq)",
            ] + join("Person", "answers", "Boolean") + join("Person", "luckyNumbers", "Integer")
            + join("Person", "nicknames", "Text") + join("Person", "photo", "BLOB")
            + join("Person", "spouse", "Integer")
            + join("Person", "visits", "DateTimeStamp") + join("Team", "leader", "Integer")
            + join("Team", "members", "Integer")
        // In sqlite_master's name order, as `schema(_:)` reads it.
        func name(_ entry: String) -> Substring { entry.prefix(while: { $0 != ":" }).drop(while: { $0 != " " }) }
        return entries.sorted { name($0) < name($1) }
    }()

    @Test(arguments: Storage.allCases) func writesDBBBuildersLayout(storage: Storage) throws {
        let test = try TestManager(storage, classes: AppleLayout.classes)
        let manager = test.manager
        #expect(try schema(manager) == Self.expectedSchema)

        let ann = Person(dbManager: manager)
        ann.firstName = "Ann"
        ann.isMember = true
        ann.birthday = Date(timeIntervalSinceReferenceDate: -1_234.5)
        ann.height = 1.68
        ann.nicknames = ["A", "Annie"]
        ann.visits = [Date(timeIntervalSinceReferenceDate: 10.25), Date(timeIntervalSinceReferenceDate: 20)]
        ann.answers = [false, true]
        ann.photo = Data([1, 2, 3])
        let bo = Person(dbManager: manager)
        bo.firstName = "Bo"
        ann.spouse = bo
        bo.spouse = ann
        let team = Team(dbManager: manager)
        team.name = "Core"
        team.members = [bo, ann]
        team.leader = ann
        try team.save()
        let saved = try #require(ann.createdTime)

        let values = try test.sql { db in
            (
                person: try db.fetchDictionary(
                    "SELECT typeof(createdTime) AS t, createdTime, isMember, typeof(isMember) AS b, birthday, height "
                        + "FROM Person WHERE id = ?", ann.idNum),
                nicknames: try db.fetchValues(
                    String.self, "SELECT Person_ID || ':' || nicknames FROM Person_nicknames ORDER BY id"),
                visits: try db.fetchValues(
                    String.self, "SELECT typeof(visits) || ':' || visits FROM Person_visits ORDER BY id"),
                answers: try db.fetchValues(Int64.self, "SELECT answers FROM Person_answers ORDER BY id"),
                photo: try db.fetchValues(String.self, "SELECT typeof(photo) || ':' || hex(photo) FROM Person_photo"),
                spouses: try db.fetchValues(
                    String.self, "SELECT Person_ID || ':' || spouse FROM Person_spouse ORDER BY id"),
                members: try db.fetchValues(
                    String.self, "SELECT Team_ID || ':' || members FROM Team_members ORDER BY id"),
                leader: try db.fetchValues(String.self, "SELECT Team_ID || ':' || leader FROM Team_leader")
            )
        }
        #expect(
            values.person == [
                [
                    "t": .text("real"), "createdTime": .real(saved.timeIntervalSinceReferenceDate),
                    "isMember": .integer(1), "b": .text("integer"), "birthday": .real(-1_234.5), "height": .real(1.68),
                ]
            ])
        let (a, b) = (ann.idNum, bo.idNum)
        #expect(values.nicknames == ["\(a):A", "\(a):Annie"])
        #expect(values.visits == ["real:10.25", "integer:20"])
        #expect(values.answers == [0, 1])
        #expect(values.photo == ["blob:010203"])
        #expect(Set(values.spouses) == ["\(a):\(b)", "\(b):\(a)"])
        #expect(values.members == ["\(team.idNum):\(b)", "\(team.idNum):\(a)"])
        #expect(values.leader == ["\(team.idNum):\(a)"])
    }
}
