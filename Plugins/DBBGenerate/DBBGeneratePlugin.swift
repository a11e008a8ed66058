import Foundation
import PackagePlugin

/// `swift package dbb-generate`: runs `dbb-generate` on every `*.dbbmodel` file of the package's Swift targets
/// (or of the targets given with `--target`), writing each model's `.generated.swift` beside it. `--check`
/// writes nothing and fails when a generated file is missing or out of date.
@main
struct DBBGeneratePlugin: CommandPlugin {
    func performCommand(context: PluginContext, arguments: [String]) async throws {
        var extractor = ArgumentExtractor(arguments)
        let targetNames = extractor.extractOption(named: "target")
        let check = extractor.extractFlag(named: "check") > 0
        guard extractor.remainingArguments.isEmpty else {
            throw GenerateError(
                "unknown arguments \(extractor.remainingArguments.joined(separator: " ")); "
                    + "use [--target NAME]... [--check]")
        }
        let targets =
            targetNames.isEmpty ? context.package.targets : try context.package.targets(named: targetNames)
        let tool = try context.tool(named: "dbb-generate").url
        var models: [URL] = []
        for case let target as SourceModuleTarget in targets {
            models += Self.models(in: target.directoryURL)
        }
        if models.isEmpty {
            Diagnostics.warning(
                "no *.dbbmodel file in \(targetNames.isEmpty ? "the package's targets" : "those targets")")
            return
        }
        var failed = 0
        for model in models {
            let process = Process()
            process.executableURL = tool
            process.arguments = [model.path] + (check ? ["--check"] : [])
            try process.run()
            process.waitUntilExit()
            if process.terminationStatus != 0 { failed += 1 }
        }
        guard failed == 0 else {
            throw GenerateError(
                check
                    ? "\(failed) of \(models.count) generated files are out of date"
                    : "\(failed) of \(models.count) model files have errors")
        }
    }

    /// The target's `*.dbbmodel` files, in a stable order.
    private static func models(in folder: URL) -> [URL] {
        let files = FileManager.default.enumerator(at: folder, includingPropertiesForKeys: nil)
        return (files?.compactMap { $0 as? URL } ?? []).filter { $0.pathExtension == "dbbmodel" }
            .sorted { $0.path < $1.path }
    }
}

/// The error the plugin stops with; `dbb-generate` has already said what is wrong with which file.
struct GenerateError: Error, CustomStringConvertible {
    let description: String
    init(_ description: String) { self.description = description }
}
