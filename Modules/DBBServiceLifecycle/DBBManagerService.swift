public import DBBObjects
internal import Dispatch
public import ServiceLifecycle

/// A manager as a swift-service-lifecycle `Service`: it stays open while the service group runs, and at graceful
/// shutdown it lets the work in progress finish, then closes.
///
/// ```swift
/// let manager = try DBBManager(databaseURL: url, readers: 4)
/// let group = ServiceGroup(
///     services: [DBBManagerService(manager: manager), app], gracefulShutdownSignals: [.sigterm], logger: logger)
/// try await group.run()
/// ```
///
/// Put the manager's service before the services that use it: a service group shuts its services down in the
/// reverse order of the list, so the HTTP server stops taking requests before the database closes.
///
/// Closing waits for the `write` closure or save in progress (the queue runs it to its end; its commit or
/// rollback stays as it was), then for the reads in progress, then closes the readers and the writer, and the
/// last connection to close checkpoints the write-ahead log into the file and removes it. An operation that
/// arrives afterwards fails with a `DBBError` (misuse) saying the database is closed.
public struct DBBManagerService: Service {
    /// The manager the service keeps open.
    public let manager: DBBManager

    /// Wraps a manager; the service closes it at graceful shutdown.
    ///
    /// - Parameter manager: an open manager.
    public init(manager: DBBManager) {
        self.manager = manager
    }

    /// Waits for graceful shutdown (or for the task to be cancelled), then closes the manager.
    ///
    /// - Throws: `DBBError` when the database cannot be closed cleanly.
    public func run() async throws {
        // Ends at graceful shutdown, or throws at cancellation: either way the manager closes.
        try? await gracefulShutdown()
        let manager = self.manager
        // Closing waits for the work in progress on the manager's queues: off the cooperative threads.
        try await withCheckedThrowingContinuation { (continuation: CheckedContinuation<Void, any Error>) in
            DispatchQueue.global().async {
                do {
                    try manager.close()
                    continuation.resume()
                } catch {
                    continuation.resume(throwing: error)
                }
            }
        }
    }
}
