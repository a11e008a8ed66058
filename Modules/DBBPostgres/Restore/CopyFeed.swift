internal import Dispatch
internal import Logging
internal import NIOCore
internal import PostgresNIO
internal import Synchronization

/// Carries one table's COPY data from the thread that reads the dump to postgres-nio's `copyFrom`, which runs
/// in a task and asks for its data with `async` calls.
///
/// At most ``capacity`` chunks wait between the two, so memory stays flat: the reading thread blocks while the
/// server is slower. When the COPY fails (the server refused a row), the reading thread's next call throws the
/// server's error instead of blocking.
///
/// `Sendable`: its state is behind a `Mutex`; the semaphores are thread-safe.
final class CopyFeed: Sendable {
    static let capacity = 4

    private struct State: ~Copyable {
        var chunks: [ByteBuffer] = []
        var waiting: CheckedContinuation<ByteBuffer?, Never>?
        var finished = false
        /// Set when the reading side gives up: the COPY is failed with it.
        var producerError: (any Error)?
        /// Set when the COPY has ended, with its outcome: the digest of the rows sent, when one was asked for.
        var outcome: Result<RestoreDigest?, any Error>?
    }

    private let state = Mutex(State())
    private let space = DispatchSemaphore(value: CopyFeed.capacity)
    private let ended = DispatchSemaphore(value: 0)
    /// The connection, whose closing ends the reading thread's waits: a COPY request postgres-nio dropped on a
    /// connection that had just closed would never end. The task running that `copyFrom` then stays suspended,
    /// holding this feed, until the process ends: a few kilobytes for each table cut off that way.
    private let connection: PostgresConnection
    private let server: DBBPostgresConfiguration.Host

    /// The start of COPY's binary format: its signature, no flags, and no header extension.
    private static let header: [UInt8] =
        [0x50, 0x47, 0x43, 0x4F, 0x50, 0x59, 0x0A, 0xFF, 0x0D, 0x0A, 0x00] + [0, 0, 0, 0, 0, 0, 0, 0]
    /// The end of COPY's binary format: a row with -1 fields.
    private static let trailer = Int16(-1)

    /// Starts `COPY table (columns) FROM STDIN WITH (FORMAT binary)` on the connection, fed by this feed's
    /// chunks: whole rows of the format (``RestoreValues/appendCopyBinary(_:type:to:)``), which the feed frames
    /// with the format's header and, unless the COPY is failed, its trailer.
    ///
    /// - Parameters:
    ///   - connection: the connection, inside the restore's transaction.
    ///   - table: the schema-qualified table name, quoted.
    ///   - columns: the quoted column names.
    ///   - makesDigest: whether the rows sent are hashed (``RestoreDigest/add(copyData:)``), on the COPY's
    ///     task, not on the thread that reads the dump and waits for nothing else.
    init(connection opened: DBBPostgresConnection, table: String, columns: [String], makesDigest: Bool = false) {
        let connection = opened.connection
        let logger = opened.logger
        self.connection = connection
        server = opened.server
        let statement = Self.copyTarget(table: table, columns: columns)
        Task { [self] in
            let outcome: Result<RestoreDigest?, any Error>
            do {
                var digest: RestoreDigest? = makesDigest ? RestoreDigest() : nil
                try await connection.copyFrom(table: statement, logger: logger) { writer in
                    try await writer.write(ByteBuffer(bytes: Self.header))
                    while let chunk = await self.next() {
                        try await writer.write(chunk)
                        self.space.signal()
                        // Hashed while the server reads it.
                        if var rows = digest {
                            digest = chunk.withUnsafeReadableBytes { rows.add(copyData: $0) } ? rows : nil
                        }
                    }
                    if let error = self.state.withLock({ $0.producerError }) { throw error }
                    try await writer.write(ByteBuffer(integer: Self.trailer))
                }
                outcome = .success(digest)
            } catch {
                outcome = .failure(error)
            }
            self.state.withLock { $0.outcome = outcome }
            // Wakes a reading thread that waits for room, whatever it waits for.
            for _ in 0...CopyFeed.capacity { self.space.signal() }
            self.ended.signal()
        }
    }

    /// What goes in place of the table's name in postgres-nio's `copyFrom` for a binary COPY.
    ///
    /// postgres-nio (1.33) offers only COPY's text format. Its `copyFrom` writes
    /// `COPY "<table>" FROM STDIN WITH (FORMAT text)`, putting the name between double quotes as it is given (its
    /// documentation says so). Given `<schema>"."<table>" ("<column>", …) FROM STDIN WITH (FORMAT binary) --`, it
    /// sends the whole binary statement, and the comment holds what it adds after the name. The names are quoted
    /// identifiers, and the comment ends the line: nothing else in the statement comes from the data.
    static func copyTarget(table: String, columns: [String]) -> String {
        "\(table.dropFirst()) (\(columns.joined(separator: ", "))) FROM STDIN WITH (FORMAT binary) --"
    }

    private func next() async -> ByteBuffer? {
        await withCheckedContinuation { continuation in
            let ready: ByteBuffer?? = state.withLock { state in
                if !state.chunks.isEmpty { return .some(state.chunks.removeFirst()) }
                if state.finished { return .some(nil) }
                state.waiting = continuation
                return nil
            }
            if let ready { continuation.resume(returning: ready) }
        }
    }

    /// Hands a chunk to the COPY, waiting while ``capacity`` chunks are pending.
    ///
    /// - Throws: the COPY's error when it has failed, or `DBBError` (ioError) when the connection closed under it.
    func send(_ chunk: ByteBuffer) throws {
        try DBBPostgresConnection.wait(for: space, whileOpen: connection, server: server)
        let waiting: CheckedContinuation<ByteBuffer?, Never>? = try state.withLock { state in
            if case .failure(let error) = state.outcome { throw error }
            if let waiting = state.waiting {
                state.waiting = nil
                return waiting
            }
            state.chunks.append(chunk)
            return nil
        }
        waiting?.resume(returning: chunk)
    }

    /// Ends the data; with an error, fails the COPY (the server discards what it received).
    func finish(failing error: (any Error)? = nil) {
        let waiting = state.withLock { state in
            state.finished = true
            state.producerError = error
            let waiting = state.waiting
            state.waiting = nil
            return waiting
        }
        waiting?.resume(returning: nil)
    }

    /// Waits until the COPY has ended.
    ///
    /// - Returns: the digest of the rows sent, when the feed makes one and they were all COPY rows.
    /// - Throws: the COPY's error, or `DBBError` (ioError) when the connection closed under it unanswered.
    @discardableResult
    func wait() throws -> RestoreDigest? {
        try DBBPostgresConnection.wait(for: ended, whileOpen: connection, server: server)
        ended.signal()
        switch state.withLock({ $0.outcome }) {
        case .failure(let error): throw error
        case .success(let digest): return digest
        case nil: return nil
        }
    }
}
