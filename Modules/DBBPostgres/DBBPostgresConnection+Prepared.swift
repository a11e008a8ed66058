internal import DBBSQL
internal import NIOCore
internal import PostgresNIO
internal import Synchronization

/// Statements prepared on a connection: parsed and planned by the server once, then run with new values in one
/// round trip each (`Bind`, `Execute`, `Sync`).
extension DBBPostgresConnection {
    /// A statement prepared on this connection; it exists until ``deallocate(_:)`` or the connection's end.
    /// A class: a statement the cache hands out for each run is one reference, not the several of postgres-nio's
    /// `PreparedQuery`.
    final class PreparedStatement: Sendable {
        let query: PreparedQuery
        /// The statement's text, for errors.
        let sql: String

        init(query: PreparedQuery, sql: String) {
            self.query = query
            self.sql = sql
        }
    }

    /// Prepares a statement, waiting on the calling thread. Its text fixes every parameter's type (`$1::bigint`,
    /// or a type the server infers where the statement gives none), as the values of an unnamed statement do.
    ///
    /// - Throws: `DBBError`: the server's error (a syntax error, an unknown table), or a misuse.
    func prepare(_ sql: String, context: String) throws -> PreparedStatement {
        try Self.requireBlockingAllowed(context: context, sql: sql)
        try requireOpen(sql: sql, context: context)
        roundTrips.add(1, ordering: .relaxed)
        do {
            return PreparedStatement(query: try waitFor(connection.prepare(query: sql)), sql: sql)
        } catch {
            throw map(error, sql: sql, context: context)
        }
    }

    /// Runs a prepared statement with `arguments` and returns its rows, waiting on the calling thread. The rows
    /// come in PostgreSQL's binary format. Called on a store's connection queue only, whose threads may wait (the
    /// store refused an event-loop thread, and runs a task's work on the queue's own thread): the statement is not
    /// checked again.
    ///
    /// - Throws: `DBBError`: the server's error, or a misuse (text with a NUL character).
    func rows(of statement: PreparedStatement, _ arguments: [DBBValue], context: String) throws -> [PostgresRow] {
        try requireOpen(sql: statement.sql, context: context)
        let binds = try DBBPostgresCoding.data(arguments, sql: statement.sql, context: context)
        roundTrips.add(1, ordering: .relaxed)
        do {
            return try waitFor(statement.query.execute(binds))
        } catch {
            throw map(error, sql: statement.sql, context: context)
        }
    }

    /// Tells the server to forget a prepared statement, without waiting: the request goes out after the
    /// statements sent before it.
    func deallocate(_ statement: PreparedStatement) {
        guard !connection.isClosed else { return }
        statement.query.deallocate().whenComplete { _ in }
    }
}
