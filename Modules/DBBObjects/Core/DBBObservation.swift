internal import DBBQuery
internal import DBBSQL
public import DBBSchema
internal import Foundation

/// The current results of a query, again after each committed transaction that changed a table the
/// query reads: what ``DBBManager/observe(_:options:)`` returns.
///
/// ```swift
/// for try await people in manager.observe(Person.self, options: .options(sortColumns: ["lastName"])) {
///     render(people)   // at once, then after each commit that changed Person or its join tables
/// }
/// ```
///
/// Each value is the query's result in a state the database had just after one commit: never a state in
/// the middle of a transaction, and never an older state after a newer one. When commits come faster than
/// the loop takes values, the values in between are skipped: the next one is the latest state. Ending the
/// loop, or cancelling its task, stops the observation. A failing fetch ends the loop by throwing.
///
/// The sequence is `Sendable` (it describes the query); its values are fresh objects handed to the loop.
public struct DBBObservation<Object: DBBTableObject & DBBTableRepresentable>: AsyncSequence, Sendable {
    /// The results of one fetch.
    public typealias Element = [Object]
    /// A fetch can fail.
    public typealias Failure = any Error

    let manager: DBBManager
    let options: DBBQueryOptions

    /// Starts the observation: the iterator's first value is fetched at once.
    public func makeAsyncIterator() -> Iterator {
        Iterator(manager: manager, options: options)
    }

    /// Fetches the query's results, first at once, then after each commit that changed a table it reads.
    public struct Iterator: AsyncIteratorProtocol {
        let manager: DBBManager
        let options: DBBQueryOptions
        private var subscription: Subscription?
        private var isFinished = false

        init(manager: DBBManager, options: DBBQueryOptions) {
            self.manager = manager
            self.options = options
        }

        /// Ends the observation when the iterator goes away.
        final class Subscription: Sendable {
            let manager: DBBManager
            let state: DBBObservationState
            init(manager: DBBManager, state: DBBObservationState) {
                self.manager = manager
                self.state = state
            }
            deinit { manager.observers.remove(state) }
        }

        /// The next state of the query's results, or `nil` when the task was cancelled or the manager closed.
        ///
        /// - Throws: `DBBError` when the fetch fails (the observation then ends).
        public mutating func next(isolation actor: isolated (any Actor)? = #isolation) async throws -> sending [Object]?
        {
            if isFinished { return nil }
            let state: DBBObservationState
            if let subscription {
                state = subscription.state
                guard await state.waitForChange() else {
                    finish()
                    return nil
                }
            } else {
                // Watching begins before the first fetch, so a commit during that fetch is not missed.
                let map: DBBRegisteredClass
                do {
                    map = try manager.map(for: Object.self)
                } catch {
                    finish()
                    throw error
                }
                state = DBBObservationState(tables: Set(manager.tablesRead(by: map).map { $0.lowercased() }))
                manager.observers.add(state)
                subscription = Subscription(manager: manager, state: state)
            }
            do {
                return try await manager.fetchObserved(Object.self, options: options, state: state)
            } catch {
                finish()
                throw error
            }
        }

        /// The next state of the query's results (``next(isolation:)`` outside an actor).
        ///
        /// - Throws: `DBBError` when the fetch fails.
        public mutating func next() async throws -> sending [Object]? {
            try await next(isolation: nil)
        }

        private mutating func finish() {
            isFinished = true
            subscription = nil
        }
    }
}

/// An observation started by ``DBBManager/observe(_:options:onError:onChange:)``: keep it while you want
/// values; ``cancel()`` (or releasing it) stops them.
public final class DBBObservationHandle: Sendable {
    // Sendable: a task handle is.
    private let task: Task<Void, Never>

    init(task: Task<Void, Never>) { self.task = task }

    deinit { task.cancel() }

    /// Stops the observation: no value is delivered after this returns, except one being delivered now.
    public func cancel() { task.cancel() }
}

/// One observation's news from the writer: whether a commit changed one of its tables since its last
/// fetch began, and the iterator waiting for that.
final class DBBObservationState: @unchecked Sendable {
    // @unchecked: every variable is guarded by `lock`.
    /// The lowercased names of the tables the query reads.
    let tables: Set<String>
    private let lock = NSLock()
    private var changed = false
    private var isFinished = false
    private var waiter: CheckedContinuation<Bool, Never>?

    init(tables: Set<String>) { self.tables = tables }

    /// A commit changed one of the tables (called on the writer, right after the commit).
    func notifyChange() {
        wake(returning: true) { changed = true }
    }

    /// The fetch's snapshot begins now, on the writer: it holds every commit notified so far.
    func snapshotBegins() {
        lock.withLock { changed = false }
    }

    /// Ends the observation: a waiting iterator returns `nil`.
    func finish() {
        wake(returning: false) { isFinished = true }
    }

    /// Updates the state under the lock, then resumes the waiting iterator, if any, outside it.
    private func wake(returning value: Bool, _ update: () -> Void) {
        let waiter: CheckedContinuation<Bool, Never>? = lock.withLock {
            update()
            defer { self.waiter = nil }
            return self.waiter
        }
        waiter?.resume(returning: value)
    }

    /// Waits for a commit that changed one of the tables; `false` when the task was cancelled or the
    /// observation ended.
    func waitForChange() async -> Bool {
        await withTaskCancellationHandler {
            await withCheckedContinuation { (continuation: CheckedContinuation<Bool, Never>) in
                lock.lock()
                if isFinished || Task.isCancelled {
                    lock.unlock()
                    continuation.resume(returning: false)
                } else if changed {
                    lock.unlock()
                    continuation.resume(returning: true)
                } else {
                    waiter = continuation
                    lock.unlock()
                }
            }
        } onCancel: {
            finish()
        }
    }
}

/// The manager's running observations, and whether the writer reports its commits to them yet.
final class DBBObserverRegistry: @unchecked Sendable {
    // @unchecked: every variable is guarded by `lock`.
    private let lock = NSLock()
    private var states: [ObjectIdentifier: DBBObservationState] = [:]

    func add(_ state: DBBObservationState) {
        lock.withLock { states[ObjectIdentifier(state)] = state }
    }

    /// The number of observations running.
    var count: Int { lock.withLock { states.count } }

    func remove(_ state: DBBObservationState) {
        lock.withLock { states[ObjectIdentifier(state)] = nil }
        state.finish()
    }

    /// Tells the observations whose tables a commit changed (lowercased names); `nil` (reports may have been
    /// lost) tells every observation.
    func changed(_ tables: Set<String>?) {
        let touched = lock.withLock {
            states.values.filter { state in tables.map { !$0.isDisjoint(with: state.tables) } ?? true }
        }
        for state in touched { state.notifyChange() }
    }

    /// Ends every observation (the manager is closing).
    func finishAll() {
        let all = lock.withLock {
            defer { states = [:] }
            return Array(states.values)
        }
        for state in all { state.finish() }
    }
}
