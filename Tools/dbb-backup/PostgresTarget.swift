import ArgumentParser
import DBBExport
import DBBPostgres
import DBBSQL
import Foundation

/// Whether a target names a PostgreSQL server rather than a database file.
func isPostgresURL(_ target: String) -> Bool {
    target.hasPrefix("postgres://") || target.hasPrefix("postgresql://")
}

/// The flags of a restore into PostgreSQL (and of a verification against one).
struct PostgresOptions: ParsableArguments {
    @Option(
        name: .long,
        help: """
            PostgreSQL: the schema to restore into or compare with (default: the one a manager opened with the \
            URL works in: the URL's options=-csearch_path%3DNAME, else the server's current schema, usually public).
            """)
    var schema: String?

    @Flag(
        name: .long,
        help: """
            PostgreSQL: restore: refuse a column whose values cannot keep their storage class in one type; \
            dump: refuse a column whose type has no mapping to SQLite, or a numeric no double holds.
            """)
    var strict = false

    func options(schema: String, replace: Bool, verify: Bool, maximumValueLength: Int) -> DBBPostgresRestoreOptions {
        DBBPostgresRestoreOptions(
            schema: schema, replaceExisting: replace, strict: strict, verifies: verify,
            maximumValueLength: maximumValueLength)
    }

    /// The schema a restore or comparison works in: `--schema`, else the one `DBBManager(postgres:)` opened with
    /// the URL works in, the URL's own (`options=-csearch_path%3DNAME`) or else the server's current schema for
    /// the URL's role and database; a plan, made without connecting, names `public` then.
    func targetSchema(url: String, connection: DBBPostgresConnection?) throws -> String {
        if let schema { return schema }
        if let configured = try DBBPostgresConfiguration(url: url).schema { return configured }
        guard let connection else { return "public" }
        return try defaultSchema(of: connection)
    }
}

/// The schema a connection made without a schema works in: the first schema of its search path that exists.
func defaultSchema(of connection: DBBPostgresConnection) throws -> String {
    guard case .text(let name)? = try connection.fetchAll("SELECT current_schema()").first?.first else {
        throw DBBError.misuse(
            "the server's search_path for this role names no schema that exists",
            recovery: "pass --schema NAME, or add options=-csearch_path%3DNAME to the URL")
    }
    return name
}

/// Runs a PostgreSQL operation, printing its errors as the tool prints the others: a mismatch exits with
/// status 1, a server's error with 70 (its SQLSTATE in the message).
func runReportingPostgresErrors<T>(json: Bool = false, _ body: () throws -> T) throws -> T {
    try runReportingErrors(json: json) {
        do {
            return try body()
        } catch let mismatch as DBBPostgresRestoreMismatch {
            if json {
                printJSON(
                    FailureOutput(
                        ok: false, error: ErrorOutput(DBBExportError(.malformed, mismatch.description))))
            } else {
                printToStandardError(DBBBackup._errorPrefix + mismatch.description)
            }
            throw ExitCode(ExitStatus.difference)
        } catch var error as DBBExportError where error.kind == .targetExists {
            error.message = error.message.replacingOccurrences(
                of: "or replace them", with: "or pass --force to replace them")
            printToStandardError(DBBBackup._errorPrefix + error.description)
            throw ExitCode(exitCode(for: error))
        } catch let error as DBBError where error.sqlState != nil {
            var message = toolWording(error)
            if let state = error.sqlState { message += " [SQLSTATE \(state)]" }
            printToStandardError(DBBBackup._errorPrefix + message)
            throw ExitCode(ExitStatus.software)
        }
    }
}

/// The connection a PostgreSQL URL names.
func connectPostgres(_ url: String) throws -> DBBPostgresConnection {
    try DBBPostgresConnection.connect(try DBBPostgresConfiguration(url: url))
}

/// `restore DUMP postgres://…`.
func restoreIntoPostgres(
    dump: String, url: String, flags: PostgresOptions, replace: Bool, verify: Bool, maximumValueLength: Int,
    planOnly: Bool, quiet: Bool
) throws {
    func options(_ schema: String) -> DBBPostgresRestoreOptions {
        flags.options(schema: schema, replace: replace, verify: verify, maximumValueLength: maximumValueLength)
    }
    guard dump != standardStreamName else {
        printToStandardError(
            DBBBackup._errorPrefix
                + "a restore into PostgreSQL reads the dump more than once (plan, load): give a file, not -")
        throw ExitCode(ExitStatus.usage)
    }
    let dumpURL = URL(fileURLWithPath: dump)
    if planOnly {
        let plan = try runReportingPostgresErrors {
            try DBBPostgresRestore.plan(
                dumpAt: dumpURL, options: options(try flags.targetSchema(url: url, connection: nil)))
        }
        printJSON(plan)
        return
    }
    let bar = PhasedProgress(quiet: quiet)
    let (report, schema, managersSchema) = try runReportingPostgresErrors {
        let connection = try connectPostgres(url)
        defer { try? connection.close() }
        let schema = try flags.targetSchema(url: url, connection: connection)
        let managersSchema = try DBBPostgresConfiguration(url: url).schema ?? defaultSchema(of: connection)
        let report = try DBBPostgresRestore.restore(
            dumpAt: dumpURL, into: connection, options: options(schema), progress: bar.update)
        return (report, schema, managersSchema)
    }
    bar.finish()
    guard !quiet else { return }
    for note in report.plan.notes { printLine("note: \(note)") }
    for orphans in report.orphans { printLine("orphans: \(orphans)") }
    var configuration = try DBBPostgresConfiguration(url: url)
    configuration.schema = nil
    printLine(
        "restored \(report.dump.totalRows) rows of \(report.plan.tables.count) tables into schema \(schema) of "
            + "\(configuration.redactedURL)\(report.verified ? ", verified row for row" : " (not verified)")")
    if schema == managersSchema {
        printLine("DBBManager(postgres:) opened with this URL works in schema \(schema) and finds them there.")
    } else {
        configuration.schema = schema
        printLine(
            "note: DBBManager(postgres:) opened with this URL works in schema \(managersSchema) and does not see them; "
                + "open them with schema: \"\(schema)\" in DBBPostgresConfiguration, or the URL "
                + configuration.redactedURL)
    }
}

/// `dump postgres://… OUTPUT`.
func dumpPostgres(
    url: String, output: String?, flags: PostgresOptions, level: Int, force: Bool, maximumValueLength: Int,
    quiet: Bool
) throws {
    let configuration = try runReportingPostgresErrors { try DBBPostgresConfiguration(url: url) }
    let target = output ?? (configuration.database ?? configuration.username) + ".json.gz"
    let toStandardOutput = target == standardStreamName
    let bar = ProgressBar(enabled: !quiet, verb: "dumping")
    let (report, schema) = try runReportingPostgresErrors {
        let connection = try connectPostgres(url)
        defer { try? connection.close() }
        let schema = try flags.targetSchema(url: url, connection: connection)
        let options = DBBPostgresDumpOptions(
            schema: schema, strict: flags.strict, compressionLevel: level, replaceExisting: force,
            maximumValueLength: maximumValueLength)
        let report =
            toStandardOutput
            ? try DBBPostgresDump.dump(
                from: connection, writingTo: FileHandle.standardOutput, options: options, progress: bar.update)
            : try DBBPostgresDump.dump(
                from: connection, to: URL(fileURLWithPath: target), options: options, progress: bar.update)
        return (report, schema)
    }
    bar.finish()
    guard !quiet else { return }
    // Standard output carries the dump itself.
    func say(_ line: String) {
        if toStandardOutput { printToStandardError(line) } else { printLine(line) }
    }
    for conversion in report.header.conversions { say("note: \(conversion)") }
    for object in report.header.sourceObjects {
        say("note: \(object) kept as text in the dump's header; no restore runs it")
    }
    var shown = configuration
    shown.schema = nil
    let destination = toStandardOutput ? "standard output" : target
    let sizes = "\(formatBytes(report.jsonBytes)) of JSON, \(formatBytes(report.compressedBytes)) compressed"
    say(
        "dumped \(report.totalRows) rows of \(report.tables.count) tables of schema \(schema) of "
            + "\(shown.redactedURL) to \(destination) (\(sizes))")
}

/// `verify DUMP --against postgres://…`.
func verifyAgainstPostgres(
    dump: String, url: String, flags: PostgresOptions, maximumValueLength: Int, json: Bool, quiet: Bool
) throws {
    guard dump != standardStreamName else {
        printToStandardError(
            DBBBackup._errorPrefix + "a comparison with PostgreSQL reads the dump twice: give a file, not -")
        throw ExitCode(ExitStatus.usage)
    }
    let bar = PhasedProgress(quiet: quiet || json)
    let (difference, options) = try runReportingPostgresErrors(json: json) {
        let connection = try connectPostgres(url)
        defer { try? connection.close() }
        let options = flags.options(
            schema: try flags.targetSchema(url: url, connection: connection), replace: false, verify: true,
            maximumValueLength: maximumValueLength)
        let dumpURL = URL(fileURLWithPath: dump)
        // A dump of PostgreSQL is compared with a schema that no restore made (its source) as it was read; any
        // other pair as a restore made the schema from the dump.
        if try DBBExport.inspect(dumpAt: dumpURL).header.source != nil,
            try !holdsRestoreMetadata(options.schema, connection)
        {
            let difference = try DBBPostgresDump.compare(
                dumpAt: dumpURL, with: connection, schema: options.schema, maximumValueLength: maximumValueLength,
                progress: { bar.update(.verifying, $0) })
            return (difference, options)
        }
        let difference = try DBBPostgresRestore.compare(
            dumpAt: dumpURL, with: connection, options: options, progress: bar.update)
        return (difference, options)
    }
    bar.finish()
    if json {
        printJSON(
            PostgresVerifyOutput(
                ok: true, schema: options.schema, identical: difference == nil,
                difference: difference.map {
                    DifferenceOutput(table: $0.table, row: $0.row, column: $0.column, message: $0.message)
                }))
    } else if !quiet {
        if let difference {
            printLine("different from schema \(options.schema): \(difference)")
        } else {
            printLine("identical to schema \(options.schema)")
        }
    }
    if difference != nil { throw ExitCode(ExitStatus.difference) }
}

/// Whether a schema holds the metadata table a restore of a dump writes.
func holdsRestoreMetadata(_ schema: String, _ connection: DBBPostgresConnection) throws -> Bool {
    try !connection.fetchAll(
        "SELECT 1 FROM pg_class c JOIN pg_namespace n ON n.oid = c.relnamespace WHERE n.nspname = $1 "
            + "AND c.relkind = 'r' AND c.relname::text LIKE 'dbb\\_sqlite\\_metadata%'", [.text(schema)]
    ).isEmpty
}

struct PostgresVerifyOutput: Encodable {
    var ok: Bool
    var schema: String
    var identical: Bool
    var difference: DifferenceOutput?
}

/// A progress bar per phase of a restore.
final class PhasedProgress {
    private let quiet: Bool
    private var phase: DBBPostgresRestore.Phase?
    private var bar: ProgressBar?

    init(quiet: Bool) {
        self.quiet = quiet
    }

    func update(_ phase: DBBPostgresRestore.Phase, _ progress: DBBExportProgress) {
        if phase != self.phase {
            bar?.finish()
            bar = ProgressBar(enabled: !quiet, verb: phase.rawValue)
            self.phase = phase
        }
        bar?.update(progress)
    }

    func finish() {
        bar?.finish()
    }
}
