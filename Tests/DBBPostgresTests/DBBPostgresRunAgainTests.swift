import DBBSQL
import Foundation
import PostgresNIO
import Synchronization
import Testing

@testable import DBBPostgres

/// When a manager's work runs again after its connection ended: a statement refused because the connection was
/// already closed reached no server, so even a write whose one statement or `COMMIT` it was runs again; a write
/// the server may have committed does not.
@Suite(.postgres)
struct DBBPostgresRunAgainTests {
    @Test func aStatementOnAClosedConnectionIsRefusedUnsentAndItsWriteRunsAgain() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        let refused = try await TestPostgres.onQueue { () -> DBBError? in
            let connection = try DBBPostgresConnection.connect(configuration)
            try connection.close()
            do {
                _ = try connection.execute("CREATE TABLE never (id bigint)")
                return nil
            } catch let error as DBBError {
                return error
            }
        }
        let error = try #require(refused)
        #expect(error.sqlState == "08003")
        #expect(error.message.contains("is closed"))
        #expect(DBBPostgresObjectStore.connectionEnded(by: error, closed: true))
        #expect(DBBPostgresObjectStore.mayRunAgain(after: error, ended: true, unsafe: true))
        // Nothing of it reached the server.
        let tables = try await TestPostgres.onQueue {
            let check = try DBBPostgresConnection.connect(configuration)
            defer { try? check.close() }
            return try check.fetchAll("SELECT count(*) FROM pg_tables WHERE tablename = 'never'")
        }
        #expect(tables == [[.integer(0)]])
    }

    @Test func aWriteTheServerMayHaveCommittedDoesNotRunAgain() {
        let terminated = DBBError.server(
            sqlState: "57P01", extendedCode: DBBError.ResultCode.abort.rawValue,
            message: "terminating connection due to administrator command", sql: "COMMIT", context: "saving")
        let dropped = DBBError.server(
            sqlState: nil, extendedCode: DBBError.ResultCode.ioError.rawValue,
            message: "the PostgreSQL server closed the connection", sql: "COMMIT", context: "saving")
        for error in [terminated, dropped] {
            #expect(!DBBPostgresObjectStore.mayRunAgain(after: error, ended: true, unsafe: true))
            #expect(DBBPostgresObjectStore.mayRunAgain(after: error, ended: true, unsafe: false))
        }
        // A connection the network failed under a statement has ended, whether or not it says so yet: it is made
        // anew, and a write whose commit was sent on it is reported as of unknown outcome.
        #expect(DBBPostgresObjectStore.connectionEnded(by: terminated, closed: false))
        #expect(DBBPostgresObjectStore.connectionEnded(by: dropped, closed: false))
    }
}

/// A request sent on a connection the server has just closed: postgres-nio may drop it without answering (it
/// writes requests without a promise for the write), and a wait for it would never end.
@Suite(.postgres)
struct DBBPostgresClosedConnectionWaitTests {
    @Test func aRequestSentAfterTheServerClosedTheConnectionEndsWithAnError() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        let (error, seconds, answered) = try await TestPostgres.onQueue { () -> (DBBError?, Double, Bool) in
            let connection = try DBBPostgresConnection.connect(configuration)
            let admin = try DBBPostgresConnection.connect(configuration)
            defer { try? admin.close() }
            let pid = try connection.fetchAll("SELECT pg_backend_pid()").first?.first ?? .null
            _ = try admin.fetchAll("SELECT pg_terminate_backend($1::int)", [pid])
            let deadline = Date(timeIntervalSinceNow: 10)
            while !connection.connection.isClosed && Date() < deadline { Thread.sleep(forTimeInterval: 0.01) }
            // Sent as if the connection's own check had passed just before it closed.
            let request = connection.connection.query(PostgresQuery(unsafeSQL: "SELECT 1"), logger: connection.logger)
            let answered = Mutex(false)
            request.whenComplete { _ in answered.withLock { $0 = true } }
            let start = Date()
            do {
                _ = try connection.waitFor(request)
                return (nil, Date().timeIntervalSince(start), answered.withLock { $0 })
            } catch let error as DBBError {
                return (error, Date().timeIntervalSince(start), answered.withLock { $0 })
            }
        }
        let ended = try #require(error)
        #expect(ended.message.contains("closed before the statement was answered") || answered, "\(ended)")
        // About 1.5 s (the closed connection seen at two checks); a loaded machine delays the checks by seconds.
        #expect(seconds < 20, "the wait ended after \(seconds) s")
        // The manager takes it for a connection that ended: a read runs again on a new connection.
        #expect(DBBPostgresObjectStore.connectionEnded(by: ended, closed: true))
        print("a request after the server closed the connection: answered by postgres-nio: \(answered)")
    }

    @Test func anAsyncRequestSentAfterTheServerClosedTheConnectionEndsWithAnError() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        let connection = try await DBBPostgresConnection.connect(configuration)
        let admin = try await DBBPostgresConnection.connect(configuration)
        let pid = try await connection.fetchAll("SELECT pg_backend_pid()").first?.first ?? .null
        _ = try await admin.fetchAll("SELECT pg_terminate_backend($1::int)", [pid])
        try await admin.close()
        let deadline = Date(timeIntervalSinceNow: 10)
        while !connection.connection.isClosed && Date() < deadline { try await Task.sleep(for: .milliseconds(10)) }
        // Sent as if the connection's own check had passed just before it closed.
        let request: EventLoopFuture<PostgresQueryResult> = connection.connection.query(
            PostgresQuery(unsafeSQL: "SELECT 1"), logger: connection.logger)
        let start = Date()
        // postgres-nio's own error when it answered the request after all, else the wait's.
        let error = await #expect(throws: (any Error).self) { try await connection.answer(request) }
        let seconds = Date().timeIntervalSince(start)
        // About 1.5 s (the closed connection seen at two checks); a loaded machine delays the checks by seconds.
        #expect(seconds < 20, "the wait ended after \(seconds) s")
        if let ended = error as? DBBError {
            #expect(ended.message.contains("closed before the statement was answered"), "\(ended)")
            #expect(DBBPostgresObjectStore.connectionEnded(by: ended, closed: true))
        }
    }
}
