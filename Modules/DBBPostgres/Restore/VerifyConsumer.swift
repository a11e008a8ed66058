internal import DBBExport
internal import DBBSQL
internal import NIOCore
internal import PostgresNIO

/// The comparison pass: reads each restored table back in the dump's row order through a cursor, a batch at
/// a time, and compares every value with what the plan says the dump's value is stored as. Stops at the first
/// difference (``FoundDifference``).
final class VerifyConsumer: DumpConsumer {
    static let batchSize = 5000
    private static let cursor = "dbb_restore_verify"

    private let connection: DBBPostgresConnection
    private let plan: DBBPostgresRestorePlan
    private let tables: [String: DBBPostgresRestorePlan.Table]
    private var current: DBBPostgresRestorePlan.Table?
    private var types: [RestoreValues.ColumnType] = []
    private var names: [String] = []
    private var batch: [[DBBValue]] = []
    /// The next batch, asked for while the current one is compared, so the server's work overlaps ours.
    private var pending: EventLoopFuture<PostgresQueryResult>?
    private var position = 0
    private var isCursorOpen = false

    init(connection: DBBPostgresConnection, plan: DBBPostgresRestorePlan) {
        self.connection = connection
        self.plan = plan
        tables = plan.tablesByName
    }

    /// Compares the source's `user_version` and `application_id` with the metadata table's.
    func compareMetadata() throws -> DBBDumpDifference? {
        let rows = try connection.fetchAll(
            "SELECT key, value FROM \(RestoreSchemaWriter.qualified(plan.metadataTable, in: plan.schema)) "
                + "WHERE key IN ('user_version', 'application_id')")
        var values: [String: String] = [:]
        for row in rows {
            if case .text(let key) = row[0], case .text(let value) = row[1] { values[key] = value }
        }
        for (key, expected) in [("user_version", plan.userVersion), ("application_id", plan.applicationID)]
        where values[key] != String(expected) {
            return DBBDumpDifference(
                table: plan.metadataTable,
                message: "\(key) is \(values[key] ?? "missing") on the server but \(expected) in the dump")
        }
        return nil
    }

    func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws {}

    func beginTable(_ table: DBBDumpTable) throws {
        guard let planned = tables[table.name] else {
            current = nil
            return
        }
        current = planned
        (names, types) = planned.valueLayout
        try connection.execute(
            "DECLARE \(Self.cursor) NO SCROLL CURSOR FOR \(Self.select(planned, in: plan.schema)) "
                + "ORDER BY \(order(planned))")
        isCursorOpen = true
        batch = []
        position = 0
        fetchNextBatch()
    }

    /// A `SELECT` of a table's values in the dump's layout, a numeric column as its text.
    private static func select(_ table: DBBPostgresRestorePlan.Table, in schema: String) -> String {
        let (names, types) = table.valueLayout
        let values = zip(names, types).map { name, type in
            DBBDatabase.quoteIdentifier(name) + (type == .numeric ? "::text" : "")
        }.joined(separator: ", ")
        return "SELECT \(values) FROM ONLY " + RestoreSchemaWriter.qualified(table.name, in: schema)
    }

    /// The digest of a table's rows as the server holds them, which the server makes itself
    /// (``RestoreDigest/serverQuery(for:in:)``); `nil` when its answer is not a digest.
    func serverDigest(of table: DBBPostgresRestorePlan.Table) throws -> RestoreDigest? {
        let rows = try connection.fetchAll(RestoreDigest.serverQuery(for: table, in: plan.schema))
        guard rows.count == 1, rows[0].count == 2, case .integer(let count) = rows[0][0],
            case .text(let text) = rows[0][1], let sum = Int128(text)
        else { return nil }
        return RestoreDigest(rows: Int(count), sum: sum)
    }

    /// The dump's row order: by rowid, else by primary key, comparing text as SQLite's collation does (BINARY
    /// is PostgreSQL's "C"; NOCASE folds ASCII letters only, as `lower` does in "C").
    private func order(_ table: DBBPostgresRestorePlan.Table) -> String {
        let keys = table.rowIDColumn.map { [$0] } ?? (table.identityColumn.map { [$0] } ?? table.primaryKey)
        return (keys.isEmpty ? table.columns.map(\.name) : keys).map { name in
            let column = table.columns.first { $0.name == name }
            let quoted = DBBDatabase.quoteIdentifier(name)
            guard column?.type == "text" else { return quoted }
            if column?.collation?.uppercased() == "NOCASE" { return "lower(\(quoted) COLLATE \"C\") COLLATE \"C\"" }
            return quoted + " COLLATE \"C\""
        }.joined(separator: ", ")
    }

    private static let fetchSQL = "FETCH FORWARD \(batchSize) FROM \(cursor)"

    private func fetchNextBatch() {
        pending = connection.connection.query(PostgresQuery(unsafeSQL: Self.fetchSQL), logger: connection.logger)
    }

    private func nextServerRow() throws -> [DBBValue]? {
        if position == batch.count {
            guard let next = pending else { return nil }
            pending = nil
            let context = "comparing the restored rows with the dump"
            let result: PostgresQueryResult
            do {
                result = try connection.waitFor(next)
            } catch {
                throw connection.map(error, sql: Self.fetchSQL, context: context)
            }
            batch = try DBBPostgresCoding.result(result, sql: Self.fetchSQL, context: context).rows
            position = 0
            // A short batch is the last one.
            if batch.count == Self.batchSize { fetchNextBatch() }
            if batch.isEmpty { return nil }
        }
        position += 1
        return batch[position - 1]
    }

    func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {
        guard current != nil else { return }
        guard let server = try nextServerRow() else {
            throw FoundDifference(
                difference: .init(table: table.name, row: number, message: "the server has only \(number - 1) rows"))
        }
        var index = 0
        for value in values {
            let expected = RestoreValues.stored(
                value, isRawText: !rawText.isEmpty && rawText.contains(index), type: types[index])
            let actual = index < server.count ? server[index] : .null
            if !RestoreValues.matches(expected, actual, type: types[index]) {
                throw FoundDifference(
                    difference: .init(
                        table: table.name, row: number, column: names[index],
                        message:
                            "the server holds \(Self.describe(actual)) where the dump holds \(Self.describe(value))"))
            }
            index += 1
        }
    }

    func endTable(_ table: DBBDumpTable) throws {
        guard current != nil else { return }
        if try nextServerRow() != nil {
            throw FoundDifference(
                difference: .init(
                    table: table.name, message: "the server has more than the dump's \(table.rowCount) rows"))
        }
        try closeCursor()
    }

    func closeCursor() throws {
        guard isCursorOpen else { return }
        isCursorOpen = false
        _ = try? pending?.wait()  // statements run in order anyway; this one's rows are not needed
        pending = nil
        try connection.execute("CLOSE \(Self.cursor)")
    }

    /// A value's storage class, and the value when it is short (messages name the difference, not the data).
    private static func describe(_ value: DBBValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let number): "integer \(number)"
        case .real(let number): "real \(number) (bits \(String(number.bitPattern, radix: 16)))"
        case .text(let text): "text of \(text.utf8.count) bytes"
        case .blob(let bytes): "bytes (\(bytes.count))"
        }
    }
}
