import Foundation
import Testing

/// The tests read only what the repository holds: the real databases under `Tests/Fixtures`, each listed with
/// its source and licence, and nothing beside the repository.
@Suite("Fixtures: tests read only the repository")
struct FixturesTests {
    @Test("a fixture is a file of Tests/Fixtures inside the repository")
    func fixtureIsInsideTheRepository() throws {
        let chinook = try fixture("chinook.sqlite")
        #expect(chinook.path.hasPrefix(repositoryRoot.resolvingSymlinksInPath().path + "/Tests/Fixtures/"))
        #expect(FileManager.default.fileExists(atPath: chinook.path))
    }

    @Test(
        "a name leading outside Tests/Fixtures is refused",
        arguments: [
            "../../Package.swift", "../DBBSQLTests/FixturesTests.swift",
            "../../../" + "shared" + "/data/chinook.sqlite",
            "/etc/hostname", repositoryRoot.appendingPathComponent("Package.swift").path, "..", ".",
        ])
    func escapingNamesAreRefused(name: String) {
        #expect {
            try fixture(name)
        } throws: { error in
            (error as? FixtureError)?.reason == "it is outside Tests/Fixtures; tests read only the repository"
        }
    }

    @Test("a missing fixture is named in the error")
    func missingFixture() {
        #expect {
            try fixture("nowhere.sqlite")
        } throws: { error in
            "\(error)" == "fixture 'nowhere.sqlite': there is no such file in Tests/Fixtures"
        }
    }

    @Test("a copy of a fixture is a writable file of the temporary folder, the fixture unchanged")
    func copyIsWritable() throws {
        let folder = try TemporaryFolder()
        let original = try Data(contentsOf: try fixture("northwind.sqlite"))
        let copy = try copyOfFixture("northwind.sqlite", into: folder)
        #expect(copy == folder.file("northwind.sqlite"))
        #expect(try Data(contentsOf: copy) == original)
        #expect(FileManager.default.isWritableFile(atPath: copy.path))
        #expect(throws: FixtureError.self) { try copyOfFixture("../../README.md", into: folder) }
        #expect(try folder.contents() == ["northwind.sqlite"])
    }

    @Test("every fixture file is listed in SOURCES.md with its source, and every listed file exists")
    func everyFixtureHasItsSource() throws {
        let sources = try String(contentsOf: try fixture("SOURCES.md"), encoding: .utf8)
        let files = try FileManager.default.contentsOfDirectory(atPath: fixturesFolder.path)
            .filter { $0 != "SOURCES.md" && !$0.hasPrefix(".") }.sorted()
        #expect(files.count == 6)
        let listed = sources.components(separatedBy: "\n").filter { $0.hasPrefix("| `") }.compactMap {
            $0.split(separator: "`").dropFirst().first.map(String.init)
        }
        #expect(listed.sorted() == files)
        for file in files {
            #expect(sources.contains("`\(file)`"), "\(file) has no source in SOURCES.md")
        }
    }

    @Test("no test source or manifest names a path outside the repository")
    func noTestReadsOutsideTheRepository() throws {
        // Written in pieces so that this file does not match itself.
        let forbidden = [".." + "/shared", "shared" + "/data", "/work" + "/shared"]
        var checked = 0
        var offenders: [String] = []
        let testsFolder = repositoryRoot.appendingPathComponent("Tests")
        let enumerator = try #require(FileManager.default.enumerator(atPath: testsFolder.path))
        var files = ["Package.swift"]
        while let path = enumerator.nextObject() as? String {
            if path.hasSuffix(".swift") || path.hasSuffix(".md") { files.append("Tests/" + path) }
        }
        for file in files {
            let text = try String(contentsOf: repositoryRoot.appendingPathComponent(file), encoding: .utf8)
            checked += 1
            for (number, line) in text.components(separatedBy: "\n").enumerated()
            where forbidden.contains(where: line.contains) {
                offenders.append("\(file):\(number + 1): \(line.trimmingCharacters(in: .whitespaces))")
            }
        }
        #expect(checked > 50)
        #expect(offenders == [], "read only Tests/Fixtures, through fixture(_:)")
    }
}
