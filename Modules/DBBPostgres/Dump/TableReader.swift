internal import DBBExport
internal import DBBSQL
internal import Foundation
internal import NIOCore
internal import PostgresNIO

/// Reads a table's rows as a dump writes them, in batches of about ``DBBPostgresDump/batchBytes``, each batch
/// asked for as soon as the one before it came, so the server reads and sends it while that one is written.
///
/// A table ordered by one integer column (its rowid, or a one-column integer key, as most are) is read a batch per
/// query: the rows after the last one read, one array (`array_agg`) per column. postgres-nio's work on each row it
/// receives costs more than the server's on each value, so one row a batch saves most of it; arrays of columns
/// rather than of records, because the server keeps each field's buffer of a record until the whole array is sent.
/// Other tables are read through a server-side cursor, each row as one record.
final class TableReader {
    private static let cursor = "dbb_dump_rows"
    private let table: PostgresDumpPlan.Table
    private let connection: DBBPostgresConnection
    private let context: String
    /// How each column's values become the dump's.
    let rules: [DumpColumnMapping.ValueRules]
    /// The current batch, for ``next(strict:)``.
    private var current: FieldBatch?
    private var position = 0
    /// The number of rows asked for last, the batch received next.
    private var requested: Int
    private var pending: EventLoopFuture<PostgresQueryResult>?
    private var pendingSQL = ""
    /// The key the pending batch starts after.
    private var pendingAfter: Int64?
    /// The savepoint taken before a batch read by its key, so that a batch too large for one array (the server
    /// refuses an array over 1 GB) is read again in smaller ones.
    private static let savepoint = "dbb_dump_batch"
    private var isLastBatch = false
    private var number = 0
    /// Whether the next batch is asked for as soon as one comes (else by ``fetchNext()``).
    private let prefetches: Bool
    /// The next batch to ask for, while ``fetchNext()`` has not asked for it.
    private var nextRequest: (size: Int, after: Int64?)?

    /// Asks for the first batch (opening the cursor of a table read through one).
    ///
    /// - Parameters:
    ///   - table: the table to read.
    ///   - connection: the connection, in the dump's transaction.
    ///   - prefetches: whether ``nextBatch()`` asks for the batch after the one it returns; without, the caller
    ///     asks with ``fetchNext()`` when it has room for it.
    /// - Throws: `DBBError` when the server refuses the query.
    init(table: PostgresDumpPlan.Table, connection: DBBPostgresConnection, prefetches: Bool = true) throws {
        self.table = table
        self.connection = connection
        self.prefetches = prefetches
        context = "dumping table \(table.section.name)"
        rules = table.columns.map(\.rules)
        requested = Self.firstBatch(
            rows: table.section.rowCount, diskBytes: table.diskBytes, columns: table.columns.count)
        if table.integerOrder == nil {
            try connection.run(
                "DECLARE \(Self.cursor) NO SCROLL CURSOR FOR \(table.recordSelectSQL)", [], context: context)
        }
        fetch(requested, after: nil)
    }

    /// The rows a table's first batch asks for, before any of its rows' size is known: the rows that take a
    /// quarter of ``DBBPostgresDump/batchBytes`` (1 MiB) by the table's average on disk and what a batch keeps
    /// for each field, but at least 64 and at most every row (and one more, so that the batch is known to be the
    /// last).
    ///
    /// A small table is so read in one query. On disk, TOAST keeps long values compressed: rows of values that
    /// compress well are longer when read than the average says, which is why the rows past the first 64 are
    /// asked for only as far as a quarter of a batch goes.
    ///
    /// - Parameters:
    ///   - rows: the table's rows, counted in the dump's snapshot.
    ///   - diskBytes: what the table takes on disk, TOAST included; `nil` when not known.
    ///   - columns: the columns read.
    static func firstBatch(rows: Int, diskBytes: Int?, columns: Int) -> Int {
        let few = 64
        guard let diskBytes, diskBytes > 0, rows > few else { return min(few, rows + 1) }
        let perRow = Double(diskBytes) / Double(rows) + Double(columns * FieldBatch.bytesPerField)
        let fitting = Int((Double(DBBPostgresDump.batchBytes / 4) / perRow).rounded(.down))
        return min(rows + 1, 50_000, max(few, fitting))
    }

    /// Asks for the next batch: the rows after `last` (from the first with `nil`) of a table ordered by an
    /// integer, the cursor's next rows otherwise.
    ///
    /// - Parameters:
    ///   - size: the number of rows asked for.
    ///   - last: the key the batch starts after.
    ///   - again: whether the batch is read again after its savepoint was rolled back to, which keeps it.
    private func fetch(_ size: Int, after last: Int64?, again: Bool = false) {
        requested = size
        pendingAfter = last
        if let order = table.integerOrder?.sql {
            // Sent without waiting: statements run in the order they are sent.
            let savepoints =
                again
                ? [] : (last == nil ? [] : ["RELEASE SAVEPOINT \(Self.savepoint)"]) + ["SAVEPOINT \(Self.savepoint)"]
            for sql in savepoints {
                _ = connection.connection.query(PostgresQuery(unsafeSQL: sql), logger: connection.logger)
            }
            // `last` is an integer, written into the statement as one.
            let arrays = table.columns.map { "array_agg(\($0.select))" }.joined(separator: ", ")
            pendingSQL =
                "SELECT count(*), max(\(order))::int8, \(arrays) FROM (SELECT * FROM ONLY \(table.qualifiedName)"
                + "\(last.map { " WHERE \(order) > \($0)" } ?? "") ORDER BY \(order) LIMIT \(size)) AS batch"
        } else {
            pendingSQL = "FETCH FORWARD \(size) FROM \(Self.cursor)"
        }
        pending = connection.connection.query(PostgresQuery(unsafeSQL: pendingSQL), logger: connection.logger)
    }

    /// Receives the next batch.
    ///
    /// - Returns: the batch, or `nil` after the last.
    /// - Throws: `DBBError` from the server, or (mismatch) for rows not in the form asked for.
    func nextBatch() throws -> FieldBatch? {
        guard !isLastBatch, let next = pending else { return nil }
        pending = nil
        let result: PostgresQueryResult
        do {
            result = try connection.waitFor(next)
        } catch {
            let mapped = connection.map(error, sql: pendingSQL, context: context)
            // 54000: an array over 1 GB; 53200: out of memory. One row always fits in an array.
            guard table.integerOrder != nil, requested > 1, mapped.sqlState == "54000" || mapped.sqlState == "53200"
            else {
                throw mapped
            }
            try connection.run("ROLLBACK TO SAVEPOINT \(Self.savepoint)", [], context: context)
            fetch(max(1, requested / 8), after: pendingAfter, again: true)
            return try nextBatch()
        }
        let batch: FieldBatch
        var last: Int64?
        if let order = table.integerOrder {
            guard let row = result.rows.first else { throw table.mismatch }
            let cells = Array(row)
            guard cells.count == table.columns.count + 2, let count = Self.int64(cells[0]) else {
                throw table.mismatch
            }
            last = Self.int64(cells[1])
            // Without the last key of a batch of rows, the next batch would not know where to start.
            guard count == 0 || last != nil else { throw table.mismatch }
            var arrays: [ByteBuffer] = []
            for cell in cells.dropFirst(2) {
                guard count > 0 else { break }
                guard let bytes = cell.bytes else { throw table.mismatch }
                arrays.append(bytes)
            }
            guard let made = Self.batch(ofColumns: arrays, count: Int(count), columns: table.columns.count) else {
                throw table.mismatch
            }
            try requireOrder(of: made, column: order.column)
            batch = made
        } else {
            var made = FieldBatch(columns: table.columns.count, rows: result.rows.count)
            for row in result.rows {
                // One cell: the row as a record, in binary format.
                guard let cell = row.first, cell.dataType == .record, let record = cell.bytes,
                    record.withUnsafeReadableBytes({ made.append(record: $0) })
                else { throw table.mismatch }
            }
            batch = made
        }
        isLastBatch = batch.rows < requested
        if !isLastBatch {
            // The batch after next takes about batchBytes of memory, whatever the rows' width, by the rows of
            // this one.
            let perRow = max(1, batch.footprint / max(1, batch.rows))
            nextRequest = (min(50_000, requested * 8, max(1, DBBPostgresDump.batchBytes / perRow)), last)
            if prefetches { fetchNext() }
        }
        return batch.rows == 0 ? nil : batch
    }

    /// Asks for the batch after the last one received, unless that was the last or it is asked for already.
    func fetchNext() {
        guard let request = nextRequest else { return }
        nextRequest = nil
        fetch(request.size, after: request.after)
    }

    private static func int64(_ cell: PostgresCell) -> Int64? {
        guard let bytes = cell.bytes, bytes.readableBytes == 8 else { return nil }
        return bytes.getInteger(at: bytes.readerIndex, as: Int64.self)
    }

    private static func batch(ofColumns arrays: [ByteBuffer], count: Int, columns: Int) -> FieldBatch? {
        if count == 0 { return FieldBatch(columns: columns, rows: 0) }
        // The arrays are slices of one message; each is read in turn, nested, without a copy.
        func read(_ index: Int, _ views: [UnsafeRawBufferPointer]) -> FieldBatch? {
            if index == arrays.count { return FieldBatch.fromColumnArrays(views, count: count) }
            return arrays[index].withUnsafeReadableBytes { read(index + 1, views + [$0]) }
        }
        return read(0, [])
    }

    /// Checks that the batch's rows came in the order of their integer column, as the query orders them.
    private func requireOrder(of batch: FieldBatch, column: Int) throws {
        try batch.bytes.withUnsafeBytes { bytes in
            var previous: Int64?
            for row in 0..<batch.rows {
                let field = batch.field(row: row, column: column, in: bytes)
                guard let value = field.bytes.flatMap({ RecordDecoder.number($0, oid: field.oid) }),
                    case .integer(let key) = value, previous.map({ $0 < key }) ?? true
                else {
                    throw DBBError.library(
                        .mismatch, message: "the rows of table \(table.section.name) came out of their order",
                        sql: pendingSQL, context: context)
                }
                previous = key
            }
        }
    }

    /// The next row as the dump writes it, or `nil` after the last.
    ///
    /// - Parameter strict: whether a `numeric` no double holds is refused.
    /// - Throws: `DBBExportError` (malformed) for a `numeric` `strict` refuses; `DBBError` from the server.
    func next(strict: Bool) throws -> [DBBValue]? {
        if current == nil || position == current?.rows {
            guard let batch = try nextBatch() else { return nil }
            current = batch
            position = 0
        }
        guard let batch = current else { return nil }
        let row = position
        position += 1
        number += 1
        return try batch.bytes.withUnsafeBytes { bytes in
            try (0..<batch.columns).map { column in
                try value(
                    of: batch.field(row: row, column: column, in: bytes), column: column, row: number, strict: strict)
            }
        }
    }

    /// A field as the dump's value, converted as its column's rules say.
    ///
    /// - Parameters:
    ///   - field: the field, as the server sent it.
    ///   - column: its column.
    ///   - row: the number of its row, for an error.
    ///   - strict: whether a `numeric` no double holds is refused.
    /// - Throws: `DBBExportError` (malformed) for a `numeric` `strict` refuses; `DBBError` (mismatch) for a type
    ///   the dump does not read.
    func value(of field: FieldBatch.Field, column: Int, row: Int, strict: Bool) throws -> DBBValue {
        try table.dumpValue(of: field, rule: rules[column], column: column, row: row, strict: strict)
    }

    /// Closes the cursor.
    ///
    /// - Throws: `DBBError` when the server refuses a batch still asked for, or the closing.
    func close() throws {
        if let next = pending {
            pending = nil
            // Its rows are not needed, but its error is the one to report: the transaction is aborted after it.
            do { _ = try connection.waitFor(next) } catch {
                throw connection.map(error, sql: pendingSQL, context: context)
            }
        }
        try connection.run(
            table.integerOrder == nil ? "CLOSE \(Self.cursor)" : "RELEASE SAVEPOINT \(Self.savepoint)", [],
            context: context)
    }
}
