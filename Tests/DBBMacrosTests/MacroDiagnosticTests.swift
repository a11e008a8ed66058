import DBBTestSupport
import Foundation
import Testing

/// What the compiler tells a user whose `@DBBTable` class has a property of a type that cannot be stored: the
/// macro's output type-checked by `swiftc` against the modules the tests were built with.
@Suite struct MacroDiagnosticTests {
    /// The repository's root, for the C modules' module maps.
    private static let root = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent()

    @Test func anUnsupportedTypeIsReportedOnThePropertysLineSayingWhatIsStored() throws {
        let plugin = try #require(ToolProcess.executable("DBBMacrosPlugin-tool"), "the macro plugin is built")
        let modules = plugin.deletingLastPathComponent().appendingPathComponent("Modules")
        let swiftc = try #require(Self.compiler(), "swiftc is on PATH")
        let folder = try TemporaryFolder()
        let source = try folder.write(
            """
            import DBBBuilder

            struct Point {
                var x = 0.0
            }

            @DBBTable
            final class Shape: DBBTableObject {
                var name = ""
                var origin: Point = Point()
                var corners: [Point] = []
                var tags: [String] = []
            }
            """, to: "Shape.swift")
        let run = try ToolProcess.run(
            executable: swiftc,
            [
                // The module cache inside the temporary folder, so that the test leaves nothing behind.
                "-typecheck", "-swift-version", "6", "-module-cache-path", folder.path("cache"), "-I", modules.path,
                "-Xcc", "-fmodule-map-file=\(Self.root.path)/Modules/CSQLite/module.modulemap",
                "-Xcc", "-fmodule-map-file=\(Self.root.path)/Modules/CZlib/module.modulemap",
                "-load-plugin-executable", "\(plugin.path)#DBBMacrosPlugin", source.path,
            ], in: folder.url)
        #expect(run.exitCode != 0)
        let output = run.standardError
        // Each unsupported property, on its own line (10 and 11), in its tracking observer's expansion.
        for (line, property) in [(10, "origin"), (11, "corners")] {
            #expect(output.contains("Shape.swift:\(line):"), "no diagnostic on line \(line)")
            #expect(output.contains("dbbPropertyDidChange(self.\(property))"))
        }
        #expect(!output.contains("Shape.swift:9:") && !output.contains("Shape.swift:12:"))
        #expect(output.contains("is unavailable: a stored property is a scalar (Bool, an integer"))
        // The library's own words, never an internal protocol's.
        #expect(!output.contains("DBBTableRepresentable") && !output.contains("conform to"))
    }

    /// `swiftc` from the directories of `PATH`.
    private static func compiler() -> URL? {
        let path = ProcessInfo.processInfo.environment["PATH"] ?? ""
        return path.split(separator: ":").map { URL(fileURLWithPath: String($0)).appendingPathComponent("swiftc") }
            .first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }
}
