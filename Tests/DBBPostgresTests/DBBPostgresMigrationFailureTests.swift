import DBBBuilder
import DBBPostgres
import Foundation
import Testing

/// On PostgreSQL as on SQLite, a failed migration names the migration, the step and, for a transform, the row's
/// id; the error the application's code threw stays reachable, unchanged; and nothing of the migration remains.
@Suite(.postgres)
struct DBBPostgresMigrationFailureTests {
    struct Refused: Error, Equatable {
        let value: Int64
    }

    /// A shelf table with three rows, one of whose years no transform accepts (row 3: -5), written by migration
    /// `v1`, which every test expects to stay applied.
    static let v1: DBBMigrator = {
        var migrator = DBBMigrator()
        migrator.registerMigration(
            "v1",
            [
                .sql(#"CREATE TABLE "Shelf" ("id" bigint PRIMARY KEY, "name" text, "built" bigint)"#),
                .sql(#"INSERT INTO "Shelf" VALUES (1, 'oak', 1990), (2, 'pine', NULL), (3, 'birch', -5)"#),
            ])
        return migrator
    }()

    static func rows(_ manager: DBBManager) throws -> [String] {
        try manager.read {
            try manager.postgresConnection().fetchAll(
                #"SELECT "id", "name", "built"::text, pg_typeof("built")::text FROM "Shelf" ORDER BY "id""#
            ).map { row in row.map(\.description).joined(separator: " ") }
        }
    }

    static let acceptPositiveYears: @Sendable (DBBValue) throws -> (any DBBBindable)? = { value in
        guard let year = value.int64Value, year > 0 else { throw Refused(value: value.int64Value ?? 0) }
        return "\(year) CE"
    }

    @Test func aThrowingTransformNamesTheMigrationTheStepAndTheRowAndCarriesTheThrownError() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration)
            defer { try? manager.close() }
            #expect(try Self.v1.migrate(manager).applied == ["v1"])
            let before = try Self.rows(manager)
            var migrator = Self.v1
            migrator.registerMigration(
                "v3",
                [
                    .sql(#"UPDATE "Shelf" SET "name" = upper("name")"#),
                    .changeType(of: "built", in: "Shelf", to: .string, transform: Self.acceptPositiveYears),
                ])
            let error = try #require(#expect(throws: DBBError.self) { try migrator.migrate(manager) })
            #expect(
                error.message == "migration v3 failed: step 2 (changeType Shelf.built): row id 3: Refused(value: -5)")
            #expect(error.underlyingError as? Refused == Refused(value: -5))
            #expect(error.kind == .library)
            #expect(error.engine == nil)
            #expect(!error.description.contains("SQLite"), "\(error)")
            #expect(manager.lastFailure?.underlyingError as? Refused == Refused(value: -5))

            #expect(try Self.rows(manager) == before)
            #expect(try migrator.appliedMigrations(in: manager).map(\.name) == ["v1"])
            var fixed = Self.v1
            fixed.registerMigration(
                "v3",
                [
                    .sql(#"UPDATE "Shelf" SET "name" = upper("name")"#),
                    .changeType(of: "built", in: "Shelf", to: .string) { value in value.int64Value.map { "\($0) CE" } },
                ])
            #expect(try fixed.migrate(manager).applied == ["v3"])
            #expect(
                try Self.rows(manager) == [
                    "1 'OAK' '1990 CE' 'text'", "2 'PINE' NULL 'text'", "3 'BIRCH' '-5 CE' 'text'",
                ])
        }
    }

    @Test func aFailingSQLStepNamesTheStepAndKeepsTheServersCodes() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration)
            defer { try? manager.close() }
            try Self.v1.migrate(manager)
            let before = try Self.rows(manager)
            var migrator = Self.v1
            migrator.registerMigration(
                "v3", [.sql(#"UPDATE "Shelf" SET "name" = 'x'"#), .sql(#"UPDATE "NoSuchTable" SET "x" = 1"#)])
            let error = try #require(#expect(throws: DBBError.self) { try migrator.migrate(manager) })
            #expect(
                error.message.hasPrefix(
                    #"migration v3 failed: step 2 (sql UPDATE "NoSuchTable" SET "x" = 1): relation "NoSuchTable" "#),
                "\(error.message)")
            #expect(error.kind == .server)
            #expect(error.sqlState == "42P01")
            #expect(error.underlyingError == nil)
            #expect(error.description.hasPrefix("PostgreSQL error (SQLSTATE 42P01): migration v3 failed"), "\(error)")
            #expect(try Self.rows(manager) == before)
            #expect(try migrator.appliedMigrations(in: manager).map(\.name) == ["v1"])
        }
    }

    @Test func aForeignKeyViolationNamesItsStep() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration)
            defer { try? manager.close() }
            var migrator = DBBMigrator()
            migrator.registerMigration(
                "v1",
                [
                    .sql(#"CREATE TABLE "Parent" ("id" bigint PRIMARY KEY, "name" text)"#),
                    .sql(#"CREATE TABLE "Child" ("id" bigint PRIMARY KEY, "parent" bigint REFERENCES "Parent")"#),
                    .sql(#"INSERT INTO "Parent" VALUES (1, 'p')"#),
                    .sql(#"INSERT INTO "Child" VALUES (1, 1)"#),
                ])
            migrator.registerMigration(
                "orphan", [.sql(#"INSERT INTO "Child" VALUES (2, 1)"#), .sql(#"INSERT INTO "Child" VALUES (3, 99)"#)])
            let error = try #require(#expect(throws: DBBError.self) { try migrator.migrate(manager) })
            #expect(
                error.message.hasPrefix(#"migration orphan failed: step 2 (sql INSERT INTO "Child" VALUES (3, 99)): "#),
                "\(error.message)")
            #expect(DBBError.constraintForeignKey.matches(error))
            #expect(error.sqlState == "23503")
            let children = try manager.read {
                try manager.postgresConnection().fetchAll(#"SELECT count(*) FROM "Child""#)
            }
            #expect(children.first?.first?.int64Value == 1)
            #expect(try migrator.appliedMigrations(in: manager).map(\.name) == ["v1"])
        }
    }

    @Test func aDataStepThatThrowsIsNamedAndUndone() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: configuration)
            defer { try? manager.close() }
            try Self.v1.migrate(manager)
            var migrator = Self.v1
            migrator.registerMigration(
                "v3",
                [
                    .objects("rename the shelves") { manager in
                        try manager.addTableClasses([PostgresMigrationShelf.self])
                        let shelves = try PostgresMigrationShelf.fetchAll(manager: manager)
                        for shelf in shelves { shelf.name += " (checked)" }
                        try PostgresMigrationShelf.save(shelves, manager: manager)
                        throw Refused(value: Int64(shelves.count))
                    }
                ])
            let error = try #require(#expect(throws: DBBError.self) { try migrator.migrate(manager) })
            #expect(
                error.message == #"migration v3 failed: step 1 (objects "rename the shelves"): Refused(value: 3)"#)
            #expect(error.underlyingError as? Refused == Refused(value: 3))
            #expect(error.kind == .library)
            #expect(try Self.rows(manager).allSatisfy { !$0.contains("checked") })
            #expect(throws: DBBError.self) { _ = try PostgresMigrationShelf.fetchAll(manager: manager) }
            #expect(try migrator.appliedMigrations(in: manager).map(\.name) == ["v1"])
        }
    }
}

/// The shelf table of ``DBBPostgresMigrationFailureTests`` as a class, for its data step.
final class PostgresMigrationShelf: DBBTableObject {
    override class var tableName: String { "Shelf" }
    var name = ""

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["name": .init(\PostgresMigrationShelf.name)], for: self)
    }
}
