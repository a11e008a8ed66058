public import DBBExport
internal import DBBSQL
public import Foundation

/// Restores a `DBBExport` dump of any SQLite database into PostgreSQL: exactly, in one transaction, verified
/// row for row.
///
/// ```swift
/// let connection = try DBBPostgresConnection.connect(try DBBPostgresConfiguration(url: "postgres://app@db/app"))
/// let report = try DBBPostgresRestore.restore(
///     dumpAt: URL(fileURLWithPath: "app.json.gz"), into: connection,
///     options: DBBPostgresRestoreOptions(schema: "app"))
/// for note in report.plan.notes { print(note) }
/// ```
///
/// A restore reads the dump once in the common case, in flat memory. Each table is created when its first
/// rows have been read, with the types the planner chooses from them, and its rows are loaded with
/// `COPY … FROM STDIN` in COPY's binary format, hashing each row as it is sent and counting every value by
/// storage class. From those counts, once the whole dump has been checked (the gzip CRC included), comes the
/// plan (``DBBPostgresRestorePlan``), the very one ``plan(dumpAt:options:progress:)`` makes; a table whose
/// first rows did not show its types (a value further down needs another type) is created again and loaded
/// in a second pass (``DBBPostgresRestoreReport/reloadedTables``). Then the server hashes every row it holds
/// the same way (PostgreSQL 14 and later), and the sums are compared table by table; when a table's differ,
/// or the server cannot make them, the dump is read again and compared row by row, which names the first
/// difference (as ``compare(dumpAt:with:options:progress:)`` does). All of it runs
/// in one transaction: on any failure (a damaged dump, `strict`'s refusal, a difference) it is rolled back
/// and the server is left as it was. A connection that drops (a killed process) rolls back too.
///
/// The synchronous calls wait on the calling thread: call them from a thread or `DispatchQueue` of your own,
/// not inside a Swift concurrency task (they refuse, as ``DBBPostgresConnection``'s synchronous calls do).
public enum DBBPostgresRestore {
    /// What a restore is doing, for progress reports.
    public enum Phase: String, Sendable, Hashable {
        /// Reading the dump to check it and plan the types, before a plan or a comparison (a restore plans
        /// while it loads).
        case planning
        /// Loading the rows.
        case loading
        /// Comparing the server's rows with the dump.
        case verifying
    }

    /// A schema name for a dump: its file name up to the first dot (`chinook` for `chinook.json.gz`).
    ///
    /// - Parameter dumpURL: the dump.
    /// - Returns: the name, or `restored` when the file name starts with a dot.
    public static func defaultSchemaName(forDumpAt dumpURL: URL) -> String {
        let name = dumpURL.lastPathComponent.split(separator: ".", omittingEmptySubsequences: false).first ?? ""
        return name.isEmpty ? "restored" : String(name)
    }

    /// Reads a dump to its end and plans its restore, without a server.
    ///
    /// - Parameters:
    ///   - dumpURL: the dump.
    ///   - options: the schema, ``DBBPostgresRestoreOptions/strict`` and the longest value to read.
    ///   - progress: called on the calling thread as rows are read.
    /// - Returns: the plan.
    /// - Throws: `DBBExportError` for a missing, damaged, hostile or foreign dump, and, with `strict`, for a
    ///   column whose values cannot keep their storage class; `DBBError` when SQLite rejects the dump's schema.
    public static func plan(
        dumpAt dumpURL: URL, options: DBBPostgresRestoreOptions,
        progress: ((DBBExportProgress) -> Void)? = nil
    ) throws -> DBBPostgresRestorePlan {
        try makePlan(dumpURL, options: options, progress: progress)
    }

    static func makePlan(
        _ dumpURL: URL, options: DBBPostgresRestoreOptions, progress: ((DBBExportProgress) -> Void)?
    ) throws -> DBBPostgresRestorePlan {
        let consumer = PlanningConsumer()
        // On the calling thread: the consumer only counts storage classes, which costs less than a hand-over.
        let parser = DumpParser(dumpAt: dumpURL, maximumValueLength: options.maximumValueLength, progress: progress)
        let report = try parser.run(consumer)
        var planner = RestorePlanner(
            schema: options.schema, strict: options.strict, report: report, statistics: consumer.statistics,
            sequences: consumer.sequences)
        return try planner.makePlan()
    }

    /// Restores a dump into a schema of the connection's database, in one transaction.
    ///
    /// The tables are created in ``DBBPostgresRestoreOptions/schema`` (made when missing), the rows loaded with
    /// `COPY`, then the primary keys, indexes and foreign keys added (a foreign key with orphan rows is kept
    /// `NOT VALID` and its orphans reported), the identities set past the largest id and `sqlite_sequence`,
    /// and a metadata table written with the source's header values and the SQL of what was not translated.
    /// Then every row is compared with the dump (unless ``DBBPostgresRestoreOptions/verifies`` is false)
    /// before the commit.
    ///
    /// - Parameters:
    ///   - dumpURL: the dump.
    ///   - connection: an open connection, not in a transaction.
    ///   - options: the schema, whether to replace existing tables, `strict`, whether to verify.
    ///   - progress: called on the calling thread with the phase and where it stands.
    /// - Returns: the plan, what was read, the orphans found.
    /// - Throws: `DBBExportError` for a hostile or foreign dump (before the server is touched), a damaged one
    ///   (found while loading), with `strict`, for a column whose values cannot keep their storage class, or
    ///   (targetExists) when the schema has a table of the dump's and `replaceExisting` is false;
    ///   ``DBBPostgresRestoreMismatch`` when the server's rows differ from the dump; `DBBError` when the server
    ///   refuses a statement or a row. The transaction is rolled back on every error.
    @discardableResult
    public static func restore(
        dumpAt dumpURL: URL, into connection: DBBPostgresConnection, options: DBBPostgresRestoreOptions,
        progress: ((Phase, DBBExportProgress) -> Void)? = nil
    ) throws -> DBBPostgresRestoreReport {
        try DBBPostgresConnection.requireBlockingAllowed(context: "restoring a dump", sql: nil)
        // What is known before the rows: the header and the schema, checked through SQLite's authorizer.
        let head = try DumpParser(dumpAt: dumpURL, maximumValueLength: options.maximumValueLength).run(
            nil, stopAfterSchema: true)
        let speculation = RestorePlanner(
            schema: options.schema, strict: false, report: head, statistics: [:], sequences: [:])
        try speculation.requireSchemaName()
        let schemaDatabase = try DBBExport.schemaDatabase(for: head.schema)
        defer { try? schemaDatabase.close() }
        let names = head.header.tables.map(\.name).filter(RestorePlanner.restores)
        let writer = RestoreSchemaWriter(connection: connection, schema: options.schema)
        let loadProgress = progress.map { p in { p(.loading, $0) } }
        try connection.begin()
        var loader: LoadConsumer?
        do {
            try writer.prepareSchema(
                for: names + [RestorePlanner.metadataTableName(besides: names)], replacing: options.replaceExisting)
            let makesDigests = try options.verifies && RestoreDigest.isMade(by: connection)
            let load = LoadConsumer(
                writer: writer, tables: .speculating(speculation, schemaDatabase), makesDigests: makesDigests)
            loader = load
            // On the calling thread: the load's work on a value is less than a hand-over's to another thread.
            let report = try DumpParser(
                dumpAt: dumpURL, maximumValueLength: options.maximumValueLength, progress: loadProgress
            ).run(load)
            loader = nil
            // The plan a planning pass would have made: the same planner, from the same counts.
            var planner = RestorePlanner(
                schema: options.schema, strict: options.strict, report: report, statistics: load.statistics,
                sequences: load.sequences)
            let plan = try planner.makePlan(schemaDatabase: schemaDatabase)
            var digests = load.digests
            var reloaded: [String: DBBPostgresRestorePlan.Table] = [:]
            for table in plan.tables {
                if let created = load.created[table.name], !load.stopped.contains(table.name),
                    created.createsSameTable(as: table)
                {
                    continue
                }
                // Its first rows did not predict its types: it is loaded again, as planned.
                if load.created[table.name] != nil { try writer.dropTable(table.name) }
                try writer.createTable(table)
                digests[table.name] = nil
                reloaded[table.name] = table
            }
            if !reloaded.isEmpty {
                let reload = LoadConsumer(writer: writer, tables: .planned(reloaded), makesDigests: makesDigests)
                loader = reload
                _ = try DumpParser(
                    dumpAt: dumpURL, maximumValueLength: options.maximumValueLength, progress: loadProgress
                ).run(reload)
                loader = nil
                digests.merge(reload.digests) { _, new in new }
            }
            for table in plan.tables { try writer.restartIdentity(of: table) }
            try writer.addKeysAndIndexes(of: plan)
            let orphans = try writer.addForeignKeys(of: plan)
            try writer.writeMetadata(of: plan, report: report)
            if options.verifies {
                if let difference = try verify(
                    dumpURL, with: connection, plan: plan, digests: digests, options: options,
                    progress: progress.map { p in { p(.verifying, $0) } })
                {
                    throw DBBPostgresRestoreMismatch(difference: difference)
                }
            }
            try connection.commit()
            return DBBPostgresRestoreReport(
                plan: plan, dump: report, orphans: orphans, verified: options.verifies,
                reloadedTables: plan.tables.map(\.name).filter { reloaded[$0] != nil })
        } catch {
            loader?.abandon(error)
            try? connection.rollback()
            throw error
        }
    }

    /// Compares a dump with the tables a restore made from it, row by row in key order, and reports the first
    /// difference: integers exactly, doubles bit for bit, text and bytes byte for byte, each value as the plan
    /// stores it (``DBBPostgresRestorePlan``), and the row counts; `user_version` and `application_id` against
    /// the metadata table.
    ///
    /// - Parameters:
    ///   - dumpURL: the dump.
    ///   - connection: an open connection, not in a transaction (the comparison runs in a read-only one).
    ///   - options: the schema and `strict`, as the restore had them.
    ///   - progress: called on the calling thread with the phase and where it stands.
    /// - Returns: the first difference, or `nil` when the server holds exactly what the dump holds.
    /// - Throws: `DBBExportError` for a damaged or foreign dump; `DBBError` when the server cannot be read
    ///   (a missing table is SQLSTATE `42P01`).
    public static func compare(
        dumpAt dumpURL: URL, with connection: DBBPostgresConnection, options: DBBPostgresRestoreOptions,
        progress: ((Phase, DBBExportProgress) -> Void)? = nil
    ) throws -> DBBDumpDifference? {
        try DBBPostgresConnection.requireBlockingAllowed(context: "comparing a dump", sql: nil)
        let plan = try makePlan(dumpURL, options: options, progress: progress.map { p in { p(.planning, $0) } })
        try connection.begin(isolation: .repeatableRead, readOnly: true)
        defer { try? connection.rollback() }
        return try compare(
            dumpURL, with: connection, plan: plan, options: options,
            progress: progress.map { p in { p(.verifying, $0) } })
    }

    /// The restore's verification: each table's digest, which the server makes from the rows it holds, against
    /// the digest of the values the load sent (``RestoreDigest``), so the dump is not read a third time and the
    /// rows are not sent back. When a table's digests differ, or one could not be made (a server older than
    /// PostgreSQL 14), the dump is read again and compared row by row, which names the first difference (and
    /// decides: a digest made wrongly costs time, never a wrong answer).
    private static func verify(
        _ dumpURL: URL, with connection: DBBPostgresConnection, plan: DBBPostgresRestorePlan,
        digests: [String: RestoreDigest], options: DBBPostgresRestoreOptions,
        progress: ((DBBExportProgress) -> Void)?
    ) throws -> DBBDumpDifference? {
        let verifier = VerifyConsumer(connection: connection, plan: plan)
        if let difference = try verifier.compareMetadata() { return difference }
        let rowCount = plan.tables.reduce(0) { $0 + $1.rowCount }
        var rowsDone = 0
        for (index, table) in plan.tables.enumerated() {
            progress?(
                DBBExportProgress(
                    tablesDone: index, tableCount: plan.tables.count, rowsDone: rowsDone, rowCount: rowCount,
                    currentTable: table.name))
            guard let expected = digests[table.name], try verifier.serverDigest(of: table) == expected else {
                // The metadata matched above: the rows are read again, to name the first difference.
                return try compareRows(
                    dumpURL, verifier: VerifyConsumer(connection: connection, plan: plan), options: options,
                    progress: progress)
            }
            rowsDone += table.rowCount
        }
        progress?(
            DBBExportProgress(
                tablesDone: plan.tables.count, tableCount: plan.tables.count, rowsDone: rowsDone, rowCount: rowCount,
                currentTable: nil))
        return nil
    }

    private static func compare(
        _ dumpURL: URL, with connection: DBBPostgresConnection, plan: DBBPostgresRestorePlan,
        options: DBBPostgresRestoreOptions, progress: ((DBBExportProgress) -> Void)?
    ) throws -> DBBDumpDifference? {
        let verifier = VerifyConsumer(connection: connection, plan: plan)
        if let difference = try verifier.compareMetadata() { return difference }
        return try compareRows(dumpURL, verifier: verifier, options: options, progress: progress)
    }

    /// Compares every row of the dump with the server's, through `verifier`.
    private static func compareRows(
        _ dumpURL: URL, verifier: VerifyConsumer, options: DBBPostgresRestoreOptions,
        progress: ((DBBExportProgress) -> Void)?
    ) throws -> DBBDumpDifference? {
        do {
            _ = try ConcurrentDumpParser(
                dumpAt: dumpURL, maximumValueLength: options.maximumValueLength, progress: progress
            ).run(verifier)
        } catch let found as FoundDifference {
            try? verifier.closeCursor()
            return found.difference
        }
        return nil
    }
}

/// How ``DBBPostgresRestore`` restores.
///
/// `Sendable`: a value type of `Sendable` values.
public struct DBBPostgresRestoreOptions: Sendable, Equatable {
    /// The PostgreSQL schema to restore into; made when missing.
    public var schema: String
    /// Whether tables of the schema that have the names of the dump's tables are dropped (with what depends
    /// on them) and made again; when false, such a table makes the restore fail before it writes anything.
    public var replaceExisting: Bool
    /// Whether a column whose values cannot keep their storage class in one PostgreSQL type (numbers mixed
    /// with text, text with NUL or invalid UTF-8) is an error rather than a note of the plan.
    public var strict: Bool
    /// Whether the restore compares every row with the dump before it commits.
    public var verifies: Bool
    /// The longest string or BLOB read from the dump, in bytes; a longer one is refused while it streams in.
    public var maximumValueLength: Int

    /// Creates options.
    ///
    /// - Parameters:
    ///   - schema: the schema to restore into.
    ///   - replaceExisting: whether to replace tables of the dump's names that exist.
    ///   - strict: whether a column that cannot keep its values' storage classes is an error.
    ///   - verifies: whether to compare every row with the dump before committing.
    ///   - maximumValueLength: the longest value read, in bytes (64 MiB by default).
    public init(
        schema: String, replaceExisting: Bool = false, strict: Bool = false, verifies: Bool = true,
        maximumValueLength: Int = DBBExport.defaultMaximumValueLength
    ) {
        self.schema = schema
        self.replaceExisting = replaceExisting
        self.strict = strict
        self.verifies = verifies
        self.maximumValueLength = maximumValueLength
    }
}

/// What a restore did.
///
/// `Sendable`: a value type of `Sendable` values.
public struct DBBPostgresRestoreReport: Sendable, Equatable {
    /// The plan it followed, with its notes of what was not translated.
    public var plan: DBBPostgresRestorePlan
    /// What was read from the dump.
    public var dump: DBBDumpReport
    /// The foreign keys left `NOT VALID` because rows reference missing parents.
    public var orphans: [Orphans]
    /// Whether every row was compared with the dump.
    public var verified: Bool
    /// The tables loaded a second time, in plan order: their first rows did not show the types their values
    /// need (a column of reals that also holds an integer further down), so they were created again with the
    /// plan's types and loaded in a second pass over the dump.
    public var reloadedTables: [String] = []

    /// The rows of one foreign key whose parent row is missing.
    public struct Orphans: Sendable, Codable, Equatable, CustomStringConvertible {
        /// The constraint's name.
        public var foreignKey: String
        /// The referencing table.
        public var table: String
        /// How many rows reference a missing parent.
        public var count: Int
        /// The keys (rowids, or primary key values) of the first of them.
        public var rows: [String]

        /// The constraint, the table and the rows.
        public var description: String {
            "foreign key \(foreignKey) of \(table): \(count) row\(count == 1 ? "" : "s") reference a missing parent "
                + "(rowid \(rows.joined(separator: ", "))\(count > rows.count ? ", …" : "")); left NOT VALID"
        }
    }
}

/// Thrown by ``DBBPostgresRestore/restore(dumpAt:into:options:progress:)`` when the rows it loaded do not read
/// back as the dump holds them; the restore is rolled back.
public struct DBBPostgresRestoreMismatch: Error, Sendable, Equatable, CustomStringConvertible {
    /// The first difference.
    public var difference: DBBDumpDifference

    /// What differs and where.
    public var description: String {
        "the restored rows differ from the dump, so the restore was rolled back: \(difference)"
    }
}

/// Ends a comparison at its first difference.
struct FoundDifference: Error {
    var difference: DBBDumpDifference
}
