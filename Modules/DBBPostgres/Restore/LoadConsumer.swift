internal import DBBExport
internal import DBBSQL
internal import NIOCore

/// The load pass of a restore: each planned table's rows go to the server through one `COPY … FROM STDIN`,
/// in chunks of ``chunkBytes``.
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

    init(connection: DBBPostgresConnection, plan: DBBPostgresRestorePlan) {
        self.connection = connection
        self.plan = plan
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
        var names = planned.columns.map { RestoreSchemaWriter.quote($0.name) }
        types = planned.columns.map { RestoreValues.ColumnType($0.type) }
        if let rowID = planned.rowIDColumn {
            names.insert(RestoreSchemaWriter.quote(rowID), at: 0)
            types.insert(.bigint, at: 0)
        }
        buffer = ByteBuffer()
        buffer.reserveCapacity(Self.chunkBytes + (64 << 10))
        feed = CopyFeed(
            connection: connection.connection,
            table: RestoreSchemaWriter.qualified(table.name, in: plan.schema), columns: names,
            logger: connection.logger)
    }

    func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {
        guard let feed else { return }
        var index = 0
        for value in values {
            if index > 0 { buffer.writeInteger(UInt8(ascii: "\t")) }
            let isRaw = !rawText.isEmpty && rawText.contains(index)
            RestoreValues.appendCopyText(
                RestoreValues.stored(value, isRawText: isRaw, type: types[index]), to: &buffer)
            index += 1
        }
        buffer.writeInteger(UInt8(ascii: "\n"))
        if buffer.readableBytes >= Self.chunkBytes {
            try send(buffer, to: feed, table: table.name)
            buffer = ByteBuffer()
            buffer.reserveCapacity(Self.chunkBytes + (64 << 10))
        }
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
    }

    /// Fails the COPY under way, if any, after an error elsewhere.
    func abandon(_ error: any Error) {
        guard let feed else { return }
        self.feed = nil
        feed.finish(failing: error)
        try? feed.wait()
    }
}
