internal import DBBObjects
internal import DBBSQL
internal import DBBSchema
internal import Foundation
internal import PostgresNIO

/// PostgreSQL's connection as the object layer uses it: `?` placeholders numbered once per statement text,
/// rows read into ``DBBValue``s, tables described in SQLite's type names so that registration compares them
/// with a class's mapping as it does on SQLite.
final class DBBPostgresObjectConnection: DBBObjectConnection, @unchecked Sendable {
    // @unchecked: used only on its connection's serial queue; the connection and the caches are touched there
    // alone.
    private(set) var connection: DBBPostgresConnection
    private var numbered: [String: String] = [:]
    /// The statements prepared on ``connection``, and how often others were sent.
    private var statements: DBBPostgresStatementCache
    /// The inserts of the classes saved last, with their `RETURNING`: comparing a class's own text with itself is
    /// cheap (and two different texts differ early), hashing it is not.
    private var returning: [(insert: String, idColumn: String, returning: String)] = []
    /// Each table's identity sequence, looked up once.
    private var sequences: [String: String] = [:]
    /// Whether a statement failed in its prepare round trip, before it was sent to run: a work of one statement
    /// whose connection ended there did nothing. Reset by the store before each run of a work.
    var failedPreparing = false
    /// The store's schema version these caches were filled under.
    private let schema: DBBPostgresSchemaVersion
    private var schemaSeen: Int

    /// The role of server the connection wants: the writer the primary, a reader a hot standby.
    let target: DBBPostgresConfiguration.TargetSessionAttributes

    init(
        _ connection: DBBPostgresConnection, schema: DBBPostgresSchemaVersion,
        target: DBBPostgresConfiguration.TargetSessionAttributes
    ) {
        self.connection = connection
        self.target = target
        self.schema = schema
        schemaSeen = schema.current
        statements = DBBPostgresStatementCache(isOn: connection.configuration.preparesStatements)
    }

    /// Replaces a connection the server or the network ended, or whose server is no longer of the role it
    /// wants, with a new one, made with the same configuration. The statements prepared on the old one ended with
    /// it.
    ///
    /// - Throws: `DBBError` when the server cannot be reached again; in a cluster, when no host has the role
    ///   wanted within the configuration's `failoverTimeout`.
    func reconnect() throws {
        try? connection.close()
        statements.forgetAll(deallocatingOn: nil)
        connection = try Self.connect(connection.configuration, target: target)
    }

    /// Connects to a host of the role wanted. In a cluster the search goes on while a failover may be under way:
    /// until a host has that role, or `failoverTimeout` has passed.
    static func connect(
        _ configuration: DBBPostgresConfiguration, target: DBBPostgresConfiguration.TargetSessionAttributes
    ) throws -> DBBPostgresConnection {
        let deadline = Date(timeIntervalSinceNow: configuration.failoverTimeout)
        while true {
            do {
                return try DBBPostgresConnection.connect(configuration, target: target)
            } catch let error as DBBError
                where configuration.isCluster && error.sqlState == DBBPostgresErrors.noHost && Date() < deadline
            {
                Thread.sleep(forTimeInterval: 0.1)
            }
        }
    }

    var dialect: DBBSQLDialect { .postgres }

    /// The statement with `$n` placeholders, numbered once per statement text.
    func numbering(_ sql: String) -> String {
        if let text = numbered[sql] { return text }
        let text = DBBSQLDialect.postgres.numberingPlaceholders(sql)
        numbered[sql] = text
        return text
    }

    /// Runs a statement written with `?` placeholders and returns its rows: prepared when this connection sent
    /// the same text with values of the same types before, unnamed the first time (a statement sent once costs
    /// one round trip, not two).
    func rows(_ sql: String, _ arguments: [DBBValue], context: String) throws -> [PostgresRow] {
        if schema.current != schemaSeen {
            // A migration may have changed what a prepared statement returns: prepare again.
            schemaSeen = schema.current
            statements.forgetAll(deallocatingOn: connection)
            sequences.removeAll()
        }
        guard let key = statements.key(sql, arguments) else {
            return try connection.rows(numbering(sql), arguments, context: context)
        }
        if let prepared = statements.prepared(key) {
            do {
                return try connection.rows(of: prepared, arguments, context: context)
            } catch let error as DBBError where error.sqlState == DBBPostgresErrors.cachedPlanChanged {
                // Another program changed the table: the statement is prepared again when next sent.
                statements.forget(key, deallocatingOn: connection)
                throw error
            }
        }
        guard statements.sentBefore(key) else {
            return try connection.rows(numbering(sql), arguments, context: context)
        }
        let text = DBBSQLDialect.numbered(sql, casts: arguments.map(DBBPostgresCoding.cast))
        let prepared: DBBPostgresConnection.PreparedStatement
        do {
            prepared = try connection.prepare(text, context: context)
        } catch {
            failedPreparing = true
            throw error
        }
        statements.keep(prepared, for: key, deallocatingOn: connection)
        return try connection.rows(of: prepared, arguments, context: context)
    }

    /// The values of `rows`' cells, row by row.
    private func values(_ rows: [PostgresRow], sql: String, context: String, _ body: ([DBBValue]) throws -> Void)
        throws
    {
        var values: [DBBValue] = []
        for row in rows {
            values.removeAll(keepingCapacity: true)
            for cell in row { values.append(try DBBPostgresCoding.value(of: cell, sql: sql, context: context)) }
            try body(values)
        }
    }

    /// The first column of each row as an integer.
    private func integers(_ sql: String, _ arguments: [DBBValue], context: String) throws -> [Int64] {
        var integers: [Int64] = []
        try values(try rows(sql, arguments, context: context), sql: sql, context: context) { row in
            if let value = row.first?.int64Value { integers.append(value) }
        }
        return integers
    }

    struct Statement: DBBObjectStatement {
        let owner: DBBPostgresObjectConnection
        /// The text with `?` placeholders: an object's `INSERT` or `UPDATE` of one row, with its `RETURNING`.
        let sql: String

        /// Runs the statement and returns the number of rows it changed (0 or 1), which its `RETURNING 1` rows
        /// count: a prepared statement's result carries no changed-row count.
        func run(_ values: ArraySlice<DBBValue>) throws -> Int {
            try owner.rows(sql, Array(values), context: "saving objects").count
        }

        func insert(_ values: ArraySlice<DBBValue>) throws -> Int64 {
            let context = "saving objects"
            // The one cell of the one row, read as it is: no row of values is built for it.
            var cells = try owner.rows(sql, Array(values), context: context).first?.makeIterator()
            guard let cell = cells?.next(),
                let id = try DBBPostgresCoding.value(of: cell, sql: sql, context: context).int64Value
            else {
                throw DBBError.library(.internal, message: "an INSERT returned no id", sql: sql, context: context)
            }
            return id
        }
    }

    func objectStatement(_ sql: String) throws -> Statement {
        Statement(owner: self, sql: sql + " RETURNING 1")
    }

    func insertStatement(_ sql: String, idColumn: String) throws -> Statement {
        // A class's insert is written with its RETURNING once, not for each save.
        if let known = returning.first(where: { $0.insert == sql && $0.idColumn == idColumn }) {
            return Statement(owner: self, sql: known.returning)
        }
        let text = sql + " RETURNING " + dialect.identifier(idColumn)
        if returning.count >= 32 { returning.removeFirst() }
        returning.append((sql, idColumn, text))
        return Statement(owner: self, sql: text)
    }

    /// New rows are inserted many at a time: each statement is a round trip to the server.
    var insertBatchSize: Int { 10_000 }

    /// Takes the rows' ids from the table's identity sequence in one query, then inserts the rows with their ids,
    /// up to 1,000 in one multi-row `INSERT` (and fewer than 32,768 values in one statement). The ids are taken
    /// first so that each row's id is known without relying on the order of `RETURNING` rows, which PostgreSQL
    /// does not promise.
    func insertBatch(_ values: [DBBValue], rows: Int, of table: DBBInsertTarget) throws -> [Int64] {
        guard rows > 0 else { return [] }
        // One row: one `INSERT … RETURNING`, one round trip.
        if rows == 1 { return [try insertStatement(table.insertSQL, idColumn: table.idColumn).insert(values[...])] }
        let sequence = try sequenceName(of: table.table, idColumn: table.idColumn)
        let newIDs = try integers(
            "SELECT nextval(?::regclass) FROM generate_series(1, ?)", [.text(sequence), .integer(Int64(rows))],
            context: "saving objects"
        ).sorted()
        guard newIDs.count == rows else {
            throw DBBError.library(
                .internal, message: "the sequence of \(table.table) gave \(newIDs.count) ids for \(rows) rows",
                context: "saving objects")
        }
        let width = values.count / rows
        let perStatement = max(1, min(1_000, 32_767 / (width + 1)))
        var arguments: [DBBValue] = []
        arguments.reserveCapacity(perStatement * (width + 1))
        var start = 0
        while start < rows {
            let count = min(perStatement, rows - start)
            arguments.removeAll(keepingCapacity: true)
            for row in start..<(start + count) {
                arguments.append(.integer(newIDs[row]))
                arguments.append(contentsOf: values[(row * width)..<((row + 1) * width)])
            }
            _ = try connection.execute(multiRowInsert(table.insertWithIDSQL, rows: count), arguments)
            start += count
        }
        return newIDs
    }

    /// A one-row `INSERT … VALUES (?, …)` made to insert `rows` rows, with numbered placeholders; kept per text
    /// and row count.
    private func multiRowInsert(_ sql: String, rows: Int) -> String {
        let key = "\(rows)\u{0}\(sql)"
        if let text = numbered[key] { return text }
        // The library writes the statement: its values are the one parenthesised list after the last " VALUES ".
        guard let valuesStart = sql.range(of: " VALUES ", options: .backwards) else { return numbering(sql) }
        let tuple = sql[valuesStart.upperBound...]
        let text = DBBSQLDialect.postgres.numberingPlaceholders(
            sql[..<valuesStart.upperBound] + repeatElement(tuple, count: rows).joined(separator: ", "))
        numbered[key] = text
        return text
    }

    /// The identity sequence of a table's id column, looked up once per table (and again after a migration).
    private func sequenceName(of table: String, idColumn: String) throws -> String {
        if let name = sequences[table] { return name }
        guard
            let name = try connection.fetchAll(
                "SELECT pg_get_serial_sequence($1, $2)", [.text(dialect.identifier(table)), .text(idColumn)]
            ).first?.first?.stringValue
        else {
            throw DBBError.library(
                .internal, message: "the id column \(idColumn) of \(table) has no identity sequence",
                context: "saving objects")
        }
        sequences[table] = name
        return name
    }

    func executeUpdate(_ sql: String, arguments: [DBBValue]) throws -> Int {
        try connection.execute(numbering(sql), arguments)
    }

    func selectIDs(_ sql: String, arguments: [DBBValue]) throws -> [Int64] {
        try integers(sql, arguments, context: "fetching rows")
    }

    func forEachObjectRow(_ sql: String, arguments: [DBBValue], _ body: ([DBBValue]) throws -> Void) throws {
        let context = "fetching rows"
        try values(try rows(sql, arguments, context: context), sql: sql, context: context, body)
    }

    static func integer(in row: [DBBValue], at column: Int) throws -> Int64? { row[column].int64Value }

    static func value(in row: [DBBValue], at column: Int) -> DBBValue { row[column] }

    static func date(in row: [DBBValue], at column: Int) throws -> Date? {
        row[column].doubleValue.map(Date.init(timeIntervalSinceReferenceDate:))
    }

    /// Rows arrive as stored values, which each property's accessor sets: a generated reader (`wholeRow`), which
    /// reads SQLite's rows, is not used.
    static func scalarReader(
        _ readers: [(accessor: DBBScalarAccessor, column: Int32)],
        wholeRow: (reader: DBBRowReader, positions: DBBRowPositions)?
    ) -> ScalarReader {
        ScalarReader(readers: readers.map { ($0.accessor.setStored, Int($0.column)) })
    }

    /// Sets each scalar property from its stored value in the row.
    struct ScalarReader: DBBObjectScalarReader {
        let readers: [(set: @Sendable (AnyObject, DBBValue) throws -> Void, column: Int)]

        func read(_ object: DBBTableObject, _ row: [DBBValue]) throws {
            for reader in readers { try reader.set(object, row[reader.column]) }
        }
    }

    func didInsert(presetID id: Int64, table: String, idColumn: String) throws {
        // An identity column's sequence does not see ids given to it: move it past this one, never back.
        let sequence = try sequenceName(of: table, idColumn: idColumn)
        _ = try connection.fetchAll(
            "SELECT setval($1::regclass, $2) WHERE $2 > COALESCE(pg_sequence_last_value($1::regclass), 0)",
            [.text(sequence), .integer(id)])
    }

    func lockSchemaForRegistration() throws {
        // One lock for the library's registrations, held until the transaction ends.
        _ = try connection.fetchAll("SELECT pg_advisory_xact_lock(hashtext('DBBBuilder registration'))")
    }

    func reportChanges(of tables: [String]) throws {
        let function = "dbb_report_change"
        let hasFunction = try !connection.fetchAll(
            // The schema by name: `current_schema()::regnamespace` would parse it as SQL, and fail on "Board Room".
            """
            SELECT 1 FROM pg_proc WHERE proname = $1
            AND pronamespace = (SELECT oid FROM pg_namespace WHERE nspname = current_schema())
            """,
            [.text(function)]
        ).isEmpty
        if !hasFunction {
            _ = try connection.execute(
                """
                CREATE FUNCTION \(function)() RETURNS trigger LANGUAGE plpgsql AS $$
                BEGIN PERFORM pg_notify('\(DBBPostgresObjectStore.changesChannel)', TG_TABLE_NAME); RETURN NULL; END $$
                """)
        }
        for table in tables {
            let name = dialect.identifier(table)
            let hasTrigger = try !connection.fetchAll(
                "SELECT 1 FROM pg_trigger WHERE tgrelid = $1::regclass AND tgname = $2", [.text(name), .text(function)]
            ).isEmpty
            guard !hasTrigger else { continue }
            // One notification per statement, not per row; the server sends it at commit, once per table and
            // transaction, and not at all on a rollback.
            _ = try connection.execute(
                """
                CREATE TRIGGER \(function) AFTER INSERT OR UPDATE OR DELETE OR TRUNCATE ON \(name)
                FOR EACH STATEMENT EXECUTE FUNCTION \(function)()
                """)
        }
    }

    func tableExists(_ name: String) throws -> Bool {
        try !connection.fetchAll(
            "SELECT 1 FROM information_schema.tables WHERE table_schema = current_schema() AND table_name = $1",
            [.text(name)]
        ).isEmpty
    }

    func columns(in table: String) throws -> [DBBColumnInfo] {
        let rows = try connection.fetchAll(
            """
            SELECT column_name::text, data_type::text, is_nullable::text, column_default::text
            FROM information_schema.columns WHERE table_schema = current_schema() AND table_name = $1
            ORDER BY ordinal_position
            """, [.text(table)])
        return rows.map { row in
            DBBColumnInfo(
                name: row[0].stringValue ?? "", declaredType: Self.sqliteTypeName(row[1].stringValue ?? ""),
                isNotNull: row[2].stringValue == "NO", defaultValueSQL: row[3].stringValue, primaryKeyIndex: 0)
        }
    }

    /// A PostgreSQL column type as SQLite's type names say it, so that a column another program created with
    /// another type (`integer` where a property stores text) is refused at registration as on SQLite.
    static func sqliteTypeName(_ type: String) -> String {
        switch type.lowercased() {
        case "bigint", "integer", "smallint", "boolean": "INTEGER"
        case "double precision", "real", "numeric": "REAL"
        case "bytea": "BLOB"
        case "text", "character varying", "character", "name", "json", "jsonb", "uuid": "TEXT"
        default: type
        }
    }
}
