import DBBBuilder
import DBBTestSupport
import Foundation
import Testing

/// Every page of documentation that shows Swift code has a test that compiles its blocks (`DocSnippets`): a new
/// guide, or a first code block in an old one, fails here until a test takes it.
@Suite struct DocsCoverageTests {
    /// Each guide with Swift code, and the test file that compiles its blocks (and names the guide).
    static let checkedBy: [String: String] = [
        "README.md": "Tests/DBBBuilderTests/DocsGuidesTests.swift",
        "Docs/GettingStarted.md": "Tests/DBBBuilderTests/DocsGuidesTests.swift",
        "Docs/ComingFromDBBBuilder.md": "Tests/DBBBuilderTests/DocsGuidesTests.swift",
        "Docs/Models.md": "Tests/DBBBuilderTests/DocsModelsGuideTests.swift",
        "Docs/Queries.md": "Tests/DBBObjectsTests/DocsQueriesAndConcurrencyTests.swift",
        "Docs/Concurrency.md": "Tests/DBBObjectsTests/DocsQueriesAndConcurrencyTests.swift",
        "Docs/Mapping.md": "Tests/DBBObjectsTests/DocsExamplesTests.swift",
        "Docs/ExistingDatabases.md": "Tests/DBBObjectsTests/DocsExamplesTests.swift",
        "Docs/Migrations.md": "Tests/DBBObjectsTests/DocsMigrationsTests.swift",
        "Docs/GettingStarted-DBBSQL.md": "Tests/DBBSQLTests/DocsGettingStartedTests.swift",
        "Docs/DBBExport.md": "Tests/DBBExportTests/DBBExportGuideTests.swift",
        "Docs/Server.md": "Tests/DBBServiceLifecycleTests/DocsServerTests.swift",
        "Docs/CodeGenerator.md": "Tests/DBBCodegenTests/DocsCodeGeneratorTests.swift",
        "Docs/MovingToPostgreSQL.md": "Tests/DBBPostgresTests/DocsPostgresGuidesTests.swift",
        "Docs/Clusters.md": "Tests/DBBPostgresTests/DocsPostgresGuidesTests.swift",
        "Modules/DBBPostgres/DBBPostgres.docc/DBBPostgres.md": "Tests/DBBPostgresTests/DocsPostgresGuidesTests.swift",
    ]

    /// The Markdown pages of the repository: the READMEs, the guides, the DocC catalogs' articles.
    static func pages() throws -> [String] {
        let manager = FileManager.default
        var pages = ["README.md", "Examples/README.md"]
        pages += try manager.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Docs").path)
            .filter { $0.hasSuffix(".md") }.map { "Docs/\($0)" }
        for module in try manager.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent("Modules").path) {
            let catalog = "Modules/\(module)/\(module).docc"
            guard manager.fileExists(atPath: repositoryRoot.appendingPathComponent(catalog).path) else { continue }
            pages += try manager.contentsOfDirectory(atPath: repositoryRoot.appendingPathComponent(catalog).path)
                .filter { $0.hasSuffix(".md") }.map { "\(catalog)/\($0)" }
        }
        return pages.sorted()
    }

    static func swiftBlocks(_ page: String) throws -> [[String]] {
        DocSnippets.swiftBlocks(
            in: try String(contentsOf: repositoryRoot.appendingPathComponent(page), encoding: .utf8))
    }

    @Test func everyPageWithSwiftCodeHasATestThatCompilesIt() throws {
        let pages = try Self.pages()
        #expect(pages.contains("Docs/GettingStarted.md") && pages.contains("Modules/DBBSQL/DBBSQL.docc/DBBSQL.md"))
        let landingPages = Set(DocCCatalogTests.modules.map(DocCCatalogTests.landingPage))
        for page in pages where try !Self.swiftBlocks(page).isEmpty {
            #expect(
                Self.checkedBy[page] != nil || landingPages.contains(page),
                "\(page) shows Swift code that no test compiles: add its blocks to a test and the page here")
        }
    }

    @Test func eachCheckReadsItsPage() throws {
        for (page, test) in Self.checkedBy {
            #expect(try !Self.swiftBlocks(page).isEmpty, "\(page) has no Swift block left")
            let source = try String(contentsOf: repositoryRoot.appendingPathComponent(test), encoding: .utf8)
            #expect(source.contains("\"\(page)\""), "\(test) does not read \(page)")
        }
    }
}
