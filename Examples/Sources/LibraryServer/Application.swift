import DBBBuilder
import DBBPostgres
import DBBServiceLifecycle
import Foundation
import Hummingbird
import Logging
import NIOCore

/// How the server runs, from the environment:
/// - `LIBRARY_HOST`, `LIBRARY_PORT`: where it listens (default `127.0.0.1:8080`);
/// - `LIBRARY_DATABASE`: the SQLite file (default `library.sqlite`);
/// - `LIBRARY_READERS`: the manager's reader connections (default 4; 0 for one serial connection);
/// - `LIBRARY_POSTGRES_URL`: a `postgres://` URL, to run on PostgreSQL instead of SQLite;
/// - `LIBRARY_LOG_LEVEL`: the log level (default `info`); at `debug` every statement is logged;
/// - `LIBRARY_HEARTBEAT_SECONDS`: how often `/loans/live` sends a heartbeat comment (default 10), which finds a
///   client that went away.
public struct LibraryConfiguration: Sendable {
    public var host = "127.0.0.1"
    public var port = 8080
    public var databasePath = "library.sqlite"
    public var readers = 4
    public var postgresURL: String?
    public var logLevel: Logger.Level = .info
    public var heartbeat: Duration = .seconds(10)

    /// The defaults, changed by the environment's variables.
    ///
    /// - Parameter environment: the variables. Default: the process's.
    /// - Throws: `ConfigurationError` for a variable whose value does not parse.
    public init(environment: [String: String] = ProcessInfo.processInfo.environment) throws {
        if let host = environment["LIBRARY_HOST"] { self.host = host }
        if let port = environment["LIBRARY_PORT"] {
            guard let value = Int(port), (0...65_535).contains(value) else {
                throw ConfigurationError("LIBRARY_PORT", port)
            }
            self.port = value
        }
        if let path = environment["LIBRARY_DATABASE"] { databasePath = path }
        if let readers = environment["LIBRARY_READERS"] {
            guard let value = Int(readers), value >= 0 else { throw ConfigurationError("LIBRARY_READERS", readers) }
            self.readers = value
        }
        // Empty is unset, as a shell's `LIBRARY_POSTGRES_URL= ...` means.
        postgresURL = environment["LIBRARY_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }
        if let level = environment["LIBRARY_LOG_LEVEL"] {
            guard let value = Logger.Level(rawValue: level) else {
                throw ConfigurationError("LIBRARY_LOG_LEVEL", level)
            }
            logLevel = value
        }
        if let seconds = environment["LIBRARY_HEARTBEAT_SECONDS"] {
            guard let value = Double(seconds), value > 0, value <= 3_600 else {
                throw ConfigurationError("LIBRARY_HEARTBEAT_SECONDS", seconds)
            }
            heartbeat = .milliseconds(Int((value * 1000).rounded(.up)))
        }
    }
}

/// A variable of the environment whose value the server cannot use.
public struct ConfigurationError: Error, CustomStringConvertible {
    public let variable: String
    public let value: String

    init(_ variable: String, _ value: String) {
        self.variable = variable
        self.value = value
    }

    public var description: String { "\(variable)=\(value) is not a valid value" }
}

/// Opens the database the configuration names, registers the library's classes and logs statements at `debug`.
///
/// - Parameters:
///   - configuration: where the database is.
///   - logger: the server's logger; statements are logged through it at `debug`, slow ones (over 100 ms) at `notice`.
/// - Returns: the manager.
/// - Throws: `DBBError` when the database cannot be opened or its tables created.
public func openLibrary(_ configuration: LibraryConfiguration, logger: Logger) throws -> DBBManager {
    let manager: DBBManager
    if let url = configuration.postgresURL {
        manager = try DBBManager(
            postgres: try DBBPostgresConfiguration(url: url), readers: max(configuration.readers, 0))
    } else {
        manager = try DBBManager(
            databaseURL: URL(fileURLWithPath: configuration.databasePath), readers: configuration.readers)
    }
    try manager.addTableClasses(libraryClasses)
    try manager.setInstrumentation(
        DBBInstrumentation(logging: DBBLogging(logger: logger, slowStatementThreshold: .milliseconds(100))))
    return manager
}

/// The server: the JSON API on a manager, which a service closes after the HTTP server stopped.
///
/// - Parameters:
///   - configuration: where to listen and which database to use.
///   - logger: the server's logger. Default: one labelled `library-server`, at the configuration's level.
///   - onRunning: called with the port once the server listens (useful with port 0, which picks a free one).
/// - Returns: the application, to run.
/// - Throws: what ``openLibrary(_:logger:)`` throws.
public func buildApplication(
    _ configuration: LibraryConfiguration, logger: Logger? = nil,
    onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) throws -> some ApplicationProtocol {
    let logger = logger ?? defaultLogger(configuration)
    return buildApplication(
        configuration, manager: try openLibrary(configuration, logger: logger), logger: logger, onRunning: onRunning)
}

/// The server on a manager the caller opened (``openLibrary(_:logger:)``): the application closes it when it stops.
///
/// - Parameters:
///   - configuration: where to listen.
///   - manager: the library's database, its classes registered.
///   - logger: the server's logger.
///   - onRunning: called with the port once the server listens.
/// - Returns: the application, to run.
public func buildApplication(
    _ configuration: LibraryConfiguration, manager: DBBManager, logger: Logger,
    onRunning: @escaping @Sendable (Int) async -> Void = { _ in }
) -> some ApplicationProtocol {
    let router = Router()
    router.add(middleware: UnexpectedErrorMiddleware())
    LibraryRoutes(manager: manager, heartbeat: configuration.heartbeat, logger: logger).add(to: router)
    // Services listed first stop last: the HTTP server stops taking requests before the database closes.
    return Application(
        router: router,
        configuration: .init(
            address: .hostname(configuration.host, port: configuration.port), serverName: "library-server"),
        services: [DBBManagerService(manager: manager)],
        onServerRunning: { channel in await onRunning(channel.localAddress?.port ?? configuration.port) },
        logger: logger)
}

/// The logger of a server started without one: labelled `library-server`, at the configuration's level.
func defaultLogger(_ configuration: LibraryConfiguration) -> Logger {
    var logger = Logger(label: "library-server")
    logger.logLevel = configuration.logLevel
    return logger
}

/// Why the server could not start or stopped with an error, in one line for its standard error: a port in use
/// says so and what to do.
///
/// - Parameters:
///   - error: what starting or running threw.
///   - configuration: where the server was to listen.
/// - Returns: the message.
public func failureMessage(_ error: any Error, configuration: LibraryConfiguration) -> String {
    if let error = error as? IOError, error.errnoCode == EADDRINUSE {
        return "\(configuration.host):\(configuration.port) is in use by another program (another library-server?): "
            + "stop it, or choose another port with LIBRARY_PORT"
    }
    if let error = error as? IOError, error.errnoCode == EACCES {
        return "no permission to listen on \(configuration.host):\(configuration.port): choose a port above 1023 "
            + "with LIBRARY_PORT"
    }
    return String(describing: error)
}
