import DBBObjects
import Foundation
import Testing

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
///
/// The tests wait for the observations' values without a bound of their own (the suite's time limit stops a test
/// that hangs), and allow an ended observation 60 s: alone they see an end within milliseconds, but the whole
/// suite on two cores can hold a task back for many seconds. They still tell the two cases apart, since an
/// observation that did not end at cancellation would wait for a commit that never comes, forever.
@Suite(.timeLimit(.minutes(10))) struct DBBObservationCancellationTests {
    @Test(arguments: ManagerKind.allCases)
    func cancellingTheTaskEndsAnObservationWaitingForACommit(storage: ManagerKind) async throws {
        let folder = try TemporaryFolder()
        let manager = try storage.manager(in: folder)
        #expect(manager.activeObservationCount == 0)
        let (firstValue, delivered) = AsyncStream<Void>.makeStream()
        let consumer = Task {
            var values = 0
            for try await _ in manager.observe(Person.self) {
                values += 1
                delivered.yield()
            }
            return values
        }
        for await _ in firstValue { break }
        #expect(manager.activeObservationCount == 1)
        // The observation now waits for a commit that never comes: cancellation alone must end it.
        try await Task.sleep(for: .milliseconds(50))
        consumer.cancel()
        #expect(try await consumer.value == 1)
        #expect(try await eventually(within: 300) { manager.activeObservationCount == 0 })
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
        #expect(try await eventually(within: 300) { manager.activeObservationCount == 0 })
    }

    @Test func manyCancelledObservationsLeaveNoneOpenAndACommitStillReachesTheOthers() async throws {
        let folder = try TemporaryFolder()
        let manager = try ManagerKind.pool.manager(in: folder)
        let (firstValues, started) = AsyncStream<Void>.makeStream()
        var consumers: [Task<Int, any Error>] = []
        for _ in 0..<20 {
            consumers.append(
                Task {
                    var values = 0
                    for try await _ in manager.observe(Person.self) {
                        if values == 0 { started.yield() }
                        values += 1
                    }
                    return values
                })
        }
        var count = 0
        for await _ in firstValues {
            count += 1
            if count == 20 { break }
        }
        #expect(manager.activeObservationCount == 20)
        for consumer in consumers.prefix(15) { consumer.cancel() }
        for consumer in consumers.prefix(15) { #expect(try await consumer.value == 1) }
        #expect(try await eventually(within: 300) { manager.activeObservationCount == 5 })
        let person = Person(dbManager: manager)
        person.lastName = "Late"
        try await person.save()
        for consumer in consumers.suffix(5) { consumer.cancel() }
        for consumer in consumers.suffix(5) { #expect(try await consumer.value >= 1) }
        #expect(try await eventually(within: 300) { manager.activeObservationCount == 0 })
    }

    @Test func cancellingAHandleEndsItsObservation() async throws {
        let folder = try TemporaryFolder()
        let manager = try ManagerKind.file.manager(in: folder)
        let (firstValue, delivered) = AsyncStream<Void>.makeStream()
        let handle = manager.observe(Person.self) { _ in delivered.yield() }
        for await _ in firstValue { break }
        #expect(manager.activeObservationCount == 1)
        handle.cancel()
        #expect(try await eventually(within: 300) { manager.activeObservationCount == 0 })
    }
}
