import ArgumentParser
import DBBExport
import DBBSQL
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

/// `dbb-backup`: dump any SQLite database to compressed JSON, restore it, inspect and verify dumps.
@main
struct DBBBackup: ParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dbb-backup",
        abstract: "Back up any SQLite database to gzip-compressed JSON and restore it exactly, also into PostgreSQL.",
        discussion: """
            A dump named - is read from standard input or written to standard output, so dumps pipe: \
            dbb-backup dump app.sqlite - | ssh host dbb-backup restore - app.sqlite

            Exit codes: 0 success; 1 verify --against found a difference (or a restore into PostgreSQL read back \
            different rows, and rolled back); 64 usage error or unknown table; \
            65 the dump is damaged, not a dump, or of a newer format, a row breaks its table's constraints, or a \
            value is longer than --max-value-size (or the input is not a database, or a damaged one); \
            66 an input file is missing or cannot be reached or opened; 70 SQLite or the PostgreSQL server failed; \
            73 the target exists \
            (use --force); 74 an I/O error, a full disk, or a target that cannot be written.
            """,
        version: DBBPackage.version,
        subcommands: [Dump.self, Restore.self, Inspect.self, Verify.self]
    )

    /// Every error the tool prints starts so, its own and the argument parser's alike (the parser's
    /// experimental hook for its "Error: " prefix; `BackupToolMessageTests` keeps it honest).
    static let _errorPrefix = "dbb-backup: error: "

    /// Runs the command; a mistyped subcommand (`dumb`) is answered with the one meant.
    static func main() {
        if let first = CommandLine.arguments.dropFirst().first, let meant = subcommand(near: first) {
            printToStandardError(_errorPrefix + "unknown subcommand '\(first)'; did you mean '\(meant)'?")
            printToStandardError(usageString())
            Self.exit(withError: ExitCode(64))
        }
        do {
            var command = try parseAsRoot()
            try command.run()
        } catch {
            // The parser's messages quote the arguments, which may hold a password: they are printed through
            // the tool's own printing, which hides it. Help and the version go to standard output.
            let message = Self.fullMessage(for: error)
            let status = Self.exitCode(for: error)
            if !message.isEmpty {
                if status == .success { printLine(message) } else { printToStandardError(message) }
            }
            Self.exit(withError: ExitCode(status.rawValue))
        }
    }

    /// The subcommand a word is one or two edits away from, when it is not one itself.
    static func subcommand(near word: String) -> String? {
        let names = configuration.subcommands.map { $0._commandName } + ["help"]
        guard word.count >= 3, !word.hasPrefix("-"), !names.contains(word) else { return nil }
        return names.map { ($0, editDistance(word.lowercased(), $0)) }.filter { $0.1 <= 2 }.min { $0.1 < $1.1 }?.0
    }

    /// The Levenshtein distance between two short words.
    static func editDistance(_ a: String, _ b: String) -> Int {
        let b = Array(b)
        // previous[j]: the distance between the part of `a` read so far and the first j characters of `b`.
        var previous = Array(0...b.count)
        for (i, character) in a.enumerated() {
            var current = [i + 1]
            for j in b.indices {
                current.append(min(previous[j + 1] + 1, current[j] + 1, previous[j] + (character == b[j] ? 0 : 1)))
            }
            previous = current
        }
        return previous[b.count]
    }
}

/// The name that stands for standard input or standard output in place of a dump file.
let standardStreamName = "-"

/// Refuses `-` for a stream that is a terminal, as gzip does: compressed bytes on a terminal help nobody,
/// and waiting for them to be typed neither.
///
/// - Parameters:
///   - name: the dump's name as given.
///   - descriptor: the standard stream `-` stands for.
func refuseTerminal(_ name: String?, _ descriptor: Int32) throws {
    guard name == standardStreamName, isatty(descriptor) == 1 else { return }
    let (verb, stream) =
        descriptor == STDIN_FILENO
        ? ("read a compressed dump from", "standard input") : ("write a compressed dump to", "standard output")
    throw ValidationError("refusing to \(verb) a terminal; redirect \(stream).")
}

/// Warns, on standard error, that a dump holds what could be read of a damaged database.
///
/// - Parameters:
///   - damage: the header's record of the damage; nothing is printed when it is empty.
///   - verb: "dumped" when the dump was just written, "written" when it is read.
func printDamage(_ damage: [String], verb: String) {
    guard !damage.isEmpty else { return }
    printToStandardError(
        "dbb-backup: warning: the dump was \(verb) from a damaged database and holds what could be read of it:")
    for line in damage { printToStandardError("  \(line)") }
}

/// Options every subcommand that takes a while shares.
struct OutputOptions: ParsableArguments {
    @Flag(name: .shortAndLong, help: "Print nothing but errors: no progress bar, no summary.")
    var quiet = false
}

/// A size in bytes, written as a number with an optional K, M or G (powers of 1024): `1048576`, `64M`.
struct ByteSize: ExpressibleByArgument {
    var bytes: Int

    init?(argument: String) {
        let units: [Character: Int] = ["K": 1 << 10, "M": 1 << 20, "G": 1 << 30]
        var digits = argument.uppercased()
        var unit = 1
        if let last = digits.last, let multiplier = units[last] {
            unit = multiplier
            digits.removeLast()
        }
        guard let number = Int(digits), number > 0 else { return nil }
        let (product, overflow) = number.multipliedReportingOverflow(by: unit)
        guard !overflow else { return nil }
        bytes = product
    }
}

/// The limit on one value, which bounds the memory a dump, restore or verify takes.
struct ValueSizeOptions: ParsableArguments {
    @Option(
        name: .customLong("max-value-size"),
        help: ArgumentHelp(
            "The longest string or BLOB to accept, in bytes or with K, M or G (default 64M).",
            discussion: "A dump, restore or verify holds about three copies of its longest value at once. "
                + "A dump written with a larger limit needs it to be restored and verified."))
    var maxValueSize: ByteSize?

    /// The limit in bytes.
    var bytes: Int { maxValueSize?.bytes ?? DBBExport.defaultMaximumValueLength }
}

extension DBBBackup {
    struct Dump: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Dump a database, SQLite or PostgreSQL, to a .json.gz file.",
            discussion: """
                The database is read in one transaction, so the dump is a consistent snapshot.

                With a postgres://user@host:port/database source, every table of --schema (by default the \
                schema DBBManager(postgres:) opened with the URL works in, usually public) is dumped in one \
                REPEATABLE READ snapshot, in the same format: the dump restores into an SQLite file or into \
                PostgreSQL. Each column whose type SQLite lacks is named with its conversion (note: lines); \
                views, functions, triggers, sequences and extensions are kept as text in the header. --strict \
                refuses a type with no mapping.
                """)

        @Argument(help: "The SQLite database to back up, or a postgres:// URL.")
        var database: String

        @Argument(
            help:
                "The dump file to write, or - for standard output. Default: the database's name with .json.gz appended."
        )
        var output: String?

        @Option(name: [.customShort("t"), .long], help: "Dump only this table or view (repeat for several).")
        var table: [String] = []

        @Option(name: .shortAndLong, help: "The gzip compression level, 0 (none) to 9 (smallest).")
        var level = 6

        @Flag(name: .shortAndLong, help: "Replace the output file if it exists.")
        var force = false

        @Flag(
            name: .long,
            help: "Run PRAGMA integrity_check on the database first, and refuse it if it fails (exit code 65).")
        var check = false

        @Flag(
            name: .long,
            help: ArgumentHelp(
                "Dump a damaged database anyway: what can be read and restored, with a warning.",
                discussion: "Rows a restore would refuse are left out, and the dump's header records the damage."))
        var allowDamaged = false

        @OptionGroup var postgres: PostgresOptions

        @OptionGroup var valueSize: ValueSizeOptions

        @OptionGroup var outputOptions: OutputOptions

        func validate() throws {
            guard (0...9).contains(level) else { throw ValidationError("--level must be between 0 and 9.") }
            try refuseTerminal(output, STDOUT_FILENO)
        }

        func run() throws {
            if isPostgresURL(database) {
                guard table.isEmpty, !check, !allowDamaged else {
                    throw ValidationError("--table, --check and --allow-damaged apply to an SQLite database only")
                }
                try dumpPostgres(
                    url: database, output: output, flags: postgres, level: level, force: force,
                    maximumValueLength: valueSize.bytes, quiet: outputOptions.quiet)
                return
            }
            if postgres.schema != nil || postgres.strict {
                throw ValidationError("--schema and --strict apply to a postgres:// source or target only")
            }
            let target = output ?? database + ".json.gz"
            let toStandardOutput = target == standardStreamName
            let bar = ProgressBar(enabled: !outputOptions.quiet, verb: "dumping")
            var options = DBBDumpOptions(
                tables: table.isEmpty ? nil : table, compressionLevel: level, replaceExisting: force)
            options.maximumValueLength = valueSize.bytes
            options.checksIntegrity = check
            options.allowsDamaged = allowDamaged
            let databaseURL = URL(fileURLWithPath: database)
            let report = try runReportingErrors {
                if toStandardOutput {
                    try DBBExport.dump(
                        databaseAt: databaseURL, writingTo: FileHandle.standardOutput, options: options,
                        progress: bar.update)
                } else {
                    try DBBExport.dump(
                        databaseAt: databaseURL, to: URL(fileURLWithPath: target), options: options,
                        progress: bar.update)
                }
            }
            bar.finish()
            // A warning is printed even with --quiet: the dump is not the whole database.
            printDamage(report.header.damage, verb: "dumped")
            if !outputOptions.quiet {
                let summary =
                    "dumped \(report.totalRows) rows of \(report.tables.count) tables to "
                    + "\(toStandardOutput ? "standard output" : target) "
                    + "(\(formatBytes(report.jsonBytes)) of JSON, \(formatBytes(report.compressedBytes)) compressed)"
                // Standard output carries the dump itself.
                if toStandardOutput { printToStandardError(summary) } else { printLine(summary) }
            }
        }
    }

    struct Restore: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Restore a dump into a new database file, or into PostgreSQL.",
            discussion: """
                The database is built in a temporary file beside the target and moved into place only when \
                the whole dump has been read and checked; on failure the target is left as it was.

                With a postgres://user@host:port/database target, the dump is loaded with COPY into --schema \
                (by default the schema DBBManager(postgres:) opened with the URL works in, usually public) \
                in one transaction, each column's type planned from its values (a table whose first rows do \
                not show its types is loaded again), and compared row for row with what was loaded before \
                the commit (the dump is read again only to name a difference); any failure rolls it all back. \
                --plan prints the plan as JSON without connecting.
                """)

        @Argument(help: "The dump file to read, or - for standard input.")
        var dump: String

        @Argument(help: "The database file to create, or a postgres:// URL.")
        var database: String

        @Flag(
            name: .shortAndLong,
            help: "Replace the database file if it exists (PostgreSQL: the schema's tables of the dump's names).")
        var force = false

        @OptionGroup var postgres: PostgresOptions

        @Flag(name: .long, help: "PostgreSQL: print the type plan as JSON and write nothing.")
        var plan = false

        @Flag(name: .customLong("no-verify"), help: "PostgreSQL: skip the row-for-row comparison before the commit.")
        var noVerify = false

        @Flag(name: .long, help: "Run PRAGMA integrity_check on the new database before moving it into place.")
        var checkIntegrity = false

        @OptionGroup var valueSize: ValueSizeOptions

        @OptionGroup var outputOptions: OutputOptions

        func validate() throws {
            try refuseTerminal(dump, STDIN_FILENO)
        }

        func run() throws {
            if isPostgresURL(database) {
                try restoreIntoPostgres(
                    dump: dump, url: database, flags: postgres, replace: force, verify: !noVerify,
                    maximumValueLength: valueSize.bytes, planOnly: plan, quiet: outputOptions.quiet)
                return
            }
            if plan || noVerify || postgres.schema != nil || postgres.strict {
                throw ValidationError("--plan, --no-verify, --schema and --strict apply to a postgres:// target only")
            }
            let bar = ProgressBar(enabled: !outputOptions.quiet, verb: "restoring")
            var options = DBBRestoreOptions(replaceExisting: force, checkIntegrity: checkIntegrity)
            options.maximumValueLength = valueSize.bytes
            let target = URL(fileURLWithPath: database)
            let report = try runReportingErrors {
                if dump == standardStreamName {
                    try DBBExport.restore(
                        readingFrom: FileHandle.standardInput, to: target, options: options, progress: bar.update)
                } else {
                    try DBBExport.restore(
                        dumpAt: URL(fileURLWithPath: dump), to: target, options: options, progress: bar.update)
                }
            }
            bar.finish()
            if !outputOptions.quiet {
                // A dump of another engine says what it converted; the file holds the converted values.
                for conversion in report.header.conversions { printLine("note: \(conversion)") }
                if !report.header.sourceObjects.isEmpty {
                    printLine(
                        "note: \(report.header.sourceObjects.count) objects of \(report.header.source?.engine ?? "the source") "
                            + "(views, functions, triggers, …) are kept as text in the dump's header, not restored")
                }
                printLine("restored \(report.totalRows) rows of \(report.tables.count) tables into \(database)")
            }
        }
    }

    struct Inspect: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Show a dump's header, schema and tables without reading its rows.")

        @Argument(help: "The dump file to read, or - for standard input.")
        var dump: String

        @Flag(help: "Print the result as JSON.")
        var json = false

        func validate() throws {
            try refuseTerminal(dump, STDIN_FILENO)
        }

        func run() throws {
            let report = try runReportingErrors(json: json) {
                if dump == standardStreamName {
                    try DBBExport.inspect(readingFrom: FileHandle.standardInput)
                } else {
                    try DBBExport.inspect(dumpAt: URL(fileURLWithPath: dump))
                }
            }
            if json {
                printJSON(InspectOutput(report))
                return
            }
            let header = report.header
            printLine(
                "\(DBBExport.formatName) version \(header.formatVersion), written \(header.created) by SQLite \(header.sqliteVersion)"
            )
            printLine(
                "user_version \(header.userVersion), application_id \(header.applicationID), page size "
                    + "\(header.pageSize), \(header.encoding)\(header.isPartial ? ", partial (selected tables)" : "")")
            let kinds = ["table", "index", "view", "trigger"].map { kind in
                "\(report.schema.filter { $0.type == kind }.count) \(kind == "index" ? "indexes" : kind + "s")"
            }
            printLine("schema: \(kinds.joined(separator: ", "))")
            let width = report.tables.map(\.name.count).max() ?? 0
            for table in report.tables {
                printLine(
                    "  \(table.name.padding(toLength: width, withPad: " ", startingAt: 0))  \(table.rowCount) rows")
            }
            printLine("total: \(report.totalRows) rows in \(report.tables.count) tables")
            if let source = report.header.source {
                printLine(
                    "dumped from \(source.engine) \(source.version), database \(source.database)"
                        + (source.schema.map { ", schema \($0)" } ?? ""))
                for conversion in report.header.conversions { printLine("note: \(conversion)") }
                for object in report.header.sourceObjects {
                    printLine("note: \(object) kept as text in the header; no restore runs it")
                }
            }
            printDamage(report.header.damage, verb: "written")
        }
    }

    struct Verify: ParsableCommand {
        static let configuration = CommandConfiguration(
            abstract: "Read a dump end to end and check it; optionally compare it with a database.",
            discussion: """
                Checks the gzip stream (CRC-32 and length), the JSON, the shape of every value and every \
                table's row count. With --against, also compares the schema, header values and every row \
                with the database and reports the first difference (exit code 1). --against \
                postgres://… compares every row of --schema: of the tables a restore made there, or, for a \
                dump of PostgreSQL, of the schema it was read from.

                Any two of an SQLite file, a postgres:// URL and a dump compare: an SQLite file or a URL given \
                in place of the dump is dumped first, and a dump given to --against is restored first, each \
                into a temporary folder that is removed afterwards.

                --data-only compares the data of SQLite databases and not their schema's SQL: a database that \
                went through PostgreSQL and back (restore into postgres://, dump, restore) holds the same rows \
                with its schema in other words: dbb-backup verify app.sqlite --against back.sqlite --data-only.
                """)

        @Argument(help: "The dump file to read, or - for standard input; or an SQLite file or a postgres:// URL.")
        var dump: String

        @Option(name: .long, help: "A database, a postgres:// URL or a dump to compare the dump with.")
        var against: String?

        @OptionGroup var postgres: PostgresOptions

        @Flag(
            help: """
                Compare user_version, application_id, the tables, their columns and rows, not the SQL text of \
                the schema, its indexes, views and triggers, or sqlite_sequence (a comparison with a \
                postgres:// URL compares the data only).
                """)
        var dataOnly = false

        @Flag(help: "Print the result as JSON.")
        var json = false

        @OptionGroup var valueSize: ValueSizeOptions

        @OptionGroup var outputOptions: OutputOptions

        func validate() throws {
            try refuseTerminal(dump, STDIN_FILENO)
            if dataOnly && against == nil {
                throw ValidationError("--data-only needs --against: it says what to compare with a database")
            }
        }

        func run() throws {
            // Any pair compares through a dump on the left and a database on the right.
            guard dump != standardStreamName, against != nil,
                isPostgresURL(dump) || isSQLiteFile(dump) || (against.map(isDumpFile) ?? false)
            else {
                return try compare(dump: dump, against: against)
            }
            let scratch = try ScratchFolder()
            let limit = valueSize.bytes
            var left = dump
            if isPostgresURL(dump) {
                left = try scratch.dump(ofPostgres: dump, flags: postgres, maximumValueLength: limit)
            } else if isSQLiteFile(dump) {
                left = try scratch.dump(ofSQLite: dump, maximumValueLength: limit)
            }
            var right = against
            if let against, !isPostgresURL(against), isDumpFile(against) {
                right = try scratch.restore(against, maximumValueLength: limit)
            }
            try compare(dump: left, against: right, shown: against)
        }

        /// Verifies a dump, and compares it with a database (named `shown` in messages) when there is one.
        private func compare(dump: String, against: String?, shown: String? = nil) throws {
            let shown = shown ?? against
            if let against, isPostgresURL(against) {
                try verifyAgainstPostgres(
                    dump: dump, url: against, flags: postgres, maximumValueLength: valueSize.bytes, json: json,
                    quiet: outputOptions.quiet)
                return
            }
            let url = URL(fileURLWithPath: dump)
            let limit = valueSize.bytes
            let input = dump == standardStreamName ? FileHandle.standardInput : nil
            // One pass over the dump checks it and, with --against, compares it.
            let bar = ProgressBar(
                enabled: !outputOptions.quiet && !json, verb: against == nil ? "verifying" : "comparing")
            let (report, difference) = try runReportingErrors(json: json) {
                switch (input, against) {
                case (let input?, let against?):
                    try DBBExport.verifyAndCompare(
                        readingFrom: input, withDatabaseAt: URL(fileURLWithPath: against), dataOnly: dataOnly,
                        maximumValueLength: limit, progress: bar.update)
                case (nil, let against?):
                    try DBBExport.verifyAndCompare(
                        dumpAt: url, withDatabaseAt: URL(fileURLWithPath: against), dataOnly: dataOnly,
                        maximumValueLength: limit, progress: bar.update)
                case (let input?, nil):
                    (try DBBExport.verify(readingFrom: input, maximumValueLength: limit, progress: bar.update), nil)
                case (nil, nil):
                    (try DBBExport.verify(dumpAt: url, maximumValueLength: limit, progress: bar.update), nil)
                }
            }
            bar.finish()
            if !json { printDamage(report.header.damage, verb: "written") }
            if json {
                printJSON(VerifyOutput(report: report, compared: shown, difference: difference))
            } else if !outputOptions.quiet {
                printLine(
                    "ok: \(report.tables.count) tables, \(report.totalRows) rows, \(formatBytes(report.jsonBytes)) of JSON "
                        + "in \(formatBytes(report.compressedBytes)) (gzip CRC and length checked)")
                if let against {
                    if let difference {
                        printLine("different from \(shown ?? against): \(difference)")
                    } else {
                        printLine("identical to \(shown ?? against)")
                    }
                }
            }
            if difference != nil { throw ExitCode(ExitStatus.difference) }
        }
    }
}
