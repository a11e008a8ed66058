internal import DBBSQL
internal import PostgresNIO

extension DBBPostgresConnection {
    /// Sends a notification on a channel, waiting on the calling thread. Listeners receive it when the
    /// transaction it was sent in commits (at once outside a transaction).
    ///
    /// Related PostgreSQL documentation: https://www.postgresql.org/docs/current/sql-notify.html
    ///
    /// - Parameters:
    ///   - channel: the channel's name.
    ///   - payload: the message, up to about 8,000 bytes; no NUL character.
    /// - Throws: `DBBError`: the server's error, or a misuse (a call on an event-loop thread or in a task).
    public func notify(channel: String, payload: String = "") throws {
        try run(
            "SELECT pg_notify($1, $2)", [.value(.text(channel)), .value(.text(payload))],
            context: "sending a notification")
    }

    /// Sends a notification on a channel, suspending the calling task.
    ///
    /// - Parameters:
    ///   - channel: the channel's name.
    ///   - payload: the message, up to about 8,000 bytes; no NUL character.
    /// - Throws: `DBBError`: the server's error.
    public func notify(channel: String, payload: String = "") async throws {
        try await run(
            "SELECT pg_notify($1, $2)", [.value(.text(channel)), .value(.text(payload))],
            context: "sending a notification")
    }

    /// Listens on a channel while `body` runs, handing it the notifications as they arrive, from this and
    /// every other connection to the database; stops listening when `body` returns.
    ///
    /// ```swift
    /// let first = try await db.listen(channel: "changes") { notifications in
    ///     for try await notification in notifications { return notification.payload }
    ///     return nil
    /// }
    /// ```
    ///
    /// Related PostgreSQL documentation: https://www.postgresql.org/docs/current/sql-listen.html
    ///
    /// - Parameters:
    ///   - channel: the channel's name.
    ///   - body: the work, given the notifications.
    /// - Returns: what `body` returns.
    /// - Throws: what `body` throws, or `DBBError` when listening fails.
    public func listen<T>(channel: String, _ body: (DBBPostgresNotifications) async throws -> T) async throws -> T {
        do {
            return try await connection.listen(on: channel) { sequence in
                try await body(DBBPostgresNotifications(base: sequence, channel: channel))
            }
        } catch let error as PSQLError {
            throw map(error, sql: nil, context: "listening on channel \(channel)")
        }
    }
}

/// The notifications a ``DBBPostgresConnection/listen(channel:_:)`` call receives, in order.
public struct DBBPostgresNotifications: AsyncSequence, Sendable {
    /// One notification.
    public struct Notification: Sendable, Hashable {
        /// The channel it was sent on.
        public var channel: String
        /// Its payload; empty when none was sent.
        public var payload: String
    }

    let base: PostgresNotificationSequence
    let channel: String

    /// Returns an iterator over the notifications.
    public func makeAsyncIterator() -> AsyncIterator {
        AsyncIterator(base: base.makeAsyncIterator(), channel: channel)
    }

    /// Iterates over the notifications.
    public struct AsyncIterator: AsyncIteratorProtocol {
        var base: PostgresNotificationSequence.AsyncIterator
        let channel: String

        /// The next notification, waiting for it; `nil` when the connection is closed.
        ///
        /// - Returns: the next notification.
        /// - Throws: `DBBError` when the connection fails.
        public mutating func next() async throws -> Notification? {
            guard let notification = try await base.next() else { return nil }
            return Notification(channel: channel, payload: notification.payload)
        }
    }
}
