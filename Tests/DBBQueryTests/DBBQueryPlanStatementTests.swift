import DBBQuery
import DBBSQL
import DBBSchema
import Testing

/// The count and distinct statements a plan writes, as text, without a database.
@Suite struct DBBQueryPlanStatementTests {
    @Test func aPlainFetchIsCountedDirectlyAndHasNoGroupedIDs() throws {
        let plan = try DBBQueryPlan(options: DBBQueryOptions(), table: projectTable)
        #expect(plan.countSQL == "SELECT count(*) FROM Project")
        #expect(plan.groupedIDsSQL == nil)
    }

    @Test func conditionsAreCountedWithTheirArguments() throws {
        var options = DBBQueryOptions()
        options.addCondition("score > ?", 10)
        let plan = try DBBQueryPlan(options: options, table: projectTable)
        #expect(plan.countSQL == "SELECT count(*) FROM Project WHERE (score > ?)")
        #expect(plan.arguments == [.integer(10)])
    }

    @Test func theIDsOfASetBasedWriteAreSelectedInTheFetchsOrderAndPage() throws {
        var options = DBBQueryOptions.options(sortColumns: ["score DESC"])
        options.addCondition("score > ?", 10)
        options.limit = 5
        let plan = try DBBQueryPlan(options: options, table: projectTable)
        #expect(plan.idsSQL == "SELECT id FROM Project WHERE (score > ?) ORDER BY score DESC, id ASC LIMIT 5")
        #expect(
            try DBBQueryPlan(options: DBBQueryOptions(), table: projectTable).idsSQL
                == "SELECT id FROM Project ORDER BY id")
    }

    @Test func aPageIsCountedAsTheFetchReturnsIt() throws {
        var options = DBBQueryOptions.options(withConditions: ["name = 'a'"])
        options.limit = 5
        options.offset = 2
        let plan = try DBBQueryPlan(options: options, table: projectTable)
        #expect(
            plan.countSQL == "SELECT count(*) FROM (SELECT 1 FROM Project WHERE (itemName = 'a') LIMIT 5 OFFSET 2)")
    }

    @Test func distinctCombinationsAreSelectedAndCountedByTheirColumns() throws {
        var options = DBBQueryOptions.options(properties: ["name", "score"], sortColumns: ["score"], distinct: true)
        options.addCondition("score > ?", 1)
        options.limit = 3
        let plan = try DBBQueryPlan(options: options, table: projectTable)
        #expect(
            plan.groupedIDsSQL
                == "SELECT MIN(id) AS id FROM Project WHERE (score > ?) GROUP BY itemName, score "
                + "ORDER BY score ASC, id ASC LIMIT 3")
        #expect(
            plan.countSQL
                == "SELECT count(*) FROM (SELECT 1 FROM Project WHERE (score > ?) GROUP BY itemName, score LIMIT 3)")
    }

    @Test func groupsAreSelectedByTheirColumns() throws {
        var options = DBBQueryOptions()
        options.groupBy = ["score"]
        let plan = try DBBQueryPlan(options: options, table: projectTable)
        #expect(plan.groupedIDsSQL == "SELECT MIN(id) AS id FROM Project GROUP BY score ORDER BY id")
        #expect(plan.countSQL == "SELECT count(*) FROM (SELECT 1 FROM Project GROUP BY score)")
    }

    @Test func oddTableAndColumnNamesAreQuoted() throws {
        let table = try DBBTableDescription(
            tableName: "Order", idColumn: "key", properties: ["group": .init(\Target.name)])
        var options = DBBQueryOptions()
        options.groupBy = ["group"]
        let plan = try DBBQueryPlan(options: options, table: table)
        #expect(
            plan.groupedIDsSQL
                == "SELECT MIN(\"key\") AS \"key\" FROM \"Order\" GROUP BY \"group\" ORDER BY \"key\"")
        #expect(plan.countSQL == "SELECT count(*) FROM (SELECT 1 FROM \"Order\" GROUP BY \"group\")")
    }
}
