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
        help: "PostgreSQL: the schema to restore into (default: the dump's file name up to its first dot).")
    var schema: String?

    @Flag(
        name: .long,
        help: "PostgreSQL: refuse a column whose values cannot keep their storage class in one type.")
    var strict = false

    func options(dump: String, replace: Bool, verify: Bool, maximumValueLength: Int) -> DBBPostgresRestoreOptions {
        DBBPostgresRestoreOptions(
            schema: schema ?? DBBPostgresRestore.defaultSchemaName(forDumpAt: URL(fileURLWithPath: dump)),
            replaceExisting: replace, strict: strict, verifies: verify, maximumValueLength: maximumValueLength)
    }
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
    dump: String, url: String, options: DBBPostgresRestoreOptions, planOnly: Bool, quiet: Bool
) throws {
    guard dump != standardStreamName else {
        printToStandardError(
            DBBBackup._errorPrefix
                + "a restore into PostgreSQL reads the dump more than once (plan, load): give a file, not -")
        throw ExitCode(ExitStatus.usage)
    }
    let dumpURL = URL(fileURLWithPath: dump)
    if planOnly {
        let plan = try runReportingPostgresErrors { try DBBPostgresRestore.plan(dumpAt: dumpURL, options: options) }
        printJSON(plan)
        return
    }
    let bar = PhasedProgress(quiet: quiet)
    let report = try runReportingPostgresErrors {
        let connection = try connectPostgres(url)
        defer { try? connection.close() }
        return try DBBPostgresRestore.restore(
            dumpAt: dumpURL, into: connection, options: options, progress: bar.update)
    }
    bar.finish()
    guard !quiet else { return }
    for note in report.plan.notes { printLine("note: \(note)") }
    for orphans in report.orphans { printLine("orphans: \(orphans)") }
    printLine(
        "restored \(report.dump.totalRows) rows of \(report.plan.tables.count) tables into schema "
            + "\(options.schema)\(report.verified ? ", verified row for row" : " (not verified)")")
}

/// `verify DUMP --against postgres://…`.
func verifyAgainstPostgres(dump: String, url: String, options: DBBPostgresRestoreOptions, json: Bool, quiet: Bool)
    throws
{
    guard dump != standardStreamName else {
        printToStandardError(
            DBBBackup._errorPrefix + "a comparison with PostgreSQL reads the dump twice: give a file, not -")
        throw ExitCode(ExitStatus.usage)
    }
    let bar = PhasedProgress(quiet: quiet || json)
    let difference = try runReportingPostgresErrors(json: json) {
        let connection = try connectPostgres(url)
        defer { try? connection.close() }
        return try DBBPostgresRestore.compare(
            dumpAt: URL(fileURLWithPath: dump), with: connection, options: options, progress: bar.update)
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
