import DBBObjects
import DBBQuery
import Foundation
import Testing

/// A person on a team; `mentor` leads one reference further.
final class Member: DBBTableObject {
    var lastName = ""
    var age = 0
    var nickname: String?
    var mentor: Member?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "lastName": .init(\Member.lastName), "age": .init(\Member.age),
                "nickname": .init(\Member.nickname), "mentor": .init(\Member.mentor),
            ], for: self)
    }
}

/// References of both layouts: `lead` in a join table (the default), `coach` in a foreign key column,
/// and an array of references.
final class Team: DBBTableObject {
    var name = ""
    var rank = 0
    var lead: Member?
    var coach: Member?
    var members: [Member] = []

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "name": .init(\Team.name), "rank": .init(\Team.rank), "lead": .init(\Team.lead),
                "coach": .init(\Team.coach, columnName: "coach_id", foreignKey: true),
                "members": .init(\Team.members),
            ], for: self)
    }
}

/// A class that is not final: the run time describes its key paths by accessor, not by name.
class Crew: DBBTableObject {
    var label = ""
    var chief: Member?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["label": .init(\Crew.label), "chief": .init(\Crew.chief)], for: self)
    }
}

@Suite struct DBBObjectsReferenceQueryTests {
    struct League: ManagerHolder {
        let test: TestManager
        var manager: DBBManager { test.manager }
        let members: [String: Member]
    }

    /// Four teams: Alpha (lead Lovelace, coach Hopper, members Lovelace+Turing+Hopper), Beta (lead Turing, no coach,
    /// members Turing+Turing's namesake), Gamma (no lead, coach Lovelace, no members), Delta (lead Hopper, coach
    /// Turing, member Hopper).
    static func league(_ storage: Storage = .file) throws -> League {
        let test = try TestManager(storage, classes: [Member.self, Team.self, Crew.self])
        let manager = test.manager
        var members: [String: Member] = [:]
        for (name, age, nickname) in [("Lovelace", 36, "Ada"), ("Turing", 41, nil), ("Hopper", 85, "Amazing")] {
            let member = Member(dbManager: manager)
            (member.lastName, member.age, member.nickname) = (name, age, nickname)
            members[name] = member
        }
        members["Turing"]!.mentor = members["Hopper"]
        members["Lovelace"]!.mentor = members["Turing"]
        let namesake = Member(dbManager: manager)
        (namesake.lastName, namesake.age) = ("Turing", 20)
        try Member.save(Array(members.values) + [namesake], manager: manager)
        let specs: [(String, Int, String?, String?, [Member])] = [
            ("Alpha", 3, "Lovelace", "Hopper", [members["Lovelace"]!, members["Turing"]!, members["Hopper"]!]),
            ("Beta", 1, "Turing", nil, [members["Turing"]!, namesake]),
            ("Gamma", 4, nil, "Lovelace", []),
            ("Delta", 2, "Hopper", "Turing", [members["Hopper"]!]),
        ]
        let teams = specs.map { name, rank, lead, coach, teamMembers -> Team in
            let team = Team(dbManager: manager)
            (team.name, team.rank, team.members) = (name, rank, teamMembers)
            team.lead = lead.flatMap { members[$0] }
            team.coach = coach.flatMap { members[$0] }
            return team
        }
        try Team.save(teams, manager: manager)
        return League(test: test, members: members)
    }

    static func names(_ options: DBBQueryOptions, _ league: League) throws -> [String] {
        try Team.fetch(options: options, manager: league.manager).map(\.name)
    }

    // MARK: Conditions by name

    @Test(arguments: Storage.allCases) func conditionsReachThroughBothReferenceLayouts(storage: Storage) throws {
        let league = try Self.league(storage)
        var byLead = DBBQueryOptions()
        byLead.addCondition("lead.lastName = ?", "Lovelace")
        #expect(try Self.names(byLead, league) == ["Alpha"])
        var byCoach = DBBQueryOptions()
        byCoach.addCondition("coach.lastName = ?", "Lovelace")
        #expect(try Self.names(byCoach, league) == ["Gamma"])
        var older = DBBQueryOptions()
        older.addCondition("coach.age > ? AND coach.nickname IS NOT NULL", 40)
        #expect(try Self.names(older, league) == ["Alpha"])
        // Two references on: the lead's mentor.
        var byMentor = DBBQueryOptions()
        byMentor.addCondition("lead.mentor.lastName = ?", "Turing")
        #expect(try Self.names(byMentor, league) == ["Alpha"])
    }

    @Test func anyElementOfAnArrayMatchesAndNoRowComesTwice() throws {
        let league = try Self.league()
        var turing = DBBQueryOptions()
        // Beta has two members named Turing: it is still returned once.
        turing.addCondition("members.lastName = ?", "Turing")
        #expect(try Self.names(turing, league) == ["Alpha", "Beta"])
        #expect(try Team.fetchCount(options: turing, manager: league.manager) == 2)
        // Both parts must hold for one member.
        var young = DBBQueryOptions()
        young.addCondition("members.lastName = ? AND members.age < ?", "Turing", 30)
        #expect(try Self.names(young, league) == ["Beta"])
    }

    @Test func referenceConditionsCombineWithOtherConditionsSortingAndPaging() throws {
        let league = try Self.league()
        var options = DBBQueryOptions.options(withConditions: ["rank > 1"], sortColumns: ["rank"], ascendingSort: false)
        options.addCondition("members.age > ?", 40)
        #expect(try Self.names(options, league) == ["Alpha", "Delta"])
        options.limit = 1
        #expect(try Self.names(options, league) == ["Alpha"])
        #expect(try Team.fetchCount(options: options, manager: league.manager) == 1)
        // OR between a plain and a reference condition.
        let either = DBBQueryOptions.options(withConditions: ["rank = 4", "OR", "lead.lastName = 'Turing'"])
        #expect(try Self.names(either, league) == ["Beta", "Gamma"])
    }

    @Test func sortingByAReferencesPropertyPutsMissingReferencesFirst() throws {
        let league = try Self.league()
        // NULL sorts first ascending: Gamma has no lead, Beta no coach.
        #expect(
            try Self.names(.options(sortColumns: ["lead.lastName"]), league) == ["Gamma", "Delta", "Alpha", "Beta"])
        #expect(
            try Self.names(.options(sortColumns: ["coach.lastName DESC"]), league) == [
                "Delta", "Gamma", "Alpha", "Beta",
            ])
        #expect(
            try Self.names(.options(sortColumns: ["lead.mentor.lastName", "name"]), league) == [
                "Delta", "Gamma", "Beta", "Alpha",
            ])
    }

    @Test func unknownNamesThroughReferencesAreClearErrors() throws {
        let league = try Self.league()
        var misspelt = DBBQueryOptions()
        misspelt.addCondition("lead.lastNmae = ?", "Lovelace")
        let error = try #require(throws: DBBError.self) { try Team.fetch(options: misspelt, manager: league.manager) }
        #expect(error.kind == .misuse && error.message.contains("lastNmae is not a mapped property of Member"))
        var mixed = DBBQueryOptions()
        mixed.addCondition("lead.lastName = ? AND rank > 1", "Lovelace")
        #expect(throws: DBBError.self) { try Team.fetch(options: mixed, manager: league.manager) }
        #expect(throws: DBBError.self) {
            try Team.fetch(options: .options(sortColumns: ["members.lastName"]), manager: league.manager)
        }
        #expect(throws: DBBError.self) {
            try Team.fetch(options: .options(sortColumns: ["name.length"]), manager: league.manager)
        }
    }

    // MARK: Typed conditions

    @Test func typedConditionsOnOwnProperties() throws {
        let league = try Self.league()
        var options = DBBQueryOptions()
        options.filter(\Team.rank > 1 && \Team.name != "Gamma")
        #expect(try Self.names(options, league) == ["Alpha", "Delta"])
        var either = DBBQueryOptions()
        either.filter(\Team.rank <= 1 || !(\Team.rank < 4))
        #expect(try Self.names(either, league) == ["Beta", "Gamma"])
        var listed = DBBQueryOptions()
        listed.filter(.in(\Team.name, ["Beta", "Delta", "Omega"]))
        listed.filter(.like(\Team.name, "%ta"))
        #expect(try Self.names(listed, league) == ["Beta", "Delta"])
        // Values are bound: a quote is just data.
        var quoted = DBBQueryOptions()
        quoted.filter(\Team.name == "Alpha' OR 1=1 --")
        #expect(try Self.names(quoted, league).isEmpty)
    }

    @Test func optionsWithTypedConditionsAndBoundValuesAreSharedByConcurrentTasks() async throws {
        let league = try Self.league()
        let manager = league.manager
        var options = DBBQueryOptions()
        options.filter(\Team.rank > 1 || .like(\Team.name, "B%"))
        options.addCondition("name <> ?", "Gamma")
        options.sorting = ["name"]
        let shared = options
        let expected = try Self.names(shared, league)
        #expect(expected == ["Alpha", "Beta", "Delta"])
        // The options cross into every task (they are Sendable); each task reads them while the others do.
        let results = try await withThrowingTaskGroup(of: [String].self) { group in
            for _ in 0..<8 {
                group.addTask { try await Team.fetch(options: shared, manager: manager).map(\.name) }
            }
            return try await group.reduce(into: []) { $0.append($1) }
        }
        #expect(results == Array(repeating: expected, count: 8))
    }

    @Test func typedConditionsBindDatesAsStoredAndAnEmptyListMatchesNothing() throws {
        let world = try DBBObjectsQueryTests.world(.file)
        var later = DBBQueryOptions()
        later.filter(\Project.startDate > Date(timeIntervalSinceReferenceDate: 0))
        #expect(try Project.fetch(options: later, manager: world.manager).map(\.name) == ["Borealis", "Cygnus"])
        var none = DBBQueryOptions()
        none.filter(.in(\Project.code, []))
        #expect(try Project.fetchCount(options: none, manager: world.manager) == 0)
        var notNone = DBBQueryOptions()
        notNone.filter(!.in(\Project.code, []))
        #expect(try Project.fetchCount(options: notNone, manager: world.manager) == 3)
    }

    @Test func theAsyncFormsTakeTypedAndReferenceConditions() async throws {
        let league = try Self.league()
        var typed = DBBQueryOptions.options(sortColumns: ["coach.lastName"])
        typed.filter(\Team.lead?.age > 40)
        typed.addCondition("members.lastName = ?", "Hopper")
        let teams = try await Team.fetch(options: typed, manager: league.manager)
        #expect(teams.map(\.name) == ["Delta"])
        #expect(try await Team.fetchCount(options: typed, manager: league.manager) == 1)
    }

    @Test func typedConditionsThroughReferences() throws {
        let league = try Self.league()
        var byLead = DBBQueryOptions()
        byLead.filter(\Team.lead?.lastName == "Lovelace")
        #expect(try Self.names(byLead, league) == ["Alpha"])
        var byCoach = DBBQueryOptions()
        byCoach.filter(\Team.coach?.age >= 41 && \Team.coach?.nickname == nil)
        #expect(try Self.names(byCoach, league) == ["Delta"])
        var byMentor = DBBQueryOptions()
        byMentor.filter(\Team.lead?.mentor?.lastName == "Turing")
        #expect(try Self.names(byMentor, league) == ["Alpha"])
        var noLead = DBBQueryOptions()
        noLead.filter(.isNil(\Team.lead) || .isNil(\Team.coach))
        #expect(try Self.names(noLead, league) == ["Beta", "Gamma"])
        // A class whose key paths are described by accessor.
        let crew = Crew(dbManager: league.manager)
        (crew.label, crew.chief) = ("Night", league.members["Hopper"])
        try crew.save()
        var byChief = DBBQueryOptions()
        byChief.filter(.like(\Crew.chief?.lastName, "Hop%"))
        #expect(try Crew.fetch(options: byChief, manager: league.manager).map(\.label) == ["Night"])
    }

    @Test func anyHoldsAWholeConditionForOneReferencedObject() throws {
        let league = try Self.league()
        var young = DBBQueryOptions()
        young.filter(.any(\Team.members, where: \Member.lastName == "Turing" && \Member.age < 30))
        #expect(try Self.names(young, league) == ["Beta"])
        var coached = DBBQueryOptions()
        coached.filter(.any(\Team.coach, where: \Member.age > 40 && \Member.nickname != nil))
        #expect(try Self.names(coached, league) == ["Alpha"])
        var mentored = DBBQueryOptions()
        mentored.filter(.any(\Team.lead, where: .any(\Member.mentor, where: \Member.lastName == "Turing")))
        #expect(try Self.names(mentored, league) == ["Alpha"])
        var throughTwo = DBBQueryOptions()
        throughTwo.filter(.any(\Team.lead?.mentor, where: \Member.lastName == "Hopper") || \Team.rank == 4)
        #expect(try Self.names(throughTwo, league) == ["Beta", "Gamma"])
        // The inner condition names the referenced class's key paths; another class's is an error.
        var wrongRoot = DBBQueryOptions()
        wrongRoot.filter(.any(\Team.members, where: \Member.age > 0 && .isNil(\Member.mentor)))
        #expect(try Self.names(wrongRoot, league) == ["Alpha", "Beta", "Delta"])
    }

    @Test func typedAndStringConditionsCombineWithSortLimitAndCount() throws {
        let league = try Self.league()
        var options = DBBQueryOptions.options(withConditions: ["rank = 4", "OR", "rank = 1"], sortColumns: ["name"])
        options.filter(\Team.name != "Beta")
        #expect(try Self.names(options, league) == ["Gamma"])
        var paged = DBBQueryOptions.options(sortColumns: ["rank"])
        paged.filter(\Team.rank > 1)
        paged.limit = 2
        #expect(try Self.names(paged, league) == ["Delta", "Alpha"])
        #expect(try Team.fetchCount(options: paged, manager: league.manager) == 2)
        paged.limit = nil
        #expect(try Team.fetchCount(options: paged, manager: league.manager) == 3)
    }

    @Test func referenceSortingAndConditionsWorkWithGroupingAndDistinct() throws {
        let league = try Self.league()
        // Each rank is its own group; the groups are ordered by their representative's lead.
        var grouped = DBBQueryOptions.options(sortColumns: ["lead.lastName DESC"])
        grouped.groupBy = ["rank"]
        grouped.addCondition("members.age > ?", 30)
        #expect(try Self.names(grouped, league) == ["Beta", "Alpha", "Delta"])
        #expect(try Team.fetchCount(options: grouped, manager: league.manager) == 3)
        var distinct = DBBQueryOptions.options(properties: ["rank"], sortColumns: ["coach.age"], distinct: true)
        distinct.filter(.isNil(\Team.lead) || \Team.rank < 3)
        #expect(try Team.fetch(options: distinct, manager: league.manager).map(\.rank) == [1, 4, 2])
    }

    @Test func everyClassesIdAndTimestampsAreNamedThroughDBBTableObject() throws {
        let league = try Self.league()
        let ids = try Team.fetchAll(manager: league.manager).map(\.idNum)
        var options = DBBQueryOptions()
        options.filter(.in(\DBBTableObject.idNum, [ids[1], ids[3]]))
        options.filter(\DBBTableObject.createdTime > Date(timeIntervalSinceReferenceDate: 0))
        #expect(try Self.names(options, league) == ["Beta", "Delta"])
        var flags = DBBQueryOptions()
        flags.filter(\Sample.flag == true)
        let test = try TestManager(.memory)
        let sample = Sample(dbManager: test.manager)
        sample.flag = true
        try sample.save()
        try Sample(dbManager: test.manager).save()
        #expect(try Sample.fetch(options: flags, manager: test.manager).map(\.idNum) == [sample.idNum])
    }

    @Test func aKeyPathThatIsNotMappedIsAnErrorNamingIt() throws {
        let league = try Self.league()
        var other = DBBQueryOptions()
        other.filter(\Member.age > 30)
        let error = try #require(throws: DBBError.self) { try Team.fetch(options: other, manager: league.manager) }
        #expect(
            error.kind == .misuse && error.message.contains("key path \\Member.age is not a mapped property of Team"))
        var unmapped = DBBQueryOptions()
        unmapped.filter(\Team.rank > 0 && \Team.creationDescription == "x")
        let second = try #require(throws: DBBError.self) { try Team.fetch(options: unmapped, manager: league.manager) }
        // A computed property's key path is described by its accessor and type: the message shows that.
        #expect(second.message.hasPrefix("key path \\Team.") && second.message.contains("(String)"))
        #expect(second.message.contains("is not a mapped property of Team"))
    }

    @Test func theOnDiskLayoutIsUnchanged() throws {
        let league = try Self.league()
        let schema = {
            try league.sql { db in
                try db.fetchValues(String.self, "SELECT sql FROM sqlite_master WHERE sql IS NOT NULL ORDER BY name")
            }
        }
        let before = try schema()
        #expect(
            before.contains(
                "CREATE TABLE Team_lead (id Integer PRIMARY KEY AUTOINCREMENT, Team_ID Integer, lead Integer)"))
        #expect(before.contains { $0.hasPrefix("CREATE TABLE Team (") && $0.contains("coach_id Integer") })
        var options = DBBQueryOptions.options(sortColumns: ["lead.lastName"])
        options.filter(\Team.lead?.lastName != "Nobody")
        options.addCondition("members.age > ?", 0)
        _ = try Team.fetch(options: options, manager: league.manager)
        #expect(try schema() == before)
    }
}

extension Team {
    /// A computed property: not mapped, so not a condition's subject.
    var creationDescription: String { "team \(name)" }
}

@Suite struct DBBObjectsTypedConditionInheritanceTests {
    @Test func aPropertyASuperclassMapsIsNamedThroughTheSuperclass() throws {
        let test = try TestManager(.memory, classes: [MappingGuide.Pet.self])
        for (name, legs, owner) in [("Rex", 3, "Ann"), ("Tom", 4, "Bo"), ("Kit", 4, "Ann")] {
            let pet = MappingGuide.Pet(dbManager: test.manager)
            (pet.name, pet.legs, pet.owner) = (name, legs, owner)
            try pet.save()
        }
        // `name` is mapped by Animal, `legs` by Mammal, `owner` by Pet.
        var options = DBBQueryOptions()
        options.filter(\MappingGuide.Mammal.legs == 4)
        options.filter(\MappingGuide.Pet.owner == "Ann")
        #expect(try MappingGuide.Pet.fetch(options: options, manager: test.manager).map(\.name) == ["Kit"])
        var byName = DBBQueryOptions()
        byName.filter(\MappingGuide.Animal.name != "Rex")
        #expect(try MappingGuide.Pet.fetch(options: byName, manager: test.manager).map(\.name) == ["Tom", "Kit"])
        // The run time gives `\Pet.name` an accessor of its own, which no mapping entry has.
        var throughLeaf = DBBQueryOptions()
        throughLeaf.filter(\MappingGuide.Pet.name == "Rex")
        let error = try #require(throws: DBBError.self) {
            try MappingGuide.Pet.fetch(options: throughLeaf, manager: test.manager)
        }
        #expect(error.recoverySuggestion?.contains("superclass") == true)
    }
}
