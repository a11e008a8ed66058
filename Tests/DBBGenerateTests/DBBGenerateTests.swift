import DBBObjects
import DBBQuery
import DBBTestSupport
import Foundation
import Testing

/// The macro-free path: `dbb-generate` run as a process on a model file, and the committed output of
/// `Library.dbbmodel`, compiled in this target without DBBMacros, saving and loading objects.
@Suite struct DBBGenerateTests {
    static let folder = repositoryRoot.appendingPathComponent("Tests/DBBGenerateTests")
    static let model = folder.appendingPathComponent("Library.dbbmodel")
    static let generated = folder.appendingPathComponent("Library.generated.swift")

    static func run(_ arguments: [String]) throws -> ToolRun {
        try ToolProcess.run("dbb-generate", arguments)
    }

    @Test func theCommittedFileIsTheToolsOutputByteForByte() throws {
        let scratch = try TemporaryFolder()
        let run = try Self.run([Self.model.path, "-o", scratch.path("Library.swift")])
        #expect(run.exitCode == 0)
        #expect(run.standardError == "")
        let written = try String(contentsOf: scratch.file("Library.swift"), encoding: .utf8)
        #expect(written == (try String(contentsOf: Self.generated, encoding: .utf8)))
        // The expansion is the macro's: markers gone, tracking observers, the mapping with direct closures.
        #expect(!written.contains("\n@DBBTable") && !written.contains("@Indexed"))
        #expect(written.contains(#""year": .init(columnName: "publicationYear", get: { (object: Book) -> Int in"#))
        #expect(written.contains("override class var tableName: String { \"Loans\" }"))
        #expect(written.contains("dbbPropertyDidChange(self.year)"))
        #expect(written.contains("func markReturned(on day: Date) {"))

        // The committed file is up to date: --check, writing nothing, succeeds on it.
        let check = try Self.run([Self.model.path, "--check"])
        #expect(check.exitCode == 0)
        #expect(check.standardOutput == "")
    }

    @Test func theGeneratedClassesSaveLoadAndTrackChanges() throws {
        let folder = try TemporaryFolder()
        let databaseURL = folder.file("library.sqlite")
        let manager = try DBBManager(databaseURL: databaseURL)
        try manager.addTableClasses([Author.self, Book.self, Loan.self])

        let author = Author(dbManager: manager)
        author.firstName = "Ursula"
        author.lastName = "Le Guin"
        author.born = 1929
        try author.save()
        let book = Book(dbManager: manager)
        book.title = "The Dispossessed"
        book.isbn = "978-0060512750"
        book.year = 1974
        book.tags = ["novel", "utopia"]
        book.author = author
        try book.save()
        let loan = Loan(dbManager: manager)
        loan.book = book
        loan.borrower = "Ada"
        loan.borrowerAddress = Address(street: "1 Analytical Row", city: "London")
        loan.markReturned(on: Date(timeIntervalSince1970: 86_400))
        try loan.save()

        let reopened = try DBBManager(databaseURL: databaseURL)
        try reopened.addTableClasses([Author.self, Book.self, Loan.self])
        var options = DBBQueryOptions()
        options.filter(\Loan.status == .returned)
        let loans = try Loan.fetch(options: options, manager: reopened)
        #expect(loans.count == 1)
        let loaded = try #require(loans.first)
        #expect(loaded.borrower == "Ada")
        #expect(loaded.borrowerAddress == Address(street: "1 Analytical Row", city: "London"))
        #expect(loaded.history == [.returned])
        #expect(loaded.returnedOn == Date(timeIntervalSince1970: 86_400))
        #expect(loaded.book?.title == "The Dispossessed")
        #expect(loaded.book?.tags == ["novel", "utopia"])
        #expect(loaded.book?.year == 1974)
        #expect(loaded.book?.author?.fullName == "Ursula Le Guin")
        #expect(loaded.book?.author?.born == 1929)

        // Markers and table options made it into the schema.
        let schema = try sqlite3Shell(databaseURL, ".schema")
        #expect(schema.contains("CREATE TABLE Loans"))
        #expect(schema.contains("bookId Integer"))
        #expect(schema.contains("publicationYear Integer"))
        #expect(schema.contains("isbn Text NOT NULL UNIQUE"))
        #expect(schema.contains("CREATE INDEX Book_title ON Book"))
        #expect(schema.contains("CREATE INDEX Author_lastNamefirstName ON Author (lastName, firstName)"))
        #expect(!schema.contains("isSelected"))

        // Change tracking, as with the macro: a loaded object is clean, setting a persisted property dirties it.
        #expect(!loaded.isDirty)
        loaded.borrower = "Grace"
        #expect(loaded.isDirty)
        let author2 = try #require(try Author.fetchOne(id: author.idNum, manager: reopened))
        author2.isSelected = true
        #expect(!author2.isDirty)

        // The UNIQUE marker holds: a second book with the same ISBN is refused.
        let copy = Book(dbManager: reopened)
        copy.title = "Another"
        copy.isbn = book.isbn
        #expect(throws: DBBError.self) { try copy.save() }
        #expect(try Book.fetchCount(manager: reopened) == 1)
    }

    @Test func checkFailsOnAStaleFileAndARunBringsItUpToDate() throws {
        let scratch = try TemporaryFolder()
        let model = try scratch.write(try String(contentsOf: Self.model, encoding: .utf8), to: "Library.dbbmodel")
        let output = scratch.file("Library.generated.swift")

        let missing = try Self.run([model.path, "--check"])
        #expect(missing.exitCode == 1)
        #expect(missing.standardError.contains("Library.generated.swift is missing; run `swift package dbb-generate`"))
        #expect(!FileManager.default.fileExists(atPath: output.path))

        try scratch.write("// stale\n", to: "Library.generated.swift")
        let stale = try Self.run([model.path, "--check"])
        #expect(stale.exitCode == 1)
        #expect(stale.standardError.contains("is out of date with Library.dbbmodel"))
        #expect(try String(contentsOf: output, encoding: .utf8) == "// stale\n")

        let write = try Self.run([model.path])
        #expect(write.exitCode == 0)
        #expect(write.standardOutput == "dbb-generate: wrote \(output.path)\n")
        let committed = try String(contentsOf: Self.generated, encoding: .utf8)
        #expect(try String(contentsOf: output, encoding: .utf8) == committed)
        #expect(try Self.run([model.path, "--check"]).exitCode == 0)
        // Up to date: a second run writes nothing.
        #expect(try Self.run([model.path]).standardOutput == "")
    }

    @Test func errorsInTheModelNameTheirLineAndChangeNothing() throws {
        let scratch = try TemporaryFolder()
        let model = try scratch.write(
            """
            import DBBObjects
            import Foundation

            @DBBTable
            final class Shelf: DBBTableObject {
                let code = ""
                var link: URL?
            }

            """, to: "Shelf.dbbmodel")
        try scratch.write("// kept\n", to: "Shelf.generated.swift")
        let run = try Self.run([model.path])
        #expect(run.exitCode == 65)
        #expect(
            run.standardError.contains(
                "\(model.path):6:5: error: 'let' property 'code' cannot be loaded from the database"))
        #expect(
            run.standardError.contains(
                "\(model.path):7:15: error: property 'link' has type 'URL?', which cannot be stored"))
        #expect(run.standardError.contains("Shelf.generated.swift is unchanged"))
        #expect(try String(contentsOf: scratch.file("Shelf.generated.swift"), encoding: .utf8) == "// kept\n")

        let broken = try scratch.write(
            "@DBBTable\nfinal class Shelf: DBBTableObject {\n    var code = \n", to: "B.dbbmodel")
        let syntax = try Self.run([broken.path])
        #expect(syntax.exitCode == 65)
        #expect(syntax.standardError.contains("\(broken.path):3:"))
        #expect(!FileManager.default.fileExists(atPath: scratch.path("B.generated.swift")))

        let unreadable = try Self.run([scratch.path("None.dbbmodel")])
        #expect(unreadable.exitCode == 66)
        let misnamed = try Self.run([scratch.path("Models.swift")])
        #expect(misnamed.exitCode == 64)
        #expect(misnamed.standardError.contains("a model file is named *.dbbmodel"))
    }
}
