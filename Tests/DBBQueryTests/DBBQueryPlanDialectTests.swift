import DBBQuery
import DBBSQL
import DBBSchema
import Foundation
import Testing

/// The clauses of a table described in SQLite's dialect: names as written, `LIMIT -1` before an offset, and a
/// grouped fetch sorted by a column that is not grouped as written. (PostgreSQL's clauses are tested with the
/// `DBBPostgres` module, which defines its dialect.)
@Suite struct DBBQueryPlanDialectTests {
    @Test func aGroupedFetchOnSQLiteSortsByAColumnThatIsNotGroupedAsItIs() throws {
        var options = DBBQueryOptions.options(sortColumns: ["name DESC"])
        options.groupBy = ["score"]
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
