internal import DBBExport
internal import DBBSQL
internal import NIOCore

/// The load pass of a restore: each planned table's rows go to the server through one `COPY … FROM STDIN`,
/// in chunks of ``chunkBytes``; when the restore verifies, each table's ``RestoreDigest`` of the values the
/// server should hold is made on the way.
final class LoadConsumer: DumpConsumer {
    /// The COPY data sent at once. Four chunks wait at most (``CopyFeed/capacity``).
    static let chunkBytes = 256 << 10

    private let connection: DBBPostgresConnection
    private let plan: DBBPostgresRestorePlan
    private let tables: [String: DBBPostgresRestorePlan.Table]
    private var feed: CopyFeed?
    private var buffer = ByteBuffer()
    /// The types of the current table's values, the rowid's first when the dump stores it.
    private var types: [RestoreValues.ColumnType] = []
    private let makesDigests: Bool
    /// The current table's digest; `nil` when the restore makes none, or once a value's stored form could not be
    /// predicted.
    private var digest: RestoreDigest?
    /// Per table: the digest of the values sent; a table with a value whose stored form could not be
    /// predicted has none.
    private(set) var digests: [String: RestoreDigest] = [:]

    init(connection: DBBPostgresConnection, plan: DBBPostgresRestorePlan, makesDigests: Bool) {
        self.connection = connection
        self.plan = plan
        self.makesDigests = makesDigests
        tables = plan.tablesByName
    }

    func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws {}

    func beginTable(_ table: DBBDumpTable) throws {
        guard let planned = tables[table.name] else {
            feed = nil  // sqlite_sequence and the statistics tables
            return
        }
        guard planned.columns.map(\.name) == table.columns, (planned.rowIDColumn != nil) == table.hasRowID else {
            throw DBBExportError(
                .malformed, "the table's columns differ from those the first pass read: the dump changed",
                table: table.name)
        }
        let layout = planned.valueLayout
        let names = layout.names.map(DBBDatabase.quoteIdentifier)
        types = layout.types
        buffer = Self.emptyChunk()
        digest = makesDigests ? RestoreDigest() : nil
        feed = CopyFeed(
            connection: connection.connection,
            table: RestoreSchemaWriter.qualified(table.name, in: plan.schema), columns: names,
            logger: connection.logger)
    }

    func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {
        guard let feed else { return }
        // The row is written through locals, taken from the consumer's properties once: the runtime checks
        // every access to a class's property for exclusivity, which cost more than the values' text did.
        var chunk = ByteBuffer()
        swap(&chunk, &buffer)
        let types = self.types
        let hashes = digest != nil
        var predictable = true
        var index = 0
        var row = RowHasher()
        for value in values {
            if index > 0 { chunk.writeInteger(UInt8(ascii: "\t")) }
            let isRaw = !rawText.isEmpty && rawText.contains(index)
            let stored = RestoreValues.stored(value, isRawText: isRaw, type: types[index])
            RestoreValues.appendCopyText(stored, to: &chunk)
            if hashes, !RestoreDigest.expected(stored, type: types[index], into: &row) { predictable = false }
            index += 1
        }
        if hashes {
            if predictable { digest?.add(row) } else { digest = nil }
        }
        chunk.writeInteger(UInt8(ascii: "\n"))
        if chunk.readableBytes >= Self.chunkBytes {
            try send(chunk, to: feed, table: table.name)
            chunk = Self.emptyChunk()
        }
        swap(&chunk, &buffer)
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
            throw connection.map(error, sql: "COPY \(table) FROM STDIN", context: "loading table \(table)")
        }
    }

    func endTable(_ table: DBBDumpTable) throws {
        guard let feed else { return }
        self.feed = nil
        if buffer.readableBytes > 0 { try send(buffer, to: feed, table: table.name) }
        buffer = ByteBuffer()
        feed.finish()
        do {
            try feed.wait()
        } catch {
            throw connection.map(error, sql: "COPY \(table.name) FROM STDIN", context: "loading table \(table.name)")
        }
        if let digest { digests[table.name] = digest }
    }

    /// Fails the COPY under way, if any, after an error elsewhere.
    func abandon(_ error: any Error) {
        guard let feed else { return }
        self.feed = nil
        feed.finish(failing: error)
        try? feed.wait()
    }
}
