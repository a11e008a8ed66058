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

/// The shared, read-only real-data folder beside the repository (`../shared/data`). Tests never write into it.
public let sharedDataFolder: URL = repositoryRoot.deletingLastPathComponent().appendingPathComponent("shared/data")

/// A file of the shared real-data folder.
public func sharedData(_ name: String) -> URL {
    sharedDataFolder.appendingPathComponent(name)
}

/// Copies a file of the shared data folder into `folder`, so that a test may write to it, and returns the copy.
@discardableResult
public func copySharedDatabase(_ name: String, into folder: TemporaryFolder) throws -> URL {
    let copy = folder.file(name)
    try FileManager.default.copyItem(at: sharedData(name), to: copy)
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
