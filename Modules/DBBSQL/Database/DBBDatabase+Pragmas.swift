public import Foundation

/// The `synchronous` setting: how often SQLite waits for data to reach the disk.
///
/// Related SQLite documentation: https://www.sqlite.org/pragma.html#pragma_synchronous
public enum DBBSynchronousMode: Int, Sendable, Hashable, CaseIterable {
    /// Never wait for the disk: fastest, but a power loss can corrupt the database.
    case off = 0
    /// Wait at the critical moments; in WAL mode, safe against corruption (the design's default for files).
    case normal = 1
    /// Wait at every commit (SQLite's default).
    case full = 2
    /// Like `full`, and also sync the directory after deleting a rollback journal.
    case extra = 3
}

/// The journal mode of a database.
///
/// Related SQLite documentation: https://www.sqlite.org/pragma.html#pragma_journal_mode
public enum DBBJournalMode: String, Sendable, Hashable, CaseIterable {
    /// A rollback journal, deleted at each commit (SQLite's default for files).
    case delete
    /// A rollback journal, truncated to zero length at each commit.
    case truncate
    /// A rollback journal whose header is zeroed at each commit.
    case persist
    /// A rollback journal kept in memory (always the mode of in-memory databases).
    case memory
    /// A write-ahead log: readers do not block the writer and the writer does not block readers.
    case wal
    /// No journal: rollback and crash safety are lost.
    case off
}

/// Where temporary tables and indexes are kept.
///
/// Related SQLite documentation: https://www.sqlite.org/pragma.html#pragma_temp_store
public enum DBBTempStore: Int, Sendable, Hashable, CaseIterable {
    /// As SQLite was compiled to do.
    case `default` = 0
    /// In temporary files.
    case file = 1
    /// In memory.
    case memory = 2
}

extension DBBDatabase {
    /// Each getter below reads the real state back from SQLite, never a cached copy, so settings made
    /// with plain SQL show too.

    /// How long a statement waits for a lock held by another connection before failing with busy.
    ///
    /// - Throws: ``DBBError`` if the pragma cannot be read.
    public func busyTimeout() throws -> TimeInterval {
        Double(try fetchValue(Int64.self, "PRAGMA busy_timeout") ?? 0) / 1000
    }

    /// Sets the busy timeout (rounded to milliseconds); 0 turns waiting off.
    ///
    /// - Parameter seconds: from 0 to 2,147,483.647 (SQLite keeps milliseconds in a 32-bit integer).
    /// - Throws: ``DBBError`` (range) for a negative, infinite, NaN or too large value, which changes nothing;
    ///   or if the pragma cannot be set.
    public func setBusyTimeout(_ seconds: TimeInterval) throws {
        let milliseconds = (seconds * 1000).rounded()
        guard milliseconds >= 0, milliseconds <= Double(Int32.max) else {
            throw DBBError.library(
                .range, message: "a busy timeout must be between 0 and 2147483.647 seconds, not \(seconds)",
                context: "setting the busy timeout")
        }
        try executeStatements("PRAGMA busy_timeout = \(Int64(milliseconds))")
    }

    /// Whether the connection refuses every change to the database file (`PRAGMA query_only`).
    ///
    /// - Throws: ``DBBError`` if the pragma cannot be read.
    public func isQueryOnly() throws -> Bool {
        try fetchValue(Bool.self, "PRAGMA query_only") ?? false
    }

    /// Makes the connection refuse every change to the database file, or accept changes again. Unlike opening
    /// the file read-only, a `query_only` connection still tidies the WAL's side files when it closes last.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/pragma.html#pragma_query_only
    ///
    /// - Parameter enabled: `true` to refuse changes.
    /// - Throws: ``DBBError`` if the pragma cannot be set.
    public func setQueryOnly(_ enabled: Bool) throws {
        try executeStatements("PRAGMA query_only = \(enabled ? "ON" : "OFF")")
    }

    /// Whether foreign key constraints are enforced.
    ///
    /// - Throws: ``DBBError`` if the pragma cannot be read.
    public func foreignKeysEnabled() throws -> Bool {
        try fetchValue(Bool.self, "PRAGMA foreign_keys") ?? false
    }

    /// Turns foreign key enforcement on or off.
    ///
    /// SQLite silently ignores this pragma inside a transaction; this method reads the setting back and
    /// throws instead, so a caller never believes a change happened that did not.
    ///
    /// - Throws: ``DBBError`` (misuse) inside a transaction, or if the pragma cannot be set.
    public func setForeignKeysEnabled(_ enabled: Bool) throws {
        try executeStatements("PRAGMA foreign_keys = \(enabled ? "ON" : "OFF")")
        guard try foreignKeysEnabled() == enabled else {
            throw DBBError.misuse(
                "foreign key enforcement cannot change inside a transaction",
                recovery: "set it before the transaction begins",
                sql: "PRAGMA foreign_keys = \(enabled ? "ON" : "OFF")", context: "setting a pragma")
        }
    }

    /// The first row that breaks a foreign key (`PRAGMA foreign_key_check`), or `nil` when every row keeps its
    /// foreign keys: the table of the row and the table its key refers to.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/pragma.html#pragma_foreign_key_check
    ///
    /// - Throws: ``DBBError`` if the check cannot run.
    package func firstForeignKeyViolation() throws -> (table: String, parent: String)? {
        guard let violation = try fetchDictionary("PRAGMA foreign_key_check").first else { return nil }
        return (violation["table"]?.stringValue ?? "?", violation["parent"]?.stringValue ?? "?")
    }

    /// Whether `LIKE` is case-sensitive. SQLite has no way to read this pragma, so it is observed:
    /// `'a' LIKE 'A'` is false exactly when case-sensitive LIKE is on.
    ///
    /// - Throws: ``DBBError`` if the test query fails.
    public func caseSensitiveLike() throws -> Bool {
        try fetchValue(Bool.self, "SELECT 'a' LIKE 'A'") == false
    }

    /// Makes `LIKE` case-sensitive or not.
    ///
    /// - Throws: ``DBBError`` if the pragma cannot be set.
    public func setCaseSensitiveLike(_ enabled: Bool) throws {
        try executeStatements("PRAGMA case_sensitive_like = \(enabled ? "ON" : "OFF")")
    }

    /// The `synchronous` setting.
    ///
    /// - Throws: ``DBBError`` if the pragma cannot be read.
    public func synchronous() throws -> DBBSynchronousMode {
        let raw = try fetchValue(Int.self, "PRAGMA synchronous") ?? 2
        return DBBSynchronousMode(rawValue: raw) ?? .full
    }

    /// Sets the `synchronous` setting.
    ///
    /// - Throws: ``DBBError`` if the pragma cannot be set.
    public func setSynchronous(_ mode: DBBSynchronousMode) throws {
        try executeStatements("PRAGMA synchronous = \(mode.rawValue)")
    }

    /// The journal mode.
    ///
    /// - Throws: ``DBBError`` if the pragma cannot be read.
    public func journalMode() throws -> DBBJournalMode {
        let raw = try fetchValue(String.self, "PRAGMA journal_mode") ?? "delete"
        return DBBJournalMode(rawValue: raw.lowercased()) ?? .delete
    }

    /// Sets the journal mode and returns the mode SQLite actually chose (an in-memory database, for
    /// example, stays in `memory` mode when asked for WAL).
    ///
    /// - Throws: ``DBBError`` if the pragma fails (inside a transaction, for example).
    @discardableResult
    public func setJournalMode(_ mode: DBBJournalMode) throws -> DBBJournalMode {
        let raw = try fetchValue(String.self, "PRAGMA journal_mode = \(mode.rawValue.uppercased())") ?? ""
        return DBBJournalMode(rawValue: raw.lowercased()) ?? mode
    }

    /// Where temporary tables and indexes are kept.
    ///
    /// - Throws: ``DBBError`` if the pragma cannot be read.
    public func tempStore() throws -> DBBTempStore {
        DBBTempStore(rawValue: try fetchValue(Int.self, "PRAGMA temp_store") ?? 0) ?? .default
    }

    /// Sets where temporary tables and indexes are kept.
    ///
    /// - Throws: ``DBBError`` if the pragma cannot be set.
    public func setTempStore(_ store: DBBTempStore) throws {
        try executeStatements("PRAGMA temp_store = \(store.rawValue)")
    }

    /// The `user_version` integer stored in the database header, free for the application's use.
    ///
    /// - Throws: ``DBBError`` if the pragma cannot be read.
    public func userVersion() throws -> Int32 {
        try fetchValue(Int32.self, "PRAGMA user_version") ?? 0
    }

    /// Sets the `user_version` integer.
    ///
    /// - Throws: ``DBBError`` if the pragma cannot be set (a read-only database, for example).
    public func setUserVersion(_ version: Int32) throws {
        try executeStatements("PRAGMA user_version = \(version)")
    }

    /// The `application_id` integer stored in the database header, which identifies a file format.
    ///
    /// - Throws: ``DBBError`` if the pragma cannot be read.
    public func applicationID() throws -> Int32 {
        try fetchValue(Int32.self, "PRAGMA application_id") ?? 0
    }

    /// Sets the `application_id` integer.
    ///
    /// - Throws: ``DBBError`` if the pragma cannot be set.
    public func setApplicationID(_ id: Int32) throws {
        try executeStatements("PRAGMA application_id = \(id)")
    }
}
