import DBBBuilder
import DBBPostgres
import Foundation
import Testing

/// A class with a unique property, for upserts on PostgreSQL.
@DBBTable
final class ServerTag: DBBTableObject {
    @Unique var label = ""
    var uses = 0
}

/// Set-based updates and deletes and upserts, written once, on PostgreSQL.
@Suite(.postgres)
struct DBBPostgresSetBasedTests {
    typealias Member = ServerModels.Member

    @Test func updatesDeletesAndUpsertsRunOnPostgreSQL() async throws {
        let manager = try await TestPostgres.manager()
        try await TestPostgres.onQueue {
            try manager.addTableClasses([ServerTag.self])
            let members = (1...6).map { index in
                let member = Member(dbManager: manager)
                member.name = "M\(index)"
                member.age = index * 10
                member.tags = ["t\(index)"]
                return member
            }
            try Member.save(members, manager: manager)
            var older = DBBQueryOptions()
            older.addCondition("age >= ?", 40)
            #expect(try Member.update(["active": true, "nickname": "senior"], where: older, manager: manager) == 3)
            #expect(try Member.delete(where: .options(withConditions: ["age < 20"]), manager: manager) == 1)
            let left = try Member.fetchAll(manager: manager)
            #expect(left.map(\.name) == ["M2", "M3", "M4", "M5", "M6"])
            #expect(left.map(\.active) == [false, false, true, true, true])
            #expect(left.last?.nickname == "senior" && left.last?.tags == ["t6"])

            let first = ServerTag(dbManager: manager)
            first.label = "swift"
            first.uses = 1
            try first.save()
            let again = ServerTag(dbManager: manager)
            again.label = "swift"
            again.uses = 2
            try again.save(onConflict: .update)
            #expect(again.idNum == first.idNum)
            let kept = ServerTag(dbManager: manager)
            kept.label = "swift"
            kept.uses = 3
            try ServerTag.save([kept], onConflict: .ignore, manager: manager)
            #expect(kept.idNum == first.idNum)
            #expect(try ServerTag.fetchAll(manager: manager).map(\.uses) == [2])
        }
        let oldest = DBBQueryOptions.options(withConditions: ["age > 50"])
        let changed = try await Member.update(["age": 1], where: oldest, manager: manager)
        #expect(changed == 1)
        let removed = try await Member.delete(where: .options(withConditions: ["age = 1"]), manager: manager)
        #expect(removed == 1)
    }
}
