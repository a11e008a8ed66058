internal import DBBExport
internal import DBBSQL
internal import Foundation

/// What a dump of a PostgreSQL schema holds, read from the server's catalog inside the dump's snapshot: each
/// table's columns and how they are written (``DumpColumnMapping``), the SQLite schema that re-creates them, the
/// header with every table's row count, and what is kept as text only.
struct PostgresDumpPlan {
    /// One table to dump.
    struct Table {
        /// The section: its name, columns, rowid and row count.
        var section: DBBDumpTable
        /// The columns as read, the rowid's first when the section stores one.
        var columns: [DumpColumnMapping]
        /// The query that reads the rows in the dump's order.
        var selectSQL: String
        /// The same query, each row as one record (`ROW(…)`).
        var recordSelectSQL: String
        /// The one integer column, never NULL, that orders the rows (the rowid's, or a one-column integer key),
        /// when there is one: its index in ``columns``, and its quoted name for SQL. The rows are then read in
        /// batches by its values.
        var integerOrder: (column: Int, sql: String)?
        /// The table's schema-qualified name.
        var qualifiedName: String
        /// The bytes the table takes on disk, its TOAST table's included, when the catalog said.
        var diskBytes: Int?
        /// The record of a row, `ROW(…)` of the columns as read.
        var record: String
    }

    var header: DBBDumpHeader
    var schema: [DBBSchemaObject]
    var tables: [Table]
    /// The rows of `sqlite_sequence`: each table whose key is an identity (or a serial), and the last value its
    /// sequence handed out.
    var sequences: [(table: String, value: Int64)]
    /// Whether the dump has a `sqlite_sequence` section: a table of it has `AUTOINCREMENT`.
    var hasSequenceTable: Bool

    /// The name `sqlite_sequence`'s section and schema entry have.
    static let sequenceTable = "sqlite_sequence"

    // MARK: Reading the catalog

    /// Reads the plan of a schema, in the transaction the dump reads its rows in.
    ///
    /// - Throws: `DBBExportError` (unknownTable) when the schema does not exist, (malformed) with `strict` for a
    ///   column whose type has no mapping; `DBBError` when the server refuses a query.
    init(connection: DBBPostgresConnection, schema: String, strict: Bool) throws {
        let context = PostgresCatalog(connection: connection, schema: schema)
        try context.sendAhead()
        guard try context.schemaExists() else {
            throw DBBExportError(.unknownTable, "the database has no schema named \(schema)")
        }
        let metadata = try context.restoreMetadata()
        let (names, diskBytes) = try context.tables()
        var relations = names
        if let metadata { relations.removeAll { $0 == metadata.table } }
        var columnsByTable = try context.columns()
        let keys = try context.indexes()
        let foreignKeys = try context.foreignKeys()
        var conversions: [DBBDumpConversion] = []
        var sourceObjects = try context.sourceObjects()
        if let metadata { sourceObjects += metadata.sourceObjects }
        var schemaObjects: [DBBSchemaObject] = []
        var tables: [Table] = []
        var sequences: [(String, Int64)] = []
        var hasAutoincrement = false
        // SQLite reserves these names for its own tables: no restore could create such a table.
        if let reserved = relations.first(where: { $0.lowercased().hasPrefix("sqlite_") }) {
            throw DBBExportError(
                .malformed, "SQLite reserves table names that start with sqlite_, so no restore could create it",
                table: reserved)
        }
        // Counted in one query rather than one a table, sent with the locks: a small schema's dump is mostly
        // round trips.
        let rowCounts = try context.lockAndCountRows(of: relations)
        // The tables whose key is an identity (or a serial): their sequences' last values are read after the loop.
        var sequenceKeys: [(table: String, column: String)] = []
        for name in relations {
            let catalogColumns = columnsByTable[name] ?? []
            columnsByTable[name] = nil
            let planned = metadata?.plan.tables.first { $0.name == name }
            var mappings: [DumpColumnMapping] = []
            for column in catalogColumns {
                var mapping = column.mapping
                if let original = planned?.columns.first(where: { $0.name == column.name }) {
                    mapping = mapping.declaring(original.declaredType)
                }
                if mapping.isUnmapped && strict {
                    throw DBBExportError(
                        .malformed,
                        "the column's type \(column.mapping.sourceType) has no mapping to SQLite (dump without "
                            + "--strict to write it as its text)", table: name, column: column.name)
                }
                if let note = mapping.conversion, planned == nil {
                    conversions.append(
                        DBBDumpConversion(
                            table: name, column: column.name, sourceType: mapping.sourceType,
                            storedAs: mapping.storedAs, note: note))
                }
                mappings.append(mapping)
            }
            // The column a restore of an SQLite dump kept the rowids in goes back to being the rowid.
            let rowIDColumn = planned?.rowIDColumn.flatMap { rowID in mappings.firstIndex { $0.name == rowID } }
            var rowID: DumpColumnMapping?
            if let rowIDColumn { rowID = mappings.remove(at: rowIDColumn) }
            let tableKeys = keys.filter { $0.table == name }
            let primaryKey = tableKeys.first { $0.isPrimary }
            let keyColumns = primaryKey.map { key in key.columns.map(\.name) } ?? []
            // A one-column integer key is SQLite's INTEGER PRIMARY KEY, the rowid; an identity (or a serial) is
            // AUTOINCREMENT, which never hands out an id twice either.
            var rowIDKey: CatalogColumn?
            if rowID == nil, keyColumns.count == 1,
                let column = catalogColumns.first(where: { $0.name == keyColumns[0] }),
                ["int8", "int4", "int2"].contains(column.base), !column.isDomain
            {
                rowIDKey = column
            }
            let withoutRowID = rowIDKey == nil && !keyColumns.isEmpty && rowID == nil
            let (sql, keptAsText) = Self.createTableSQL(
                name, mappings: mappings, catalog: catalogColumns, rowIDKey: rowIDKey, keyColumns: keyColumns,
                withoutRowID: withoutRowID, foreignKeys: foreignKeys.filter { $0.table == name }, dumped: relations)
            sourceObjects += keptAsText
            schemaObjects.append(DBBSchemaObject(type: "table", name: name, tableName: name, sql: sql))
            if !withoutRowID && rowIDKey == nil && !keyColumns.isEmpty {
                // The index SQLite makes itself for the PRIMARY KEY of a rowid table, listed as a dump of SQLite
                // lists it.
                schemaObjects.append(
                    DBBSchemaObject(type: "index", name: "sqlite_autoindex_\(name)_1", tableName: name, sql: nil))
            }
            // The unique index a restore put on its rowid column is SQLite's own rowid again.
            for key in tableKeys where !key.isPrimary && !key.columns.contains(where: { $0.name == rowID?.name }) {
                if let indexSQL = key.sqliteSQL(table: name) {
                    schemaObjects.append(DBBSchemaObject(type: "index", name: key.name, tableName: name, sql: indexSQL))
                } else {
                    sourceObjects.append(DBBDumpSourceObject(type: "index", name: "\(name).\(key.name)", sql: key.sql))
                }
            }
            if let rowIDKey, rowIDKey.isSequence {
                hasAutoincrement = true
                sequenceKeys.append((name, rowIDKey.name))
            }
            let order = Self.order(rowID: rowID, keyColumns: keyColumns, mappings: mappings)
            let read = (rowID.map { [$0] } ?? []) + mappings
            // ONLY: a parent of inherited tables holds its own rows; each child is a table of the dump itself.
            let from =
                " FROM ONLY " + RestoreSchemaWriter.qualified(name, in: schema)
                + (order.isEmpty ? "" : " ORDER BY " + order.joined(separator: ", "))
            let list = read.map(\.select).joined(separator: ", ")
            let selectSQL = "SELECT \(read.isEmpty ? "NULL" : list)" + from
            // ROW() of one value is that value's record; of none, an empty record.
            let recordSelectSQL = "SELECT ROW(\(list))" + from
            // Read a batch after the last key only by a column no two rows share: a primary key or a unique
            // index of that one column, whole (not partial), and never NULL.
            let orderColumn = rowID?.name ?? (keyColumns.count == 1 ? keyColumns[0] : nil)
            let isUnique = tableKeys.contains { key in
                (key.isPrimary || key.isUnique) && key.isPlain && key.columns.map(\.name) == [orderColumn]
            }
            // A restored rowid column that lost its unique index may hold what no rowid can: SQLite would refuse
            // the dump's rows, so the dump refuses them first.
            if let rowID, !isUnique, let value = try context.repeatedOrNull(rowID.name, in: name) {
                throw DBBExportError(
                    .malformed,
                    "the column \(rowID.name) holds the table's SQLite rowids, and "
                        + (value == .null ? "a row has none (NULL)" : "the rowid \(value.int64Value ?? 0) repeats")
                        + ": a restore into SQLite would refuse the rows (give each row its own value)",
                    table: name, column: rowID.name)
            }
            let integerOrder = catalogColumns.first { $0.name == orderColumn }.flatMap { column in
                ["int8", "int4", "int2"].contains(column.base) && column.notNull && isUnique
                    ? read.firstIndex { $0.name == column.name }.map { ($0, DBBDatabase.quoteIdentifier(column.name)) }
                    : nil
            }
            tables.append(
                Table(
                    section: DBBDumpTable(
                        name: name, columns: mappings.map(\.name), hasRowID: rowID != nil,
                        rowCount: rowCounts[name] ?? 0),
                    columns: read, selectSQL: selectSQL, recordSelectSQL: recordSelectSQL, integerOrder: integerOrder,
                    qualifiedName: RestoreSchemaWriter.qualified(name, in: schema), diskBytes: diskBytes[name],
                    record: "ROW(\(list))"))
        }
        let lastValues = try context.lastSequenceValues(of: sequenceKeys)
        // SQLite's sqlite_sequence has a row once an id was handed out.
        for key in sequenceKeys {
            if let last = lastValues[key.table], last > 0 { sequences.append((key.table, last)) }
        }
        if hasAutoincrement {
            let name = Self.sequenceTable
            schemaObjects.append(
                DBBSchemaObject(
                    type: "table", name: name, tableName: name, sql: "CREATE TABLE sqlite_sequence(name,seq)"))
        }
        var header = DBBDumpHeader(
            sqliteVersion: DBBDatabase.sqliteVersion, userVersion: metadata?.plan.userVersion ?? 0,
            applicationID: metadata?.plan.applicationID ?? 0,
            created: DBBDateFormatting.iso8601String(from: Date()),
            tables: tables.map(\.section)
                + (!hasAutoincrement
                    ? []
                    : [
                        DBBDumpTable(
                            name: Self.sequenceTable, columns: ["name", "seq"], hasRowID: true,
                            rowCount: sequences.count)
                    ]))
        header.source = try context.source()
        header.conversions = conversions
        header.sourceObjects = sourceObjects
        self.header = header
        self.schema = schemaObjects
        self.tables = tables
        self.sequences = sequences
        hasSequenceTable = hasAutoincrement
    }

    /// SQLite's `CREATE TABLE` for a table, and what of it is kept as text only (defaults that are no constant,
    /// foreign keys to tables not dumped).
    private static func createTableSQL(
        _ name: String, mappings: [DumpColumnMapping], catalog: [CatalogColumn], rowIDKey: CatalogColumn?,
        keyColumns: [String], withoutRowID: Bool, foreignKeys: [CatalogForeignKey], dumped: [String]
    ) -> (sql: String, keptAsText: [DBBDumpSourceObject]) {
        let q = DBBDatabase.quoteIdentifier
        var keptAsText: [DBBDumpSourceObject] = []
        var lines: [String] = []
        for mapping in mappings {
            let column = catalog.first { $0.name == mapping.name }
            var line = q(mapping.name) + " "
            if let rowIDKey, rowIDKey.name == mapping.name {
                line += "INTEGER PRIMARY KEY"
                if rowIDKey.isSequence { line += " AUTOINCREMENT" }
            } else {
                line += mapping.declaredType
            }
            if column?.notNull == true { line += " NOT NULL" }
            if let literal = column?.defaultSQL.flatMap({ sqliteDefault($0, base: column?.base ?? "") }) {
                line += " DEFAULT " + literal
            } else if let expression = column?.defaultSQL, column?.isSequence != true {
                keptAsText.append(
                    DBBDumpSourceObject(
                        type: "default", name: "\(name).\(mapping.name)",
                        sql: "ALTER TABLE \(q(name)) ALTER COLUMN \(q(mapping.name)) SET DEFAULT \(expression)"))
            }
            lines.append(line)
        }
        if rowIDKey == nil, !keyColumns.isEmpty {
            lines.append("PRIMARY KEY (\(keyColumns.map(q).joined(separator: ", ")))")
        }
        for foreignKey in foreignKeys {
            guard dumped.contains(foreignKey.parent) else {
                keptAsText.append(
                    DBBDumpSourceObject(type: "constraint", name: "\(name).\(foreignKey.name)", sql: foreignKey.sql))
                continue
            }
            lines.append(
                "FOREIGN KEY (\(foreignKey.columns.map(q).joined(separator: ", "))) REFERENCES \(q(foreignKey.parent)) "
                    + "(\(foreignKey.parentColumns.map(q).joined(separator: ", "))) ON UPDATE \(foreignKey.onUpdate) "
                    + "ON DELETE \(foreignKey.onDelete)")
        }
        let sql =
            "CREATE TABLE \(q(name)) (\n    \(lines.joined(separator: ",\n    "))\n)"
            + (withoutRowID ? " WITHOUT ROWID" : "")
        return (sql, keptAsText)
    }

    /// The dump's order of a table's rows: the rowid's, else the key's, else every column's, so that a dump is the
    /// same each time and a restore into PostgreSQL compares a table without a key in the same order (text as
    /// SQLite's BINARY collation orders it).
    private static func order(rowID: DumpColumnMapping?, keyColumns: [String], mappings: [DumpColumnMapping])
        -> [String]
    {
        func ordering(_ mapping: DumpColumnMapping) -> String {
            mapping.storedAs == "TEXT" ? "(\(mapping.select)) COLLATE \"C\"" : mapping.select
        }
        if let rowID { return [rowID.select] }
        if keyColumns.isEmpty { return mappings.map(ordering) }
        return keyColumns.compactMap { key in mappings.first { $0.name == key }.map(ordering) }
    }

    /// A PostgreSQL column default as an SQLite one, when it is a constant SQLite reads the same: a number, a
    /// string (with its cast dropped), `true` or `false` as 1 or 0, `NULL`; `nil` otherwise.
    static func sqliteDefault(_ expression: String, base: String) -> String? {
        var text = expression.trimmingCharacters(in: .whitespaces)
        if text.hasPrefix("NULL::") || text == "NULL" { return nil }
        if base == "bool" {
            if text == "true" { return "1" }
            if text == "false" { return "0" }
            return nil
        }
        while text.hasPrefix("("), text.hasSuffix(")") { text = String(text.dropFirst().dropLast()) }
        // Scanned by hand: Foundation's regular expressions start ICU's, which cost a small dump a few milliseconds.
        let bytes = Array(text.utf8)
        if isDecimal(bytes[...]) {
            return ["int8", "int4", "int2", "float8", "float4", "numeric"].contains(base) ? "(\(text))" : nil
        }
        // 'text'::type, the literal with its quotes doubled; only where the value is written as the literal's text.
        if let end = literalEnd(bytes), isCast(bytes[end...]), ["text", "varchar", "bpchar", "name"].contains(base) {
            return String(decoding: bytes[..<end], as: UTF8.self)
        }
        return nil
    }

    /// Whether the bytes are `-?[0-9]+(\.[0-9]+)?`.
    private static func isDecimal(_ bytes: ArraySlice<UInt8>) -> Bool {
        var rest = bytes.first == UInt8(ascii: "-") ? bytes.dropFirst() : bytes
        let isDigit = { (byte: UInt8) in (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) }
        let integer = rest.prefix(while: isDigit)
        guard !integer.isEmpty else { return false }
        rest = rest.dropFirst(integer.count)
        guard let point = rest.first else { return true }
        let fraction = rest.dropFirst().prefix(while: isDigit)
        return point == UInt8(ascii: ".") && !fraction.isEmpty && fraction.count == rest.count - 1
    }

    /// The end of a string literal `'…'` (its quotes doubled inside) that starts the bytes, or `nil`.
    private static func literalEnd(_ bytes: [UInt8]) -> Int? {
        let quote = UInt8(ascii: "'")
        guard bytes.first == quote else { return nil }
        var index = 1
        while index < bytes.count {
            if bytes[index] == quote {
                guard index + 1 < bytes.count, bytes[index + 1] == quote else { return index + 1 }
                index += 2
            } else {
                index += 1
            }
        }
        return nil
    }

    /// Whether the bytes are nothing, or a cast `::type` or `::type(n, …)`: `(::[a-z ]+(\([0-9, ]+\))?)?`.
    private static func isCast(_ bytes: ArraySlice<UInt8>) -> Bool {
        guard !bytes.isEmpty else { return true }
        guard bytes.starts(with: [UInt8(ascii: ":"), UInt8(ascii: ":")]) else { return false }
        var rest = bytes.dropFirst(2)
        let name = rest.prefix { (UInt8(ascii: "a")...UInt8(ascii: "z")).contains($0) || $0 == UInt8(ascii: " ") }
        guard !name.isEmpty else { return false }
        rest = rest.dropFirst(name.count)
        guard !rest.isEmpty else { return true }
        guard rest.first == UInt8(ascii: "("), rest.last == UInt8(ascii: ")"), rest.count > 2 else { return false }
        return rest.dropFirst().dropLast().allSatisfy {
            (UInt8(ascii: "0")...UInt8(ascii: "9")).contains($0) || $0 == UInt8(ascii: ",") || $0 == UInt8(ascii: " ")
        }
    }
}

/// A column as the catalog describes it.
struct CatalogColumn {
    var name: String
    var mapping: DumpColumnMapping
    /// The base type's `typname`.
    var base: String
    var isDomain: Bool
    var notNull: Bool
    /// The default's expression, if any (not for identities).
    var defaultSQL: String?
    /// Whether the column is an identity or takes its default from a sequence (`serial`).
    var isSequence: Bool
}

/// An index (or the index of a key) as the catalog describes it.
struct CatalogIndex {
    var table: String
    var name: String
    var isPrimary: Bool
    var isUnique: Bool
    /// The key columns, each with whether it is descending; empty when the index has expressions.
    var columns: [(name: String, descending: Bool)]
    /// Whether SQLite can have the same index: a b-tree on plain columns, without a predicate or included columns.
    var isPlain: Bool
    /// Its definition (`pg_get_indexdef`).
    var sql: String

    /// The SQLite `CREATE INDEX`, or `nil` when SQLite cannot have the index.
    func sqliteSQL(table: String) -> String? {
        guard isPlain, !columns.isEmpty else { return nil }
        let list = columns.map { DBBDatabase.quoteIdentifier($0.name) + ($0.descending ? " DESC" : "") }
        return "CREATE \(isUnique ? "UNIQUE " : "")INDEX \(DBBDatabase.quoteIdentifier(name)) ON "
            + "\(DBBDatabase.quoteIdentifier(table)) (\(list.joined(separator: ", ")))"
    }
}

/// A foreign key as the catalog describes it.
struct CatalogForeignKey {
    var table: String
    var name: String
    var columns: [String]
    /// The referenced table, when it is in the dumped schema.
    var parent: String
    var parentColumns: [String]
    var onUpdate: String
    var onDelete: String
    /// Its definition, for a constraint kept as text.
    var sql: String
}
