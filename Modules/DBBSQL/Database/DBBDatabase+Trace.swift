internal import CSQLite
internal import Dispatch

/// What a connection does when a statement finishes: the trace closure, the statement log and the statement
/// metrics, for SQLite's C callback. Set as a whole, on the connection's thread.
final class DBBTraceBox {
    let handler: ((String, Duration) -> Void)?
    let logging: DBBLogging?
    let metrics: DBBConnectionMetrics?

    init(handler: ((String, Duration) -> Void)?, logging: DBBLogging?, metrics: DBBConnectionMetrics?) {
        self.handler = handler
        self.logging = logging
        self.metrics = metrics
    }

    /// Reports one finished statement to whoever asked for it; one call per statement, never per row.
    func statementFinished(_ statement: OpaquePointer, nanoseconds: Int64) {
        metrics?.statementFinished(nanoseconds: nanoseconds)
        if let handler {
            handler(sqlite3_sql(statement).map { String(cString: $0) } ?? "", .nanoseconds(nanoseconds))
        }
        if let logging { logging.statementFinished(statement, nanoseconds: nanoseconds) }
    }
}

extension DBBDatabase {
    /// Installs a closure that receives each statement's SQL text and how long it ran, after it finishes.
    /// Pass `nil` to remove it. Meant for debugging and for tests that check the SQL a call ran; a server
    /// logs statements through swift-log instead (``setLogging(_:)``). Both may be set at once.
    ///
    /// ```swift
    /// db.setTrace { sql, duration in print(duration, sql) }
    /// ```
    ///
    /// Related SQLite documentation: https://www.sqlite.org/c3ref/trace_v2.html
    ///
    /// - Parameter handler: called on the connection's thread for every completed statement.
    public func setTrace(_ handler: ((_ sql: String, _ duration: Duration) -> Void)?) {
        installTraceBox(handler: handler, logging: traceBox?.logging, metrics: traceBox?.metrics)
    }

    /// The logging the connection was given (``setLogging(_:)``), for records of the layers above it.
    package var logging: DBBLogging? { traceBox?.logging }

    /// Logs the connection's statements through swift-log, as ``DBBLogging`` describes; `nil` (the default)
    /// logs nothing and costs nothing.
    ///
    /// ```swift
    /// var logger = Logger(label: "app.database")
    /// logger.logLevel = .debug
    /// db.setLogging(DBBLogging(logger: logger, slowStatementThreshold: .milliseconds(50)))
    /// ```
    ///
    /// - Parameter logging: the logger and what to log, or `nil` to stop logging.
    public func setLogging(_ logging: DBBLogging?) {
        installTraceBox(handler: traceBox?.handler, logging: logging, metrics: traceBox?.metrics)
    }

    /// Records the connection's statements, failures and WAL checkpoints through swift-metrics (see
    /// ``DBBMetrics`` for the names and dimensions); `nil` (the default) records nothing.
    ///
    /// - Parameter metrics: the factory and dimensions, or `nil` to stop recording.
    public func setMetrics(_ metrics: DBBMetrics?) {
        let recorder = metrics.map { DBBConnectionMetrics($0, namespace: namespace) }
        // While the library's hook is installed, SQLite reports no automatic checkpoint (0): the setting is the
        // one kept when the hook was installed. Read before the new metrics are, so that the query is not counted.
        let pages =
            traceBox?.metrics?.autoCheckpointPages
            ?? (try? fetchValue(Int.self, "PRAGMA wal_autocheckpoint")).flatMap { Int32(exactly: $0) } ?? 1000
        installTraceBox(handler: traceBox?.handler, logging: traceBox?.logging, metrics: recorder)
        installCheckpointHook(recorder, autoCheckpointPages: pages)
    }

    /// The database's name in logs and metrics (`db.namespace`): the file's name, or `":memory:"`.
    var namespace: String {
        path.split(separator: "/").last.map(String.init) ?? path
    }

    private func installTraceBox(
        handler: ((String, Duration) -> Void)?, logging: DBBLogging?, metrics: DBBConnectionMetrics?
    ) {
        guard let handle else { return }
        guard handler != nil || logging != nil || metrics != nil else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            traceBox = nil
            return
        }
        let box = DBBTraceBox(handler: handler, logging: logging, metrics: metrics)
        traceBox = box
        sqlite3_trace_v2(
            handle, UInt32(SQLITE_TRACE_PROFILE),
            { _, context, statement, nanoseconds in
                guard let context, let statement, let nanoseconds else { return 0 }
                let box = Unmanaged<DBBTraceBox>.fromOpaque(context).takeUnretainedValue()
                box.statementFinished(OpaquePointer(statement), nanoseconds: nanoseconds.load(as: Int64.self))
                return 0
            }, Unmanaged.passUnretained(box).toOpaque())
    }

    /// Logs and counts a statement that failed, for the connection's log and metrics; the caller throws it.
    func statementFailed(_ error: DBBError) {
        guard let traceBox else { return }
        traceBox.metrics?.statementFailed()
        traceBox.logging?.statementFailed(error)
    }
}
