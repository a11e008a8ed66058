import DBBBuilder
import DBBCodegenTestSupport
import Foundation
import Testing

/// The generated Sakila classes (`Generated/Sakila.swift`, a target of their own because Chinook's also have a
/// `Customer`): every table mapped, `actor` as `ActorTable` so Swift's `Actor` stays visible, kept equal to the
/// tool's output and checked against SQLite.
/// An actor of this module, typed as Swift's `Actor`.
private actor Counter {}

@Suite struct SakilaGeneratedTests {
    static let classes: [DBBTableObject.Type] = [
        ActorTable.self, Address.self, Category.self, City.self, Country.self, Customer.self, Film.self,
        FilmActor.self, FilmCategory.self, FilmText.self, Inventory.self, Language.self, Payment.self, Rental.self,
        Staff.self, Store.self,
    ]

    @Test func theCommittedFileIsTheToolsOutputByteForByte() throws {
        let run = try ToolProcess.run(
            "dbb-codegen", ["--database", "sakila.sqlite", "--all-tables"], in: fixturesFolder)
        #expect(run.exitCode == 0)
        let generated = repositoryRoot.appendingPathComponent("Tests/DBBCodegenSakilaTests/Generated/Sakila.swift")
        #expect(Data(run.standardOutput.utf8) == (try Data(contentsOf: generated)))
        #expect(
            run.standardError.hasPrefix(
                "dbb-codegen: note: class ActorTable maps table actor: Actor would shadow Swift's Actor\n"))
    }

    @Test func everyTableLoadsEveryRowAndWritesItBackUnchanged() throws {
        let result = try GeneratedTablesCheck.run(fixture: "sakila.sqlite", classes: Self.classes)
        #expect(result.problems == [])
        #expect(result.tables.count == 16)
        #expect(result.tables.first { $0.table == "payment" }?.rows == 16_049)
    }

    @Test func referencesAndCompositeKeysReadTheRealRows() throws {
        // `Actor` is still Swift's protocol in this module (a generated class of that name would not compile here).
        let counter: any Actor = Counter()
        #expect(counter is Counter)

        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: try copyOfFixture("sakila.sqlite", into: folder))
        try manager.addTableClasses(Self.classes)
        let actor = try #require(try ActorTable.fetchOne(id: 1, manager: manager))
        #expect([actor.firstName, actor.lastName] == ["PENELOPE", "GUINESS"])
        let roles = try FilmActor.fetch(
            options: .options(withConditions: ["actor = 1"], sortColumns: ["film"]), manager: manager)
        #expect(roles.count == 19)
        #expect(roles.first?.film?.title == "ACADEMY DINOSAUR")

        let payment = try #require(try Payment.fetchOne(id: 1, manager: manager))
        #expect(payment.amount == 2.99)
        #expect(payment.paymentDate == "2005-05-25 11:30:37")
        #expect(payment.customer?.firstName == "MARY")
        #expect(payment.customer?.address?.address == "1913 Hanoi Way")
        #expect(payment.customer?.address?.city?.city == "Sasebo")
        #expect(payment.customer?.address?.city?.country?.country == "Japan")
    }
}
