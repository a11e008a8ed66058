import ArgumentParser
import DBBExport
import DBBSQL
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// Exit codes, after BSD's sysexits.h.
enum ExitStatus {
    static let difference: Int32 = 1
    static let usage: Int32 = 64
    static let dataError: Int32 = 65
    static let noInput: Int32 = 66
    static let software: Int32 = 70
    static let cannotCreate: Int32 = 73
    static let ioError: Int32 = 74
}

/// Runs an operation; on failure prints the error (as text on stderr, or as JSON on stdout) and exits
/// with the code for its kind.
func runReportingErrors<T>(json: Bool = false, _ body: () throws -> T) throws -> T {
    do {
        return try body()
    } catch let error as DBBExportError {
        let worded = toolWording(error)
        report(worded.description, details: ErrorOutput(worded), json: json)
        throw ExitCode(exitCode(for: error))
    } catch let error as DBBError {
        report(toolWording(error), details: ErrorOutput(error), json: json)
        // A misuse is what the tool was given: a URL that is not one, a flag that does not apply.
        if error.kind == .misuse { throw ExitCode(ExitStatus.usage) }
        switch error.resultCode {
        // A row of the dump that breaks its table's constraints is bad data, as a damaged source is.
        case .notADatabase, .corrupt, .constraint: throw ExitCode(ExitStatus.dataError)
        case .cannotOpen: throw ExitCode(ExitStatus.noInput)
        case .ioError, .full: throw ExitCode(ExitStatus.ioError)
        default: throw ExitCode(ExitStatus.software)
        }
    }
}

func exitCode(for error: DBBExportError) -> Int32 {
    switch error.kind {
    case .truncated, .corruptCompression, .notADump, .unsupportedVersion, .malformed, .valueTooLong:
        ExitStatus.dataError
    case .targetExists: ExitStatus.cannotCreate
    case .unknownTable: ExitStatus.usage
    case .missingInput: ExitStatus.noInput
    case .io: ExitStatus.ioError
    }
}

/// The library's error in the tool's words: the library speaks of its options, the tool of its flags.
func toolWording(_ error: DBBExportError) -> DBBExportError {
    var worded = error
    if error.kind == .targetExists { worded.message = "the target file exists; pass --force to replace it" }
    worded.message = flagWording(worded.message)
    return worded
}

/// SQLite's error in the tool's words: what failed and what was being done, without the library's SQL.
func toolWording(_ error: DBBError) -> String {
    flagWording(error.context.map { "\(error.message) (while \($0))" } ?? error.message)
}

/// The library's names of its options in a message, as the tool's flags.
private func flagWording(_ message: String) -> String {
    var message = message
    for (option, flag) in [
        ("maximumValueLength in the options", "--max-value-size"),
        ("DBBDumpOptions.maximumValueLength", "--max-value-size"),
        ("DBBDumpOptions.allowsDamaged", "--allow-damaged"),
        ("DBBDumpOptions.checksIntegrity", "--check"),
    ] {
        message = message.replacingOccurrences(of: option, with: flag)
    }
    return message
}

private func report(_ message: String, details: ErrorOutput, json: Bool) {
    if json {
        printJSON(FailureOutput(ok: false, error: details))
    } else {
        printToStandardError(DBBBackup._errorPrefix + message)
    }
}

/// Prints a line on standard error, with any password (`user:password@`) shown as `***`.
func printToStandardError(_ line: String) {
    FileHandle.standardError.write(Data((DBBRedaction.redactingPasswords(in: line) + "\n").utf8))
}

/// Prints a line on standard output, with any password (`user:password@`) shown as `***`: every line the tool
/// prints goes through here or ``printToStandardError(_:)``, since paths and URLs given to it may hold one.
func printLine(_ line: String) {
    print(DBBRedaction.redactingPasswords(in: line))
}

func printJSON(_ value: some Encodable) {
    let encoder = JSONEncoder()
    encoder.outputFormatting = [.prettyPrinted, .sortedKeys, .withoutEscapingSlashes]
    guard let data = try? encoder.encode(value) else { return }
    printLine(String(decoding: data, as: UTF8.self))
}

func formatBytes(_ bytes: Int64) -> String {
    if bytes < 1024 { return "\(bytes) B" }
    if bytes < 1024 * 1024 { return String(format: "%.1f KiB", Double(bytes) / 1024) }
    return String(format: "%.1f MiB", Double(bytes) / 1_048_576)
}

// MARK: JSON output

struct ErrorOutput: Encodable {
    var kind: String
    var message: String
    var path: String?
    var table: String?
    var row: Int?
    var column: String?
    var byteOffset: Int64?
    var compressedOffset: Int64?
    /// SQLite's extended result code, for an error SQLite reported.
    var sqliteCode: Int32?
    /// The server's SQLSTATE, for an error the PostgreSQL server reported.
    var sqlState: String?

    init(_ error: DBBExportError) {
        kind = error.kind.rawValue
        message = error.message
        path = error.path
        table = error.table
        row = error.row
        column = error.column
        byteOffset = error.byteOffset
        compressedOffset = error.compressedOffset
    }

    init(_ error: DBBError) {
        switch error.kind {
        case .sqlite:
            kind = "sqlite"
            sqliteCode = error.extendedCode
        case .server:
            kind = "server"
            sqlState = error.sqlState
        case .misuse: kind = "misuse"
        case .rowDeleted: kind = "rowDeleted"
        default: kind = "library"
        }
        message = toolWording(error)
    }
}

struct FailureOutput: Encodable {
    var ok: Bool
    var error: ErrorOutput
}

// The JSON output names things as the dump format does (Docs/DumpFormat.md).

/// A table: a header entry (`name`, `rowCount`), or a table section with its `columns` and `rowid`.
struct TableOutput: Encodable {
    var name: String
    var columns: [String]?
    var rowid: Bool?
    var rowCount: Int
}

/// The dump's `header` object, member for member.
struct HeaderOutput: Encodable {
    var sqliteVersion: String
    var userVersion: Int32
    var applicationId: Int32
    var pageSize: Int
    var encoding: String
    var autoVacuum: Int
    var created: String
    var partial: Bool
    var totalRows: Int
    var tables: [TableOutput]
    /// What was wrong with the source of a dump of a damaged database; absent otherwise.
    var damage: [String]?
    /// The server a dump of another engine was read from; absent for an SQLite file.
    var source: SourceOutput?
    /// How columns of another engine were written; absent for an SQLite file.
    var conversions: [ConversionOutput]?
    /// What a dump of another engine keeps as text only; absent for an SQLite file.
    var sourceObjects: [SourceObjectOutput]?

    struct SourceOutput: Encodable {
        var engine: String
        var version: String
        var database: String
        var schema: String?
    }

    struct ConversionOutput: Encodable {
        var table: String
        var column: String
        var sourceType: String
        var storedAs: String
        var note: String
    }

    struct SourceObjectOutput: Encodable {
        var type: String
        var name: String
        var sql: String
    }

    init(_ header: DBBDumpHeader) {
        sqliteVersion = header.sqliteVersion
        userVersion = header.userVersion
        applicationId = header.applicationID
        pageSize = header.pageSize
        encoding = header.encoding
        autoVacuum = header.autoVacuum
        created = header.created
        partial = header.isPartial
        totalRows = header.totalRows
        tables = header.tables.map { TableOutput(name: $0.name, rowCount: $0.rowCount) }
        damage = header.damage.isEmpty ? nil : header.damage
        source = header.source.map {
            SourceOutput(engine: $0.engine, version: $0.version, database: $0.database, schema: $0.schema)
        }
        conversions =
            header.conversions.isEmpty
            ? nil
            : header.conversions.map {
                ConversionOutput(
                    table: $0.table, column: $0.column, sourceType: $0.sourceType, storedAs: $0.storedAs, note: $0.note)
            }
        sourceObjects =
            header.sourceObjects.isEmpty
            ? nil : header.sourceObjects.map { SourceObjectOutput(type: $0.type, name: $0.name, sql: $0.sql) }
    }
}

/// A `schema` entry: an `sqlite_master` row.
struct SchemaOutput: Encodable {
    var type: String
    var name: String
    var tableName: String
    var sql: String?

    enum CodingKeys: String, CodingKey {
        case type, name, sql
        case tableName = "tbl_name"
    }
}

struct InspectOutput: Encodable {
    var ok = true
    var format = DBBExport.formatName
    var version: Int
    var header: HeaderOutput
    var schema: [SchemaOutput]
    var tables: [TableOutput]
    var totalRows: Int

    init(_ report: DBBDumpReport) {
        version = report.header.formatVersion
        header = HeaderOutput(report.header)
        schema = report.schema.map { SchemaOutput(type: $0.type, name: $0.name, tableName: $0.tableName, sql: $0.sql) }
        tables = header.tables
        totalRows = report.totalRows
    }
}

struct DifferenceOutput: Encodable {
    var table: String?
    var row: Int?
    var column: String?
    var message: String
}

struct VerifyOutput: Encodable {
    var ok: Bool
    var format = DBBExport.formatName
    var version: Int
    var header: HeaderOutput
    var tables: [TableOutput]
    var totalRows: Int
    var jsonBytes: Int64
    var compressedBytes: Int64
    var comparedWith: String?
    var identical: Bool?
    var difference: DifferenceOutput?

    init(report: DBBDumpReport, compared: String?, difference: DBBDumpDifference?) {
        ok = difference == nil
        version = report.header.formatVersion
        header = HeaderOutput(report.header)
        tables = report.tables.map {
            TableOutput(name: $0.name, columns: $0.columns, rowid: $0.hasRowID, rowCount: $0.rowCount)
        }
        totalRows = report.totalRows
        jsonBytes = report.jsonBytes
        compressedBytes = report.compressedBytes
        comparedWith = compared
        identical = compared == nil ? nil : difference == nil
        self.difference = difference.map {
            DifferenceOutput(table: $0.table, row: $0.row, column: $0.column, message: $0.message)
        }
    }
}

// MARK: Progress

/// A one-line progress bar on stderr, drawn only when stderr is a terminal.
final class ProgressBar {
    private let enabled: Bool
    private let verb: String
    private var lastDraw: UInt64 = 0
    private var drawn = false

    init(enabled: Bool, verb: String) {
        self.enabled = enabled && isatty(STDERR_FILENO) == 1
        self.verb = verb
    }

    func update(_ progress: DBBExportProgress) {
        guard enabled else { return }
        let now = DispatchTime.now().uptimeNanoseconds
        guard now - lastDraw > 100_000_000 || progress.rowsDone == progress.rowCount else { return }
        lastDraw = now
        let width = 30
        let filled = Int(progress.fractionDone * Double(width))
        let bar = String(repeating: "=", count: filled) + String(repeating: " ", count: width - filled)
        let table = progress.currentTable.map { "  \($0)" } ?? ""
        let line =
            "\r\(verb) [\(bar)] \(Int(progress.fractionDone * 100))%  \(progress.rowsDone)/\(progress.rowCount) rows  "
            + "\(progress.tablesDone)/\(progress.tableCount) tables\(table)"
        FileHandle.standardError.write(Data((line.prefix(160) + "\u{1B}[K").utf8))
        drawn = true
    }

    func finish() {
        if drawn { FileHandle.standardError.write(Data("\r\u{1B}[K".utf8)) }
    }
}
