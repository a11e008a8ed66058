public import DBBExport
internal import DBBSQL
public import Foundation

extension DBBPostgresDump {
    /// Compares a dump with the schema it was dumped from, reading the schema again as a dump reads it, in one
    /// snapshot, and reports the first difference: the tables and their SQLite schema, the row counts, and every
    /// value as the dump writes it (integers exactly, doubles bit for bit, text and bytes byte for byte).
    ///
    /// A schema made by restoring a dump is compared with ``DBBPostgresRestore/compare(dumpAt:with:options:progress:)``
    /// instead, which knows the restore's plan.
    ///
    /// - Parameters:
    ///   - dumpURL: the dump.
    ///   - connection: an open connection, not in a transaction.
    ///   - schema: the schema to compare with.
    ///   - maximumValueLength: the longest string or BLOB read from the dump, in bytes.
    ///   - progress: called on the calling thread as rows are compared.
    /// - Returns: the first difference, or `nil` when the schema holds exactly what the dump holds.
    /// - Throws: `DBBExportError` for a damaged or foreign dump, or (unknownTable) a schema that does not exist;
    ///   `DBBError` when the server refuses a statement.
    public static func compare(
        dumpAt dumpURL: URL, with connection: DBBPostgresConnection, schema: String,
        maximumValueLength: Int = DBBExport.defaultMaximumValueLength,
        progress: ((DBBExportProgress) -> Void)? = nil
    ) throws -> DBBDumpDifference? {
        try DBBPostgresConnection.requireBlockingAllowed(context: "comparing a dump with a schema", sql: nil)
        try connection.begin(isolation: .repeatableRead, readOnly: true)
        defer { try? connection.rollback() }
        try applySettings(on: connection)
        let plan = try PostgresDumpPlan(connection: connection, schema: schema, strict: false)
        let comparer = SourceComparer(connection: connection, plan: plan)
        do {
            _ = try ConcurrentDumpParser(dumpAt: dumpURL, maximumValueLength: maximumValueLength, progress: progress)
                .run(comparer)
        } catch let found as FoundDifference {
            return found.difference
        }
        return nil
    }
}

/// Compares what a dump holds with a schema read as a dump reads it.
private final class SourceComparer: DumpConsumer {
    private let connection: DBBPostgresConnection
    private let plan: PostgresDumpPlan
    private var reader: TableReader?
    private var sequenceRows: [[DBBValue]] = []

    init(connection: DBBPostgresConnection, plan: PostgresDumpPlan) {
        self.connection = connection
        self.plan = plan
    }

    private func differ(_ message: String, table: String? = nil, row: Int? = nil, column: String? = nil)
        -> FoundDifference
    {
        FoundDifference(difference: DBBDumpDifference(table: table, row: row, column: column, message: message))
    }

    func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws {
        let dumped = header.tables.map(\.name)
        let current = plan.header.tables.map(\.name)
        if dumped != current {
            throw differ(
                "the dump's tables are \(dumped.joined(separator: ", ")), the schema's "
                    + current.joined(separator: ", "))
        }
        for (table, expected) in zip(header.tables, plan.header.tables) where table.rowCount != expected.rowCount {
            throw differ(
                "the dump has \(table.rowCount) rows, the schema \(expected.rowCount)", table: table.name)
        }
        for object in plan.schema {
            guard let match = schema.first(where: { $0.type == object.type && $0.name == object.name }) else {
                throw differ("the dump has no \(object.type) named \(object.name)")
            }
            if match.sql != object.sql {
                throw differ("the SQL of \(object.type) \(object.name) differs: a column's type, key or index changed")
            }
        }
        for object in schema where !plan.schema.contains(where: { $0.type == object.type && $0.name == object.name }) {
            throw differ("the schema has no \(object.type) named \(object.name)")
        }
        sequenceRows = plan.sequences.enumerated().map { index, entry in
            [.integer(Int64(index + 1)), .text(entry.table), .integer(entry.value)]
        }
    }

    func beginTable(_ table: DBBDumpTable) throws {
        if table.name == PostgresDumpPlan.sequenceTable && plan.hasSequenceTable {
            reader = nil
            return
        }
        guard let planned = plan.tables.first(where: { $0.section.name == table.name }) else {
            throw differ("the schema has no table of this name", table: table.name)
        }
        guard planned.section.columns == table.columns, planned.section.hasRowID == table.hasRowID else {
            throw differ("the columns differ", table: table.name)
        }
        reader = try TableReader(table: planned, connection: connection)
    }

    func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {
        let server: [DBBValue]?
        if let reader {
            server = try reader.next(strict: false)
        } else {
            server = number <= sequenceRows.count ? sequenceRows[number - 1] : nil
        }
        guard let server else {
            throw differ("the schema has only \(number - 1) rows", table: table.name, row: number)
        }
        for (index, (expected, actual)) in zip(values, server).enumerated() where !Self.identical(expected, actual) {
            let column = table.hasRowID ? (index == 0 ? "rowid" : table.columns[index - 1]) : table.columns[index]
            throw differ(
                "the dump has \(Self.describe(expected)), the schema \(Self.describe(actual))", table: table.name,
                row: number, column: column)
        }
    }

    func endTable(_ table: DBBDumpTable) throws {
        if let reader {
            if try reader.next(strict: false) != nil {
                throw differ("the schema has more rows than the dump's \(table.rowCount)", table: table.name)
            }
            try reader.close()
        }
        reader = nil
    }

    private static func identical(_ a: DBBValue, _ b: DBBValue) -> Bool {
        switch (a, b) {
        case (.real(let x), .real(let y)): x.bitPattern == y.bitPattern || (x.isNaN && y.isNaN)
        case (.real(let x), .null) where x.isNaN: true
        default: a == b
        }
    }

    /// A value's storage class, and the value when it is a number (messages name the difference, not the data).
    private static func describe(_ value: DBBValue) -> String {
        switch value {
        case .null: "NULL"
        case .integer(let number): "INTEGER \(number)"
        case .real(let number): "REAL \(number)"
        case .text(let text): "TEXT of \(text.utf8.count) bytes"
        case .blob(let data): "BLOB of \(data.count) bytes"
        }
    }
}
