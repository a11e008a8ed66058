internal import CSQLite
public import CoreMetrics
public import Logging

/// How a connection logs its statements through swift-log (``DBBDatabase/setLogging(_:)``).
///
/// Each finished statement is one record, at ``statementLevel`` (`.debug` unless set), with the SQL text in
/// `db.query.text` and how long it ran in `db.duration_ms`. A statement slower than ``slowStatementThreshold``
/// is logged at `.notice` instead. A failed statement is logged at `.debug`, as the swift-log guidelines ask of
/// libraries for errors they throw to their caller (who decides whether it is worth more). The logger's own
/// level filters as usual, so a logger at `.info` logs only slow statements.
public struct DBBLogging: Sendable {
    /// The logger the records go to.
    public var logger: Logger
    /// The level of a statement's record. Default: `.debug`.
    public var statementLevel: Logger.Level
    /// Whether a record also holds the statement with its bound values (`db.query.expanded`), which only a
    /// logger at `.trace` receives. Off by default: values may be personal data.
    public var logsBoundValues: Bool
    /// The duration above which a statement is logged at `.notice`; `nil` (the default) for none.
    public var slowStatementThreshold: Duration?

    /// The level of a failed statement's record: `.debug`, since the error is thrown to the caller.
    public static let failureLevel: Logger.Level = .debug

    /// Describes what to log.
    ///
    /// - Parameters:
    ///   - logger: the logger the records go to.
    ///   - statementLevel: the level of each statement's record. Default: `.debug`.
    ///   - logsBoundValues: whether records at `.trace` hold the bound values. Default: `false`.
    ///   - slowStatementThreshold: the duration above which a statement is logged at `.notice`. Default: none.
    public init(
        logger: Logger, statementLevel: Logger.Level = .debug, logsBoundValues: Bool = false,
        slowStatementThreshold: Duration? = nil
    ) {
        self.logger = logger
        self.statementLevel = statementLevel
        self.logsBoundValues = logsBoundValues
        self.slowStatementThreshold = slowStatementThreshold
    }

    func statementFinished(_ statement: OpaquePointer, nanoseconds: Int64) {
        let isSlow = slowStatementThreshold.map { .nanoseconds(nanoseconds) > $0 } ?? false
        let level = isSlow ? max(statementLevel, .notice) : statementLevel
        guard logger.logLevel <= level else { return }
        var metadata: Logger.Metadata = [
            "db.query.text": .string(sqlite3_sql(statement).map { String(cString: $0) } ?? ""),
            "db.duration_ms": .stringConvertible(Double(nanoseconds) / 1_000_000),
        ]
        if logsBoundValues, logger.logLevel <= .trace, let expanded = sqlite3_expanded_sql(statement) {
            metadata["db.query.expanded"] = .string(String(cString: expanded))
            sqlite3_free(expanded)
        }
        logger.log(level: level, isSlow ? "slow statement" : "statement", metadata: metadata)
    }

    func statementFailed(_ error: DBBError) {
        logger.log(
            level: Self.failureLevel, "statement failed",
            metadata: [
                "db.query.text": .string(error.sql ?? ""),
                "db.response.status_code": .stringConvertible(error.extendedCode),
                "error.message": .string(error.message),
            ])
    }
}

/// How a connection (``DBBDatabase/setMetrics(_:)``) or a manager records metrics through swift-metrics.
///
/// Every metric has the dimensions `db.system` (`sqlite`, or the server's) and `db.namespace` (the database
/// file's name), then ``dimensions``. A connection records:
/// - `dbb.statements` (counter) and `dbb.statement.duration` (timer): statements that ran, failed ones too;
/// - `dbb.statement.failures` (counter): statements that failed;
/// - `dbb.checkpoints` (counter) and `dbb.checkpoint.duration` (timer): WAL checkpoints, automatic ones (every
///   `wal_autocheckpoint` pages) and ``DBBDatabase/checkpoint(_:)``'s, with a `mode` dimension.
///
/// A manager records, besides its connections' metrics:
/// - `dbb.operations` (counter), `dbb.operation.duration` (timer), `dbb.operation.failures` (counter): object
///   saves, fetches, deletes, counts, with the dimension `db.operation.name` (`save`, `fetch`, `delete`,
///   `count`, `ids`, `schema`);
/// - `dbb.transactions` (counter) and `dbb.transaction.duration` (timer): `write` and `read` closures, with the
///   dimensions `dbb.transaction` (`write` or `read`) and `dbb.outcome` (`commit` or `rollback`);
/// - `dbb.wait.duration` (timer): the time an operation waited for its connection, with the dimension
///   `dbb.connection` (`writer` or `reader`).
public struct DBBMetrics: Sendable {
    /// The factory that makes the metrics.
    public var factory: any MetricsFactory
    /// Dimensions added to every metric, after the library's own.
    public var dimensions: [(String, String)]

    /// Describes where metrics go.
    ///
    /// - Parameters:
    ///   - factory: the factory that makes the metrics. Default: the one the application bootstrapped.
    ///   - dimensions: dimensions added to every metric. Default: none.
    public init(factory: any MetricsFactory = MetricsSystem.factory, dimensions: [(String, String)] = []) {
        self.factory = factory
        self.dimensions = dimensions
    }

    /// Metrics through the factory the application bootstrapped (`MetricsSystem.bootstrap`), or `nil` when it
    /// bootstrapped none: then nothing is recorded, and nothing costs anything.
    public static var bootstrapped: DBBMetrics? {
        MetricsSystem.factory is NOOPMetricsHandler ? nil : DBBMetrics()
    }

    /// The library's dimensions, then the caller's.
    package func dimensions(system: String, namespace: String, _ own: [(String, String)] = []) -> [(String, String)] {
        [("db.system", system), ("db.namespace", namespace)] + own + dimensions
    }

    /// A counter with the library's dimensions.
    package func counter(_ label: String, system: String, namespace: String, _ own: [(String, String)] = [])
        -> Counter
    {
        Counter(label: label, dimensions: dimensions(system: system, namespace: namespace, own), factory: factory)
    }

    /// A timer with the library's dimensions.
    package func timer(_ label: String, system: String, namespace: String, _ own: [(String, String)] = [])
        -> CoreMetrics.Timer
    {
        CoreMetrics.Timer(
            label: label, dimensions: dimensions(system: system, namespace: namespace, own), factory: factory)
    }
}

/// A connection's metrics, made once when metrics are set.
final class DBBConnectionMetrics {
    let statements: Counter
    let statementDuration: CoreMetrics.Timer
    let statementFailures: Counter
    let metrics: DBBMetrics
    let namespace: String
    /// The WAL size, in pages, at which a commit checkpoints: SQLite's `wal_autocheckpoint`, read when the
    /// metrics were set (0: none), and put back when they are removed.
    var autoCheckpointPages: Int32 = 0

    init(_ metrics: DBBMetrics, namespace: String) {
        self.metrics = metrics
        self.namespace = namespace
        statements = metrics.counter("dbb.statements", system: "sqlite", namespace: namespace)
        statementDuration = metrics.timer("dbb.statement.duration", system: "sqlite", namespace: namespace)
        statementFailures = metrics.counter("dbb.statement.failures", system: "sqlite", namespace: namespace)
    }

    func statementFinished(nanoseconds: Int64) {
        statements.increment()
        statementDuration.recordNanoseconds(nanoseconds)
    }

    func statementFailed() { statementFailures.increment() }

    func checkpointed(_ mode: DBBCheckpointMode, nanoseconds: Int64) {
        let own = [("mode", mode.name)]
        metrics.counter("dbb.checkpoints", system: "sqlite", namespace: namespace, own).increment()
        metrics.timer("dbb.checkpoint.duration", system: "sqlite", namespace: namespace, own)
            .recordNanoseconds(nanoseconds)
    }
}

/// How a WAL checkpoint copies the log into the database file.
///
/// Related SQLite documentation: https://www.sqlite.org/c3ref/wal_checkpoint_v2.html
public enum DBBCheckpointMode: Sendable, Hashable {
    /// As much as it can without waiting for readers or writers (what automatic checkpoints do).
    case passive
    /// Waits for writers, then copies the whole log.
    case full
    /// As ``full``, then waits for readers so the next writer starts the log from its beginning.
    case restart
    /// As ``restart``, then truncates the log file to zero bytes.
    case truncate

    var name: String {
        switch self {
        case .passive: "passive"
        case .full: "full"
        case .restart: "restart"
        case .truncate: "truncate"
        }
    }

    var code: Int32 {
        switch self {
        case .passive: SQLITE_CHECKPOINT_PASSIVE
        case .full: SQLITE_CHECKPOINT_FULL
        case .restart: SQLITE_CHECKPOINT_RESTART
        case .truncate: SQLITE_CHECKPOINT_TRUNCATE
        }
    }
}

extension DBBDatabase {
    /// Copies the write-ahead log into the database file (a connection in WAL mode; elsewhere it does nothing).
    ///
    /// - Parameter mode: how far to go. Default: ``DBBCheckpointMode/passive``.
    /// - Returns: the pages in the log, and how many of them are now in the database file.
    /// - Throws: ``DBBError`` when the database is closed, or (busy) when a mode that waits could not.
    @discardableResult
    public func checkpoint(_ mode: DBBCheckpointMode = .passive) throws -> (logPages: Int, checkpointedPages: Int) {
        let handle = try openHandle()
        var logPages: Int32 = 0
        var checkpointed: Int32 = 0
        let start = ContinuousClock.now
        let code = sqlite3_wal_checkpoint_v2(handle, nil, mode.code, &logPages, &checkpointed)
        guard code == SQLITE_OK else {
            throw DBBError.fromConnection(handle, code: code, context: "checkpointing \(path) (\(mode.name))")
        }
        traceBox?.metrics?.checkpointed(mode, nanoseconds: Self.nanoseconds(since: start))
        return (Int(max(logPages, 0)), Int(max(checkpointed, 0)))
    }

    static func nanoseconds(since start: ContinuousClock.Instant) -> Int64 {
        let elapsed = ContinuousClock.now - start
        return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
    }

    /// Takes over SQLite's automatic checkpoints while metrics are recorded, to time them: the hook does what
    /// SQLite's own does (a passive checkpoint once the log holds `wal_autocheckpoint` pages). Without metrics,
    /// SQLite's own hook is put back.
    func installCheckpointHook(_ metrics: DBBConnectionMetrics?, autoCheckpointPages pages: Int32) {
        guard let handle else { return }
        metrics?.autoCheckpointPages = pages
        guard let metrics, pages > 0 else {
            sqlite3_wal_autocheckpoint(handle, pages)
            return
        }
        // Unretained: the connection's trace box holds `metrics` for as long as this hook is installed
        // (`setMetrics` installs the box with it first, and every later box keeps it until metrics are removed,
        // which removes this hook too).
        sqlite3_wal_hook(
            handle,
            { context, connection, schema, pages in
                guard let context, let connection else { return SQLITE_OK }
                let metrics = Unmanaged<DBBConnectionMetrics>.fromOpaque(context).takeUnretainedValue()
                guard pages >= metrics.autoCheckpointPages else { return SQLITE_OK }
                let start = ContinuousClock.now
                // As SQLite's own hook: a failed automatic checkpoint is not the commit's failure.
                _ = sqlite3_wal_checkpoint_v2(connection, schema, SQLITE_CHECKPOINT_PASSIVE, nil, nil)
                metrics.checkpointed(.passive, nanoseconds: DBBDatabase.nanoseconds(since: start))
                return SQLITE_OK
            }, Unmanaged.passUnretained(metrics).toOpaque())
    }
}
