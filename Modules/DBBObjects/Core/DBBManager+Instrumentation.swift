internal import CoreMetrics
public import DBBSQL
internal import Foundation
internal import Synchronization
public import Tracing

/// What a manager reports to the server ecosystem's logging, metrics and tracing
/// (``DBBManager/setInstrumentation(_:)``).
///
/// A new manager reports to what the application bootstrapped before opening it: metrics when
/// `MetricsSystem.bootstrap` chose a backend, spans when `InstrumentationSystem.bootstrap` chose a tracer; and
/// it logs nothing until given a logger. With nothing bootstrapped an operation checks one reference and goes on.
///
/// Spans: one per object operation (`save Person`, `fetch Person`, `delete Person`, `count`, …) and one per
/// `write` or `read` closure (`write`, `read`), of kind client, with the OpenTelemetry database attributes
/// `db.system.name` and `db.system` (`sqlite` or `postgresql`), `db.namespace` (the file's name, or the
/// server), `db.operation.name`, `db.collection.name` (the table) and, when ``tracesQueryText`` allows,
/// `db.query.text` (the SQL that selects the rows; its values are bound, never in the text). A failure sets the
/// span's status to error and records the error. Metrics: see `DBBMetrics`.
public struct DBBInstrumentation: Sendable {
    /// How statements are logged through swift-log; `nil` (the default) for no logs.
    public var logging: DBBLogging?
    /// Where metrics go; `nil` for none. Default: the backend the application bootstrapped, if any.
    public var metrics: DBBMetrics?
    /// The tracer that receives spans; `nil` for none. Default: the one the application bootstrapped, if any.
    public var tracer: (any Tracer)?
    /// Whether spans carry the SQL text that selects their rows (`db.query.text`). Default: `false`.
    public var tracesQueryText: Bool

    /// Describes what to report.
    ///
    /// - Parameters:
    ///   - logging: how statements are logged. Default: not at all.
    ///   - metrics: where metrics go. Default: `DBBMetrics.bootstrapped`.
    ///   - tracer: the tracer for spans. Default: ``bootstrappedTracer``.
    ///   - tracesQueryText: whether spans carry the SQL text. Default: `false`.
    public init(
        logging: DBBLogging? = nil, metrics: DBBMetrics? = .bootstrapped,
        tracer: (any Tracer)? = DBBInstrumentation.bootstrappedTracer, tracesQueryText: Bool = false
    ) {
        self.logging = logging
        self.metrics = metrics
        self.tracer = tracer
        self.tracesQueryText = tracesQueryText
    }

    /// The tracer the application bootstrapped (`InstrumentationSystem.bootstrap`), or `nil` when it bootstrapped
    /// none (the no-op tracer, whose spans would cost without showing anything).
    public static var bootstrappedTracer: (any Tracer)? {
        let tracer = InstrumentationSystem.tracer
        return tracer is NoOpTracer ? nil : tracer
    }

    /// Whether anything is reported at the manager's level (spans or metrics).
    var reportsOperations: Bool { metrics != nil || tracer != nil }
}

/// A manager's metrics and tracer, made once when its instrumentation is set; immutable afterwards.
final class DBBManagerInstruments: Sendable {
    struct OperationMetrics: Sendable {
        let count: Counter
        let duration: CoreMetrics.Timer
        let failures: Counter
    }

    let system: String
    let namespace: String
    let tracer: (any Tracer)?
    let tracesQueryText: Bool
    let operations: [String: OperationMetrics]
    /// By `write` / `read`, then `commit` / `rollback`.
    let transactions: [String: (count: Counter, duration: CoreMetrics.Timer)]
    let writerWait: CoreMetrics.Timer?
    let readerWait: CoreMetrics.Timer?

    static let operationNames = ["save", "fetch", "delete", "count", "ids", "schema"]

    init(_ instrumentation: DBBInstrumentation, system: String, namespace: String) {
        self.system = system
        self.namespace = namespace
        tracer = instrumentation.tracer
        tracesQueryText = instrumentation.tracesQueryText
        guard let metrics = instrumentation.metrics else {
            operations = [:]
            transactions = [:]
            writerWait = nil
            readerWait = nil
            return
        }
        var operations: [String: OperationMetrics] = [:]
        for name in Self.operationNames {
            let own = [("db.operation.name", name)]
            operations[name] = OperationMetrics(
                count: metrics.counter("dbb.operations", system: system, namespace: namespace, own),
                duration: metrics.timer("dbb.operation.duration", system: system, namespace: namespace, own),
                failures: metrics.counter("dbb.operation.failures", system: system, namespace: namespace, own))
        }
        self.operations = operations
        var transactions: [String: (count: Counter, duration: CoreMetrics.Timer)] = [:]
        for kind in ["write", "read"] {
            for outcome in ["commit", "rollback"] {
                let own = [("dbb.transaction", kind), ("dbb.outcome", outcome)]
                transactions[kind + outcome] = (
                    metrics.counter("dbb.transactions", system: system, namespace: namespace, own),
                    metrics.timer("dbb.transaction.duration", system: system, namespace: namespace, own)
                )
            }
        }
        self.transactions = transactions
        writerWait = metrics.timer(
            "dbb.wait.duration", system: system, namespace: namespace, [("dbb.connection", "writer")])
        readerWait = metrics.timer(
            "dbb.wait.duration", system: system, namespace: namespace, [("dbb.connection", "reader")])
    }

    /// Starts reporting an object operation or a transaction: its span, its clock.
    func begin(
        operation: String, collection: String?, queryText: String?, onReader: Bool, metrics: OperationMetrics?,
        parent: ServiceContext?
    ) -> DBBOperationReport {
        var span: (any Span)?
        if let tracer {
            let name = collection.map { "\(operation) \($0)" } ?? operation
            let started = tracer.startSpan(
                name, context: parent ?? ServiceContext.current ?? .topLevel, ofKind: .client)
            started.attributes["db.system.name"] = system
            started.attributes["db.system"] = system
            started.attributes["db.namespace"] = namespace
            started.attributes["db.operation.name"] = operation
            if let collection { started.attributes["db.collection.name"] = collection }
            if tracesQueryText, let queryText { started.attributes["db.query.text"] = queryText }
            span = started
        }
        return DBBOperationReport(
            start: .now, span: span, metrics: metrics, wait: onReader ? readerWait : writerWait)
    }
}

/// One object operation or transaction being reported; made only when a manager reports something.
///
/// A class, so that an operation that reports nothing passes one nil reference through its closures rather
/// than an optional of this whole record, which would be copied and destroyed with each of them.
package final class DBBOperationReport: Sendable {
    let start: ContinuousClock.Instant
    let span: (any Span)?
    let metrics: DBBManagerInstruments.OperationMetrics?
    let wait: CoreMetrics.Timer?

    init(
        start: ContinuousClock.Instant, span: (any Span)?, metrics: DBBManagerInstruments.OperationMetrics?,
        wait: CoreMetrics.Timer?
    ) {
        self.start = start
        self.span = span
        self.metrics = metrics
        self.wait = wait
    }

    /// Records the time the operation waited for its connection; called when its work begins.
    package func started() {
        wait?.recordNanoseconds(Self.nanoseconds(from: start))
    }

    /// Ends the operation's span and records its duration and outcome.
    func end(_ error: (any Error)?) {
        if let metrics {
            metrics.count.increment()
            metrics.duration.recordNanoseconds(Self.nanoseconds(from: start))
            if error != nil { metrics.failures.increment() }
        }
        guard let span else { return }
        if let error {
            span.recordError(error)
            span.setStatus(SpanStatus(code: .error))
        }
        span.end()
    }

    static func nanoseconds(from start: ContinuousClock.Instant) -> Int64 {
        let elapsed = ContinuousClock.now - start
        return elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
    }
}

extension DBBManager {
    /// Sets what the manager reports: its connections' statement logs and metrics, and its operations' and
    /// transactions' spans and metrics (see ``DBBInstrumentation``). Takes effect for the operations that start
    /// afterwards.
    ///
    /// ```swift
    /// var logger = Logger(label: "app.database")
    /// logger.logLevel = .debug
    /// try manager.setInstrumentation(DBBInstrumentation(logging: DBBLogging(logger: logger)))
    /// ```
    ///
    /// On a manager of a database server, the logger and metrics of statements are the server engine's own
    /// (postgres-nio's logger); the operations' and transactions' spans and metrics are reported as on SQLite.
    ///
    /// - Parameter instrumentation: what to report.
    /// - Throws: `DBBError` (misuse) when called from inside a closure of the manager's queue.
    public func setInstrumentation(_ instrumentation: DBBInstrumentation) throws {
        try store.setInstrumentation(instrumentation)
        warningLogger.withLock { $0 = instrumentation.logging?.logger }
        instruments.withLock {
            $0 =
                instrumentation.reportsOperations
                ? DBBManagerInstruments(instrumentation, system: store.systemName, namespace: store.namespace) : nil
            reportsOperations.store(instrumentation.reportsOperations, ordering: .releasing)
        }
    }

    /// Reports to what the application bootstrapped, if anything; called by every initializer.
    func reportToBootstrappedSystems() throws {
        let instrumentation = DBBInstrumentation()
        guard instrumentation.reportsOperations else { return }
        try setInstrumentation(instrumentation)
    }

    /// Starts reporting an object operation, when the manager reports operations; `nil` (one check) otherwise.
    func beginOperation<Work: DBBObjectWork>(_ work: Work, onReader: Bool) -> DBBOperationReport? {
        guard reportsOperations.load(ordering: .acquiring), let instruments = instruments.withLock({ $0 }) else {
            return nil
        }
        return instruments.begin(
            operation: Work.operationName, collection: work.collectionName, queryText: work.queryText,
            onReader: onReader, metrics: instruments.operations[Work.operationName],
            parent: activeScope?.serviceContext)
    }

    /// Starts reporting a `write` or `read` closure, when the manager reports operations.
    func beginTransaction(isWrite: Bool, onReader: Bool) -> DBBTransactionReport? {
        guard reportsOperations.load(ordering: .acquiring), let instruments = instruments.withLock({ $0 }) else {
            return nil
        }
        let kind = isWrite ? "write" : "read"
        let report = instruments.begin(
            operation: kind, collection: nil, queryText: nil, onReader: onReader, metrics: nil, parent: nil)
        return DBBTransactionReport(operation: report, kind: kind, instruments: instruments)
    }
}

/// A `write` or `read` closure being reported.
struct DBBTransactionReport: Sendable {
    let operation: DBBOperationReport
    let kind: String
    let instruments: DBBManagerInstruments

    func started() { operation.started() }

    func end(_ error: (any Error)?) {
        if let metrics = instruments.transactions[kind + (error == nil ? "commit" : "rollback")] {
            metrics.count.increment()
            metrics.duration.recordNanoseconds(DBBOperationReport.nanoseconds(from: operation.start))
        }
        operation.end(error)
    }
}
