import Foundation

/// Checks that documentation cannot drift from compiled code: every ```swift block of a guide must stand,
/// line for line (indentation and `import` lines aside), in a test source file that compiles and runs it.
public enum DocSnippets {
    /// The ```swift blocks of a Markdown file.
    public static func swiftBlocks(in markdown: String) -> [[String]] {
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
    public static func missingBlocks(guide: String, testFile: String = #filePath) throws -> [String] {
        let markdown = try String(contentsOf: repositoryRoot.appendingPathComponent(guide), encoding: .utf8)
        return missingBlocks(markdown: markdown, source: try String(contentsOfFile: testFile, encoding: .utf8))
    }

    /// The ```swift blocks of `markdown` that do not stand in `source`.
    public static func missingBlocks(markdown: String, source text: String) -> [String] {
        let source = text.components(separatedBy: "\n").map { $0.trimmingCharacters(in: .whitespaces) }
        return swiftBlocks(in: markdown).filter { block in
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

/// The repository's root (the folder holding Package.swift), found from this file's path.
public let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
    }
    return url
}()

/// A file of the shared real-data folder beside the repository (`../shared/data`).
public func sharedData(_ name: String) -> URL {
    repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/data/\(name)")
}

/// A temporary folder that removes itself.
public final class TemporaryFolder {
    /// The folder.
    public let url: URL

    /// Creates a new, empty folder in the system's temporary directory.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("dbb-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A file in the folder.
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }
}
