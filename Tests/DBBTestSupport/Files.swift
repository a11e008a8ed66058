import Foundation

/// The repository's root (the folder holding Package.swift), found from this file's path.
public let repositoryRoot: URL = {
    var url = URL(fileURLWithPath: #filePath)
    while url.path != "/" {
        url.deleteLastPathComponent()
        if FileManager.default.fileExists(atPath: url.appendingPathComponent("Package.swift").path) { return url }
    }
    return url
}()

/// The folder of the real databases the tests read (`Tests/Fixtures`, sources and licences in its
/// `SOURCES.md`). Tests never write into it and read nothing outside the repository.
public let fixturesFolder: URL = repositoryRoot.appendingPathComponent("Tests/Fixtures", isDirectory: true)

/// Why ``fixture(_:)`` refused a name.
public struct FixtureError: Error, Sendable, CustomStringConvertible {
    /// The name asked for.
    public var name: String
    /// What is wrong with it.
    public var reason: String

    public var description: String { "fixture '\(name)': \(reason)" }
}

/// A file of ``fixturesFolder``, by its name there (`"chinook.sqlite"`).
///
/// - Parameter name: the file's name, relative to `Tests/Fixtures`.
/// - Returns: the file's URL.
/// - Throws: ``FixtureError`` when the name leads outside `Tests/Fixtures` (an absolute path, `..`, a
///   symbolic link out of it), so no test reads a file the repository does not hold, or when no such file
///   exists.
public func fixture(_ name: String) throws -> URL {
    let folder = fixturesFolder.resolvingSymlinksInPath().standardizedFileURL
    let url = fixturesFolder.appendingPathComponent(name).resolvingSymlinksInPath().standardizedFileURL
    guard !name.hasPrefix("/"), url.path.hasPrefix(folder.path + "/") else {
        throw FixtureError(name: name, reason: "it is outside Tests/Fixtures; tests read only the repository")
    }
    guard FileManager.default.fileExists(atPath: url.path) else {
        throw FixtureError(name: name, reason: "there is no such file in Tests/Fixtures")
    }
    return url
}

/// Copies a file of ``fixturesFolder`` into `folder`, so that a test may write to it, and returns the copy.
///
/// - Parameters:
///   - name: the fixture's name, as for ``fixture(_:)``.
///   - folder: the temporary folder that receives the copy (under the same name).
/// - Returns: the copy's URL.
/// - Throws: ``FixtureError`` for a name ``fixture(_:)`` refuses, or the file manager's error.
@discardableResult
public func copyOfFixture(_ name: String, into folder: TemporaryFolder) throws -> URL {
    let copy = folder.file(URL(fileURLWithPath: name).lastPathComponent)
    try FileManager.default.copyItem(at: try fixture(name), to: copy)
    return copy
}

/// A temporary folder that removes itself when the value is released.
public final class TemporaryFolder {
    /// The folder.
    public let url: URL

    /// Creates a new, empty folder in the system's temporary directory.
    public init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent(
            "dbb-tests-\(UUID().uuidString)", isDirectory: true)
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }

    /// A file in the folder.
    public func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The path of a file in the folder.
    public func path(_ name: String) -> String { file(name).path }

    /// Writes a text file in the folder and returns its URL.
    @discardableResult
    public func write(_ text: String, to name: String) throws -> URL {
        let file = file(name)
        try Data(text.utf8).write(to: file)
        return file
    }

    /// The names of the files in the folder, sorted (hidden temporary files included).
    public func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).sorted()
    }
}
