import DBBQuery
import DBBSQL
import DBBSchema
import Foundation
import Testing

final class Target: DBBTableRepresentable {
    var name = ""
    var score = 0
    var startDate: Date?
    var tags: [String] = []
    var owner: Target?
    var members: [Target] = []
}

/// The table the plans are built for: `Project` with a renamed column, a scalar, a date, and three joins.
let projectTable = try! DBBTableDescription(
    tableName: "Project",
    properties: [
        "name": .init(\Target.name, columnName: "itemName"),
        "score": .init(\Target.score),
        "startDate": .init(\Target.startDate),
        "tags": .init(\Target.tags),
        "owner": .init(\Target.owner),
        "members": .init(\Target.members),
    ])

@Suite struct DBBQueryPlanTests {
    @Test func noOptionsMeansEveryRowInIdOrder() throws {
        let plan = try DBBQueryPlan(options: DBBQueryOptions(), table: projectTable)
        #expect(plan.whereSQL == "")
        #expect(plan.orderSQL == " ORDER BY id")
        #expect(plan.limitSQL == "")
        #expect(plan.properties == nil && plan.joinProperties == nil && plan.distinctColumns == nil)
    }

    @Test func conditionsAreJoinedWithAndAndTranslatedToColumns() throws {
        let options = DBBQueryOptions.options(withConditions: ["name = 'Apollo'", "score > 50"])
        let plan = try DBBQueryPlan(options: options, table: projectTable)
        #expect(plan.whereSQL == " WHERE (itemName = 'Apollo') AND (score > 50)")
    }

    @Test func anOrItemSwitchesToOrAlsoWithJoinProperties() throws {
        let options = DBBQueryOptions.options(withConditions: ["score > 50", "OR", "tags = 'urgent'"])
        let plan = try DBBQueryPlan(options: options, table: projectTable)
        #expect(
            plan.whereSQL
                == " WHERE (score > 50) OR (id IN (SELECT Project_ID FROM Project_tags WHERE tags = 'urgent'))")
    }

    @Test func referenceAndArrayConditionsMatchThroughTheirJoinTables() throws {
        let plan = try DBBQueryPlan(
            options: .options(withConditions: ["owner = 5", "members IN (3, 7)"]), table: projectTable)
        #expect(
            plan.whereSQL
                == " WHERE (id IN (SELECT Project_ID FROM Project_owner WHERE owner = 5))"
                + " AND (id IN (SELECT Project_ID FROM Project_members WHERE members IN (3, 7)))")
    }

    @Test func textInsideQuotesIsNeverTranslated() throws {
        let plan = try DBBQueryPlan(
            options: .options(withConditions: ["name = 'name score tags'"]), table: projectTable)
        #expect(plan.whereSQL == " WHERE (itemName = 'name score tags')")
    }

    @Test func boundConditionsCarryTheirValues() throws {
        var options = DBBQueryOptions()
        options.addCondition("name = ?", "O'Brien")
        options.addCondition("score BETWEEN ? AND ?", 1, 9)
        options.addCondition("startDate > ?", Date(timeIntervalSinceReferenceDate: 100))
        let plan = try DBBQueryPlan(options: options, table: projectTable)
        #expect(plan.whereSQL == " WHERE (itemName = ?) AND (score BETWEEN ? AND ?) AND (startDate > ?)")
        // Dates bind as seconds since 2001, as they are stored.
        #expect(plan.arguments == [.text("O'Brien"), .integer(1), .integer(9), .real(100)])
    }

    @Test func argumentsAreStoredAsTheValuesTheFetchBindsAndAnUnstorableOneFailsTheFetch() throws {
        var options = DBBQueryOptions()
        options.addCondition("startDate > ? AND score < ?", Date(timeIntervalSinceReferenceDate: 100), UInt64.max)
        #expect(options.arguments.map { $0 as? DBBValue } == [.real(100), .null])
        let error = try #require(throws: DBBError.self) { try DBBQueryPlan(options: options, table: projectTable) }
        #expect(error.resultCode == .mismatch && error.message.contains("Int64.max"))
        options.arguments = ["x", nil, 3]
        #expect(options.arguments.map { $0 as? DBBValue } == [.text("x"), .null, .integer(3)])
        options.filter(\Target.score == 4)
        options.conditions = ["name = ? OR name = ? OR score = ?"]
        let plan = try DBBQueryPlan(options: options, table: projectTable, schema: ReferenceSchema())
        #expect(plan.arguments == [.text("x"), .null, .integer(3), .integer(4)])
    }

    @Test func aWrongNumberOfBoundValuesIsAnError() throws {
        var options = DBBQueryOptions.options(withConditions: ["score = ?"])
        #expect(throws: DBBError.self) { try DBBQueryPlan(options: options, table: projectTable) }
        options.arguments = [1, 2]
        #expect(throws: DBBError.self) { try DBBQueryPlan(options: options, table: projectTable) }
    }

    @Test func sortingIsAscendingByDefaultAndDescendingAppliesToEveryColumn() throws {
        #expect(ColumnSorting.ascending == "ASC" && ColumnSorting.descending == "DESC")
        let ascending = try DBBQueryPlan(options: .options(sortColumns: ["name", "score"]), table: projectTable)
        #expect(ascending.orderSQL == " ORDER BY itemName ASC, score ASC, id ASC")
        let descending = try DBBQueryPlan(
            options: .options(sortColumns: ["name", "score"], ascendingSort: false), table: projectTable)
        #expect(descending.orderSQL == " ORDER BY itemName DESC, score DESC, id DESC")
        var options = DBBQueryOptions()
        options.sorting = ["score", ColumnSorting.descending, "name"]
        #expect(
            try DBBQueryPlan(options: options, table: projectTable).orderSQL
                == " ORDER BY score DESC, itemName DESC, id DESC")
        options.sorting = ["score DESC", "name ASC"]
        #expect(
            try DBBQueryPlan(options: options, table: projectTable).orderSQL
                == " ORDER BY score DESC, itemName ASC, id ASC")
    }

    @Test func sortingByAJoinOrUnknownPropertyIsAnError() throws {
        #expect(throws: DBBError.self) {
            try DBBQueryPlan(options: .options(sortColumns: ["tags"]), table: projectTable)
        }
        #expect(throws: DBBError.self) {
            try DBBQueryPlan(options: .options(sortColumns: ["nope"]), table: projectTable)
        }
    }

    @Test func propertiesJoinPropertiesDistinctAndPaging() throws {
        var options = DBBQueryOptions.options(properties: ["name", "tags"], distinct: true)
        options.joinPropertiesToPopulate = ["tags"]
        options.limit = 10
        options.offset = 20
        let plan = try DBBQueryPlan(options: options, table: projectTable)
        #expect(plan.properties == ["name", "tags"])
        #expect(plan.joinProperties == ["tags"])
        #expect(plan.distinctColumns == ["itemName"])
        #expect(plan.limitSQL == " LIMIT 10 OFFSET 20")

        #expect(throws: DBBError.self) {
            try DBBQueryPlan(options: .options(properties: ["missing"]), table: projectTable)
        }
        var wrongJoin = DBBQueryOptions()
        wrongJoin.joinPropertiesToPopulate = ["name"]
        #expect(throws: DBBError.self) { try DBBQueryPlan(options: wrongJoin, table: projectTable) }
    }

    @Test func twoJoinPropertiesInOneConditionIsAnError() throws {
        #expect(throws: DBBError.self) {
            try DBBQueryPlan(options: .options(withConditions: ["tags = 'a' AND members = 3"]), table: projectTable)
        }
    }

    @Test func deprecatedConstructorsStillWork() throws {
        let legacy: any LegacyConstructors = Legacy()
        let (byProperties, ascending, descending, conditions) = legacy.make()
        #expect(byProperties.propertyNames == ["name"] && byProperties.distinct)
        #expect(ascending.sorting == ["name"])
        #expect(descending.sorting == ["name", ColumnSorting.descending])
        #expect(conditions.conditions == ["score > 1"] && !conditions.distinct)
    }
}

/// Calls the deprecated constructors from a deprecated context, reached through a protocol, so testing
/// them adds no warnings to the build.
protocol LegacyConstructors {
    func make() -> (DBBQueryOptions, DBBQueryOptions, DBBQueryOptions, DBBQueryOptions)
}

struct Legacy: LegacyConstructors {
    @available(*, deprecated)
    func make() -> (DBBQueryOptions, DBBQueryOptions, DBBQueryOptions, DBBQueryOptions) {
        (
            DBBQueryOptions.queryOptionsWithPropertyNames(["name"], distinct: true),
            DBBQueryOptions.queryOptionsWithAscendingSortForColumns(["name"]),
            DBBQueryOptions.queryOptionsWithDescendingSortForColumns(["name"]),
            DBBQueryOptions.queryOptionsWithConditions(["score > 1"])
        )
    }
}

@Suite struct DBBQueryHelperTests {
    @Test func sqlEscaping() {
        #expect("Bud's".dbb_SQLEscaped() == "'Bud''s'")
        #expect("John Brown's body".dbb_SQLEscaped() == "'John Brown''s body'")
        #expect("".dbb_SQLEscaped() == "''")
        #expect("'; DROP TABLE Person; --".dbb_SQLEscaped() == "'''; DROP TABLE Person; --'")
    }

    @Test func dateHelpersUseReferenceDateSeconds() {
        let date = Date(timeIntervalSinceReferenceDate: 12_345.5)
        #expect(date.dbb_timeIntervalForDate() == 12_345.5)
        #expect(date.dbb_dateComparisonString() == "12345.5")
        #expect(Date.dbb_dateFromTimeInterval(12_345.5) == date)
        #expect(Date.dbb_dateFromTimeInterval(0) == Date(timeIntervalSince1970: 978_307_200))
    }
}

@Suite struct DBBQueryConditionEdgeTests {
    @Test func aJoinConditionThatAlsoNamesOtherPropertiesIsRefused() throws {
        #expect(throws: DBBError.self) {
            try DBBQueryPlan(options: .options(withConditions: ["tags = 'a' OR score > 5"]), table: projectTable)
        }
        #expect(throws: DBBError.self) {
            try DBBQueryPlan(options: .options(withConditions: ["tags = 'a' AND idNum = 3"]), table: projectTable)
        }
        let separate = try DBBQueryPlan(
            options: .options(withConditions: ["tags = 'a'", "OR", "score > 5"]), table: projectTable)
        #expect(
            separate.whereSQL == " WHERE (id IN (SELECT Project_ID FROM Project_tags WHERE tags = 'a')) OR (score > 5)")
    }

    @Test func commentsAreNeitherTranslatedNorCounted() throws {
        var options = DBBQueryOptions()
        options.addCondition("name = ? /* score ? */", "x")
        options.addCondition("score > ? -- don't count this ?\n", 3)
        let plan = try DBBQueryPlan(options: options, table: projectTable)
        #expect(plan.whereSQL == " WHERE (itemName = ? /* score ? */) AND (score > ? -- don't count this ?\n)")
        #expect(plan.arguments == [.text("x"), .integer(3)])
    }

    @Test func aLineCommentEndingInACombiningMarkIsStillEndedBeforeTheParenthesis() throws {
        // `-` and U+0301 form one Character; SQLite still reads `--` as a comment, which must not take the `)`.
        let plan = try DBBQueryPlan(options: .options(withConditions: ["score > 1 --\u{301}"]), table: projectTable)
        #expect(plan.whereSQL == " WHERE (score > 1 --\u{301}\n)")
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE Project (id INTEGER PRIMARY KEY, score INTEGER)")
        try db.execute("INSERT INTO Project (score) VALUES (1), (2), (3)")
        #expect(try db.fetchValues(Int.self, "SELECT score FROM Project" + plan.whereSQL + " ORDER BY id") == [2, 3])
    }
}

/// The referenced class of `owner` and `members`: a `Person` table.
struct ReferenceSchema: DBBQuerySchema {
    static let person = try! DBBTableDescription(
        tableName: "Person",
        properties: ["name": .init(\Target.name, columnName: "lastName"), "score": .init(\Target.score)])

    func reference(_ property: String, of table: DBBTableDescription) throws -> DBBQueryReference? {
        guard table.tableName == "Project" else { return nil }
        switch property {
        case "owner": return DBBQueryReference(table: Self.person, isArray: false)
        case "members": return DBBQueryReference(table: Self.person, isArray: true)
        default: return nil
        }
    }

    func propertyPath(for keyPath: AnyKeyPath, of table: DBBTableDescription) throws -> [String]? {
        keyPath == \Target.score ? ["score"] : nil
    }
}

@Suite struct DBBQueryPlanReferenceTests {
    @Test func aConditionThroughAReferenceIsASubSelectOfItsJoinTable() throws {
        var options = DBBQueryOptions()
        options.addCondition("members.name = ? AND members.score > ?", "Lee", 3)
        let plan = try DBBQueryPlan(options: options, table: projectTable, schema: ReferenceSchema())
        #expect(
            plan.whereSQL
                == " WHERE (id IN (SELECT Project_ID FROM Project_members WHERE members IN "
                + "(SELECT id FROM Person WHERE lastName = ? AND score > ?)))")
        #expect(plan.arguments == [.text("Lee"), .integer(3)])
    }

    @Test func sortingThroughAReferenceIsACorrelatedSubSelect() throws {
        let plan = try DBBQueryPlan(
            options: .options(sortColumns: ["owner.name"]), table: projectTable, schema: ReferenceSchema())
        #expect(
            plan.orderSQL
                == " ORDER BY (SELECT r0.lastName FROM Person AS r0 WHERE r0.id = (SELECT j0.owner FROM Project_owner "
                + "AS j0 WHERE j0.Project_ID = Project.id ORDER BY j0.id LIMIT 1)) ASC, id ASC")
    }

    @Test func withoutASchemaDottedNamesStayAsWrittenAndTypedConditionsAreRefused() throws {
        let plan = try DBBQueryPlan(options: .options(withConditions: ["Project.score > 1"]), table: projectTable)
        #expect(plan.whereSQL == " WHERE (Project.score > 1)")
        var typed = DBBQueryOptions()
        typed.filter(\Target.score > 1)
        #expect(throws: DBBError.self) { try DBBQueryPlan(options: typed, table: projectTable) }
        let resolved = try DBBQueryPlan(options: typed, table: projectTable, schema: ReferenceSchema())
        #expect(resolved.whereSQL == " WHERE (score > ?)")
        #expect(resolved.arguments == [.integer(1)])
    }
}

/// Escaping and condition splitting work on Unicode scalars, so combining marks and NUL characters
/// cannot hide a quote or end the SQL early.
@Suite struct DBBQueryUnicodeEscapingTests {
    static let awkward = [
        "O'\u{301}Brien", "a\0b", "\0", "'\0'", "x\u{301}'\u{301}'", "e\u{301}", "🏳️‍🌈'", "''\u{301}", "tab\there",
    ]

    @Test("dbb_SQLEscaped evaluates to exactly the string in SQLite", arguments: awkward)
    func escapedTextRoundTrips(text: String) throws {
        let db = try DBBDatabase.inMemory()
        let sql = "SELECT hex(\(text.dbb_SQLEscaped())) = hex(?), length(CAST(\(text.dbb_SQLEscaped()) AS BLOB))"
        let row = try #require(try db.fetchCursor(sql, text).next())
        #expect(row.value(at: 0) == .integer(1), "\(text.dbb_SQLEscaped())")
        #expect(row.value(at: 1) == .integer(Int64(text.utf8.count)))
    }

    @Test func quotesBeforeCombiningMarksAreDoubled() {
        #expect("O'\u{301}Brien".dbb_SQLEscaped().unicodeScalars.elementsEqual("'O''\u{301}Brien'".unicodeScalars))
        #expect("a\0b".dbb_SQLEscaped() == "('a'||char(0)||'b')")
        #expect("Bud's".dbb_SQLEscaped() == "'Bud''s'")
    }

    @Test("white space around conditions and sort items is trimmed, ASCII or not; names in other scripts stay")
    func whiteSpaceAroundConditionsAndSortItems() throws {
        var options = DBBQueryOptions.options(
            withConditions: ["\tname = 'a'\n", "\u{A0}OR\u{2003}", "score > 1\u{A0}", " \n ", "été = 'x'"])
        options.sorting = [" score ", " DESC"]
        let plan = try DBBQueryPlan(options: options, table: projectTable)
        // A line comment is ended before the closing parenthesis, as always.
        #expect(plan.whereSQL == " WHERE (itemName = 'a') OR (score > 1) OR (été = 'x')")
        #expect(plan.orderSQL == " ORDER BY score DESC, id DESC")
        // Identifiers after white space other than a space, and a tab before a qualified name.
        let names = try DBBQueryPlan(
            options: .options(withConditions: ["score\t>\u{A0}1 AND\tProject.name = name"]), table: projectTable)
        #expect(names.whereSQL == " WHERE (score\t>\u{A0}1 AND\tProject.name = itemName)")
    }

    @Test("a combining mark at the start of a literal leaves the literal's text alone")
    func combiningMarkInLiteral() throws {
        let condition = "name = '\u{301}name score'"
        let plan = try DBBQueryPlan(options: .options(withConditions: [condition]), table: projectTable)
        #expect(plan.whereSQL.unicodeScalars.elementsEqual(" WHERE (itemName = '\u{301}name score')".unicodeScalars))
        let escaped = "name = \("'\u{301}name".dbb_SQLEscaped())"
        let second = try DBBQueryPlan(options: .options(withConditions: [escaped]), table: projectTable)
        #expect(second.whereSQL.unicodeScalars.elementsEqual(" WHERE (itemName = '''\u{301}name')".unicodeScalars))
    }
}
