import DBBBuilder
import Foundation
import Hummingbird
import HummingbirdTesting
import LibraryServer
import Logging
import ServiceLifecycle
import Testing

/// Text a process writes, collected as it comes.
final class Collected: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var data = Data()
    func append(_ more: Data) { lock.withLock { data.append(more) } }
    var text: String { lock.withLock { String(decoding: data, as: UTF8.self) } }
}

/// A value set once, read from any task.
final class Box<Value: Sendable>: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var stored: Value?
    func set(_ value: Value) { lock.withLock { stored = value } }
    var value: Value? { lock.withLock { stored } }
}

/// Log lines, kept for the tests to read.
struct CapturingLogHandler: LogHandler {
    final class Lines: @unchecked Sendable {
        // @unchecked: guarded by `lock`.
        private let lock = NSLock()
        private var lines: [String] = []
        func append(_ line: String) { lock.withLock { lines.append(line) } }
        var all: [String] { lock.withLock { lines } }
    }

    let lines: Lines
    var logLevel: Logger.Level = .info
    var metadata: Logger.Metadata = [:]

    subscript(metadataKey key: String) -> Logger.Metadata.Value? {
        get { metadata[key] }
        set { metadata[key] = newValue }
    }

    func log(event: LogEvent) {
        lines.append("\(event.level) \(event.message)")
    }
}

/// Waits until `condition` holds, checking every 10 ms, for at most `seconds`; returns whether it held.
func eventually(within seconds: Double, _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(10))
    }
    return condition()
}

/// A program run in the background, its standard output and error collected.
final class Background: @unchecked Sendable {
    // @unchecked: the process is set up once; `Process` is safe to ask for its state from any thread.
    let process = Process()
    let output = Collected()
    let errors = Collected()

    init(_ executable: URL, _ arguments: [String], environment: [String: String] = [:]) throws {
        process.executableURL = executable
        process.arguments = arguments
        process.environment = ProcessInfo.processInfo.environment.merging(environment) { _, new in new }
        let (out, err) = (Pipe(), Pipe())
        process.standardOutput = out
        process.standardError = err
        let (output, errors) = (output, errors)
        out.fileHandleForReading.readabilityHandler = { handle in output.append(handle.availableData) }
        err.fileHandleForReading.readabilityHandler = { handle in errors.append(handle.availableData) }
        try process.run()
    }

    // SIGKILL: a child may inherit an ignored SIGTERM, and a test that failed must not leave it running.
    deinit { if process.isRunning { kill(process.processIdentifier, SIGKILL) } }

    /// Waits for the program to exit, for at most `seconds`: its status, or `nil` when it still runs.
    func exitStatus(within seconds: Double) async throws -> Int32? {
        guard try await eventually(within: seconds, { !process.isRunning }) else { return nil }
        return process.terminationStatus
    }
}

/// `curl -N` on the live endpoint, as the README shows it.
func liveClient(port: Int) throws -> Background {
    try Background(URL(fileURLWithPath: "/usr/bin/curl"), ["-sN", "http://127.0.0.1:\(port)/loans/live"])
}

/// The server in this process, on a free port, with a short heartbeat; the test holds its manager.
struct RunningServer {
    let manager: DBBManager
    let group: ServiceGroup
    let port: Int
    let finished: Box<Result<Void, any Error>>
    let folder: TemporaryFolder

    static func start(engine: String) async throws -> RunningServer {
        let folder = try TemporaryFolder()
        let configuration = try await testConfiguration(
            folder, readers: 2, engine: engine, extra: ["LIBRARY_PORT": "0", "LIBRARY_HEARTBEAT_SECONDS": "0.2"])
        var logger = Logger(label: "library-server-tests")
        logger.logLevel = .warning
        let manager = try openLibrary(configuration, logger: logger)
        let port = Box<Int>()
        let app = buildApplication(configuration, manager: manager, logger: logger) { port.set($0) }
        let group = ServiceGroup(configuration: .init(services: [app], logger: logger))
        let finished = Box<Result<Void, any Error>>()
        Task {
            do {
                try await group.run()
                finished.set(.success(()))
            } catch {
                finished.set(.failure(error))
            }
        }
        #expect(try await eventually(within: 20) { port.value != nil }, "the server did not start")
        return RunningServer(
            manager: manager, group: group, port: try #require(port.value), finished: finished, folder: folder)
    }
}

/// The built `library-server`, beside the test bundle.
let serverExecutable: URL? = {
    for start in [Bundle.main.bundleURL, URL(fileURLWithPath: CommandLine.arguments[0])] {
        var folder = start.deletingLastPathComponent()
        for _ in 0..<3 {
            let candidate = folder.appendingPathComponent("library-server")
            if FileManager.default.isExecutableFile(atPath: candidate.path) { return candidate }
            folder = folder.deletingLastPathComponent()
        }
    }
    return nil
}()

/// Starts `library-server` as a process on a free port of its choosing; returns it and its port, read from its
/// log line "listening on".
func startServerProcess(_ folder: TemporaryFolder, port: Int = 0) async throws -> (Background, Int) {
    let server = try Background(
        try #require(serverExecutable, "library-server is not built"), [],
        environment: [
            "LIBRARY_DATABASE": folder.url.appendingPathComponent("library.sqlite").path, "LIBRARY_PORT": "\(port)",
            "LIBRARY_HEARTBEAT_SECONDS": "0.2", "LIBRARY_READERS": "1",
        ])
    // The log goes to standard error, swift-log's default.
    func listeningPort() -> Int? {
        let log = server.errors.text
        guard let range = log.range(of: "listening on 127.0.0.1:") else { return nil }
        return Int(log[range.upperBound...].prefix { $0.isNumber })
    }
    #expect(try await eventually(within: 30) { listeningPort() != nil }, "no 'listening on' in \(server.errors.text)")
    return (server, try #require(listeningPort()))
}

@Suite struct LibraryServerLifecycleTests {
    @Test("graceful shutdown ends a live stream at once, cleanly, and its observation", arguments: engines)
    func shutdownWithALiveClient(engine: String) async throws {
        let server = try await RunningServer.start(engine: engine)
        let client = try liveClient(port: server.port)
        #expect(try await eventually(within: 20) { client.output.text.contains("event: loans") })
        #expect(server.manager.activeObservationCount == 1)
        let shutdown = ContinuousClock.now
        await server.group.triggerGracefulShutdown()
        #expect(try await eventually(within: 20) { server.finished.value != nil }, "the server still runs after 20 s")
        #expect(ContinuousClock.now - shutdown < .seconds(20))
        try server.finished.value?.get()
        // curl's 0: the response ended as HTTP says (the last chunk), not cut off.
        #expect(try await client.exitStatus(within: 20) == 0)
        #expect(server.manager.activeObservationCount == 0)
    }

    @Test(
        "a client that goes away is found by the heartbeat: its observation ends while the server runs on",
        arguments: engines)
    func aClientThatLeaves(engine: String) async throws {
        let server = try await RunningServer.start(engine: engine)
        let client = try liveClient(port: server.port)
        #expect(try await eventually(within: 20) { client.output.text.contains("event: loans") })
        #expect(try await eventually(within: 20) { client.output.text.contains(": heartbeat") })
        #expect(server.manager.activeObservationCount == 1)
        // Gone at once, as a client whose machine or network failed: SIGKILL (this process's children may
        // inherit an ignored SIGTERM from the signal handling of the service groups the tests run).
        #expect(kill(client.process.processIdentifier, SIGKILL) == 0)
        #expect(try await client.exitStatus(within: 20) != nil)
        #expect(
            try await eventually(within: 20) { server.manager.activeObservationCount == 0 },
            "the observation of the client that left is still open")
        #expect(server.finished.value == nil)
        // The server still answers, and stops promptly.
        let again = try liveClient(port: server.port)
        #expect(try await eventually(within: 20) { again.output.text.contains("event: loans") })
        await server.group.triggerGracefulShutdown()
        #expect(try await eventually(within: 20) { server.finished.value != nil })
        #expect(try await again.exitStatus(within: 20) == 0)
        #expect(server.manager.activeObservationCount == 0)
    }

    @Test(
        "SIGTERM and SIGINT stop the server process at once with a live client connected", arguments: ["TERM", "INT"])
    func signalsStopTheProcess(signal: String) async throws {
        let folder = try TemporaryFolder()
        let (server, port) = try await startServerProcess(folder)
        let client = try liveClient(port: port)
        #expect(try await eventually(within: 20) { client.output.text.contains("event: loans") })
        if signal == "TERM" { server.process.terminate() } else { server.process.interrupt() }
        #expect(try await server.exitStatus(within: 20) == 0, "\(server.errors.text)")
        #expect(try await client.exitStatus(within: 20) == 0)
    }

    @Test("a second server on a port in use exits with 1 and says so")
    func aPortInUse() async throws {
        let folder = try TemporaryFolder()
        let (first, port) = try await startServerProcess(folder)
        let other = try TemporaryFolder()
        let second = try Background(
            try #require(serverExecutable), [],
            environment: [
                "LIBRARY_DATABASE": other.url.appendingPathComponent("library.sqlite").path, "LIBRARY_PORT": "\(port)",
            ])
        #expect(try await second.exitStatus(within: 20) == 1)
        #expect(
            second.errors.text.contains(
                "library-server: 127.0.0.1:\(port) is in use by another program (another library-server?)"),
            "\(second.errors.text)")
        #expect(!second.errors.text.contains("listening on"), "\(second.errors.text)")
        // The first one still answers.
        first.process.terminate()
        #expect(try await first.exitStatus(within: 20) == 0)
    }

    @Test("an error no route expected is a 500 with a body, and a log line with the request")
    func unexpectedErrorsAreLoggedWithABody() async throws {
        let folder = try TemporaryFolder()
        let path = folder.url.appendingPathComponent("library.sqlite").path
        let configuration = try LibraryConfiguration(environment: ["LIBRARY_DATABASE": path, "LIBRARY_READERS": "0"])
        let lines = CapturingLogHandler.Lines()
        let logger = Logger(label: "library-server-tests") { _ in CapturingLogHandler(lines: lines) }
        let app = try buildApplication(configuration, logger: logger)
        try await app.test(.router) { client in
            try await client.execute(uri: "/books", method: .get) { #expect($0.status == .ok) }
            // The table goes away under the server: the next page of books fails in the database.
            let other = try DBBDatabase(path: path)
            try other.execute("DROP TABLE Book")
            try other.close()
            try await client.execute(uri: "/books?q=x", method: .get) { response in
                #expect(response.status == .internalServerError)
                #expect(
                    String(buffer: response.body).contains(
                        "the server failed to answer this request; its log says why"),
                    "\(String(buffer: response.body))")
            }
        }
        #expect(
            lines.all.contains { $0.hasPrefix("error GET /books failed: ") && $0.contains("no such table") },
            "\(lines.all)")
    }
}
