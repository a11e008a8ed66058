import DBBQuery
import DBBSQL
import DBBSchema
import Foundation
import Testing

/// The same options give PostgreSQL's clauses for a table described in its dialect: every name quoted, `LIMIT
/// ALL` before an offset; placeholders stay `?` until the connection numbers them.
@Suite struct DBBQueryPlanDialectTests {
    static let postgresProject: DBBTableDescription = {
        var table = projectTable
        table.dialect = .postgres
        return table
    }()

    @Test func conditionsSortingAndPagingOnPostgres() throws {
        var options = DBBQueryOptions.options(withConditions: ["name = 'Apollo'", "score > ?"], sortColumns: ["name"])
        options.arguments = [50]
        options.offset = 20
        let plan = try DBBQueryPlan(options: options, table: Self.postgresProject)
        #expect(plan.whereSQL == #" WHERE ("itemName" = 'Apollo') AND ("score" > ?)"#)
        #expect(plan.orderSQL == #" ORDER BY "itemName" ASC, "id" ASC"#)
        #expect(plan.limitSQL == " LIMIT ALL OFFSET 20")
        #expect(plan.arguments == [.integer(50)])
        #expect(
            plan.countSQL
                == #"SELECT count(*) FROM (SELECT 1 FROM "Project" WHERE ("itemName" = 'Apollo') AND ("score" > ?) LIMIT ALL OFFSET 20) AS sub"#
        )
    }

    @Test func aConditionOnAJoinPropertyIsASubSelectOfItsQuotedJoinTable() throws {
        let options = DBBQueryOptions.options(withConditions: ["tags = 'admin'"])
        let plan = try DBBQueryPlan(options: options, table: Self.postgresProject)
        #expect(
            plan.whereSQL
                == #" WHERE ("id" IN (SELECT "Project_ID" FROM "Project_tags" WHERE "tags" = 'admin'))"#)
    }

    @Test func aGroupedFetchOnPostgresSortsByTheLowestValueOfAColumnThatIsNotGrouped() throws {
        var options = DBBQueryOptions.options(sortColumns: ["name DESC"])
        options.groupBy = ["score"]
        let plan = try DBBQueryPlan(options: options, table: Self.postgresProject)
        #expect(
            plan.groupedIDsSQL
                == #"SELECT MIN("id") AS "id" FROM "Project" GROUP BY "score" ORDER BY MIN("itemName") DESC, "id" ASC"#)
        let sqlite = try DBBQueryPlan(options: options, table: projectTable)
        #expect(
            sqlite.groupedIDsSQL == "SELECT MIN(id) AS id FROM Project GROUP BY score ORDER BY itemName DESC, id ASC")
    }

    @Test func sqliteClausesAreUnchanged() throws {
        var options = DBBQueryOptions.options(withConditions: ["name = 'Apollo'"], sortColumns: ["name"])
        options.offset = 20
        let plan = try DBBQueryPlan(options: options, table: projectTable)
        #expect(plan.whereSQL == " WHERE (itemName = 'Apollo')")
        #expect(plan.orderSQL == " ORDER BY itemName ASC, id ASC")
        #expect(plan.limitSQL == " LIMIT -1 OFFSET 20")
    }
}
