internal import DBBSQL
internal import Synchronization

extension DBBPostgresObjectStore {
    /// The channel the tables' triggers report commits on; each notification's payload is a table's name.
    static let changesChannel = "dbbbuilder_changes"

    /// Listens for the commits of every client of the database on a connection of its own, for as long as the
    /// store is open, and reports the tables they changed to observations.
    final class Listener: Sendable {
        private let configuration: DBBPostgresConfiguration
        /// The first `LISTEN`, which later observations wait for too; `nil` until one starts.
        private let start = Mutex<Task<Void, any Error>?>(nil)
        /// The listening loop and its current connection, ended by ``stop()``.
        private let state = Mutex<(loop: Task<Void, Never>?, connection: DBBPostgresConnection?)>((nil, nil))

        init(configuration: DBBPostgresConfiguration) {
            self.configuration = configuration
        }

        deinit {
            let (loop, connection) = state.withLock { $0 }
            loop?.cancel()
            if let connection { Task { try? await connection.close() } }
        }

        /// Starts listening if no observation did yet; returns once reports are flowing, so that a snapshot that
        /// begins afterwards misses no commit that is not reported.
        ///
        /// - Parameter onChange: called with the lowercased names of the tables a commit changed, or with `nil`
        ///   when reports may have been lost (a connection ended), meaning any table may have changed.
        /// - Throws: `DBBError` when the server cannot be listened to; the next observation tries again.
        func start(_ onChange: @escaping @Sendable (Set<String>?) -> Void) async throws {
            let task = start.withLock { start in
                if let start { return start }
                let task = Task { try await self.listen(onChange) }
                start = task
                return task
            }
            do {
                try await task.value
            } catch {
                start.withLock { if $0 == task { $0 = nil } }
                throw error
            }
        }

        /// Listens on the changes channel and returns once the first `LISTEN` is in effect. When that connection
        /// ends, another is made, and every observer is told that anything may have changed: notifications sent
        /// meanwhile were lost.
        private func listen(_ onChange: @escaping @Sendable (Set<String>?) -> Void) async throws {
            let (ready, readiness) = AsyncThrowingStream<Void, any Error>.makeStream()
            // LISTEN runs on the primary, which is where notifications are sent; behind a pooler in transaction
            // mode, on the servers themselves.
            var configuration = configuration
            if let listenHosts = configuration.listenHosts { configuration.hosts = listenHosts }
            let target: DBBPostgresConfiguration.TargetSessionAttributes = configuration.isCluster ? .readWrite : .any
            guard configuration.pooler != .transaction || configuration.listenHosts != nil else {
                throw DBBError.misuse(
                    "observations cannot listen for changes through a pooler in transaction mode, which hands each "
                        + "transaction another server connection",
                    recovery: "name the servers to listen on: listenHosts in the configuration, or "
                        + "listen_hosts=host:port in the URL", context: "observing \(configuration)")
            }
            let loop = Task.detached { [weak self, configuration] in
                var isFirst = true
                while !Task.isCancelled {
                    do {
                        let connection = try await DBBPostgresConnection.connect(configuration, target: target)
                        self?.state.withLock { $0.connection = connection }
                        try await connection.listen(channel: DBBPostgresObjectStore.changesChannel) { notifications in
                            if isFirst { readiness.finish() } else { onChange(nil) }
                            isFirst = false
                            for try await notification in notifications {
                                onChange([notification.payload.lowercased()])
                            }
                        }
                        try? await connection.close()
                    } catch {
                        if isFirst {
                            readiness.finish(throwing: error)
                            return
                        }
                    }
                    self?.state.withLock { $0.connection = nil }
                    try? await Task.sleep(for: .milliseconds(200))
                }
            }
            state.withLock { $0.loop = loop }
            for try await _ in ready {}
        }

        /// Ends the loop and hands back its current connection, for the caller to close.
        func stop() -> DBBPostgresConnection? {
            let (loop, connection) = state.withLock { state in
                defer { state = (nil, nil) }
                return state
            }
            loop?.cancel()
            return connection
        }
    }
}
