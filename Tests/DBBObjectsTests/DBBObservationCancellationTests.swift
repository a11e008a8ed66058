import DBBObjects
import Foundation
import Testing

/// Whether something happened yet, set from any task.
final class ObservationFlag: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var value = false
    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

/// Waits until `condition` holds, checking every 5 ms, for at most `seconds`; returns whether it held.
func eventually(within seconds: Double, _ condition: () -> Bool) async throws -> Bool {
    let deadline = ContinuousClock.now + .milliseconds(Int(seconds * 1000))
    while ContinuousClock.now < deadline {
        if condition() { return true }
        try await Task.sleep(for: .milliseconds(5))
    }
    return condition()
}

/// An observation ends promptly when the task iterating it is cancelled, wherever it is: waiting for a commit,
/// or before its first value; and the manager counts it no more.
@Suite struct DBBObservationCancellationTests {
    @Test(arguments: ManagerKind.allCases)
    func cancellingTheTaskEndsAnObservationWaitingForACommit(storage: ManagerKind) async throws {
        let folder = try TemporaryFolder()
        let manager = try storage.manager(in: folder)
        #expect(manager.activeObservationCount == 0)
        let firstValue = ObservationFlag()
        let ended = ObservationFlag()
        let consumer = Task {
            defer { ended.set() }
            var values = 0
            for try await _ in manager.observe(Person.self) {
                values += 1
                firstValue.set()
            }
            return values
        }
        #expect(try await eventually(within: 10) { firstValue.isSet })
        #expect(manager.activeObservationCount == 1)
        // The observation now waits for a commit that never comes: cancellation alone must end it.
        try await Task.sleep(for: .milliseconds(50))
        let cancelled = ContinuousClock.now
        consumer.cancel()
        #expect(try await eventually(within: 2) { ended.isSet }, "the observation did not end within 2 s")
        #expect(ContinuousClock.now - cancelled < .seconds(2))
        #expect(try await consumer.value == 1)
        #expect(try await eventually(within: 2) { manager.activeObservationCount == 0 })
    }

    @Test(arguments: ManagerKind.allCases)
    func cancellingBeforeTheFirstValueEndsTheObservation(storage: ManagerKind) async throws {
        let folder = try TemporaryFolder()
        let manager = try storage.manager(in: folder)
        let consumer = Task {
            // Cancelled before it starts: the iteration ends after at most its first value.
            withUnsafeCurrentTask { $0?.cancel() }
            var values = 0
            for try await _ in manager.observe(Person.self) { values += 1 }
            return values
        }
        let values = try await consumer.value
        #expect(values <= 1)
        #expect(try await eventually(within: 2) { manager.activeObservationCount == 0 })
    }

    @Test func manyCancelledObservationsLeaveNoneOpenAndACommitStillReachesTheOthers() async throws {
        let folder = try TemporaryFolder()
        let manager = try ManagerKind.pool.manager(in: folder)
        var consumers: [Task<Int, any Error>] = []
        let started = ObservationCounter()
        for _ in 0..<20 {
            consumers.append(
                Task {
                    var values = 0
                    for try await _ in manager.observe(Person.self) {
                        if values == 0 { started.add() }
                        values += 1
                    }
                    return values
                })
        }
        #expect(try await eventually(within: 10) { started.count == 20 })
        #expect(manager.activeObservationCount == 20)
        for consumer in consumers.prefix(15) { consumer.cancel() }
        for consumer in consumers.prefix(15) { #expect(try await consumer.value == 1) }
        #expect(try await eventually(within: 2) { manager.activeObservationCount == 5 })
        let person = Person(dbManager: manager)
        person.lastName = "Late"
        try await person.save()
        for consumer in consumers.suffix(5) { consumer.cancel() }
        for consumer in consumers.suffix(5) { #expect(try await consumer.value >= 1) }
        #expect(try await eventually(within: 2) { manager.activeObservationCount == 0 })
    }

    @Test func cancellingAHandleEndsItsObservation() async throws {
        let folder = try TemporaryFolder()
        let manager = try ManagerKind.file.manager(in: folder)
        let firstValue = ObservationFlag()
        let handle = manager.observe(Person.self) { _ in firstValue.set() }
        #expect(try await eventually(within: 10) { firstValue.isSet })
        #expect(manager.activeObservationCount == 1)
        handle.cancel()
        #expect(try await eventually(within: 2) { manager.activeObservationCount == 0 })
    }
}

/// A count, increased from any task.
final class ObservationCounter: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var value = 0
    func add() { lock.withLock { value += 1 } }
    var count: Int { lock.withLock { value } }
}
