import DBBBuilder
import DBBPostgres
import Foundation
import Testing

/// `ServerModels.Member` after a migration: `nickname` renamed `alias`, `tags` renamed `labels`, `age` as text,
/// `score` as an integer, `photo` dropped.
@DBBTable(name: "Member")
final class MigratedServerMember: DBBTableObject {
    @Indexed var name = ""
    var alias: String?
    var age = ""
    var score = 0
    var active = false
    var joined: Date?
    var labels: [String] = []
    var mentor: MigratedServerMember?
}

/// `ServerModels.Team` renamed `Squad`.
@DBBTable
final class Squad: DBBTableObject {
    @Column("teamTitle") var title = ""
    var budget: Float = 0
    var members: [MigratedServerMember] = []
    var lead: MigratedServerMember?
    var ratings: [Double] = []
}

@Suite(.postgres)
struct DBBPostgresMigrationTests {
    @Test func migrationsRunWithPostgreSQLsOwnAlterTable() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let writer = try DBBManager(postgres: configuration, readers: 0)
            try writer.addTableClasses(ServerModels.all)
            let ada = ServerModels.Member(dbManager: writer)
            ada.name = "Ada"
            ada.age = 36
            ada.score = 2.6
            ada.nickname = "countess"
            ada.tags = ["a", "b"]
            ada.photo = Data([1, 2])
            let bob = ServerModels.Member(dbManager: writer)
            bob.name = "Bob"
            bob.age = 41
            bob.mentor = ada
            let team = ServerModels.Team(dbManager: writer)
            team.title = "Engines"
            team.members = [ada, bob]
            team.lead = bob
            try team.save()
            try writer.close()

            let manager = try DBBManager(postgres: configuration, readers: 0)
            var failing = DBBMigrator()
            failing.registerMigration(
                "broken",
                [
                    .renameProperty("nickname", to: "alias", in: "Member"),
                    .dropProperty("shoeSize", in: "Member"),
                ])
            #expect(throws: DBBError.self) { try failing.migrate(manager) }
            #expect(manager.errorMessage().contains("migration broken failed"))
            #expect(try failing.appliedMigrations(in: manager).isEmpty)

            var migrator = DBBMigrator()
            migrator.registerMigration(
                "v2",
                [
                    .renameProperty("nickname", to: "alias", in: "Member"),
                    .renameProperty("tags", to: "labels", in: "Member"),
                    .changeType(of: "age", in: "Member", to: .string) { value in value.int64Value.map { "\($0) years" }
                    },
                    .changeType(of: "score", in: "Member", to: .int),
                    .dropProperty("photo", in: "Member"),
                    .renameClass("Team", to: "Squad"),
                ])
            #expect(try migrator.migrate(manager).applied == ["v2"])
            #expect(try migrator.migrate(manager).applied.isEmpty)
            #expect(try migrator.appliedMigrations(in: manager).map(\.checksum) == [migrator.migrations[0].checksum])
            try manager.addTableClasses([MigratedServerMember.self, Squad.self])
            #expect(manager.registrationWarnings.isEmpty)
            let members = try MigratedServerMember.fetchAll(manager: manager).sorted { $0.name < $1.name }
            #expect(members.map(\.alias) == ["countess", nil])
            #expect(members.map(\.age) == ["36 years", "41 years"])
            #expect(members.map(\.score) == [3, 0])
            #expect(members.map(\.labels) == [["a", "b"], []])
            #expect(members.last?.mentor?.name == "Ada")
            let squads = try Squad.fetchAll(manager: manager)
            #expect(squads.map(\.title) == ["Engines"])
            #expect(squads.first?.members.map(\.name) == ["Ada", "Bob"], "array order kept")
            #expect(squads.first?.lead?.name == "Bob")
            try manager.close()
        }
    }
}
