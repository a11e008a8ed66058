internal import DBBSQL
package import Foundation

/// Reads a dump on a worker thread and hands what it reads to a consumer on the calling thread, rows in
/// batches, so that parsing the JSON overlaps the consumer's work (inserting rows, for a restore).
///
/// The consumer, and the progress callback, run on the calling thread only; the channel between the
/// threads is bounded, so memory stays flat.
package struct ConcurrentDumpParser {
    let source: DumpSource
    let progress: ((DBBExportProgress) -> Void)?
    /// The longest string or BLOB of a row the parser reads.
    var maximumValueLength = DBBExport.defaultMaximumValueLength

    /// A parser of a dump file, for the other modules of the package.
    package init(
        dumpAt url: URL, maximumValueLength: Int = DBBExport.defaultMaximumValueLength,
        progress: ((DBBExportProgress) -> Void)? = nil
    ) {
        self.init(source: .file(url.path), progress: progress, maximumValueLength: maximumValueLength)
    }

    init(source: DumpSource, progress: ((DBBExportProgress) -> Void)?, maximumValueLength: Int) {
        self.source = source
        self.progress = progress
        self.maximumValueLength = maximumValueLength
    }
    /// The most rows per batch.
    static let batchSize = 256
    /// The most bytes of text and BLOBs per batch: a batch that reaches it goes at once, so that the
    /// channel's eight batches hold little more than this each.
    static let batchBytes = 1 << 20

    /// Reads the dump and replays it into the consumer.
    ///
    /// - Returns: what was read.
    /// - Throws: what ``DumpParser/run(_:stopAfterSchema:)`` or the consumer throws; a consumer's error
    ///   names the table and row it was processing.
    package func run(_ consumer: DumpConsumer) throws -> DBBDumpReport {
        let channel = BoundedChannel<DumpEvent>(capacity: 8)
        let source = self.source
        let maximumValueLength = self.maximumValueLength
        let thread = Thread {
            let batcher = BatchingConsumer(channel: channel)
            do {
                let parser = DumpParser(source: source, progress: nil, maximumValueLength: maximumValueLength)
                let report = try parser.run(batcher)
                _ = channel.send(.finished(report))
                channel.finish()
            } catch {
                channel.finish(throwing: error)
            }
        }
        thread.name = "DBBExport dump parser"
        thread.start()
        do {
            return try replay(channel, into: consumer)
        } catch {
            channel.cancel()
            // The parsing thread, stopped, checks the rest of its gzip member: damaged compressed data
            // explains a consumer's error (garbage rows) better than the error itself.
            if let damage = channel.waitUntilFinished() as? DBBExportError, damage.isCompressionDamage {
                throw damage
            }
            throw error
        }
    }

    private func replay(_ channel: BoundedChannel<DumpEvent>, into consumer: DumpConsumer) throws -> DBBDumpReport {
        var counter = ProgressCounter(progress)
        while let event = try channel.receive() {
            switch event {
            case .begin(let header, let schema):
                try consumer.begin(header: header, schema: schema)
                counter.begin(tableCount: header.tables.count, rowCount: header.totalRows)
            case .beginTable(let table):
                counter.beginTable(table.name)
                try consumer.beginTable(table)
            case .rows(let batch):
                try replay(batch, into: consumer)
                counter.add(rows: batch.rowCount)
            case .endTable(let table):
                try consumer.endTable(table)
                counter.endTable()
            case .finished(let report):
                return report
            }
        }
        throw DBBExportError(.io, "the dump parser stopped without a result", path: source.path)
    }

    private func replay(_ batch: RowBatch, into consumer: DumpConsumer) throws {
        var number = batch.firstNumber
        do {
            var start = 0
            while start < batch.values.count {
                let end = start + batch.width
                var rawText: [Int] = []
                if !batch.rawText.isEmpty {
                    rawText = batch.rawText.filter { $0 >= start && $0 < end }.map { $0 - start }
                }
                try consumer.row(batch.values[start..<end], rawText: rawText, number: number, of: batch.table)
                start = end
                number += 1
            }
        } catch let error as DBBExportError {
            throw error.locating(table: batch.table.name, row: number)
        } catch var error as DBBError {
            error.context = "loading row \(number) of table \(batch.table.name) from the dump"
            throw error
        }
    }
}

/// What the parsing thread hands to the calling thread.
private enum DumpEvent: Sendable {
    case begin(DBBDumpHeader, [DBBSchemaObject])
    case beginTable(DBBDumpTable)
    case rows(RowBatch)
    case endTable(DBBDumpTable)
    case finished(DBBDumpReport)
}

/// Consecutive rows of one table, their values laid end to end.
private struct RowBatch: Sendable {
    var table: DBBDumpTable
    var width: Int
    /// The 1-based number of the first row in its table.
    var firstNumber: Int
    var values: [DBBValue] = []
    /// Positions in `values` of raw (not UTF-8) text.
    var rawText: [Int] = []
    /// The bytes of text and BLOBs in `values`.
    var bytes = 0

    var rowCount: Int { width == 0 ? 0 : values.count / width }
}

/// Thrown on the parsing thread when the calling thread has stopped listening.
private struct ParsingCancelled: Error {}

/// Runs on the parsing thread: collects rows into batches and sends events.
private final class BatchingConsumer: DumpConsumer {
    private let channel: BoundedChannel<DumpEvent>
    private var batch: RowBatch?

    init(channel: BoundedChannel<DumpEvent>) {
        self.channel = channel
    }

    private func send(_ event: DumpEvent) throws {
        guard channel.send(event) else { throw ParsingCancelled() }
    }

    func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws {
        try send(.begin(header, schema))
    }

    func beginTable(_ table: DBBDumpTable) throws {
        try send(.beginTable(table))
        batch = Self.emptyBatch(of: table, from: 1)
    }

    private static func emptyBatch(of table: DBBDumpTable, from number: Int) -> RowBatch {
        let width = table.columns.count + (table.hasRowID ? 1 : 0)
        var batch = RowBatch(table: table, width: width, firstNumber: number)
        batch.values.reserveCapacity(width * ConcurrentDumpParser.batchSize)
        return batch
    }

    func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {
        guard batch != nil else { return }
        // Mutated in place: a copy of the batch would copy its values on every row.
        let offset = batch!.values.count
        batch!.values.append(contentsOf: values)
        for index in rawText { batch!.rawText.append(offset + index) }
        var bytes = 0  // summed in a local: each access to the batch, a property, is checked for exclusivity
        for value in values {
            switch value {
            case .text(let text): bytes += text.utf8.count
            case .blob(let data): bytes += data.count
            default: break
            }
        }
        batch!.bytes += bytes
        if batch!.rowCount >= ConcurrentDumpParser.batchSize || batch!.bytes >= ConcurrentDumpParser.batchBytes {
            let full = batch!
            batch = Self.emptyBatch(of: table, from: number + 1)
            try send(.rows(full))
        }
    }

    func endTable(_ table: DBBDumpTable) throws {
        if let current = batch, !current.values.isEmpty { try send(.rows(current)) }
        batch = nil
        try send(.endTable(table))
    }

    /// Hands on the rows read so far and waits until the calling thread has consumed them, so that a long
    /// value is read only while no other is held (the parser's copy of one, SQLite's bound copy and
    /// record of another, would be six times the longest value).
    func willReadLongValue() throws {
        if let current = batch, !current.values.isEmpty {
            try send(.rows(current))
            batch = Self.emptyBatch(of: current.table, from: current.firstNumber + current.rowCount)
        }
        guard channel.waitUntilConsumed() else { throw ParsingCancelled() }
    }
}
