import DBBBuilder
import Foundation
import Testing

/// Keeps Docs/CodeGenerator.md true: each ```swift block that follows a `dbb-codegen` command is that
/// command's output, and every other ```swift block stands in this file, where it is compiled and run.
@Suite struct DocsCodeGeneratorTests {
    /// A fenced code block of a Markdown file.
    struct Block: Equatable {
        var language: String
        var text: String
    }

    static func blocks(in markdown: String) -> [Block] {
        DocSnippets.fencedBlocks(in: markdown).map {
            Block(language: $0.language, text: $0.lines.joined(separator: "\n"))
        }
    }

    /// Splits a command line into words the way a shell does for plain words and single quotes.
    static func words(_ command: String) -> [String] {
        var words: [String] = []
        var current = ""
        var inWord = false
        var quoted = false
        for character in command {
            if character == "'" {
                quoted.toggle()
                inWord = true
            } else if character == " " && !quoted {
                if inWord { words.append(current) }
                current = ""
                inWord = false
            } else {
                current.append(character)
                inWord = true
            }
        }
        if inWord { words.append(current) }
        return words
    }

    @Test func theShellSplitterKeepsQuotedWordsTogether() {
        #expect(
            Self.words("dbb-codegen A 'tags:[String]'  b:Int? ''") == [
                "dbb-codegen", "A", "tags:[String]", "b:Int?", "",
            ])
    }

    @Test func everySwiftBlockIsToolOutputOrCompiledHere() throws {
        let guide = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Docs/CodeGenerator.md"), encoding: .utf8)
        let source = try String(contentsOfFile: #filePath, encoding: .utf8)
        let sourceLines = source.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        let blocks = Self.blocks(in: guide)
        var outputs = 0
        var compiled = 0
        for (position, block) in blocks.enumerated() where block.language == "swift" {
            let previous = position > 0 ? blocks[position - 1] : nil
            if let previous, previous.language == "sh", previous.text.hasPrefix("dbb-codegen ") {
                let arguments = Array(Self.words(previous.text).dropFirst())
                // Commands name chinook.sqlite relative to the fixtures folder, which is only read.
                let run = try Codegen.run(arguments, in: fixturesFolder)
                #expect(run.exitCode == 0, "\(previous.text)")
                #expect(run.standardOutput == block.text + "\n", "\(previous.text)")
                outputs += 1
            } else {
                let lines = block.text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
                let found = sourceLines.indices.contains { start in
                    start + lines.count <= sourceLines.count && Array(sourceLines[start..<start + lines.count]) == lines
                }
                #expect(found, "not compiled by a test:\n\(block.text)")
                compiled += 1
            }
        }
        #expect(outputs == 4)
        #expect(compiled == 1)
    }

    @Test func usingAGeneratedClass() throws {
        let folder = try TemporaryFolder()
        let copy = try copyOfFixture("chinook.sqlite", into: folder)

        let manager = try DBBManager(databaseURL: copy)
        try manager.addTableClasses([Album.self, Artist.self])
        let album = try Album.fetchOne(id: 1, manager: manager)
        print(album?.title ?? "", album?.artist?.name ?? "")  // For Those About To Rock We Salute You AC/DC

        #expect(album?.title == "For Those About To Rock We Salute You")
        #expect(album?.artist?.name == "AC/DC")
    }
}
