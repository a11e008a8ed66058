import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// A program started in the background, with its standard output and error going to files, so a test
/// can kill it at any moment and still read everything it wrote before.
public final class ChildProcess {
    /// The process id.
    public let pid: pid_t
    private let outputFile: URL
    private let errorFile: URL
    private var status: Int32?

    /// Starts a program.
    ///
    /// - Parameters:
    ///   - executable: the program's file.
    ///   - arguments: its arguments.
    ///   - folder: where its output files go (they are named after the process id).
    /// - Throws: `POSIXError` when it cannot be started.
    public init(_ executable: URL, _ arguments: [String], outputIn folder: URL) throws {
        let tag = UUID().uuidString
        outputFile = folder.appendingPathComponent(".child-\(tag).out")
        errorFile = folder.appendingPathComponent(".child-\(tag).err")
        let argv: [UnsafeMutablePointer<CChar>?] = ([executable.path] + arguments).map { strdup($0) } + [nil]
        defer { for pointer in argv { free(pointer) } }
        var actions = posix_spawn_file_actions_t()
        posix_spawn_file_actions_init(&actions)
        defer { posix_spawn_file_actions_destroy(&actions) }
        posix_spawn_file_actions_addopen(&actions, 0, "/dev/null", O_RDONLY, 0)
        posix_spawn_file_actions_addopen(&actions, 1, outputFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        posix_spawn_file_actions_addopen(&actions, 2, errorFile.path, O_WRONLY | O_CREAT | O_TRUNC, 0o600)
        var pid: pid_t = 0
        let code = posix_spawn(&pid, executable.path, &actions, nil, argv, environ)
        guard code == 0 else { throw POSIXError(POSIXErrorCode(rawValue: code) ?? .EINVAL) }
        self.pid = pid
    }

    deinit {
        if status == nil {
            kill(pid, SIGKILL)
            _ = wait()
        }
        unlink(outputFile.path)
        unlink(errorFile.path)
    }

    /// Kills the process with SIGKILL (no chance to clean up) and waits for it.
    ///
    /// - Returns: whether it was still running when it was killed.
    @discardableResult
    public func killNow() -> Bool {
        if status != nil { return false }
        var raw: Int32 = 0
        if waitpid(pid, &raw, WNOHANG) == pid {
            status = raw
            return false
        }
        kill(pid, SIGKILL)
        _ = wait()
        return true
    }

    /// Waits for the process to end and returns its exit code (128 + the signal's number when a signal
    /// ended it).
    @discardableResult
    public func wait() -> Int32 {
        if let status { return Self.exitCode(status) }
        var raw: Int32 = 0
        while waitpid(pid, &raw, 0) < 0 && errno == EINTR {}
        status = raw
        return Self.exitCode(raw)
    }

    /// Waits up to `timeout` seconds for the process to end.
    ///
    /// - Returns: its exit code, or `nil` when it was still running (it is then killed).
    public func wait(timeout: TimeInterval) -> Int32? {
        let deadline = Date(timeIntervalSinceNow: timeout)
        while Date() < deadline {
            var raw: Int32 = 0
            if status == nil, waitpid(pid, &raw, WNOHANG) == pid { status = raw }
            if let status { return Self.exitCode(status) }
            usleep(5_000)
        }
        killNow()
        return nil
    }

    private static func exitCode(_ raw: Int32) -> Int32 {
        // WIFSIGNALED / WTERMSIG / WEXITSTATUS, spelled out.
        let signal = raw & 0x7F
        return signal != 0 ? 128 + signal : (raw >> 8) & 0xFF
    }

    /// What the process wrote to standard output so far.
    public var output: String {
        (try? String(contentsOf: outputFile, encoding: .utf8)) ?? ""
    }

    /// What the process wrote to standard error so far.
    public var errorOutput: String {
        (try? String(contentsOf: errorFile, encoding: .utf8)) ?? ""
    }

    /// The number of rounds a crash test runs: `default`, or the `DBB_CRASH_ROUNDS` environment variable
    /// (the scripts under `Scripts/` raise it).
    public static func rounds(default count: Int) -> Int {
        ProcessInfo.processInfo.environment["DBB_CRASH_ROUNDS"].flatMap(Int.init) ?? count
    }
}
