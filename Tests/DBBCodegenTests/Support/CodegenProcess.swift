import Foundation
import Testing

/// What one run of `dbb-codegen` produced.
struct CodegenRun {
    var exitCode: Int32
    var standardOutput: String
    var standardError: String
}

/// Runs the `dbb-codegen` executable built next to the test bundle, as a separate process.
enum Codegen {
    /// The repository root, found from this file's path.
    static let repositoryRoot = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .deletingLastPathComponent().deletingLastPathComponent()

    /// The shared, read-only data folder next to the repository. Tests never write into it.
    static let sharedData = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/data")

    /// The read-only Chinook database.
    static let chinook = sharedData.appendingPathComponent("chinook.sqlite")

    /// The folder holding this test target's committed generated sources.
    static let generatedFolder = repositoryRoot.appendingPathComponent("Tests/DBBCodegenTests/Generated")

    /// The built `dbb-codegen` binary: in the products folder that holds the test bundle.
    static let executable: URL? = {
        var candidates: [URL] = []
        for start in [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0])] {
            var folder = start.deletingLastPathComponent()
            for _ in 0..<3 {
                candidates.append(folder.appendingPathComponent("dbb-codegen"))
                folder = folder.deletingLastPathComponent()
            }
        }
        return candidates.first { FileManager.default.isExecutableFile(atPath: $0.path) }
    }()

    /// Runs the tool with `arguments`, in `folder` when given.
    static func run(_ arguments: [String], in folder: URL? = nil) throws -> CodegenRun {
        let binary = try #require(executable, "dbb-codegen is not built next to the test bundle")
        let process = Process()
        process.executableURL = binary
        process.arguments = arguments
        if let folder { process.currentDirectoryURL = folder }
        // Both streams go to files, so neither can fill a pipe and block the process.
        let streams = try TemporaryFolder()
        let outputFile = streams.file("stdout")
        let errorFile = streams.file("stderr")
        try Data().write(to: outputFile)
        try Data().write(to: errorFile)
        let output = try FileHandle(forWritingTo: outputFile)
        let errors = try FileHandle(forWritingTo: errorFile)
        defer {
            try? output.close()
            try? errors.close()
        }
        process.standardOutput = output
        process.standardError = errors
        try process.run()
        process.waitUntilExit()
        return CodegenRun(
            exitCode: process.terminationStatus,
            standardOutput: try String(contentsOf: outputFile, encoding: .utf8),
            standardError: try String(contentsOf: errorFile, encoding: .utf8))
    }
}

/// A temporary folder, removed when the value is released.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("dbb-codegen-tests-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// Writes a text file and returns its URL.
    @discardableResult
    func write(_ text: String, to name: String) throws -> URL {
        let file = file(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    /// The names of the files in the folder, sorted.
    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }
}

/// Runs the sqlite3 shell on a database file and returns what it printed.
func sqlite3(_ file: URL, _ sql: String) throws -> String {
    let process = Process()
    process.executableURL = URL(fileURLWithPath: "/usr/bin/sqlite3")
    process.arguments = [file.path, sql]
    let output = Pipe()
    process.standardOutput = output
    process.standardError = output
    try process.run()
    let data = output.fileHandleForReading.readDataToEndOfFile()
    process.waitUntilExit()
    return String(decoding: data, as: UTF8.self).trimmingCharacters(in: .whitespacesAndNewlines)
}
