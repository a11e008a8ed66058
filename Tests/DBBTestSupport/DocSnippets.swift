import Foundation

/// Checks that documentation cannot drift from compiled code: every ```swift block of a guide must stand,
/// line for line (indentation and `import` lines aside), in a test source file that compiles and runs it.
public enum DocSnippets {
    /// The fenced blocks of a Markdown text in order, with their language (`swift`, `sql`, empty for none)
    /// and their lines as written.
    public static func fencedBlocks(in markdown: String) -> [(language: String, lines: [String])] {
        var blocks: [(language: String, lines: [String])] = []
        var current: (language: String, lines: [String])?
        for line in markdown.components(separatedBy: "\n") {
            let trimmed = line.trimmingCharacters(in: .whitespaces)
            if current == nil, trimmed.hasPrefix("```") {
                current = (String(trimmed.dropFirst(3)), [])
            } else if let block = current, trimmed == "```" {
                blocks.append(block)
                current = nil
            } else {
                current?.lines.append(line)
            }
        }
        return blocks
    }

    /// The fenced blocks of one language (```swift, ```sql, …) of a Markdown text, their lines as written.
    public static func blocks(_ language: String, in markdown: String) -> [[String]] {
        fencedBlocks(in: markdown).filter { $0.language == language }.map(\.lines)
    }

    /// The ```swift blocks of a Markdown text, their lines without indentation.
    public static func swiftBlocks(in markdown: String) -> [[String]] {
        blocks("swift", in: markdown).map { block in block.map { $0.trimmingCharacters(in: .whitespaces) } }
    }

    /// The blocks of `guide` (a path below the repository root) that do not stand in `testFile`.
    public static func missingBlocks(guide: String, testFile: String = #filePath) throws -> [String] {
        let markdown = try String(contentsOf: repositoryRoot.appendingPathComponent(guide), encoding: .utf8)
        return missingBlocks(markdown: markdown, source: try String(contentsOfFile: testFile, encoding: .utf8))
    }

    /// The ```swift blocks of a Markdown text that are package manifests (they start with
    /// `// swift-tools-version`), their lines as written. They are checked by loading them, not by finding them
    /// in a test source.
    public static func manifests(in markdown: String) -> [String] {
        blocks("swift", in: markdown).filter { $0.first?.hasPrefix("// swift-tools-version") == true }
            .map { $0.joined(separator: "\n") + "\n" }
    }

    /// The ```swift blocks of `markdown` that do not stand in `source` (package manifests aside).
    public static func missingBlocks(markdown: String, source text: String) -> [String] {
        let source = text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        return swiftBlocks(in: markdown).filter { !($0.first?.hasPrefix("// swift-tools-version") ?? false) }.filter {
            block in
            // Imports belong to the top of a file; the rest of a block may stand inside a namespace.
            let lines = block.filter { !$0.isEmpty && !$0.hasPrefix("import ") }
            guard let first = lines.first else { return false }
            let sourceLines = source.filter { !$0.isEmpty }
            return !sourceLines.indices.contains { start in
                sourceLines[start] == first && start + lines.count <= sourceLines.count
                    && Array(sourceLines[start..<(start + lines.count)]) == lines
            }
        }.map { $0.joined(separator: "\n") }
    }
}
