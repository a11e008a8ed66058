internal import DBBSQL
internal import Foundation

/// Reads the batches of every table of a dump on a thread of its own, in order, and hands them to the thread
/// that writes them: the server reads the next batches, the next table's among them, while a batch is written.
///
/// A batch is asked for only while the batches waiting to be written take less than ``DBBPostgresDump/batchBytes``
/// of memory (their bytes and the place of each field): small batches (a table's first ones, and small tables)
/// are read well ahead; batches of about ``DBBPostgresDump/batchBytes`` wait at most two, and a table of rows
/// longer than that has one batch written and at most one more read or waiting, as when the batches were read
/// on the writing thread.
final class RowFeed: @unchecked Sendable {
    // @unchecked: the queue and the flags are used only under `condition`'s lock; the tables, the connection and
    // the readers are used by the reading thread alone, until `finished` is signalled.

    /// What the writing thread receives.
    enum Item {
        /// The next batch of the current table.
        case batch(FieldBatch)
        /// The current table has no more rows.
        case endOfTable

        /// The memory it holds.
        var bytes: Int {
            if case .batch(let batch) = self { batch.footprint } else { 0 }
        }
    }

    private let tables: [PostgresDumpPlan.Table]
    private let connection: DBBPostgresConnection
    private let condition = NSCondition()
    private var queue: [Item] = []
    private var queuedBytes = 0
    private var failure: (any Error)?
    /// Whether the reading thread has read every table.
    private var hasReadAll = false
    private var isCancelled = false
    private let finished = DispatchSemaphore(value: 0)
    private var isJoined = false

    /// Starts reading the tables' batches, the first table's first.
    ///
    /// - Parameters:
    ///   - tables: the tables, in the dump's order.
    ///   - connection: the connection, in the dump's transaction; the feed uses it alone until ``join()``.
    init(tables: [PostgresDumpPlan.Table], connection: DBBPostgresConnection) {
        self.tables = tables
        self.connection = connection
        let thread = Thread { [self] in
            read()
            finished.signal()
        }
        thread.name = "DBBPostgres dump reader"
        // A batch's column arrays are read nested, one frame a column (up to 1,600).
        thread.stackSize = 8 << 20
        thread.start()
    }

    /// The reading thread: every table's batches, each table followed by ``Item/endOfTable``.
    private func read() {
        do {
            for table in tables {
                guard !isStopped else { return }
                let reader = try TableReader(table: table, connection: connection, prefetches: false)
                while let batch = try reader.nextBatch() {
                    guard put(.batch(batch)), waitForRoom() else { return }
                    reader.fetchNext()
                }
                try reader.close()
                guard put(.endOfTable) else { return }
            }
            end(failure: nil)
        } catch {
            end(failure: error)
        }
    }

    /// Records that the reading thread has read every table, or failed, and wakes the writing thread.
    private func end(failure error: (any Error)?) {
        condition.lock()
        defer { condition.unlock() }
        if let error { failure = error } else { hasReadAll = true }
        condition.broadcast()
    }

    /// Whether the writing thread has cancelled.
    private var isStopped: Bool {
        condition.lock()
        defer { condition.unlock() }
        return isCancelled
    }

    /// Queues an item.
    ///
    /// - Returns: `false` when the writing thread has cancelled.
    private func put(_ item: Item) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        guard !isCancelled else { return false }
        queue.append(item)
        queuedBytes += item.bytes
        condition.broadcast()
        return true
    }

    /// Waits until the queued batches hold less than ``DBBPostgresDump/batchBytes``.
    ///
    /// - Returns: `false` when the writing thread has cancelled.
    private func waitForRoom() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while queuedBytes >= DBBPostgresDump.batchBytes && !isCancelled { condition.wait() }
        return !isCancelled
    }

    /// The next batch of the current table, waiting for it.
    ///
    /// - Returns: the batch, or `nil` when the table has no more rows.
    /// - Throws: `DBBError` or `DBBExportError`, what reading the batch threw; `DBBError` (misuse) when asked for
    ///   more tables than there are.
    func nextBatch() throws -> FieldBatch? {
        condition.lock()
        defer { condition.unlock() }
        while queue.isEmpty && failure == nil && !hasReadAll { condition.wait() }
        guard !queue.isEmpty else {
            throw failure ?? DBBError.misuse("a dump asked for the rows of more tables than it reads")
        }
        let item = queue.removeFirst()
        guard case .batch(let batch) = item else { return nil }
        queuedBytes -= item.bytes
        condition.broadcast()
        return batch
    }

    /// Stops the reading (after the query it waits for, if any) and waits for its thread to end; the connection
    /// is the caller's again. Call it once the rows are read, or to give up.
    func join() {
        condition.lock()
        isCancelled = true
        queue.removeAll()
        queuedBytes = 0
        condition.broadcast()
        let wasJoined = isJoined
        isJoined = true
        condition.unlock()
        if !wasJoined { finished.wait() }
    }
}
