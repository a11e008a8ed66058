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

    /// What happens to the rows of the current table.
    private enum State {
        /// Not restored (`sqlite_sequence`, whose rows are read for the sequences, and statistics tables).
        case passedOver
        /// Held until the table's types are planned from them.
        case sampling
        /// Sent to the server.
        case loading
        /// Counted only: a value did not fit the table's speculated types.
        case stopped
    }

    private let writer: RestoreSchemaWriter
    private let tables: Tables
    private let makesDigests: Bool
    /// Whether ``tables`` is ``Tables/speculating(_:_:)``.
    private var isSpeculating: Bool { if case .speculating = tables { true } else { false } }
    private var state = State.passedOver
    private var isSequenceTable = false
    private var feed: CopyFeed?
    private var buffer = ByteBuffer()
    /// The types of the current table's values, the rowid's first when the dump stores it.
    private var types: [RestoreValues.ColumnType] = []
    /// Per type, the storage classes (``ColumnStatistics/seen``) its column may hold as the plan stores them.
    private var allowed: [UInt8] = []
    /// The current table's statistics so far (when speculating).
    private var counts: [ColumnStatistics] = []
    /// The current table's first rows, while sampling.
    private var sample: [(values: [DBBValue], rawText: [Int])] = []
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
        switch tables {
        case .speculating:
            guard RestorePlanner.restores(table.name) else {
                state = .passedOver
                return
            }
            counts = Array(repeating: ColumnStatistics(), count: table.columns.count + (table.hasRowID ? 1 : 0))
            sample = []
            sampledBytes = 0
            state = .sampling
        case .planned(let planned):
            guard let planned = planned[table.name] else {
                state = .passedOver
                return
            }
            guard planned.columns.map(\.name) == table.columns, (planned.rowIDColumn != nil) == table.hasRowID else {
                throw DBBExportError(
                    .malformed, "the table's columns differ from those the first pass read: the dump changed",
                    table: table.name)
            }
            try startCopy(planned)
        }
    }

    /// Starts the COPY of a created table.
    private func startCopy(_ planned: DBBPostgresRestorePlan.Table) throws {
        let layout = planned.valueLayout
        types = layout.types
        allowed = types.map(ColumnStatistics.classes(storableIn:))
        buffer = Self.emptyChunk()
        feed = CopyFeed(
            connection: writer.connection, table: RestoreSchemaWriter.qualified(planned.name, in: writer.schema),
            columns: layout.names.map(DBBDatabase.quoteIdentifier), makesDigest: makesDigests)
        state = .loading
    }

    func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {
        switch state {
        case .passedOver:
            if isSequenceTable, let (name, value) = PlanningConsumer.sequence(values, of: table) {
                sequences[name] = value
            }
        case .sampling:
            count(values, rawText: rawText)
            sample.append((Array(values), rawText))
            for value in values {
                switch value {
                case .text(let text): sampledBytes += text.utf8.count
                case .blob(let bytes): sampledBytes += bytes.count
                default: break
                }
            }
            if sample.count >= Self.sampleRows || sample.count * values.count >= Self.sampleValues
                || sampledBytes >= Self.sampleBytes
            {
                try createFromSample(table)
            }
        case .loading:
            if isSpeculating { guard count(values, rawText: rawText) else { return try stop(table) } }
            try write(values, rawText: rawText, of: table)
        case .stopped:
            count(values, rawText: rawText)
        }
    }

    /// Adds a row's values to the current table's statistics.
    ///
    /// - Returns: whether every value counted so far fits the column the current table was created with (only
    ///   meaningful while it loads: `allowed` holds its columns' storage classes then).
    @discardableResult
    private func count(_ values: ArraySlice<DBBValue>, rawText: [Int]) -> Bool {
        // Counted in a local, swapped in and out once per row: each access to the property is checked at run time.
        var counts: [ColumnStatistics] = []
        swap(&counts, &self.counts)
        let allowed = self.allowed
        var fits = true
        var index = 0
        for value in values {
            counts[index].add(value, isRawText: !rawText.isEmpty && rawText.contains(index))
            if index < allowed.count, !counts[index].fits(allowed[index]) { fits = false }
            index += 1
        }
        swap(&counts, &self.counts)
        return fits
    }

    /// Plans the current table from its first rows, creates it and loads them.
    private func createFromSample(_ table: DBBDumpTable) throws {
        guard case .speculating(let planner, let db) = tables else { return }
        let rows = sample
        sample = []
        let planned: DBBPostgresRestorePlan.Table
        do {
            planned = try planner.speculativeTable(table, statistics: counts, in: db)
        } catch {
            // The plan made after the pass refuses the table with the same error, in its turn.
            stopped.insert(table.name)
            state = .stopped
            return
        }
        try writer.createTable(planned)
        created[table.name] = planned
        try startCopy(planned)
        // The types were chosen from these rows' values: they fit.
        for row in rows { try write(row.values[...], rawText: row.rawText, of: table) }
    }

    /// Ends the current table's COPY at a value its types cannot hold; its rows are only counted from here.
    private func stop(_ table: DBBDumpTable) throws {
        stopped.insert(table.name)
        state = .stopped
        try finishCopy(of: table)
    }

    private func write(_ values: ArraySlice<DBBValue>, rawText: [Int], of table: DBBDumpTable) throws {
        guard let feed else { return }
        // The row is written through locals, taken from the consumer's properties once: the runtime checks
        // every access to a class's property for exclusivity, which cost more than the values' text did.
        var chunk = ByteBuffer()
        swap(&chunk, &buffer)
        let types = self.types
        var index = 0
        let rowStart = chunk.writerIndex
        chunk.writeInteger(Int16(values.count))
        for value in values {
            let isRaw = !rawText.isEmpty && rawText.contains(index)
            let stored = RestoreValues.stored(value, isRawText: isRaw, type: types[index])
            guard RestoreValues.appendCopyBinary(stored, type: types[index], to: &chunk) else {
                chunk.moveWriterIndex(to: rowStart)
                swap(&chunk, &buffer)
                throw unstorable(stored, type: types[index], column: index, of: table)
            }
            index += 1
        }
        if chunk.readableBytes >= Self.chunkBytes {
            try send(chunk, to: feed, table: table.name)
            chunk = Self.emptyChunk()
        }
        swap(&chunk, &buffer)
    }

    /// The error for a value the current table's column cannot hold: the plan puts none there, so the dump
    /// changed after the pass the plan was made from, or its value is longer than a COPY field.
    private func unstorable(
        _ value: DBBValue, type: RestoreValues.ColumnType, column index: Int, of table: DBBDumpTable
    ) -> DBBExportError {
        let names = (table.hasRowID ? ["rowid"] : []) + table.columns
        return DBBExportError(
            .malformed,
            "a \(type.name) column cannot hold a value of storage class \(value.storageClass.rawValue): the dump "
                + "changed after the pass that planned the table, or the value is longer than 2 GiB",
            table: table.name, column: names[index])
    }

    /// A buffer for the next chunk, with room for it.
    private static func emptyChunk() -> ByteBuffer {
        var chunk = ByteBuffer()
        chunk.reserveCapacity(chunkBytes + (64 << 10))
        return chunk
    }

    private func send(_ chunk: ByteBuffer, to feed: CopyFeed, table: String) throws {
        do {
            try feed.send(chunk)
        } catch {
            throw writer.connection.map(
                error, sql: "COPY \(table) FROM STDIN", context: "loading table \(table)")
        }
    }

    /// Sends what is buffered and ends the current table's COPY.
    ///
    /// - Returns: the digest of the rows sent, when the load makes digests.
    @discardableResult
    private func finishCopy(of table: DBBDumpTable) throws -> RestoreDigest? {
        guard let feed else { return nil }
        self.feed = nil
        if buffer.readableBytes > 0 { try send(buffer, to: feed, table: table.name) }
        buffer = ByteBuffer()
        feed.finish()
        do {
            return try feed.wait()
        } catch {
            throw writer.connection.map(
                error, sql: "COPY \(table.name) FROM STDIN", context: "loading table \(table.name)")
        }
    }

    func endTable(_ table: DBBDumpTable) throws {
        if state == .sampling { try createFromSample(table) }
        if state == .loading, let digest = try finishCopy(of: table) { digests[table.name] = digest }
        if isSpeculating && state != .passedOver { statistics[table.name] = counts }
        counts = []
        state = .passedOver
    }

    /// Fails the COPY under way, if any, after an error elsewhere.
    func abandon(_ error: any Error) {
        guard let feed else { return }
        self.feed = nil
        feed.finish(failing: error)
        _ = try? feed.wait()
    }
}
