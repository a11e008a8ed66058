internal import CSQLite

/// Holds the trace closure for SQLite's C callback.
final class DBBTraceBox {
    let handler: (String, Duration) -> Void
    init(handler: @escaping (String, Duration) -> Void) { self.handler = handler }
}

extension DBBDatabase {
    /// Installs a closure that receives each statement's SQL text and how long it ran, after it finishes.
    /// Pass `nil` to remove it. Meant for debugging and for tests that check the SQL a call ran.
    ///
    /// ```swift
    /// db.setTrace { sql, duration in print(duration, sql) }
    /// ```
    ///
    /// Related SQLite documentation: https://www.sqlite.org/c3ref/trace_v2.html
    ///
    /// - Parameter handler: called on the connection's thread for every completed statement.
    public func setTrace(_ handler: ((_ sql: String, _ duration: Duration) -> Void)?) {
        guard let handle else { return }
        guard let handler else {
            sqlite3_trace_v2(handle, 0, nil, nil)
            traceBox = nil
            return
        }
        let box = DBBTraceBox(handler: handler)
        traceBox = box
        sqlite3_trace_v2(
            handle, UInt32(SQLITE_TRACE_PROFILE),
            { _, context, statement, nanoseconds in
                guard let context, let statement, let nanoseconds else { return 0 }
                let box = Unmanaged<DBBTraceBox>.fromOpaque(context).takeUnretainedValue()
                let sql = sqlite3_sql(OpaquePointer(statement)).map { String(cString: $0) } ?? ""
                let elapsed = nanoseconds.load(as: Int64.self)
                box.handler(sql, .nanoseconds(elapsed))
                return 0
            }, Unmanaged.passUnretained(box).toOpaque())
    }
}
