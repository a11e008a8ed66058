import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A real filesystem of a few mebibytes (a tmpfs mounted on a temporary folder), for tests that need a disk
/// that fills up. Mounting needs root; ``unavailableReason`` says why it cannot be had otherwise.
final class SmallFilesystem {
    /// The folder the filesystem is mounted on.
    let url: URL
    private let folder: TemporaryFolder
    private var mounted = false

    /// Why no small filesystem can be mounted here, or `nil` when one can.
    static let unavailableReason: String? = {
        guard geteuid() == 0 else { return "mounting a tmpfs needs root" }
        guard FileManager.default.isExecutableFile(atPath: "/bin/mount") else { return "there is no /bin/mount" }
        do {
            _ = try SmallFilesystem(mebibytes: 1)
            return nil
        } catch {
            return "cannot mount a tmpfs here: \(error)"
        }
    }()

    /// Mounts a new, empty tmpfs.
    ///
    /// - Parameter mebibytes: its size.
    /// - Throws: when `mount` fails.
    init(mebibytes: Int) throws {
        folder = try TemporaryFolder()
        url = folder.file("disk")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: false)
        let result = try ToolProcess.run(
            executable: URL(fileURLWithPath: "/bin/mount"),
            ["-t", "tmpfs", "-o", "size=\(mebibytes)m,mode=0777", "tmpfs", url.path], mergingStandardError: true)
        guard result.exitCode == 0 else {
            throw POSIXError(.EPERM, userInfo: [NSLocalizedDescriptionKey: result.standardOutput])
        }
        mounted = true
    }

    deinit {
        if mounted {
            _ = try? ToolProcess.run(executable: URL(fileURLWithPath: "/bin/umount"), [url.path])
        }
    }

    /// A file on the filesystem.
    func file(_ name: String) -> URL { url.appendingPathComponent(name) }

    /// The bytes still free.
    var freeBytes: Int64 {
        var info = statvfs()
        guard statvfs(url.path, &info) == 0 else { return 0 }
        return Int64(info.f_bavail) * Int64(info.f_frsize)
    }

    /// The names in the filesystem's root, sorted, without the filler.
    func contents() throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: url.path).filter { $0 != "filler" }.sorted()
    }

    /// Removes everything on the filesystem.
    func empty() throws {
        for name in try FileManager.default.contentsOfDirectory(atPath: url.path) {
            try FileManager.default.removeItem(at: file(name))
        }
    }

    /// Writes a file of zeros that leaves `bytes` (rounded to 4 KiB) free.
    func fill(leaving bytes: Int64) throws {
        let filler = file("filler")
        let size = freeBytes - bytes
        guard size > 0 else { return }
        #expect(FileManager.default.createFile(atPath: filler.path, contents: nil))
        let handle = try FileHandle(forWritingTo: filler)
        defer { try? handle.close() }
        let block = Data(count: 1 << 20)
        var left = size
        while left > 0 {
            let part = min(left, Int64(block.count))
            try handle.write(contentsOf: block.prefix(Int(part)))
            left -= part
        }
    }
}
