/// Options for ``DBBExport/dump(databaseAt:to:options:progress:)``.
public struct DBBDumpOptions: Sendable, Equatable {
    /// The tables (or views) to dump; `nil` dumps the whole database.
    ///
    /// A selected table brings its indexes and triggers along, a selected virtual table its shadow
    /// tables; views are dumped only when named. `sqlite_sequence` keeps the entries of the selected tables.
    public var tables: [String]?
    /// The gzip compression level, from 0 (store only) to 9 (smallest). Default: 6, as `gzip` uses.
    public var compressionLevel: Int
    /// Whether an existing file at the target path may be replaced. Default: `false`.
    public var replaceExisting: Bool
    /// Whether to leave out virtual tables whose module this SQLite library lacks (they can be neither
    /// read nor re-created) and list them in ``DBBDumpReport/leftOut``, instead of refusing the dump.
    /// Default: `false`.
    public var skipsUnavailableVirtualTables: Bool
    /// The longest string or BLOB, in bytes, the dump writes; a longer value in the database is refused with
    /// ``DBBExportError/Kind/valueTooLong``, since a restore with the same limit would refuse it. It bounds the
    /// memory a restore of the dump takes. Default: ``DBBExport/defaultMaximumValueLength`` (64 MiB); SQLite's
    /// own limit (`SQLITE_LIMIT_LENGTH`) caps it.
    public var maximumValueLength: Int = DBBExport.defaultMaximumValueLength
    /// Whether to run `PRAGMA integrity_check` on the source before dumping it, refusing a database that
    /// fails it (unless ``allowsDamaged``). The check reads the whole file, indexes included, so it takes
    /// about as long as the dump. Default: `false`; the dump always makes the checks it can while it streams.
    public var checksIntegrity = false
    /// Whether to dump a damaged source instead of refusing it: the dump then holds every row that can be
    /// read and that a restore would accept, the rest left out, and says so in its header's
    /// ``DBBDumpHeader/damage`` (and the report's). Without it, a source that fails the integrity check or
    /// a check made while streaming (rowids out of order, a NULL in a `NOT NULL` column, rows that read and
    /// count differently) is refused with `DBBError` (corrupt). Default: `false`.
    public var allowsDamaged = false

    /// Creates dump options.
    ///
    /// - Parameters:
    ///   - tables: the tables to dump, or `nil` for all.
    ///   - compressionLevel: the gzip level, 0–9.
    ///   - replaceExisting: whether to replace an existing target file.
    ///   - skipsUnavailableVirtualTables: whether to leave out virtual tables whose module is missing.
    public init(
        tables: [String]? = nil, compressionLevel: Int = 6, replaceExisting: Bool = false,
        skipsUnavailableVirtualTables: Bool = false
    ) {
        self.tables = tables
        self.compressionLevel = compressionLevel
        self.replaceExisting = replaceExisting
        self.skipsUnavailableVirtualTables = skipsUnavailableVirtualTables
    }
}

/// Options for ``DBBExport/restore(dumpAt:to:options:progress:)``.
public struct DBBRestoreOptions: Sendable, Equatable {
    /// Whether an existing database at the target path may be replaced. Default: `false`.
    public var replaceExisting: Bool
    /// Whether to run `PRAGMA integrity_check` on the new database before it is moved into place.
    /// Default: `false`.
    public var checkIntegrity: Bool
    /// Whether a restore over an existing database first checks that the disk has room for the copy, and
    /// refuses it before the target is touched when it has not. Tests turn it off to reach the rollback of a
    /// copy that fails halfway. Default: `true`.
    package var checksFreeSpace = true
    /// The longest string or BLOB, in bytes, the restore reads; a longer value in the dump is refused with
    /// ``DBBExportError/Kind/valueTooLong`` while it streams in, before it is held. It bounds the memory the
    /// restore takes. Default: ``DBBExport/defaultMaximumValueLength`` (64 MiB); SQLite's own limit
    /// (`SQLITE_LIMIT_LENGTH`) caps it.
    public var maximumValueLength: Int = DBBExport.defaultMaximumValueLength

    /// Creates restore options.
    ///
    /// - Parameters:
    ///   - replaceExisting: whether to replace an existing target file.
    ///   - checkIntegrity: whether to check the new database's integrity before moving it into place.
    public init(replaceExisting: Bool = false, checkIntegrity: Bool = false) {
        self.replaceExisting = replaceExisting
        self.checkIntegrity = checkIntegrity
    }
}
