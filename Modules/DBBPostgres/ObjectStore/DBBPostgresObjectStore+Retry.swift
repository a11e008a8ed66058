internal import DBBObjects
internal import DBBSQL
internal import Foundation
internal import Synchronization

/// When failed work runs again.
extension DBBPostgresObjectStore {
    /// Runs work in one transaction on a connection; call on the connection's queue. Reads run in a read-only
    /// `REPEATABLE READ` snapshot, so a fetch's statements see one state.
    ///
    /// The work runs again, on a new connection if need be, when its transaction failed in a way that changed
    /// nothing and may not fail again: a serialization failure or a deadlock (SQLSTATE `40001`, `40P01`: the
    /// server rolled it back), a prepared statement whose table another program changed (`0A000`, "cached plan
    /// must not change result type": the statement did nothing, and is prepared anew), or a connection that
    /// ended — for a read always, for a write when it ended before its `COMMIT` was sent (the server then rolled
    /// it back). The work is plain data (a save plan, ids), so it
    /// runs again unchanged. A write whose `COMMIT` was sent on a connection that then ended may or may not have
    /// committed: it is reported, never run twice. A statement refused because its connection was already closed
    /// (SQLSTATE `08003`) was never sent, so its work runs again even after its `COMMIT` or its one statement;
    /// so does a work of one statement whose connection ended while the statement was being prepared.
    ///
    /// Work of one statement runs without `BEGIN` and `COMMIT`: the statement is its own transaction. Its
    /// "commit" is sent with it, so a write of one statement whose connection ended is not run again. Where a
    /// table of the schema has checks at commit (``Connection/checksAtCommit``), writes of one statement run in a
    /// transaction too.
    static func run<Work: DBBObjectWork>(_ work: Work, on connection: Connection, isWrite: Bool) throws
        -> Work.Result
    {
        var attempt = 1
        // A statement refused unsent on a connection found closed (as the connection's own check before each
        // statement does) counts as no attempt, up to three times: the work had not started.
        var unsentRetries = 0
        // Behind a pooler in transaction mode with a schema, even one statement needs its transaction, which sets
        // the schema.
        // A table with checks at commit: the commit's refusal is reported only for an explicit COMMIT.
        let isTransaction =
            !work.isSingleStatement || connection.schemaStatement != nil
            || (isWrite && connection.checksAtCommit.load(ordering: .relaxed))
        while true {
            var commitSent = false
            do {
                guard isTransaction else {
                    // A connection found closed refuses the statement unsent (08003), and the work runs again on a
                    // new one: no check of its own before each statement. One that ends while the statement is
                    // prepared (its second run on the connection) ends before the statement was sent to run.
                    connection.objects.failedPreparing = false
                    commitSent = true
                    do {
                        return try work.run(on: connection.objects)
                    } catch {
                        if connection.objects.failedPreparing { commitSent = false }
                        throw error
                    }
                }
                return try connection.inTransaction(isWrite: isWrite) {
                    let result = try work.run(on: connection.objects)
                    commitSent = true
                    return result
                }
            } catch {
                // Its COMMIT was sent on a connection that then ended: reported as it is.
                if (error as? DBBError)?.sqlState == DBBPostgresErrors.outcomeUnknown { throw error }
                let ended = connectionEnded(by: error, closed: connection.objects.connection.isClosed)
                let unsafe = isWrite && commitSent
                if ended, unsafe, (error as? DBBError)?.sqlState != DBBPostgresErrors.notSent {
                    throw outcomeUnknown(error, on: connection)
                }
                let unsent = ended && (error as? DBBError)?.sqlState == DBBPostgresErrors.notSent && unsentRetries < 3
                guard unsent || attempt < 3, mayRunAgain(after: error, ended: ended, unsafe: unsafe) else {
                    throw error
                }
                if unsent { unsentRetries += 1 } else { attempt += 1 }
                if ended || (error as? DBBError).map(DBBPostgresErrors.refusedAsStandby) == true {
                    // Its server ended, or became a hot standby (a failover or a switchover): a host of the role
                    // wanted takes the work.
                    try connection.reconnect()
                } else {
                    // Two deadlocked transactions that both ran again at once would meet again.
                    Thread.sleep(forTimeInterval: 0.01 * Double(attempt))
                }
            }
        }
    }

    /// Whether a failed transaction changed nothing and its work may run again.
    ///
    /// - Parameters:
    ///   - error: the failure.
    ///   - ended: whether the connection ended.
    ///   - unsafe: whether the transaction may have committed (its `COMMIT` was sent).
    static func mayRunAgain(after error: any Error, ended: Bool, unsafe: Bool) -> Bool {
        let state = (error as? DBBError)?.sqlState
        // Refused before it was sent: the server did none of the statement, and rolls back what came before it.
        if ended { return !unsafe || state == DBBPostgresErrors.notSent }
        // Refused by a server that is now a standby: the statement did nothing, and the transaction rolled back.
        if let error = error as? DBBError, DBBPostgresErrors.refusedAsStandby(error) { return true }
        guard let state else { return false }
        // A prepared statement whose table another program changed: the connection prepares it again.
        if state == DBBPostgresErrors.cachedPlanChanged {
            return (error as? DBBError)?.message.contains("cached plan") == true
        }
        return state == "40001" || state == "40P01"
    }

    /// The error of a write whose `COMMIT` (or single statement) was sent on a connection that then ended: the
    /// server may or may not have committed it, so it is not run again. SQLSTATE `08007`, transaction resolution
    /// unknown; the failure that ended the connection is its underlying error.
    static func outcomeUnknown(_ error: any Error, on connection: Connection) -> DBBError {
        let server = connection.objects.connection.server
        var unknown = DBBError.server(
            sqlState: DBBPostgresErrors.outcomeUnknown, extendedCode: DBBError.ResultCode.ioError.rawValue,
            message: "the connection to \(server) ended after the commit was sent, so whether it committed is "
                + "unknown; it was not run again (\((error as? DBBError)?.message ?? String(describing: error)))",
            sql: (error as? DBBError)?.sql, context: (error as? DBBError)?.context ?? "committing",
            engine: DBBPostgresErrors.engine)
        unknown.recoverySuggestion =
            "check whether the change is there before making it again (fetch the object by a key of its own)"
        return unknown
    }

    /// Whether a failure ended the connection: it is closed, the network failed under the statement, or the
    /// server said it is ending it (SQLSTATE class `08`, connection exceptions, and `57P01`–`57P03`, a shutdown or
    /// a terminated backend), which the connection may not have noticed yet.
    static func connectionEnded(by error: any Error, closed: Bool) -> Bool {
        if closed { return true }
        guard let error = error as? DBBError else { return false }
        // The network failed under the statement (a reset, an unclean shutdown): no SQLSTATE, an I/O error.
        guard let state = error.sqlState else { return error.extendedCode == DBBError.ResultCode.ioError.rawValue }
        return state.hasPrefix("08") || state == "57P01" || state == "57P02" || state == "57P03"
    }
}
