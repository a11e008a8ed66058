import DBBBuilder
import DBBPostgres
import DBBSQL
import Foundation
import Testing

/// The same options give PostgreSQL's clauses for a table described in its dialect: every name quoted, `LIMIT
/// ALL` before an offset; placeholders stay `?` until the connection numbers them. SQL text only: no server is
/// needed.
@Suite struct DBBPostgresQueryPlanTests {
    final class Target: DBBTableRepresentable {
        var name = ""
        var score = 0
        var startDate: Date?
        var tags: [String] = []
        var owner: Target?
        var members: [Target] = []
    }

    /// DBBQuery's tests' `Project` (a renamed column, a scalar, a date, and three joins) in PostgreSQL's dialect.
    static let postgresProject: DBBTableDescription = {
        var table = try! DBBTableDescription(
            tableName: "Project",
            properties: [
                "name": .init(\Target.name, columnName: "itemName"), "score": .init(\Target.score),
                "startDate": .init(\Target.startDate), "tags": .init(\Target.tags), "owner": .init(\Target.owner),
                "members": .init(\Target.members),
            ])
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
    }
}
