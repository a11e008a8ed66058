import DBBBuilder
import DBBPostgres
import Foundation
import Testing

/// `ServerModels.Team` with its lead in a foreign-key column instead of its join table.
final class ServerTeamWithLeadColumn: DBBTableObject {
    override class var tableName: String { "Team" }
    var title = ""
    var members: [ServerModels.Member] = []
    var lead: ServerModels.Member?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "title": .init(\ServerTeamWithLeadColumn.title, columnName: "teamTitle"),
                "members": .init(\ServerTeamWithLeadColumn.members),
                "lead": .init(\ServerTeamWithLeadColumn.lead, foreignKey: true),
            ], for: self)
    }
}

/// `ServerModels.Member` in the lean layout.
@DBBTable(name: "Member", layout: .lean)
final class LeanServerMember: DBBTableObject {
    @Indexed var name = ""
    var age = 0
    var tags: [String] = []
    var mentor: LeanServerMember?
}

/// The steps that need more than `ALTER TABLE` renames on PostgreSQL: data steps through the object API,
/// reference moves and layout conversions, each in the migration's one transaction.
@Suite(.postgres)
struct DBBPostgresMigrationStepTests {
    /// Ada (36, score 2.6, tags a and b) and Bob (41, mentored by Ada); team Engines (members Ada and Bob, lead Bob) and
    /// team Spare (member Ada, no lead), saved by a manager that is closed again.
    static func release1(_ configuration: DBBPostgresConfiguration) throws {
        let writer = try DBBManager(postgres: configuration, readers: 0)
        try writer.addTableClasses([ServerModels.Member.self, ServerModels.Team.self])
        let ada = ServerModels.Member(dbManager: writer)
        ada.name = "Ada"
        ada.age = 36
        ada.score = 2.6
        ada.tags = ["a", "b"]
        let bob = ServerModels.Member(dbManager: writer)
        bob.name = "Bob"
        bob.age = 41
        bob.mentor = ada
        let engines = ServerModels.Team(dbManager: writer)
        engines.title = "Engines"
        engines.members = [ada, bob]
        engines.lead = bob
        let spare = ServerModels.Team(dbManager: writer)
        spare.title = "Spare"
        spare.members = [ada]
        // One at a time, so that the ids are known: Ada 1, Bob 2; Engines 1, Spare 2.
        for object: DBBTableObject in [ada, bob, engines, spare] { try object.save() }
        try writer.close()
    }

    /// The rows a query returns, each value as text (`nil` for NULL).
    static func rows(_ configuration: DBBPostgresConfiguration, _ sql: String) throws -> [[String?]] {
        let connection = try DBBPostgresConnection.connect(configuration)
        defer { try? connection.close() }
        return try connection.fetchAll(sql).map { row in
            row.map { value in value.isNull ? nil : value.stringValue ?? value.int64Value.map(String.init) }
        }
    }

    /// Every column of every table (`Table.column type`) and every index, in order.
    static func schema(_ configuration: DBBPostgresConfiguration) throws -> [String] {
        try rows(
            configuration,
            """
            SELECT table_name || '.' || column_name || ' ' || data_type FROM information_schema.columns
            WHERE table_schema = current_schema() ORDER BY 1
            """
        ).map { $0[0] ?? "" }
            + rows(
                configuration,
                "SELECT 'index ' || indexname FROM pg_indexes WHERE schemaname = current_schema() ORDER BY 1"
            ).map { $0[0] ?? "" }
    }

    /// The members with their score and first label, the teams with their timestamps, and the team leads.
    static func data(_ configuration: DBBPostgresConfiguration) throws -> [[String?]] {
        try rows(
            configuration,
            """
            SELECT m.id::text, m.name, m.age::text, m.score::text, (SELECT min(labels) FROM "Member_labels"
            WHERE "Member_ID" = m.id) FROM "Member" m ORDER BY m.id
            """)
            + rows(
                configuration, "SELECT id::text, \"teamTitle\", (\"createdTime\" > 0)::text FROM \"Team\" ORDER BY id")
            + rows(configuration, "SELECT \"Team_ID\"::text, lead::text FROM \"Team_lead\" ORDER BY id")
    }

    static func columns(_ configuration: DBBPostgresConfiguration, _ table: String) throws -> [String] {
        try rows(
            configuration,
            """
            SELECT column_name FROM information_schema.columns WHERE table_schema = current_schema()
            AND table_name = '\(table)' ORDER BY ordinal_position
            """
        ).map { $0[0] ?? "" }
    }

    @Test func dataStepsUseTheObjectAPIInsideTheMigrationsTransaction() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            try Self.release1(configuration)
            let manager = try DBBManager(postgres: configuration, readers: 1)
            let agesUp = DBBMigrationStep.objects("ages up, Cy joins") { manager in
                try manager.addTableClasses([ServerModels.Member.self])
                for member in try ServerModels.Member.fetchAll(manager: manager) {
                    member.age += 1
                    try member.save()
                }
                let cy = ServerModels.Member(dbManager: manager)
                cy.name = "Cy"
                cy.age = 20
                cy.mentor = try ServerModels.Member.fetchOne(id: 1, manager: manager)
                try cy.save()
            }
            var failing = DBBMigrator()
            failing.registerMigration("ages up, then a failure", [agesUp, .sql("SELECT * FROM no_such_table")])
            #expect(throws: DBBError.self) { try failing.migrate(manager) }
            #expect(manager.errorMessage().contains("migration ages up, then a failure failed"))
            let before = [["Ada", "36"], ["Bob", "41"]]
            #expect(try Self.rows(configuration, "SELECT name, age FROM \"Member\" ORDER BY id") == before)
            #expect(try failing.appliedMigrations(in: manager).isEmpty)

            var migrator = DBBMigrator()
            migrator.registerMigration("ages up", [agesUp])
            let started = Date()
            #expect(try migrator.migrate(manager).applied == ["ages up"])
            let after = [["Ada", "37"], ["Bob", "42"], ["Cy", "20"]]
            #expect(try Self.rows(configuration, "SELECT name, age FROM \"Member\" ORDER BY id") == after)
            let records = try migrator.appliedMigrations(in: manager)
            #expect(records.map(\.name) == ["ages up"])
            #expect(records.map(\.checksum) == [migrator.migrations[0].checksum])
            #expect(records.allSatisfy { abs($0.appliedAt.timeIntervalSince(started)) < 60 })
            // A rerun does nothing: the ages stay as the one run left them.
            #expect(try migrator.migrate(manager).applied.isEmpty)
            #expect(try Self.rows(configuration, "SELECT name, age FROM \"Member\" ORDER BY id") == after)
            // The class the data step registered stays registered, and its objects read back through a reader.
            let cy = try ServerModels.Member.fetchAll(manager: manager).filter { $0.name == "Cy" }
            #expect(cy.map { $0.mentor?.name } == ["Ada"])
            try manager.close()
        }
    }

    @Test func aReferenceMovesFromItsJoinTableToAColumnAndBack() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            try Self.release1(configuration)
            let manager = try DBBManager(postgres: configuration, readers: 0)
            var refused = DBBMigrator()
            refused.registerMigration("members in a column", [.moveReferenceToColumn("members", in: "Team")])
            #expect(throws: DBBError.self) { try refused.migrate(manager) }
            #expect(manager.errorMessage().contains("holds an array, not a reference"))
            #expect(try Self.rows(configuration, "SELECT count(*) FROM \"Team_members\"") == [["3"]])

            var migrator = DBBMigrator()
            migrator.registerMigration("lead in a column", [.moveReferenceToColumn("lead", in: "Team")])
            #expect(try migrator.migrate(manager).applied == ["lead in a column"])
            #expect(try Self.rows(configuration, "SELECT to_regclass('\"Team_lead\"')::text") == [[nil]])
            #expect(try Self.columns(configuration, "Team").last == "lead")
            #expect(
                try Self.rows(configuration, "SELECT \"teamTitle\", lead FROM \"Team\" ORDER BY id")
                    == [["Engines", "2"], ["Spare", nil]])
            try manager.addTableClasses([ServerModels.Member.self, ServerTeamWithLeadColumn.self])
            let teams = try ServerTeamWithLeadColumn.fetchAll(manager: manager).sorted { $0.idNum < $1.idNum }
            #expect(teams.map(\.title) == ["Engines", "Spare"])
            #expect(teams.map { $0.lead?.name } == ["Bob", nil])
            #expect(teams.map { $0.members.map(\.name) } == [["Ada", "Bob"], ["Ada"]])
            let night = ServerTeamWithLeadColumn(dbManager: manager)
            night.title = "Night"
            night.lead = teams[0].members[0]
            try night.save()
            #expect(try Self.rows(configuration, "SELECT lead FROM \"Team\" WHERE id = \(night.idNum)") == [["1"]])
            #expect(try migrator.migrate(manager).applied.isEmpty)
            try manager.close()

            let back = try DBBManager(postgres: configuration, readers: 0)
            migrator.registerMigration("lead in its join table", [.moveReferenceToJoinTable("lead", in: "Team")])
            #expect(try migrator.migrate(back).applied == ["lead in its join table"])
            #expect(try !Self.columns(configuration, "Team").contains("lead"))
            #expect(
                try Self.rows(configuration, "SELECT \"Team_ID\", lead FROM \"Team_lead\" ORDER BY id")
                    == [["1", "2"], ["3", "1"]])
            #expect(
                try Self.rows(configuration, "SELECT indexdef FROM pg_indexes WHERE indexname = 'Team_lead_idx'")
                    .first?.first??.contains("(\"Team_ID\")") == true)
            try back.addTableClasses([ServerModels.Member.self, ServerModels.Team.self])
            let again = try ServerModels.Team.fetchAll(manager: back).sorted { $0.idNum < $1.idNum }
            #expect(again.map { $0.lead?.name } == ["Bob", nil, "Ada"])
            #expect(
                try migrator.appliedMigrations(in: back).map(\.name) == ["lead in a column", "lead in its join table"])
            #expect(try migrator.migrate(back).applied.isEmpty)
            try back.close()
        }
    }

    @Test func aTableConvertsToTheLeanLayoutAndBack() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            try Self.release1(configuration)
            let manager = try DBBManager(postgres: configuration, readers: 0)
            var migrator = DBBMigrator()
            migrator.registerMigration("lean", [.convertLayout(of: "Member", to: .lean)])
            #expect(try migrator.migrate(manager).applied == ["lean"])
            let leanColumns = try Self.columns(configuration, "Member")
            #expect(!leanColumns.contains("createdTime") && !leanColumns.contains("modifiedTime"))
            #expect(leanColumns.first == "id")
            #expect(try Self.rows(configuration, "SELECT 1 FROM pg_indexes WHERE indexname = 'Member_name'") == [["1"]])
            try manager.addTableClasses([LeanServerMember.self])
            let members = try LeanServerMember.fetchAll(manager: manager).sorted { $0.idNum < $1.idNum }
            #expect(members.map(\.idNum) == [1, 2])
            #expect(members.map(\.age) == [36, 41])
            #expect(members.map(\.tags) == [["a", "b"], []])
            #expect(members.map { $0.mentor?.name } == [nil, "Ada"])
            let cy = LeanServerMember(dbManager: manager)
            cy.name = "Cy"
            try cy.save()
            #expect(cy.idNum == 3)
            try manager.close()

            let back = try DBBManager(postgres: configuration, readers: 0)
            migrator.registerMigration(
                "DBBBuilder again, badges imported",
                [
                    .convertLayout(of: "Member", to: .dbbBuilder),
                    // A table another program made, its id no identity: the conversion makes it one.
                    .sql("CREATE TABLE \"Badge\" (id bigint PRIMARY KEY, label text, level bigint)"),
                    .sql("INSERT INTO \"Badge\" VALUES (7, 'gold', 3), (2, 'silver', 2)"),
                    .convertLayout(of: "Badge", to: .dbbBuilder),
                ])
            #expect(try migrator.migrate(back).applied == ["DBBBuilder again, badges imported"])
            #expect(try Self.columns(configuration, "Member").suffix(2) == ["createdTime", "modifiedTime"])
            #expect(
                try Self.columns(configuration, "Badge") == ["id", "label", "level", "createdTime", "modifiedTime"])
            try back.addTableClasses(ServerModels.all)
            let again = try ServerModels.Member.fetchAll(manager: back).sorted { $0.idNum < $1.idNum }
            #expect(again.map(\.name) == ["Ada", "Bob", "Cy"])
            #expect(again.map { $0.createdTime == nil } == [true, true, true])
            let dan = ServerModels.Member(dbManager: back)
            dan.name = "Dan"
            try dan.save()
            #expect(dan.idNum == 4)
            #expect(
                try Self.rows(configuration, "SELECT \"createdTime\" IS NOT NULL FROM \"Member\" WHERE id = 4") == [
                    ["1"]
                ])
            let badge = ServerModels.Badge(dbManager: back)
            badge.label = "bronze"
            try badge.save()
            #expect(badge.idNum == 8)
            let badges = try ServerModels.Badge.fetchAll(manager: back).sorted { $0.idNum < $1.idNum }
            #expect(badges.map(\.label) == ["silver", "gold", "bronze"])
            #expect(badges.map(\.idNum) == [2, 7, 8])
            try back.close()
        }
    }

    @Test func aFailingStepAfterSuccessfulOnesLeavesSchemaAndDataAsTheyWere() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            try Self.release1(configuration)
            let manager = try DBBManager(postgres: configuration, readers: 0)
            var migrator = DBBMigrator()
            migrator.registerMigration("tags renamed labels", [.renameProperty("tags", to: "labels", in: "Member")])
            try migrator.migrate(manager)
            let schema = try Self.schema(configuration)
            let data = try Self.data(configuration)
            #expect(data.count == 5 && data[0] == ["1", "Ada", "36", "2.6", "a"])
            migrator.registerMigration(
                "everything, then a failure",
                [
                    .objects("ages up") { manager in
                        try manager.addTableClasses([ServerModels.Member.self])
                        for member in try ServerModels.Member.fetchAll(manager: manager) {
                            member.age += 10
                            try member.save()
                        }
                    },
                    .moveReferenceToColumn("lead", in: "Team"),
                    .moveReferenceToJoinTable("lead", in: "Team"),
                    .moveReferenceToColumn("lead", in: "Team"),
                    .convertLayout(of: "Team", to: .lean),
                    .dropProperty("nickname", in: "Member"),
                    .changeType(of: "score", in: "Member", to: .string) { value in value.doubleValue.map { "\($0)" } },
                    .sql("SELECT * FROM no_such_table"),
                ])
            #expect(throws: DBBError.self) { try migrator.migrate(manager) }
            #expect(manager.errorMessage().contains("migration everything, then a failure failed"))
            #expect(try Self.schema(configuration) == schema)
            #expect(
                schema.contains("Member_labels.labels text") && schema.contains("Team.createdTime double precision"))
            #expect(try Self.data(configuration) == data)
            #expect(try migrator.appliedMigrations(in: manager).map(\.name) == ["tags renamed labels"])
            try manager.close()
        }
    }
}
