import Foundation

/// Checks that documentation cannot drift from compiled code: every ```swift block of a guide must stand,
/// line for line (indentation aside), in a test source file that compiles and runs it.
enum DocSnippets {
    /// The ```swift blocks of a Markdown file.
    static func swiftBlocks(in markdown: String) -> [[String]] {
        var blocks: [[String]] = []
        var current: [String]?
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed == "```swift" {
                current = []
            } else if current != nil, trimmed == "```" {
                blocks.append(current!)
                current = nil
            } else if current != nil {
                current!.append(trimmed)
            }
        }
        return blocks
    }

    /// The blocks of `guide` (a path below the repository root) that do not stand in `testFile`.
    static func missingBlocks(guide: String, testFile: String = #filePath) throws -> [String] {
        let markdown = try String(contentsOf: repositoryRoot.appendingPathComponent(guide), encoding: .utf8)
        return missingBlocks(markdown: markdown, source: try String(contentsOfFile: testFile, encoding: .utf8))
    }

    /// The ```swift blocks of `markdown` that do not stand in `source`.
    static func missingBlocks(markdown: String, source text: String) -> [String] {
        let source = text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        return swiftBlocks(in: markdown).filter { block in
            let lines = block.filter { !$0.isEmpty }
            guard let first = lines.first else { return false }
            let sourceLines = source.filter { !$0.isEmpty }
            return !sourceLines.indices.contains { start in
                sourceLines[start] == first && start + lines.count <= sourceLines.count
                    && Array(sourceLines[start..<(start + lines.count)]) == lines
            }
        }.map { $0.joined(separator: "\n") }
    }
}
