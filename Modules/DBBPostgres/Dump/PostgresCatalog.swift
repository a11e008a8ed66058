internal import DBBExport
internal import DBBSQL
internal import Foundation

/// The catalog queries of a dump of one schema, run in the dump's transaction.
///
/// The queries that need only the schema's name are queued on the connection at once (``sendAhead()``):
/// postgres-nio sends each as soon as the one before it is answered, without waiting for the dump's thread to ask,
/// and each answer is collected where it is read.
final class PostgresCatalog {
    let connection: DBBPostgresConnection
    let schema: String
    private static let context = "reading the catalog to dump a schema"
    /// Statements sent ahead and not collected yet, by their SQL and arguments.
    private var sentAhead: [Statement: DBBPostgresConnection.SentStatement] = [:]

    private struct Statement: Hashable {
        var sql: String
        var arguments: [DBBValue]
    }

    init(connection: DBBPostgresConnection, schema: String) {
        self.connection = connection
        self.schema = schema
    }

    private func rows(_ sql: String, _ arguments: [DBBValue] = []) throws -> [[DBBValue]] {
        if let sent = sentAhead.removeValue(forKey: Statement(sql: sql, arguments: arguments)) {
            return try connection.collect(sent).rows
        }
        return try connection.run(sql, arguments.map { .value($0) }, context: Self.context).rows
    }

    /// Queues the queries that need only the schema's name (whether it exists, its tables, columns, indexes,
    /// foreign keys, what is kept as text, a restore's metadata table) and the server's version, without waiting:
    /// the functions that read them collect their answers.
    ///
    /// - Throws: `DBBError` for a closed connection.
    func sendAhead() throws {
        let named =
            [
                Self.existsSQL, Self.metadataTablesSQL, Self.tablesSQL, Self.columnsSQL, Self.indexesSQL,
                Self.foreignKeysSQL,
            ] + Self.sourceObjectQueries.map(\.sql)
        let statements =
            named.map { Statement(sql: $0, arguments: [.text(schema)]) } + [
                Statement(sql: Self.sourceSQL, arguments: [])
            ]
        for statement in statements {
            sentAhead[statement] = try connection.send(
                statement.sql, statement.arguments.map { .value($0) }, context: Self.context)
        }
    }

    private static func text(_ value: DBBValue) -> String? {
        if case .text(let text) = value { text } else { nil }
    }

    private static func integer(_ value: DBBValue) -> Int64? {
        if case .integer(let number) = value { number } else { nil }
    }

    private static func numbers(_ value: DBBValue) -> [Int] {
        (text(value) ?? "").split(separator: " ").compactMap { Int($0) }
    }

    private static let existsSQL = "SELECT 1 FROM pg_namespace WHERE nspname = $1"

    func schemaExists() throws -> Bool {
        try !rows(Self.existsSQL, [.text(schema)]).isEmpty
    }

    private static let sourceSQL = "SELECT current_setting('server_version'), current_database()::text"

    /// The server, its version, the database and the schema.
    func source() throws -> DBBDumpSource {
        let row = try rows(Self.sourceSQL).first ?? []
        return DBBDumpSource(
            engine: "PostgreSQL", version: row.first.flatMap(Self.text) ?? "",
            database: row.count > 1 ? Self.text(row[1]) ?? "" : "", schema: schema)
    }

    /// The schema's ordinary tables (partitions among them), in the order they were made, and the bytes each
    /// takes on disk, its TOAST table's included (`pg_table_size`).
    func tables() throws -> (names: [String], diskBytes: [String: Int]) {
        var names: [String] = []
        var diskBytes: [String: Int] = [:]
        for row in try rows(Self.tablesSQL, [.text(schema)]) {
            guard let name = row.first.flatMap(Self.text) else { continue }
            names.append(name)
            diskBytes[name] = row.count > 1 ? Self.integer(row[1]).map { Int($0) } : nil
        }
        return (names, diskBytes)
    }

    private static let tablesSQL =
        "SELECT c.relname::text, pg_table_size(c.oid) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        + "WHERE n.nspname = $1 AND c.relkind = 'r' ORDER BY c.oid"

    /// Takes `ACCESS SHARE` locks on the tables, as `pg_dump` does, so that none is dropped or altered while the
    /// dump reads it (the dump's settings wait at most 30 seconds for a lock another session holds), and counts
    /// each table's rows in the snapshot: the statements are queued at once, the counting after the locks.
    ///
    /// - Returns: the number of rows of each table.
    func lockAndCountRows(of tables: [String]) throws -> [String: Int] {
        guard !tables.isEmpty else { return [:] }
        let names = tables.map { RestoreSchemaWriter.qualified($0, in: schema) }.joined(separator: ", ")
        let locking = try connection.send("LOCK TABLE \(names) IN ACCESS SHARE MODE", [], context: Self.context)
        let parts = Self.parts(of: tables)
        let counting = try parts.map { part in
            try connection.send(Self.unionSQL(part, select: countSelect), [], context: Self.context)
        }
        _ = try connection.collect(locking)
        var counts: [String: Int] = [:]
        for (part, sent) in zip(parts, counting) {
            Self.read(try connection.collect(sent).rows, of: part) { table, row in
                if let count = row.first.flatMap(Self.integer) { counts[table] = Int(count) }
            }
        }
        return counts
    }

    /// What counts a table's rows, after its index in a `UNION ALL`.
    private func countSelect(_ table: String) -> String {
        "count(*) FROM ONLY \(RestoreSchemaWriter.qualified(table, in: schema))"
    }

    /// The items in lists of up to 200, each asked about in one query (a `SELECT` list holds at most 1,664
    /// entries).
    private static func parts<Item>(of items: [Item]) -> [[Item]] {
        stride(from: 0, to: items.count, by: 200).map { Array(items[$0..<min($0 + 200, items.count)]) }
    }

    /// The query of ``union(_:select:read:)``.
    private static func unionSQL<Entry>(_ entries: [Entry], select: (Entry) -> String) -> String {
        entries.enumerated().map { index, entry in "SELECT \(index)::int8, " + select(entry) }
            .joined(separator: " UNION ALL ")
    }

    /// Runs one `SELECT` per entry as one query (`UNION ALL`), each row led by its entry's index, and hands each
    /// row's other values to `read` with its entry.
    ///
    /// - Parameters:
    ///   - entries: what is asked about.
    ///   - select: the `SELECT` list and `FROM` of an entry, after its index.
    ///   - read: called for each row the server sent, with the entry asked for and the row's values after the
    ///     index.
    private func union<Entry>(
        _ entries: [Entry], select: (Entry) -> String, read: (Entry, ArraySlice<DBBValue>) -> Void
    ) throws {
        guard !entries.isEmpty else { return }
        Self.read(try rows(Self.unionSQL(entries, select: select)), of: entries, read)
    }

    /// Hands each row of a ``unionSQL(_:select:)`` query to `read` with its entry.
    private static func read<Entry>(
        _ rows: [[DBBValue]], of entries: [Entry], _ read: (Entry, ArraySlice<DBBValue>) -> Void
    ) {
        for row in rows {
            guard let index = row.first.flatMap(integer), entries.indices.contains(Int(index)) else { continue }
            read(entries[Int(index)], row.dropFirst())
        }
    }

    private static let columnsSQL = """
        SELECT c.relname::text, a.attname::text, format_type(a.atttypid, a.atttypmod), bt.typname::text,
            format_type(bt.oid, CASE WHEN t.typtype = 'd' THEN t.typtypmod ELSE a.atttypmod END),
            bt.typtype::text, bt.typcategory::text, t.typtype = 'd', a.attnotnull,
            a.attidentity::text, pg_get_expr(d.adbin, d.adrelid),
            a.attidentity <> '' OR coalesce(pg_get_expr(d.adbin, d.adrelid) LIKE 'nextval(%', false)
        FROM pg_attribute a
        JOIN pg_class c ON c.oid = a.attrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_type t ON t.oid = a.atttypid
        JOIN pg_type bt ON bt.oid = CASE WHEN t.typtype = 'd' THEN t.typbasetype ELSE t.oid END
        LEFT JOIN pg_attrdef d ON d.adrelid = a.attrelid AND d.adnum = a.attnum
        WHERE n.nspname = $1 AND c.relkind = 'r' AND a.attnum > 0 AND NOT a.attisdropped
        ORDER BY c.oid, a.attnum
        """

    /// Every column of the schema's tables, by table, in column order.
    func columns() throws -> [String: [CatalogColumn]] {
        let result = try rows(Self.columnsSQL, [.text(schema)])
        var byTable: [String: [CatalogColumn]] = [:]
        for row in result where row.count == 12 {
            guard let table = Self.text(row[0]), let name = Self.text(row[1]), let formatted = Self.text(row[2]),
                let base = Self.text(row[3]), let baseFormatted = Self.text(row[4])
            else { continue }
            let isDomain = row[7] == .integer(1)
            let mapping = DumpColumnMapping(
                name: name, formatted: formatted, base: base, baseFormatted: baseFormatted,
                kind: Self.text(row[5]) ?? "b", category: Self.text(row[6]) ?? "", isDomain: isDomain)
            byTable[table, default: []].append(
                CatalogColumn(
                    name: name, mapping: mapping, base: base, isDomain: isDomain, notNull: row[8] == .integer(1),
                    defaultSQL: Self.text(row[10]), isSequence: row[11] == .integer(1)))
        }
        return byTable
    }

    private static let indexesSQL = """
        SELECT c.relname::text, ic.relname::text, i.indisprimary, i.indisunique,
            array_to_string(i.indkey::int2[], ' '), array_to_string(i.indoption::int2[], ' '),
            i.indnkeyatts = i.indnatts AND i.indexprs IS NULL AND i.indpred IS NULL AND am.amname = 'btree',
            pg_get_indexdef(i.indexrelid),
            (SELECT json_object_agg(a.attnum, a.attname)::text FROM pg_attribute a
             WHERE a.attrelid = c.oid AND a.attnum > 0 AND NOT a.attisdropped)
        FROM pg_index i
        JOIN pg_class c ON c.oid = i.indrelid
        JOIN pg_class ic ON ic.oid = i.indexrelid
        JOIN pg_am am ON am.oid = ic.relam
        JOIN pg_namespace n ON n.oid = c.relnamespace
        WHERE n.nspname = $1 AND c.relkind = 'r' AND i.indisvalid
        ORDER BY c.oid, ic.oid
        """

    /// The valid indexes of the schema's tables, primary keys and unique constraints among them. An index a
    /// `CREATE INDEX CONCURRENTLY` left invalid (a unique one that found repeated keys) is not the table's, as
    /// `pg_dump` leaves it out too.
    func indexes() throws -> [CatalogIndex] {
        let result = try rows(Self.indexesSQL, [.text(schema)])
        return result.compactMap { row in
            guard row.count == 9, let table = Self.text(row[0]), let name = Self.text(row[1]) else { return nil }
            let names = Self.attributeNames(row[8])
            let keys = Self.numbers(row[4])
            let options = Self.numbers(row[5])
            let columns = keys.enumerated().compactMap { index, number in
                names[number].map { (name: $0, descending: index < options.count && options[index] & 1 != 0) }
            }
            return CatalogIndex(
                table: table, name: name, isPrimary: row[2] == .integer(1), isUnique: row[3] == .integer(1),
                columns: columns.count == keys.count ? columns : [], isPlain: row[6] == .integer(1),
                sql: Self.text(row[7]) ?? "")
        }
    }

    /// `{"1": "id", "2": "name"}` as `[1: "id", 2: "name"]`.
    private static func attributeNames(_ value: DBBValue) -> [Int: String] {
        guard let text = text(value),
            let names = try? JSONDecoder().decode([String: String].self, from: Data(text.utf8))
        else { return [:] }
        return Dictionary(
            names.compactMap { key, name in Int(key).map { ($0, name) } }, uniquingKeysWith: { a, _ in a })
    }

    private static let foreignKeysSQL = """
        SELECT c.relname::text, con.conname::text, pn.nspname = n.nspname, pc.relname::text,
            (SELECT string_agg(a.attname, ' ' ORDER BY k.ordinality) FROM unnest(con.conkey) WITH ORDINALITY k(num, ordinality)
             JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num),
            (SELECT string_agg(a.attname, ' ' ORDER BY k.ordinality) FROM unnest(con.confkey) WITH ORDINALITY k(num, ordinality)
             JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num),
            con.confupdtype::text, con.confdeltype::text, pg_get_constraintdef(con.oid),
            (SELECT json_agg(a.attname ORDER BY k.ordinality)::text FROM unnest(con.conkey) WITH ORDINALITY k(num, ordinality)
             JOIN pg_attribute a ON a.attrelid = con.conrelid AND a.attnum = k.num),
            (SELECT json_agg(a.attname ORDER BY k.ordinality)::text FROM unnest(con.confkey) WITH ORDINALITY k(num, ordinality)
             JOIN pg_attribute a ON a.attrelid = con.confrelid AND a.attnum = k.num)
        FROM pg_constraint con
        JOIN pg_class c ON c.oid = con.conrelid
        JOIN pg_namespace n ON n.oid = c.relnamespace
        JOIN pg_class pc ON pc.oid = con.confrelid
        JOIN pg_namespace pn ON pn.oid = pc.relnamespace
        WHERE con.contype = 'f' AND n.nspname = $1
        ORDER BY c.oid, con.oid
        """

    /// The foreign keys of the schema's tables.
    func foreignKeys() throws -> [CatalogForeignKey] {
        let result = try rows(Self.foreignKeysSQL, [.text(schema)])
        func action(_ value: DBBValue) -> String {
            switch Self.text(value) {
            case "r": "RESTRICT"
            case "c": "CASCADE"
            case "n": "SET NULL"
            case "d": "SET DEFAULT"
            default: "NO ACTION"
            }
        }
        func names(_ value: DBBValue) -> [String] {
            guard let text = Self.text(value), let data = text.data(using: .utf8),
                let list = try? JSONDecoder().decode([String].self, from: data)
            else { return [] }
            return list
        }
        return result.compactMap { row in
            guard row.count == 11, let table = Self.text(row[0]), let name = Self.text(row[1]),
                let parent = Self.text(row[3])
            else { return nil }
            let definition = Self.text(row[8]) ?? ""
            return CatalogForeignKey(
                table: table, name: name, columns: names(row[9]),
                // A parent in another schema is not dumped: the key is kept as text.
                parent: row[2] == .integer(1) ? parent : "", parentColumns: names(row[10]), onUpdate: action(row[6]),
                onDelete: action(row[7]),
                sql: "ALTER TABLE \(DBBDatabase.quoteIdentifier(table)) ADD CONSTRAINT "
                    + "\(DBBDatabase.quoteIdentifier(name)) \(definition)")
        }
    }

    /// A value that makes a column no rowid: one that repeats, or `NULL` (as `.null`); `nil` when there is none.
    func repeatedOrNull(_ column: String, in table: String) throws -> DBBValue? {
        let name = DBBDatabase.quoteIdentifier(column)
        let found = try rows(
            "SELECT \(name) FROM ONLY \(RestoreSchemaWriter.qualified(table, in: schema)) GROUP BY \(name) "
                + "HAVING count(*) > 1 OR \(name) IS NULL LIMIT 1")
        return found.first?.first
    }

    /// The last value the sequence of each table's identity (or serial) column handed out: its `last_value`, or
    /// one less when it has not handed that one out yet (a new sequence, or one restarted); a column without a
    /// sequence has no entry. Two queries for up to 200 tables.
    ///
    /// - Parameter columns: the tables and their identity (or serial) columns.
    func lastSequenceValues(of columns: [(table: String, column: String)]) throws -> [String: Int64] {
        var values: [String: Int64] = [:]
        for part in Self.parts(of: columns) {
            let calls = part.indices.map { "pg_get_serial_sequence($\(2 * $0 + 1), $\(2 * $0 + 2))" }
            let arguments = part.flatMap { entry -> [DBBValue] in
                [.text(RestoreSchemaWriter.qualified(entry.table, in: schema)), .text(entry.column)]
            }
            let sequenceRow = try rows("SELECT " + calls.joined(separator: ", "), arguments).first ?? []
            // Each name comes quoted and qualified as SQL from the server.
            let found = sequenceRow.enumerated().compactMap { index, value in
                Self.text(value).map { (table: part[index].table, sequence: $0) }
            }
            try union(
                found, select: { "last_value, is_called FROM \($0.sequence)" },
                read: { entry, row in
                    guard row.count == 2, let last = row.first.flatMap(Self.integer) else { return }
                    values[entry.table] = row.last == .integer(1) ? last : last - 1
                })
        }
        return values
    }

    /// What the dump keeps as text: the schema's views, materialized views, functions and procedures, triggers,
    /// sequences that are no identity's, enum types, check constraints, partitioned and foreign tables, and the
    /// database's extensions.
    func sourceObjects() throws -> [DBBDumpSourceObject] {
        var objects: [DBBDumpSourceObject] = []
        for query in Self.sourceObjectQueries {
            for row in try rows(query.sql, [.text(schema)]) where row.count == 2 {
                if let name = Self.text(row[0]), let definition = Self.text(row[1]) {
                    objects.append(DBBDumpSourceObject(type: query.type, name: name, sql: definition))
                }
            }
        }
        return objects
    }

    /// The queries of ``sourceObjects()``: each object's type, and the query of its name and SQL.
    private static let sourceObjectQueries: [(type: String, sql: String)] = [
        (
            "extension",
            "SELECT e.extname::text, 'CREATE EXTENSION IF NOT EXISTS ' || quote_ident(e.extname) || ' VERSION ' "
                + "|| quote_literal(e.extversion) FROM pg_extension e WHERE e.extname <> 'plpgsql' AND $1 <> '' "
                + "ORDER BY e.oid"
        ),
        (
            "type",
            "SELECT t.typname::text, 'CREATE TYPE ' || quote_ident(t.typname) || ' AS ENUM (' "
                + "|| string_agg(quote_literal(e.enumlabel), ', ' ORDER BY e.enumsortorder) || ')' "
                + "FROM pg_type t JOIN pg_enum e ON e.enumtypid = t.oid JOIN pg_namespace n ON n.oid = t.typnamespace "
                + "WHERE n.nspname = $1 GROUP BY t.oid, t.typname ORDER BY t.oid"
        ),
        (
            "sequence",
            "SELECT s.sequencename::text, 'CREATE SEQUENCE ' || quote_ident(s.sequencename) || ' AS ' "
                + "|| s.data_type::text || ' INCREMENT ' || s.increment_by || ' MINVALUE ' || s.min_value "
                + "|| ' MAXVALUE ' || s.max_value || ' START ' || s.start_value || CASE WHEN s.cycle THEN ' CYCLE' "
                + "ELSE '' END || '; -- last value: ' || coalesce(s.last_value::text, 'none') FROM pg_sequences s "
                + "WHERE s.schemaname = $1 AND NOT EXISTS (SELECT 1 FROM pg_depend d JOIN pg_class c "
                + "ON c.relname = s.sequencename JOIN pg_namespace n ON n.oid = c.relnamespace AND n.nspname = $1 "
                + "WHERE d.objid = c.oid AND d.deptype = 'i') ORDER BY 1"
        ),
        (
            "view",
            "SELECT c.relname::text, 'CREATE VIEW ' || quote_ident(c.relname) || ' AS ' || pg_get_viewdef(c.oid, true) "
                + "FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 "
                + "AND c.relkind = 'v' ORDER BY c.oid"
        ),
        (
            "materialized view",
            "SELECT c.relname::text, 'CREATE MATERIALIZED VIEW ' || quote_ident(c.relname) || ' AS ' "
                + "|| pg_get_viewdef(c.oid, true) FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
                + "WHERE n.nspname = $1 AND c.relkind = 'm' ORDER BY c.oid"
        ),
        (
            "partitioned table",
            "SELECT c.relname::text, 'partitioned table; its partitions are dumped as tables' FROM pg_class c "
                + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'p' "
                + "ORDER BY c.oid"
        ),
        (
            "foreign table",
            "SELECT c.relname::text, 'foreign table; its rows are not dumped' FROM pg_class c "
                + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND c.relkind = 'f' "
                + "ORDER BY c.oid"
        ),
        (
            "function",
            "SELECT p.proname::text || '(' || pg_get_function_identity_arguments(p.oid) || ')', "
                + "pg_get_functiondef(p.oid) FROM pg_proc p JOIN pg_namespace n ON n.oid = p.pronamespace "
                + "WHERE n.nspname = $1 AND p.prokind IN ('f', 'p') AND NOT EXISTS (SELECT 1 FROM pg_depend d "
                + "WHERE d.objid = p.oid AND d.deptype = 'e') ORDER BY p.oid"
        ),
        (
            "trigger",
            "SELECT c.relname::text || '.' || t.tgname::text, pg_get_triggerdef(t.oid, true) FROM pg_trigger t "
                + "JOIN pg_class c ON c.oid = t.tgrelid JOIN pg_namespace n ON n.oid = c.relnamespace "
                + "WHERE n.nspname = $1 AND NOT t.tgisinternal ORDER BY t.oid"
        ),
        (
            "constraint",
            "SELECT c.relname::text || '.' || con.conname::text, 'ALTER TABLE ' || quote_ident(c.relname) "
                + "|| ' ADD CONSTRAINT ' || quote_ident(con.conname) || ' ' || pg_get_constraintdef(con.oid) "
                + "FROM pg_constraint con JOIN pg_class c ON c.oid = con.conrelid "
                + "JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 AND con.contype IN ('c', 'x') "
                + "ORDER BY con.oid"
        ),
    ]

    private static let metadataTablesSQL =
        "SELECT c.relname::text FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace "
        + "WHERE n.nspname = $1 AND c.relkind = 'r' AND c.relname::text LIKE 'dbb\\_sqlite\\_metadata%' "
        + "ORDER BY c.oid DESC"

    /// What a restore of an SQLite dump into this schema kept in its metadata table: the plan (with each column's
    /// declared SQLite type and the column that keeps the rowids), `user_version`, `application_id`, and the
    /// SQLite SQL of what it did not create. `nil` when the schema has no such table.
    func restoreMetadata() throws -> RestoreMetadata? {
        let candidates = try rows(Self.metadataTablesSQL, [.text(schema)]).compactMap { $0.first.flatMap(Self.text) }
        for table in candidates {
            // A table of that name that is not a restore's (or not readable) is passed over; the savepoint keeps
            // the dump's transaction usable after its error.
            _ = try rows("SAVEPOINT dbb_dump_metadata")
            let entries: [[DBBValue]]
            do {
                entries = try rows("SELECT key, value FROM \(RestoreSchemaWriter.qualified(table, in: schema))")
                _ = try rows("RELEASE SAVEPOINT dbb_dump_metadata")
            } catch {
                _ = try rows("ROLLBACK TO SAVEPOINT dbb_dump_metadata")
                _ = try rows("RELEASE SAVEPOINT dbb_dump_metadata")
                continue
            }
            var values: [(String, String)] = []
            for entry in entries where entry.count == 2 {
                if let key = Self.text(entry[0]), let value = Self.text(entry[1]) { values.append((key, value)) }
            }
            guard let planText = values.first(where: { $0.0 == "plan" })?.1,
                let plan = try? JSONDecoder().decode(DBBPostgresRestorePlan.self, from: Data(planText.utf8)),
                plan.metadataTable == table
            else { continue }
            let kept = ["user_version", "application_id", "sqlite_version", "dump_created", "plan"]
            let objects = values.filter { !kept.contains($0.0) }.map { key, sql in
                // SQLite's objects are "view v", "trigger t", "virtual table t", "index i"; those a dump of
                // PostgreSQL kept as text, "postgresql function f", "postgresql view v", ….
                if key.hasPrefix("postgresql ") {
                    let rest = key.dropFirst("postgresql ".count)
                    let type =
                        Self.postgresObjectTypes.first { rest.hasPrefix($0 + " ") } ?? String(rest.prefix { $0 != " " })
                    return DBBDumpSourceObject(type: type, name: String(rest.dropFirst(type.count + 1)), sql: sql)
                }
                let type = ["virtual table", "view", "trigger", "index"].first { key.hasPrefix($0 + " ") } ?? "object"
                let name = type == "object" ? key : String(key.dropFirst(type.count + 1))
                return DBBDumpSourceObject(type: "SQLite \(type)", name: name, sql: sql)
            }
            return RestoreMetadata(table: table, plan: plan, sourceObjects: objects)
        }
        return nil
    }
}

extension PostgresCatalog {
    /// The types of the objects a dump keeps as text, longest first where one starts another.
    static let postgresObjectTypes = [
        "materialized view", "partitioned table", "foreign table", "view", "function", "trigger", "sequence",
        "extension", "type", "constraint", "index", "default",
    ]
}

/// What a restore of an SQLite dump kept in its metadata table.
struct RestoreMetadata {
    var table: String
    var plan: DBBPostgresRestorePlan
    var sourceObjects: [DBBDumpSourceObject]
}
