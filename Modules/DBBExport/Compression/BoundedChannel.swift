internal import Foundation

/// A bounded, blocking queue between two threads: one producer, one consumer.
///
/// The bound keeps memory flat: a producer that runs ahead waits until the consumer has taken an element.
/// Either side can end the exchange: the producer with ``finish(throwing:)``, the consumer with ``cancel()``.
final class BoundedChannel<Element: Sendable>: @unchecked Sendable {
    // @unchecked: every stored property is read and written only while `condition` is locked.

    private let condition = NSCondition()
    private var chunks: [Element] = []
    private let capacity: Int
    private var finished = false
    private var failure: (any Error)?
    private var cancelled = false
    /// Elements sent whose consumer has not finished with them: it finishes one when it asks for the next.
    private var unfinished = 0
    /// Whether the consumer holds an element it took.
    private var holdsElement = false

    init(capacity: Int) {
        self.capacity = max(capacity, 1)
    }

    /// Hands an element to the consumer, waiting while the queue is full.
    ///
    /// - Returns: `false` when the consumer has cancelled, so the producer should stop.
    func send(_ chunk: Element) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while chunks.count >= capacity && !cancelled { condition.wait() }
        if cancelled { return false }
        chunks.append(chunk)
        unfinished += 1
        condition.broadcast()
        return true
    }

    /// Ends the stream of chunks, with an error or normally.
    func finish(throwing error: (any Error)? = nil) {
        condition.lock()
        defer { condition.unlock() }
        finished = true
        failure = error
        condition.broadcast()
    }

    /// Takes the next element, waiting for one.
    ///
    /// - Returns: the element, or `nil` at the end of the stream.
    /// - Throws: the error the producer finished with, once every element before it has been taken.
    func receive() throws -> Element? {
        condition.lock()
        defer { condition.unlock() }
        if holdsElement {
            holdsElement = false
            unfinished -= 1
            condition.broadcast()
        }
        while chunks.isEmpty && !finished { condition.wait() }
        if !chunks.isEmpty {
            let chunk = chunks.removeFirst()
            holdsElement = true
            condition.broadcast()
            return chunk
        }
        if let failure { throw failure }
        return nil
    }

    /// Tells the producer to stop; elements still queued are dropped.
    func cancel() {
        condition.lock()
        defer { condition.unlock() }
        cancelled = true
        chunks.removeAll()
        condition.broadcast()
    }

    /// Waits, on the producer's side, until the consumer has finished with every element sent: it has taken
    /// them all and asked for the next. Meaningful with one consumer thread only (the compressing threads of
    /// the gzip writer share a channel, and never wait on it so).
    ///
    /// - Returns: `false` when the consumer has cancelled, so the producer should stop.
    func waitUntilConsumed() -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while unfinished > 0 && !cancelled { condition.wait() }
        return !cancelled
    }

    /// Waits until the producer has called ``finish(throwing:)``.
    ///
    /// - Returns: the error the producer finished with, if any.
    @discardableResult
    func waitUntilFinished() -> (any Error)? {
        condition.lock()
        defer { condition.unlock() }
        while !finished { condition.wait() }
        return failure
    }
}

/// The channel that carries chunks of bytes between the file thread and the JSON thread.
typealias ChunkChannel = BoundedChannel<InflatedChunk>
