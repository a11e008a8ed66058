import DBBObjects
import DBBSQL
import DBBServiceLifecycle
import DBBTestSupport
import Foundation
import Logging
import ServiceLifecycle
import Testing

/// The code of Docs/Server.md, compiled here and run.
@Suite struct DocsServerTests {
    @Test func blocksStandHere() throws {
        #expect(try DocSnippets.missingBlocks(guide: "Docs/Server.md") == [])
    }

    @Test func managerLogging() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("app.sqlite"))
        var logger = Logger(label: "app.database")
        logger.logLevel = .debug
        let logging = DBBLogging(logger: logger, slowStatementThreshold: .milliseconds(100))
        try manager.setInstrumentation(DBBInstrumentation(logging: logging))
        #expect(try manager.rowCount(inTable: "DBVersion") == 0)
        try manager.close()
    }

    @Test func connectionLogging() throws {
        let folder = try TemporaryFolder()
        let path = folder.path("app.sqlite")
        let logger = Logger(label: "app.database")
        let queue = try DBBDatabaseQueue(path: path)
        try queue.setLogging(DBBLogging(logger: logger, statementLevel: .trace, logsBoundValues: true))
        try queue.setMetrics(DBBMetrics.bootstrapped)
        #expect(try queue.inDatabase { db in try db.fetchValue(Int.self, "SELECT 1") } == 1)
    }

    /// Stands for an application's HTTP server.
    struct HTTPServer: Service {
        func run() async throws { try? await gracefulShutdown() }
    }

    @Test func serviceGroup() async throws {
        let folder = try TemporaryFolder()
        let url = folder.file("app.sqlite")
        let logger = Logger(label: "app")
        let app = HTTPServer()
        let manager = try DBBManager(databaseURL: url, readers: 4)
        let group = ServiceGroup(
            services: [DBBManagerService(manager: manager), app], gracefulShutdownSignals: [.sigterm], logger: logger)
        let running = Task { try await group.run() }
        #expect(try await manager.rowCount(inTable: "DBVersion") == 0)
        await group.triggerGracefulShutdown()
        try await running.value
        #expect(throws: DBBError.self) { try manager.rowCount(inTable: "DBVersion") }
    }
}
