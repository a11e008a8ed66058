internal import DBBExport
internal import DBBSQL
internal import Foundation

/// What one pass over a dump learns about the values of each column: the storage classes seen, text that
/// PostgreSQL's `text` cannot hold, and the largest integer (for identities).
struct ColumnStatistics {
    /// The storage classes seen, one bit each (a set of strings would hash one per value): null, integer, real,
    /// text, BLOB from the lowest.
    private var seen: UInt8 = 0
    var hasNUL = false
    var hasInvalidUTF8 = false
    var hasNegativeZero = false
    var largestInteger: Int64?

    private static let names = ["null", "integer", "real", "text", "blob"]

    /// The storage classes (one bit each, as ``seen`` has them) that a column of the type holds as the plan
    /// stores them: numbers in number columns, numbers and text in `text`, anything in `bytea`.
    static func classes(storableIn type: RestoreValues.ColumnType) -> UInt8 {
        switch type {
        case .bigint: 0b00011
        case .double: 0b00101
        case .numeric: 0b00111
        case .text: 0b01111
        case .bytea: 0b11111
        }
    }

    /// Whether every value seen is held by a column that holds `classes` (``classes(storableIn:)``): text with
    /// NUL or not valid UTF-8 only in a column that holds BLOBs.
    func fits(_ classes: UInt8) -> Bool {
        seen & ~classes == 0 && (classes & 16 != 0 || !(hasNUL || hasInvalidUTF8))
    }

    /// The storage classes seen: `null`, `integer`, `real`, `text`, `blob`.
    var classes: Set<String> {
        Set(Self.names.indices.filter { seen & (1 << $0) != 0 }.map { Self.names[$0] })
    }

    mutating func add(_ value: ScannedValue) {
        switch value.kind {
        case .null:
            seen |= 1  // NaN too: it is restored as NULL, as SQLite stores it
        case .integer:
            seen |= 2
            if largestInteger.map({ value.integer > $0 }) ?? true { largestInteger = value.integer }
        case .real:
            seen |= 4
            if value.isNegativeZero { hasNegativeZero = true }
        case .text:
            seen |= 8
            if value.hasNUL { hasNUL = true }
        case .rawText:
            seen |= 8
            hasInvalidUTF8 = true
        case .blob:
            seen |= 16
        }
    }
}

/// The first pass of a restore: reads the whole dump (checking it end to end before the server is touched)
/// and collects each table's column statistics and `sqlite_sequence`.
final class PlanningConsumer: DumpConsumer {
    var header: DBBDumpHeader?
    var schema: [DBBSchemaObject] = []
    /// Per table name: the statistics of the rowid (when stored) then of each column.
    var statistics: [String: [ColumnStatistics]] = [:]
    var sequences: [String: Int64] = [:]
    private var current: [ColumnStatistics] = []
    /// Whether the table being read is `sqlite_sequence`, the one whose rows ``row(_:rawText:number:of:)`` reads.
    private var inSequenceTable = false

    func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws {
        self.header = header
        self.schema = schema
    }

    func beginTable(_ table: DBBDumpTable) throws {
        inSequenceTable = !scans(table)
        current = Array(repeating: ColumnStatistics(), count: table.columns.count + (table.hasRowID ? 1 : 0))
    }

    /// Every table but `sqlite_sequence`, whose names are needed, is scanned: its values are checked, and
    /// counted by storage class, without being made.
    func scans(_ table: DBBDumpTable) -> Bool {
        table.name.lowercased() != "sqlite_sequence"
    }

    func scannedRow(_ values: [ScannedValue], number: Int, of table: DBBDumpTable) throws {
        // Counted in a local, swapped in and out once per row: each access to the property is checked at run time.
        var counts: [ColumnStatistics] = []
        swap(&counts, &current)
        for index in values.indices { counts[index].add(values[index]) }
        swap(&counts, &current)
    }

    /// A row of `sqlite_sequence`, the one table not scanned.
    func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {
        // Only `sqlite_sequence`'s rows name sequences, whatever parser reads the others whole.
        guard inSequenceTable, let (name, value) = Self.sequence(values, of: table) else { return }
        sequences[name] = value
    }

    /// The lowercased table name and the value of a row of `sqlite_sequence`; `nil` for a row of another shape.
    static func sequence(_ values: ArraySlice<DBBValue>, of table: DBBDumpTable) -> (String, Int64)? {
        guard values.count >= 2 + (table.hasRowID ? 1 : 0) else { return nil }
        let base = values.startIndex + (table.hasRowID ? 1 : 0)
        guard case .text(let name) = values[base], case .integer(let value) = values[base + 1] else { return nil }
        return (name.lowercased(), value)
    }

    func endTable(_ table: DBBDumpTable) throws {
        statistics[table.name] = current
        current = []
    }
}

/// Makes a ``DBBPostgresRestorePlan`` from a dump's schema and the statistics of its values.
struct RestorePlanner {
    let schema: String
    let strict: Bool
    let report: DBBDumpReport
    let statistics: [String: [ColumnStatistics]]
    let sequences: [String: Int64]
    private var notes: [DBBPostgresRestorePlan.Note] = []
    /// Names used in the PostgreSQL schema so far (indexes and constraints share the schema's namespace).
    private var usedNames: Set<String> = []

    init(
        schema: String, strict: Bool, report: DBBDumpReport, statistics: [String: [ColumnStatistics]],
        sequences: [String: Int64]
    ) {
        self.schema = schema
        self.strict = strict
        self.report = report
        self.statistics = statistics
        self.sequences = sequences
    }

    /// PostgreSQL truncates longer identifiers, which would change the names.
    static let maximumIdentifierBytes = 63

    private func refuse(_ message: String, table: String? = nil, column: String? = nil) -> DBBExportError {
        DBBExportError(.malformed, message, table: table, column: column)
    }

    /// Whether a table of the dump is restored as a table: `sqlite_sequence` becomes the identities' next
    /// values, and SQLite's statistics tables are left out.
    static func restores(_ table: String) -> Bool {
        let lower = table.lowercased()
        return lower != "sqlite_sequence" && !lower.hasPrefix("sqlite_stat")
    }

    /// The name of the table that keeps the source's metadata: `dbb_sqlite_metadata`, numbered when the dump
    /// has a table of that name.
    static func metadataTableName(besides tables: [String]) -> String {
        var metadataTable = "dbb_sqlite_metadata"
        let taken = Set(tables)
        var suffix = 2
        while taken.contains(metadataTable) {
            metadataTable = "dbb_sqlite_metadata_\(suffix)"
            suffix += 1
        }
        return metadataTable
    }

    /// Refuses a schema name PostgreSQL cannot take as it is.
    func requireSchemaName() throws {
        try requireIdentifier(schema, what: "the schema name")
    }

    /// Makes the plan.
    ///
    /// - Parameter schemaDatabase: the dump's schema in SQLite (``DBBExport/schemaDatabase(for:)``) when the
    ///   caller has made it already; made and closed here otherwise.
    mutating func makePlan(schemaDatabase: DBBDatabase? = nil) throws -> DBBPostgresRestorePlan {
        try requireSchemaName()
        let db = try schemaDatabase ?? DBBExport.schemaDatabase(for: report.schema)
        defer { if schemaDatabase == nil { try? db.close() } }
        var tables: [DBBPostgresRestorePlan.Table] = []
        for table in report.tables {
            guard Self.restores(table.name) else {
                if table.name.lowercased().hasPrefix("sqlite_stat") {
                    notes.append(
                        .init(object: "table \(table.name)", action: "not restored: SQLite's statistics; run ANALYZE"))
                }
                continue
            }
            tables.append(try planTable(table, statistics: statistics[table.name] ?? [], in: db))
        }
        for index in tables.indices {
            tables[index].foreignKeys = try planForeignKeys(of: tables[index], among: tables, in: db)
        }
        noteSchemaObjects(restored: Set(tables.map { $0.name.lowercased() }))
        let metadataTable = Self.metadataTableName(besides: tables.map(\.name))
        if report.header.userVersion != 0 || report.header.applicationID != 0 {
            notes.append(
                .init(
                    object: "user_version \(report.header.userVersion), application_id \(report.header.applicationID)",
                    action: "kept in table \(metadataTable)"))
        }
        return DBBPostgresRestorePlan(
            schema: schema, tables: tables, notes: notes, metadataTable: metadataTable,
            userVersion: report.header.userVersion, applicationID: report.header.applicationID)
    }

    private func requireIdentifier(_ name: String, what: String) throws {
        guard !name.isEmpty, name.utf8.count <= Self.maximumIdentifierBytes, !name.utf8.contains(0) else {
            throw refuse(
                "\(what) \"\(name)\" cannot be a PostgreSQL identifier: it must be 1 to "
                    + "\(Self.maximumIdentifierBytes) bytes of UTF-8 without NUL")
        }
    }

    /// A name not used yet in the schema, made from `base`, at most 63 bytes.
    private mutating func uniqueName(_ base: String) -> String {
        func clipped(_ text: String, to bytes: Int) -> String {
            var result = ""
            for character in text {
                if result.utf8.count + String(character).utf8.count > bytes { break }
                result.append(character)
            }
            return result
        }
        var name = clipped(base, to: Self.maximumIdentifierBytes)
        var number = 2
        while usedNames.contains(name) {
            let suffix = "_\(number)"
            name = clipped(base, to: Self.maximumIdentifierBytes - suffix.utf8.count) + suffix
            number += 1
        }
        usedNames.insert(name)
        return name
    }

    // MARK: Tables and columns

    /// How a table would be created if its values were those `statistics` describe, for the one-pass
    /// restore, which creates each table from its first rows before it has read the rest: its columns and
    /// their types, defaults and identity. Its collations and indexes, which `CREATE TABLE` does not take, are
    /// left out, and the notes and names of the plan are left as they were.
    ///
    /// - Throws: what planning the table throws (a name PostgreSQL cannot take; never `strict`'s error, since the
    ///   restore makes its speculating planner without `strict`).
    func speculativeTable(
        _ table: DBBDumpTable, statistics: [ColumnStatistics], in db: DBBDatabase
    ) throws -> DBBPostgresRestorePlan.Table {
        var planner = self
        return try planner.planTable(table, statistics: statistics, in: db, forCreation: true)
    }

    /// - Parameter forCreation: whether only what `CREATE TABLE` takes is planned (no collations, no indexes).
    private mutating func planTable(
        _ table: DBBDumpTable, statistics stats: [ColumnStatistics], in db: DBBDatabase, forCreation: Bool = false
    ) throws -> DBBPostgresRestorePlan.Table {
        try requireIdentifier(table.name, what: "the table name")
        let info = try db.fetchDictionary("SELECT * FROM pragma_table_xinfo(?)", table.name)
        let offset = table.hasRowID ? 1 : 0
        var byName: [String: [String: DBBValue]] = [:]
        for column in info {
            if case .text(let name) = column["name"] { byName[name.lowercased()] = column }
        }
        for column in info {
            guard case .integer(let hidden) = column["hidden"], hidden == 2 || hidden == 3,
                case .text(let name) = column["name"]
            else { continue }
            notes.append(
                .init(
                    object: "column \(table.name).\(name)",
                    action: "generated column not created: its expression is SQLite's"))
        }
        if let sql = report.schema.first(where: { $0.type == "table" && $0.name == table.name })?.sql,
            sql.range(of: #"\bCHECK\s*\("#, options: [.regularExpression, .caseInsensitive]) != nil
        {
            notes.append(
                .init(
                    object: "table \(table.name)",
                    action: "CHECK constraints not created: their expressions are SQLite's"))
        }
        let collations = forCreation ? [:] : try columnCollations(table, in: db)
        var columns: [DBBPostgresRestorePlan.Column] = []
        var keyColumns: [(position: Int64, name: String)] = []
        for (index, name) in table.columns.enumerated() {
            try requireIdentifier(name, what: "the column name of \(table.name)")
            let column = byName[name.lowercased()] ?? [:]
            let declared = column["type"].flatMap { if case .text(let text) = $0 { text } else { nil } } ?? ""
            let statistics = index + offset < stats.count ? stats[index + offset] : ColumnStatistics()
            var planned = try planColumn(table: table.name, name: name, declared: declared, statistics: statistics)
            if case .integer(let notNull) = column["notnull"], notNull != 0 { planned.notNull = true }
            if case .text(let defaultSQL) = column["dflt_value"], !Self.isNullDefault(defaultSQL) {
                planned.defaultSQL = translateDefault(defaultSQL, type: planned.type)
                if planned.defaultSQL == nil {
                    notes.append(
                        .init(
                            object: "column \(table.name).\(name)",
                            action: "default \(defaultSQL) not translated: the column has no default"))
                }
            }
            if case .integer(let position) = column["pk"], position > 0 { keyColumns.append((position, name)) }
            if let collation = collations[name.lowercased()], collation.uppercased() != "BINARY" {
                notes.append(
                    .init(
                        object: "column \(table.name).\(name)",
                        action: "COLLATE \(collation) not kept: PostgreSQL compares its text byte for byte"))
                planned.collation = collation
            }
            columns.append(planned)
        }
        let primaryKey = keyColumns.sorted { $0.position < $1.position }.map(\.name)
        let indexList = try db.fetchDictionary("SELECT * FROM pragma_index_list(?)", table.name)
        let hasKeyIndex = indexList.contains { $0["origin"] == .text("pk") }
        var planned = DBBPostgresRestorePlan.Table(
            name: table.name, rowCount: table.rowCount, rowIDColumn: nil, columns: columns, primaryKey: primaryKey,
            identityColumn: nil, nextIdentity: nil, indexes: [], foreignKeys: [])
        var largestID: Int64?
        if table.hasRowID {
            let taken = Set(table.columns.map { $0.lowercased() })
            guard let name = ["rowid", "_rowid_", "oid"].first(where: { !taken.contains($0) }) else {
                throw refuse(
                    "the table has columns named rowid, _rowid_ and oid: its rowids have no column name left",
                    table: table.name)
            }
            planned.rowIDColumn = name
            planned.identityColumn = name
            largestID = stats.first?.largestInteger
        } else if primaryKey.count == 1, !hasKeyIndex,
            let index = columns.firstIndex(where: { $0.name == primaryKey[0] }), columns[index].type == "bigint"
        {
            // An INTEGER PRIMARY KEY of a rowid table is the rowid: new rows get the next one.
            planned.identityColumn = columns[index].name
            largestID = statisticsOf(columns[index].name, table, stats)?.largestInteger
        }
        if planned.identityColumn != nil {
            let sequence = sequences[table.name.lowercased()]
            let largest = max(largestID ?? 0, sequence ?? 0)
            if largest == .max {
                notes.append(
                    .init(object: "table \(table.name)", action: "identity not restarted: the largest id is 2^63-1"))
            } else if largest > 0 {
                planned.nextIdentity = largest + 1
            }
        }
        // A PRIMARY KEY of SQLite may hold NULLs (in a rowid table); PostgreSQL's may not.
        let nullableKey = primaryKey.filter { name in
            columns.first(where: { $0.name == name }).map {
                statisticsOf($0.name, table, stats)?.classes.contains("null") ?? false
            } ?? false
        }
        if !nullableKey.isEmpty {
            notes.append(
                .init(
                    object: "primary key of \(table.name)",
                    action: "made a unique index: column \(nullableKey.joined(separator: ", ")) holds NULL"))
            planned.indexes.append(
                .init(
                    name: uniqueName("\(table.name)_pkey"),
                    columns: primaryKey.map { .init(name: $0, descending: false) }, unique: true))
            planned.primaryKey = []
        } else if !primaryKey.isEmpty {
            _ = uniqueName("\(table.name)_pkey")
        }
        if let rowID = planned.rowIDColumn {
            planned.indexes.append(
                .init(
                    name: uniqueName("\(table.name)_\(rowID)_key"), columns: [.init(name: rowID, descending: false)],
                    unique: true))
        }
        if !forCreation {
            planned.indexes += try planIndexes(
                of: table, columns: columns, rowIDColumn: planned.rowIDColumn, list: indexList, in: db)
        }
        return planned
    }

    private func statisticsOf(_ column: String, _ table: DBBDumpTable, _ stats: [ColumnStatistics]) -> ColumnStatistics?
    {
        guard let index = table.columns.firstIndex(of: column) else { return nil }
        let position = index + (table.hasRowID ? 1 : 0)
        return position < stats.count ? stats[position] : nil
    }

    /// Each column's collating sequence, found through a throwaway index on every column (SQLite's PRAGMAs
    /// report an index column's collation, not a table column's).
    private func columnCollations(_ table: DBBDumpTable, in db: DBBDatabase) throws -> [String: String] {
        let names = table.columns.map(DBBDatabase.quoteIdentifier).joined(separator: ", ")
        let probe = "dbb_collation_probe"
        try db.execute("CREATE INDEX \(probe) ON \(DBBDatabase.quoteIdentifier(table.name)) (\(names))")
        defer { try? db.execute("DROP INDEX \(probe)") }
        var result: [String: String] = [:]
        for row in try db.fetchDictionary("SELECT name, coll FROM pragma_index_xinfo(?) WHERE key = 1", probe) {
            if case .text(let name) = row["name"], case .text(let collation) = row["coll"] {
                result[name.lowercased()] = collation
            }
        }
        return result
    }

    private mutating func planColumn(
        table: String, name: String, declared: String, statistics: ColumnStatistics
    ) throws -> DBBPostgresRestorePlan.Column {
        let classes = statistics.classes.subtracting(["null"])
        let numbers = classes.intersection(["integer", "real"])
        let object = "column \(table).\(name)"
        var type: String
        var exact = true
        var lossy: String?
        if classes.isEmpty {
            type = Self.affinityType(declared)
        } else if classes == ["integer"] {
            type = "bigint"
        } else if classes == ["real"] {
            type = "double precision"
        } else if classes == ["integer", "real"] {
            type = "numeric"
            if statistics.hasNegativeZero {
                notes.append(.init(object: object, action: "numeric has no -0.0: it is stored as 0"))
            }
        } else if classes == ["text"] && !statistics.hasNUL && !statistics.hasInvalidUTF8 {
            type = "text"
        } else if classes == ["blob"] {
            type = "bytea"
        } else if classes == ["text"] {
            type = "bytea"
            exact = false
            lossy =
                statistics.hasNUL
                ? "holds text with NUL characters, which PostgreSQL's text cannot store: bytea, each text as its bytes"
                : "holds text that is not valid UTF-8: bytea, each text as its bytes"
        } else if !classes.contains("blob") && numbers.count > 0 && !statistics.hasNUL && !statistics.hasInvalidUTF8 {
            type = "text"
            exact = false
            lossy = "mixes \(Self.list(classes)): text, numbers as their text"
        } else {
            type = "bytea"
            exact = false
            lossy = "mixes \(Self.list(classes)): bytea, text and numbers as their UTF-8 bytes"
        }
        if let lossy {
            if strict {
                throw refuse("\(lossy) (restore without --strict to accept this)", table: table, column: name)
            }
            notes.append(.init(object: object, action: "\(lossy); the storage class is not kept"))
        }
        let order = ["integer", "real", "text", "blob", "null"]
        return DBBPostgresRestorePlan.Column(
            name: name, declaredType: declared, storageClasses: order.filter(statistics.classes.contains), type: type,
            keepsStorageClass: exact, notNull: false, defaultSQL: nil, collation: nil)
    }

    private static func list(_ classes: Set<String>) -> String {
        ["integer", "real", "text", "blob"].filter(classes.contains).joined(separator: ", ")
    }

    /// The type of a column without values, from its declared type's affinity (SQLite's rules, section 3.1
    /// of https://www.sqlite.org/datatype3.html).
    static func affinityType(_ declared: String) -> String {
        let upper = declared.uppercased()
        if upper.contains("INT") { return "bigint" }
        if upper.contains("CHAR") || upper.contains("CLOB") || upper.contains("TEXT") { return "text" }
        if upper.contains("BLOB") || upper.isEmpty { return "bytea" }
        if upper.contains("REAL") || upper.contains("FLOA") || upper.contains("DOUB") { return "double precision" }
        return "numeric"
    }

    /// `DEFAULT NULL`, which is no default.
    static func isNullDefault(_ sql: String) -> Bool {
        sql.trimmingCharacters(in: CharacterSet(charactersIn: " \t\r\n()")).uppercased() == "NULL"
    }

    /// A default of SQLite as PostgreSQL SQL, when it is a literal the column's type takes, or the current
    /// time in a text column; `nil` otherwise.
    func translateDefault(_ sql: String, type: String) -> String? {
        var text = sql.trimmingCharacters(in: .whitespacesAndNewlines)
        while text.hasPrefix("(") && text.hasSuffix(")") {
            text = String(text.dropFirst().dropLast()).trimmingCharacters(in: .whitespacesAndNewlines)
        }
        let upper = text.uppercased()
        let isNumber = type == "bigint" || type == "numeric" || type == "double precision"
        if let integer = Int64(text.hasPrefix("+") ? String(text.dropFirst()) : text) {
            return isNumber || type == "text" ? String(integer) : nil
        }
        if let real = Double(text), real.isFinite, text.allSatisfy({ "0123456789.eE+-".contains($0) }) {
            return type == "double precision" || type == "numeric" || type == "text" ? text : nil
        }
        if text.count >= 2, text.hasPrefix("'"), text.hasSuffix("'") {
            let inner = String(text.dropFirst().dropLast())
            if type == "text" { return text }
            if isNumber, let number = Double(inner.replacingOccurrences(of: "''", with: "'")), number.isFinite {
                return type == "bigint" && Int64(inner) == nil ? nil : text
            }
            return nil
        }
        if type == "bytea", upper.hasPrefix("X'"), upper.hasSuffix("'"),
            text.dropFirst(2).dropLast().allSatisfy(\.isHexDigit)
        {
            return "'\\x\(text.dropFirst(2).dropLast())'::bytea"
        }
        if type == "bigint" || type == "numeric", upper == "TRUE" || upper == "FALSE" {
            return upper == "TRUE" ? "1" : "0"
        }
        if type == "text" {
            let formats = [
                "CURRENT_TIMESTAMP": "YYYY-MM-DD HH24:MI:SS", "CURRENT_DATE": "YYYY-MM-DD",
                "CURRENT_TIME": "HH24:MI:SS",
            ]
            if let format = formats[upper] { return "to_char(now() AT TIME ZONE 'UTC', '\(format)')" }
        }
        return nil
    }

    // MARK: Indexes and foreign keys

    private mutating func planIndexes(
        of table: DBBDumpTable, columns: [DBBPostgresRestorePlan.Column], rowIDColumn: String?,
        list: [[String: DBBValue]], in db: DBBDatabase
    ) throws -> [DBBPostgresRestorePlan.Index] {
        var result: [DBBPostgresRestorePlan.Index] = []
        let known = Set(columns.map { $0.name.lowercased() })
        // index_list lists the newest first.
        for entry in list.reversed() {
            guard case .text(let name) = entry["name"], case .text(let origin) = entry["origin"] else { continue }
            if origin == "pk" { continue }
            let unique = entry["unique"] == .integer(1)
            let object = "\(unique ? "unique index" : "index") \(name) on \(table.name)"
            if entry["partial"] == .integer(1) {
                notes.append(.init(object: object, action: "partial index not created: its WHERE clause is SQLite's"))
                continue
            }
            let keys = try db.fetchDictionary(
                "SELECT cid, name, \"desc\", coll FROM pragma_index_xinfo(?) WHERE key = 1 ORDER BY seqno", name)
            var indexColumns: [DBBPostgresRestorePlan.IndexColumn] = []
            var refused: String?
            for key in keys {
                guard case .integer(let cid) = key["cid"] else { continue }
                if cid == -2 {
                    refused = "expression index not created: its expressions are SQLite's"
                    break
                }
                var columnName: String
                if cid == -1 {
                    guard let rowIDColumn else {
                        refused = "not created: it indexes the rowid"
                        break
                    }
                    columnName = rowIDColumn
                } else {
                    guard case .text(let keyName) = key["name"], known.contains(keyName.lowercased()),
                        let column = columns.first(where: { $0.name.lowercased() == keyName.lowercased() })
                    else {
                        refused = "not created: it indexes a generated column"
                        break
                    }
                    columnName = column.name
                }
                if case .text(let collation) = key["coll"], collation.uppercased() != "BINARY" {
                    notes.append(
                        .init(object: object, action: "COLLATE \(collation) of column \(columnName) not kept"))
                }
                indexColumns.append(.init(name: columnName, descending: key["desc"] == .integer(1)))
            }
            if let refused {
                notes.append(.init(object: object, action: refused))
                continue
            }
            let pgName =
                name.lowercased().hasPrefix("sqlite_autoindex_")
                ? uniqueName("\(table.name)_\(indexColumns.map(\.name).joined(separator: "_"))_key") : uniqueName(name)
            result.append(.init(name: pgName, columns: indexColumns, unique: unique))
        }
        return result
    }

    private mutating func planForeignKeys(
        of table: DBBPostgresRestorePlan.Table, among tables: [DBBPostgresRestorePlan.Table], in db: DBBDatabase
    ) throws -> [DBBPostgresRestorePlan.ForeignKey] {
        let rows = try db.fetchDictionary(
            "SELECT id, seq, \"table\", \"from\", \"to\", on_update, on_delete FROM pragma_foreign_key_list(?) "
                + "ORDER BY id, seq", table.name)
        var groups: [Int64: [[String: DBBValue]]] = [:]
        var order: [Int64] = []
        for row in rows {
            guard case .integer(let id) = row["id"] else { continue }
            if groups[id] == nil { order.append(id) }
            groups[id, default: []].append(row)
        }
        var result: [DBBPostgresRestorePlan.ForeignKey] = []
        for id in order {
            let group = groups[id] ?? []
            guard case .text(let parentName) = group.first?["table"] else { continue }
            let columns = group.compactMap { if case .text(let name) = $0["from"] { name } else { nil } }
            let object = "foreign key of \(table.name) (\(columns.joined(separator: ", "))) to \(parentName)"
            guard let parent = tables.first(where: { $0.name.lowercased() == parentName.lowercased() }) else {
                notes.append(.init(object: object, action: "not created: the dump holds no table \(parentName)"))
                continue
            }
            var parentColumns = group.compactMap { if case .text(let name) = $0["to"] { name } else { nil } }
            if parentColumns.isEmpty {
                parentColumns =
                    parent.primaryKey.isEmpty ? (parent.identityColumn.map { [$0] } ?? []) : parent.primaryKey
            }
            func column(_ name: String, of table: DBBPostgresRestorePlan.Table) -> DBBPostgresRestorePlan.Column? {
                table.columns.first { $0.name.lowercased() == name.lowercased() }
            }
            let childColumns = columns.compactMap { column($0, of: table) }
            let referenced = parentColumns.compactMap { column($0, of: parent) }
            guard childColumns.count == columns.count, referenced.count == parentColumns.count,
                referenced.count == childColumns.count
            else {
                notes.append(.init(object: object, action: "not created: its columns do not match the parent's"))
                continue
            }
            let keySet = Set(referenced.map { $0.name.lowercased() })
            let isKey =
                Set(parent.primaryKey.map { $0.lowercased() }) == keySet
                || parent.indexes.contains { $0.unique && Set($0.columns.map { $0.name.lowercased() }) == keySet }
            guard isKey else {
                notes.append(
                    .init(
                        object: object,
                        action: "not created: PostgreSQL needs a primary key or unique index on the referenced columns")
                )
                continue
            }
            if let mismatch = zip(childColumns, referenced).first(where: { $0.type != $1.type }) {
                notes.append(
                    .init(
                        object: object,
                        action: "not created: \(mismatch.0.name) is \(mismatch.0.type) but \(mismatch.1.name) is "
                            + "\(mismatch.1.type)"))
                continue
            }
            func action(_ value: DBBValue?) -> String {
                let text = if case .text(let text) = value { text.uppercased() } else { "NO ACTION" }
                return ["NO ACTION", "RESTRICT", "CASCADE", "SET NULL", "SET DEFAULT"].contains(text)
                    ? text : "NO ACTION"
            }
            result.append(
                .init(
                    name: uniqueName("\(table.name)_\(childColumns.map(\.name).joined(separator: "_"))_fkey"),
                    columns: childColumns.map(\.name), parentTable: parent.name,
                    parentColumns: referenced.map(\.name), onUpdate: action(group.first?["on_update"]),
                    onDelete: action(group.first?["on_delete"])))
        }
        return result
    }

    /// Views, triggers and virtual tables: their SQL is SQLite's. They are kept as text in the metadata table.
    private mutating func noteSchemaObjects(restored: Set<String>) {
        for object in report.schema {
            switch object.type {
            case "view", "trigger":
                notes.append(
                    .init(
                        object: "\(object.type) \(object.name)",
                        action: "not created: its SQL is SQLite's; kept as text in the metadata table"))
            case "table" where object.isVirtualTable:
                notes.append(
                    .init(
                        object: "virtual table \(object.name)",
                        action: "not created: its module is SQLite's; its shadow tables are restored as plain "
                            + "tables and its SQL is kept as text in the metadata table"))
            default:
                break
            }
        }
    }
}
