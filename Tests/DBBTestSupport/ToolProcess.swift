import Foundation

/// What one run of a command-line tool produced.
public struct ToolRun: Sendable {
    /// The exit status.
    public var exitCode: Int32
    /// The bytes the tool wrote to standard output.
    public var output: Data
    /// Everything the tool wrote to standard error.
    public var standardError: String

    /// Everything the tool wrote to standard output, as text.
    public var standardOutput: String { String(decoding: output, as: UTF8.self) }
}

/// Runs the package's tools as separate processes, the way users run them.
public enum ToolProcess {
    /// The folders that may hold the built products: the one holding the test bundle, and its parents.
    private static let productFolders: [URL] = {
        var folders: [URL] = []
        for start in [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0])] {
            var folder = start.deletingLastPathComponent()
            for _ in 0..<3 {
                folders.append(folder)
                folder = folder.deletingLastPathComponent()
            }
        }
        return folders
    }()

    /// The built executable of a tool (`dbb-demo`, `dbb-backup`, `dbb-codegen`), or `nil` when it is not
    /// built next to the tests (a test target builds it by depending on it).
    public static func executable(_ name: String) -> URL? {
        productFolders.map { $0.appendingPathComponent(name) }.first {
            FileManager.default.isExecutableFile(atPath: $0.path)
        }
    }

    /// Runs a tool of the package to completion.
    ///
    /// - Parameters:
    ///   - name: the tool's product name.
    ///   - arguments: its arguments.
    ///   - folder: the working directory. Optional.
    ///   - input: bytes for its standard input. Optional; otherwise it reads nothing.
    ///   - environment: variables to set for it, on top of this process's environment.
    /// - Returns: the exit code and both output streams.
    /// - Throws: when the tool is not built or cannot be started.
    public static func run(
        _ name: String, _ arguments: [String], in folder: URL? = nil, input: Data? = nil,
        environment: [String: String] = [:]
    ) throws -> ToolRun {
        guard let binary = executable(name) else {
            throw CocoaError(.fileNoSuchFile, userInfo: [NSLocalizedDescriptionKey: "\(name) is not built"])
        }
        return try run(executable: binary, arguments, in: folder, input: input, environment: environment)
    }

    /// Runs any program to completion: a tool of the package, or one of the system's (`/usr/bin/sqlite3`, `gzip`).
    ///
    /// - Parameters:
    ///   - executable: the program's file.
    ///   - arguments: its arguments.
    ///   - folder: the working directory. Optional.
    ///   - input: bytes for its standard input. Optional; otherwise it reads nothing.
    ///   - mergingStandardError: whether standard error goes to standard output, interleaved as printed
    ///     (``ToolRun/standardError`` is then empty).
    ///   - environment: variables to set for it, on top of this process's environment.
    /// - Returns: the exit code and both output streams.
    /// - Throws: when the program cannot be started.
    public static func run(
        executable: URL, _ arguments: [String], in folder: URL? = nil, input: Data? = nil,
        mergingStandardError: Bool = false, environment: [String: String] = [:]
    ) throws -> ToolRun {
        let process = Process()
        process.executableURL = executable
        process.arguments = arguments
        if !environment.isEmpty {
            process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        }
        if let folder { process.currentDirectoryURL = folder }
        // The streams go to files, so neither can fill a pipe and block the process.
        let streams = try TemporaryFolder()
        let outputFile = streams.file("stdout")
        let errorFile = streams.file("stderr")
        let inputFile = streams.file("stdin")
        try Data().write(to: outputFile)
        try Data().write(to: errorFile)
        try (input ?? Data()).write(to: inputFile)
        let output = try FileHandle(forWritingTo: outputFile)
        let errors = try FileHandle(forWritingTo: errorFile)
        let inputHandle = try FileHandle(forReadingFrom: inputFile)
        defer {
            try? output.close()
            try? errors.close()
            try? inputHandle.close()
        }
        process.standardOutput = output
        process.standardError = mergingStandardError ? output : errors
        process.standardInput = inputHandle
        try process.run()
        process.waitUntilExit()
        return ToolRun(
            exitCode: process.terminationStatus, output: try Data(contentsOf: outputFile),
            standardError: String(decoding: try Data(contentsOf: errorFile), as: UTF8.self))
    }
}

/// Runs the sqlite3 command-line shell on a database file and returns what it printed (standard output and
/// standard error, interleaved), without surrounding white space.
public func sqlite3Shell(_ file: URL, _ sql: String) throws -> String {
    let run = try ToolProcess.run(
        executable: URL(fileURLWithPath: "/usr/bin/sqlite3"), [file.path, sql], mergingStandardError: true)
    return run.standardOutput.trimmingCharacters(in: .whitespacesAndNewlines)
}
