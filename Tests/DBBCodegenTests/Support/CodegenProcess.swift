@_exported import DBBCodegenTestSupport
import Foundation

/// Runs the `dbb-codegen` executable built next to the test bundle, as a separate process.
enum Codegen {
    /// The read-only Chinook database of the fixtures.
    static var chinook: URL { get throws { try fixture("chinook.sqlite") } }

    /// The folder holding this test target's committed generated sources.
    static let generatedFolder = repositoryRoot.appendingPathComponent("Tests/DBBCodegenTests/Generated")

    /// Runs the tool with `arguments`, in `folder` when given.
    static func run(_ arguments: [String], in folder: URL? = nil) throws -> ToolRun {
        try ToolProcess.run("dbb-codegen", arguments, in: folder)
    }
}
