import DBBQuery
import DBBSQL
import DBBSchema
import Testing

/// Query plans built from a table's names resolved once (as the object layer keeps them per class) are the plans
/// built from the table's description, whatever the options and however many plans share the names.
@Suite struct DBBQueryTableNamesTests {
    /// Options touching every part of a plan: conditions (bound, OR, joins, through references, typed), sorting
    /// (by property, column, id, through a reference), loaded and join properties, distinct, groups, paging.
    static var optionSets: [DBBQueryOptions] {
        var bound = DBBQueryOptions.options(sortColumns: ["name"])
        bound.addCondition("score = ? AND name > ?", 3, "x")
        bound.limit = 1_000
        var paged = DBBQueryOptions.options(properties: ["name", "tags"], distinct: true)
        paged.joinPropertiesToPopulate = ["tags"]
        paged.offset = 5
        var grouped = DBBQueryOptions.options(withConditions: ["tags = 'a'", "OR", "owner = 2"])
        grouped.groupBy = ["score", "itemName"]
        var typed = DBBQueryOptions.options(sortColumns: ["owner.name", "DESC"])
        typed.filter(\Target.score > 1)
        var through = DBBQueryOptions.options(sortColumns: ["id", "createdTime ASC"])
        through.addCondition("members.name = ? AND members.score > ?", "Lee", 3)
        return [DBBQueryOptions(), bound, paged, grouped, typed, through]
    }

    @Test func plansFromNamesResolvedOnceAreThePlansFromTheDescription() throws {
        let names = DBBQueryTableNames(table: projectTable)
        for _ in 0..<2 {
            for options in Self.optionSets {
                let fromTable = try DBBQueryPlan(options: options, table: projectTable, schema: ReferenceSchema())
                let fromNames = try DBBQueryPlan(options: options, names: names, schema: ReferenceSchema())
                #expect(fromNames.whereSQL == fromTable.whereSQL)
                #expect(fromNames.orderSQL == fromTable.orderSQL)
                #expect(fromNames.limitSQL == fromTable.limitSQL)
                #expect(fromNames.arguments == fromTable.arguments)
                #expect(fromNames.properties == fromTable.properties)
                #expect(fromNames.joinProperties == fromTable.joinProperties)
                #expect(fromNames.distinctColumns == fromTable.distinctColumns)
                #expect(fromNames.groupColumns == fromTable.groupColumns)
                #expect(fromNames.countSQL == fromTable.countSQL)
                #expect(fromNames.groupedIDsSQL == fromTable.groupedIDsSQL)
            }
        }
        // The plans above are real plans, not empty ones.
        let bound = try DBBQueryPlan(options: Self.optionSets[1], names: names, schema: nil)
        #expect(bound.whereSQL == " WHERE (score = ? AND itemName > ?)")
        #expect(bound.orderSQL == " ORDER BY itemName ASC, id ASC")
        #expect(bound.limitSQL == " LIMIT 1000")
    }

    @Test func aSchemaGivenForOnePlanIsNotKeptWithTheSharedNames() throws {
        let names = DBBQueryTableNames(table: projectTable)
        var typed = DBBQueryOptions()
        typed.filter(\Target.score > 1)
        let resolved = try DBBQueryPlan(options: typed, names: names, schema: ReferenceSchema())
        #expect(resolved.whereSQL == " WHERE (score > ?)")
        // Without a schema, typed conditions are refused, as for a plan built from the description.
        #expect(throws: DBBError.self) { try DBBQueryPlan(options: typed, names: names, schema: nil) }
        let dotted = try DBBQueryPlan(
            options: .options(withConditions: ["owner.name = 'x'"]), names: names, schema: nil)
        #expect(dotted.whereSQL == " WHERE (owner.name = 'x')")
    }

    @Test func misuseIsRefusedAlikeWithSharedNames() throws {
        let names = DBBQueryTableNames(table: projectTable)
        var wrongJoin = DBBQueryOptions()
        wrongJoin.joinPropertiesToPopulate = ["name"]
        for options in [
            DBBQueryOptions.options(properties: ["missing"]), .options(sortColumns: ["tags"]),
            .options(withConditions: ["tags = 'a' AND members = 3"]), wrongJoin,
        ] {
            #expect(throws: DBBError.self) { try DBBQueryPlan(options: options, table: projectTable) }
            #expect(throws: DBBError.self) { try DBBQueryPlan(options: options, names: names, schema: nil) }
        }
    }
}

/// Conditions are split into tokens on their UTF-8 bytes; other scripts, combining marks, quotes, brackets and
/// comments split where their scalars would.
@Suite struct DBBConditionTokenizingTests {
    static let cases: [(condition: String, translated: String)] = [
        ("name = 'é' || name", "itemName = 'é' || itemName"),
        ("\"name\" = 1", "itemName = 1"),
        ("[name] = score", "itemName = score"),
        ("naïvename = 1 AND name > 2", "naïvename = 1 AND itemName > 2"),
        ("name\u{301} = name", "name\u{301} = itemName"),
        ("é.name = 1", "é.name = 1"),
        ("\"na\"\"me\" = name", "\"na\"\"me\" = itemName"),
        ("`name`\u{301} = 1", "itemName\u{301} = 1"),
        ("'\u{301}name' = name", "'\u{301}name' = itemName"),
        ("name$1 = score2", "name$1 = score2"),
        ("score /* name é */ > 1", "score /* name é */ > 1"),
        ("名前 = name", "名前 = itemName"),
        ("\"name", "itemName"),
        ("name = 'abc", "itemName = 'abc"),
    ]

    @Test func identifiersAreFoundOnBytesWhereScalarsWouldFindThem() throws {
        for (condition, translated) in Self.cases {
            let plan = try DBBQueryPlan(options: .options(withConditions: [condition]), table: projectTable)
            #expect(plan.whereSQL.unicodeScalars.elementsEqual(" WHERE (\(translated))".unicodeScalars), "\(condition)")
        }
    }

    @Test func pathsThroughReferencesStartWithWordsInAnyScript() throws {
        let schema = ReferenceSchema()
        let ascii = try DBBQueryPlan(
            options: .options(withConditions: ["owner.name = 'x'"]), table: projectTable, schema: schema)
        #expect(
            ascii.whereSQL
                == " WHERE (id IN (SELECT Project_ID FROM Project_owner WHERE owner IN "
                + "(SELECT id FROM Person WHERE lastName = 'x')))")
        // `_x` and `été` are words, so the condition reaches through `owner`, where neither is a property.
        for condition in ["owner._x = 1", "owner.été = 1", "owner.\u{C9}t\u{E9} = 1"] {
            #expect(throws: DBBError.self, "\(condition)") {
                try DBBQueryPlan(options: .options(withConditions: [condition]), table: projectTable, schema: schema)
            }
        }
        // A digit or a combining mark starts no word: the dotted name stays as written.
        for condition in ["owner.1x = 1", "owner.\u{301}name = 1"] {
            let plan = try DBBQueryPlan(
                options: .options(withConditions: [condition]), table: projectTable, schema: schema)
            #expect(plan.whereSQL.unicodeScalars.elementsEqual(" WHERE (\(condition))".unicodeScalars))
        }
    }

    @Test func commentsAndJoinConditionsInOtherScripts() throws {
        let comment = try DBBQueryPlan(
            options: .options(withConditions: ["score -- é name\n > 1"]), table: projectTable)
        #expect(comment.whereSQL == " WHERE (score -- é name\n > 1\n)")
        let join = try DBBQueryPlan(options: .options(withConditions: ["tags = 'ü' -- ü"]), table: projectTable)
        #expect(join.whereSQL == " WHERE (id IN (SELECT Project_ID FROM Project_tags WHERE tags = 'ü' -- ü)\n)")
        // A dot followed by a combining mark is no path separator: the sort item is no property.
        #expect(throws: DBBError.self) {
            try DBBQueryPlan(
                options: .options(sortColumns: ["owner.\u{301}name"]), table: projectTable, schema: ReferenceSchema())
        }
        let sorted = try DBBQueryPlan(
            options: .options(sortColumns: ["owner.name"]), table: projectTable, schema: ReferenceSchema())
        #expect(sorted.orderSQL.hasPrefix(" ORDER BY (SELECT r0.lastName FROM Person AS r0"))
    }
}
