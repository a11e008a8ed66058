import DBBBuilder
import DBBPostgres
import Foundation
import Synchronization
import Testing

/// An observation ends at once when the task iterating it is cancelled, on PostgreSQL as on SQLite (whose cases
/// are in `DBBObservationCancellationTests`), and the manager counts it no more. Values are awaited without a
/// bound (the time limit stops a test that hangs); an ended observation is allowed 60 s, since the whole suite on
/// two cores can hold a task back for many seconds, while one that did not end would wait forever.
@Suite(.postgres, .timeLimit(.minutes(10)))
struct DBBPostgresObservationCancellationTests {
    @Test func cancellingItsTaskEndsAnObservationAtOnce() async throws {
        let manager = try await DBBPostgresUserErrorTests.manager("postgres")
        defer { try? synchronously { try manager.close() } }
        let values = Tally()
        let (deliveries, delivered) = AsyncStream<Void>.makeStream()
        let consumers = (0..<5).map { _ in
            Task {
                for try await _ in manager.observe(ServerParcel.self) {
                    values.add()
                    delivered.yield()
                }
            }
        }
        var iterator = deliveries.makeAsyncIterator()
        for _ in 0..<5 { await iterator.next() }
        #expect(manager.activeObservationCount == 5)
        // A commit reaches each of them, then they wait for the next one.
        try await DBBPostgresUserErrorTests.parcel("one", manager: manager).save()
        for _ in 0..<5 { await iterator.next() }
        #expect(values.count == 10)
        try await Task.sleep(for: .milliseconds(100))
        for consumer in consumers { consumer.cancel() }
        for consumer in consumers { try await consumer.value }
        #expect(try await Self.eventually(within: 300) { manager.activeObservationCount == 0 })
        // Commits after the cancellation reach nobody, and a new observation still works.
        try await DBBPostgresUserErrorTests.parcel("two", manager: manager).save()
        var observation = manager.observe(ServerParcel.self).makeAsyncIterator()
        #expect(try await observation.next()?.map(\.label).sorted() == ["one", "two"])
        #expect(values.count == 10)
    }

    /// Waits until `condition` holds, for at most `seconds`.
    static func eventually(within seconds: Double, _ condition: () -> Bool) async throws -> Bool {
        let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
        while ContinuousClock.now < deadline {
            if condition() { return true }
            try await Task.sleep(for: .milliseconds(5))
        }
        return condition()
    }
}

/// A count, increased from any task.
final class Tally: Sendable {
    private let value = Mutex(0)
    func add() { value.withLock { $0 += 1 } }
    var count: Int { value.withLock { $0 } }
}
