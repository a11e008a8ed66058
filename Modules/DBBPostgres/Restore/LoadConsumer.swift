internal import DBBExport
internal import DBBSQL
internal import NIOCore

/// The load pass of a restore: each table's rows go to the server through one `COPY … FROM STDIN` in COPY's
/// binary format, in chunks of ``chunkBytes``; when the restore verifies, each table's ``RestoreDigest`` of the
/// rows sent is made on the way (by its ``CopyFeed``).
///
/// It loads in one of two ways (``Tables``):
/// - **speculating**, the first pass of a restore: each table is created when its first rows have been read
///   (``sampleRows``), with the types the planner chooses from those rows' values, and loaded; every value is
///   counted by storage class (``statistics``), as the planning pass counts them, so that the plan made after
///   the pass is the one a planning pass would have made. A value that the table's column cannot hold as the
///   plan would store it (a real in a `bigint` column, text with NUL in a `text` column) ends that table's
///   COPY before it is sent: the table is created again and loaded in a second pass (``stopped``);
/// - **planned**: the tables of a plan, created beforehand; the others are passed over.
final class LoadConsumer: DumpConsumer {
    /// The COPY data sent at once. Four chunks wait at most (``CopyFeed/capacity``).
    static let chunkBytes = 256 << 10
    /// The first rows of a table that its types are planned from before it is created (when speculating): the
    /// more rows, the fewer tables whose first rows mislead (Sakila's `payment` holds its first whole amount, an
    /// integer among reals, in row 417), while the sample's memory stays bounded by ``sampleValues`` and
    /// ``sampleBytes``.
    static let sampleRows = 4096
    /// The most values the sample holds (a wide table's sample has fewer rows).
    static let sampleValues = 1 << 16
    /// The most bytes of text and BLOBs the sample holds: a long value ends it at once, so that no two long
    /// values are held together (``DumpConsumer/willReadLongValue()``).
    static let sampleBytes = 1 << 20

    /// Which tables are loaded, and with which types.
    enum Tables {
        /// Every table the plan restores, created from its first rows: the planner (its report need hold only
        /// the dump's header and schema) and the schema's SQLite database it plans in.
        case speculating(RestorePlanner, DBBDatabase)
        /// The tables of a plan, by name, created beforehand.
        case planned([String: DBBPostgresRestorePlan.Table])
    }

    private let writer: RestoreSchemaWriter
    private let tables: Tables
    private let makesDigests: Bool
    /// Whether ``tables`` is ``Tables/speculating(_:_:)``.
    private var isSpeculating: Bool { if case .speculating = tables { true } else { false } }
    /// Whether the current table is `sqlite_sequence`, whose rows are read for the sequences.
    private var isSequenceTable = false
    /// The writer of the current table's rows, when it is restored; `nil` while ``writeRows(of:from:)`` reads
    /// them with it.
    private var rowWriter: CopyRowWriter?
    private var feed: CopyFeed?
    /// The current table's first rows, while sampling.
    private var sample: [[DBBValue]] = []
    private var sampledBytes = 0

    /// Per table: the digest of the rows sent (made by the table's ``CopyFeed``); a stopped table has none.
    private(set) var digests: [String: RestoreDigest] = [:]
    /// When speculating: per table, the statistics of the rowid (when stored) then of each column, as
    /// ``PlanningConsumer`` collects them.
    private(set) var statistics: [String: [ColumnStatistics]] = [:]
    /// When speculating: `sqlite_sequence`'s values, by lowercased table name.
    private(set) var sequences: [String: Int64] = [:]
    /// When speculating: each table as it was created.
    private(set) var created: [String: DBBPostgresRestorePlan.Table] = [:]
    /// When speculating: the tables whose load stopped at a value their types could not hold, or that could not
    /// be planned from their first rows.
    private(set) var stopped: Set<String> = []

    init(writer: RestoreSchemaWriter, tables: Tables, makesDigests: Bool) {
        self.writer = writer
        self.tables = tables
        self.makesDigests = makesDigests
    }

    func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws {}

    func beginTable(_ table: DBBDumpTable) throws {
        isSequenceTable = table.name.lowercased() == "sqlite_sequence"
        let width = table.columns.count + (table.hasRowID ? 1 : 0)
        switch tables {
        case .speculating:
            guard RestorePlanner.restores(table.name) else { return }
            sample = []
            sampledBytes = 0
            rowWriter = CopyRowWriter(mode: .sampling, counting: width)
        case .planned(let planned):
            guard let planned = planned[table.name] else { return }
            guard planned.columns.map(\.name) == table.columns, (planned.rowIDColumn != nil) == table.hasRowID else {
                throw DBBExportError(
                    .malformed, "the table's columns differ from those the first pass read: the dump changed",
                    table: table.name)
            }
            var rowWriter = CopyRowWriter(mode: .loading, counting: nil)
            startCopy(planned, into: &rowWriter)
            self.rowWriter = rowWriter
        }
    }

    /// Starts the COPY of a created table.
    private func startCopy(_ planned: DBBPostgresRestorePlan.Table, into rowWriter: inout CopyRowWriter) {
        let layout = planned.valueLayout
        rowWriter.startLoading(layout.types)
        rowWriter.chunk = Self.emptyChunk()
        feed = CopyFeed(
            connection: writer.connection, table: RestoreSchemaWriter.qualified(planned.name, in: writer.schema),
            columns: layout.names.map(DBBDatabase.quoteIdentifier), makesDigest: makesDigests)
    }

    /// The rows of the tables restored are read by ``writeRows(of:from:)``.
    func writesRows(of table: DBBDumpTable) -> Bool {
        rowWriter != nil
    }

    func writeRows(of table: DBBDumpTable, from rows: inout DumpRows) throws {
        guard var rowWriter else { return }
        self.rowWriter = nil
        defer { self.rowWriter = rowWriter }
        while try rows.next(into: &rowWriter) {
            try endRow(of: table, rowWriter: &rowWriter)
        }
    }

    /// A row read whole: of a table not restored (`sqlite_sequence`'s are read for the sequences), or, from a
    /// parser that does not call ``writeRows(of:from:)``, of one restored.
    func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {
        guard var rowWriter else {
            if isSequenceTable, let (name, value) = PlanningConsumer.sequence(values, of: table) {
                sequences[name] = value
            }
            return
        }
        self.rowWriter = nil
        defer { self.rowWriter = rowWriter }
        rowWriter.beginRow()
        for (position, value) in zip(0..., values) {
            rowWriter.write(value, isRawText: !rawText.isEmpty && rawText.contains(position))
        }
        try endRow(of: table, rowWriter: &rowWriter)
    }

    /// What follows a row the writer took: the sample ends, a full chunk is sent, or a value the table's
    /// column cannot hold stops the table's load.
    private func endRow(of table: DBBDumpTable, rowWriter: inout CopyRowWriter) throws {
        switch rowWriter.mode {
        case .sampling:
            sample.append(rowWriter.values)
            sampledBytes += rowWriter.valueBytes
            if sample.count >= Self.sampleRows || sample.count * rowWriter.values.count >= Self.sampleValues
                || sampledBytes >= Self.sampleBytes
            {
                try createFromSample(table, rowWriter: &rowWriter)
            }
        case .loading:
            try sendIfFull(&rowWriter.chunk, table: table.name)
        case .counting:
            guard let misfit = rowWriter.misfit else { return }
            rowWriter.misfit = nil
            guard isSpeculating else {
                throw unstorable(
                    storageClass: misfit.storageClass, type: rowWriter.types[misfit.position],
                    column: misfit.position, of: table)
            }
            // The rows from here are only counted; the table is created again, and loaded in a second pass.
            stopped.insert(table.name)
            try finishCopy(of: table, chunk: rowWriter.chunk)
        }
    }

    /// Plans the current table from its first rows, creates it and loads them.
    private func createFromSample(_ table: DBBDumpTable, rowWriter: inout CopyRowWriter) throws {
        guard case .speculating(let planner, let db) = tables else { return }
        let rows = sample
        sample = []
        let planned: DBBPostgresRestorePlan.Table
        do {
            planned = try planner.speculativeTable(table, statistics: rowWriter.statistics, in: db)
        } catch {
            // The plan made after the pass refuses the table with the same error, in its turn.
            stopped.insert(table.name)
            rowWriter.stopLoading()
            return
        }
        try writer.createTable(planned)
        created[table.name] = planned
        startCopy(planned, into: &rowWriter)
        // The types were chosen from these rows' values: they fit.
        for row in rows {
            if let position = rowWriter.writeKept(row) {
                throw unstorable(
                    storageClass: CopyRowWriter.describe(ScannedValue(row[position], isRawText: false)),
                    type: rowWriter.types[position], column: position, of: table)
            }
            try sendIfFull(&rowWriter.chunk, table: table.name)
        }
    }

    /// The error for a value the current table's column cannot hold: the plan puts none there, so the dump
    /// changed after the pass the plan was made from, or its value is longer than a COPY field.
    private func unstorable(
        storageClass: String, type: RestoreValues.ColumnType, column index: Int, of table: DBBDumpTable
    ) -> DBBExportError {
        let names = (table.hasRowID ? ["rowid"] : []) + table.columns
        return DBBExportError(
            .malformed,
            "a \(type.name) column cannot hold a value of storage class \(storageClass): the dump changed after "
                + "the pass that planned the table, or the value is longer than 2 GiB",
            table: table.name, column: names[index])
    }

    /// Sends the chunk once it holds ``chunkBytes``, and empties it: a chunk that a long value made larger is
    /// given back, so that the memory is not held while the rest of the table loads.
    private func sendIfFull(_ chunk: inout CopyBuffer, table: String) throws {
        guard chunk.count >= Self.chunkBytes else { return }
        try send(chunk, table: table)
        if chunk.capacity > Self.emptyChunkCapacity {
            chunk = Self.emptyChunk()
        } else {
            chunk.removeAll()
        }
    }

    /// The room a chunk is made with: a row that ends past ``chunkBytes`` usually fits.
    private static let emptyChunkCapacity = chunkBytes + (64 << 10)

    /// A buffer for the next chunk, with room for it.
    private static func emptyChunk() -> CopyBuffer {
        CopyBuffer(capacity: emptyChunkCapacity)
    }

    private func send(_ chunk: CopyBuffer, table: String) throws {
        guard let feed else { return }
        do {
            try feed.send(ByteBuffer(bytes: chunk.bytes))
        } catch {
            throw writer.connection.map(error, sql: "COPY \(table) FROM STDIN", context: "loading table \(table)")
        }
    }

    /// Sends the rows left in `chunk` and ends the current table's COPY.
    ///
    /// - Returns: the digest of the rows sent, when the load makes digests.
    @discardableResult
    private func finishCopy(of table: DBBDumpTable, chunk: CopyBuffer) throws -> RestoreDigest? {
        guard let feed else { return nil }
        if !chunk.isEmpty { try send(chunk, table: table.name) }
        self.feed = nil
        feed.finish()
        do {
            return try feed.wait()
        } catch {
            throw writer.connection.map(
                error, sql: "COPY \(table.name) FROM STDIN", context: "loading table \(table.name)")
        }
    }

    func endTable(_ table: DBBDumpTable) throws {
        guard var rowWriter else { return }
        self.rowWriter = nil
        if rowWriter.mode == .sampling { try createFromSample(table, rowWriter: &rowWriter) }
        if rowWriter.mode == .loading, let digest = try finishCopy(of: table, chunk: rowWriter.chunk) {
            digests[table.name] = digest
        }
        if isSpeculating { statistics[table.name] = rowWriter.statistics }
    }

    /// Fails the COPY under way, if any, after an error elsewhere.
    func abandon(_ error: any Error) {
        guard let feed else { return }
        self.feed = nil
        feed.finish(failing: error)
        _ = try? feed.wait()
    }
}
