import DBBObjects
import DBBServiceLifecycle
import DBBTestSupport
import Foundation
import Logging
import ServiceLifecycle
import Testing

final class Note: DBBTableObject {
    var text = ""

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["text": .init(\Note.text)], for: self)
    }
}

@Suite struct DBBManagerServiceTests {
    @Test("graceful shutdown lets the write in progress commit, checkpoints the log, closes, and refuses later calls")
    func gracefulShutdown() async throws {
        let folder = try TemporaryFolder()
        let url = folder.file("service.sqlite")
        let manager = try DBBManager(databaseURL: url, readers: 2)
        try manager.addTableClasses([Note.self])
        let group = ServiceGroup(services: [DBBManagerService(manager: manager)], logger: Logger(label: "test"))
        let running = Task { try await group.run() }

        // A write that is still running when shutdown begins.
        let inTransaction = AsyncStream<Void>.makeStream()
        let write = Task {
            try await manager.write {
                let note = Note(dbManager: manager)
                note.text = "in progress"
                try note.save()
                inTransaction.continuation.yield()
                Thread.sleep(forTimeInterval: 0.3)
            }
        }
        var iterator = inTransaction.stream.makeAsyncIterator()
        await iterator.next()
        await group.triggerGracefulShutdown()
        try await running.value
        try await write.value

        #expect(!FileManager.default.fileExists(atPath: url.path + "-wal"))
        let late = Note(dbManager: manager)
        late.text = "too late"
        let error = await #expect(throws: DBBError.self) { try await late.save() }
        #expect(error?.message.contains("closed") == true)

        let reopened = try DBBManager(databaseURL: url)
        try reopened.addTableClasses([Note.self])
        let texts = try await Note.fetchAll(manager: reopened).map(\.text)
        #expect(texts == ["in progress"])
        try reopened.close()
    }

    @Test("cancelling the service group closes the manager too")
    func cancellation() async throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("cancel.sqlite"))
        try manager.addTableClasses([Note.self])
        let service = DBBManagerService(manager: manager)
        let running = Task { try await service.run() }
        let note = Note(dbManager: manager)
        try await note.save()
        running.cancel()
        try await running.value
        #expect(throws: DBBError.self) { try Note.fetchAll(manager: manager) }
    }
}
