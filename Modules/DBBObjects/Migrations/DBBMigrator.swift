internal import DBBSQL
internal import DBBSchema
public import Foundation

/// Versioned migrations: changes to a database's schema and data, registered by name in order, each run once.
///
/// Registration (`DBBManager/addTableClasses(_:)`) only adds tables and columns. Renames, drops, type changes
/// and data changes are migrations: run them before registering the classes of the release.
///
/// ```swift
/// var migrator = DBBMigrator()
/// migrator.registerMigration("v2: Book.year renamed published", [
///     .renameProperty("year", to: "published", in: "Book"),
/// ])
/// migrator.registerMigration("v3: Book.published as text", [
///     .changeType(of: "published", in: "Book", to: .string) { $0.int64Value.map(String.init) },
/// ])
/// let manager = try DBBManager(databaseURL: url)
/// try migrator.migrate(manager)
/// try manager.addTableClasses([Book.self])
/// ```
///
/// On a database server (`DBBManager(postgres:)`), each migration runs in one transaction of the writer connection,
/// with the server's own `ALTER TABLE` forms (`RENAME COLUMN`, `ALTER COLUMN … TYPE … USING`, `ADD` and `DROP
/// COLUMN`), its data steps' object calls joining that transaction; the server checks foreign keys itself.
///
/// On SQLite, each migration runs in its own `IMMEDIATE` transaction: its steps, a `PRAGMA foreign_key_check` (foreign keys
/// are switched off while it runs, as SQLite's table rebuild requires, and the check fails the migration when a
/// row would break one), and its record in table `DBBMigrations` (its name, when it ran, and a checksum of its
/// steps) commit together, or none of them does. A failed (or killed) migration leaves the schema and the data
/// as they were, and the migrations before it applied. The database version of `DBBManager/databaseVersion()`
/// lives beside it, untouched.
public struct DBBMigrator: Sendable {
    /// A registered migration.
    public struct Migration: Sendable {
        /// Its name, unique in the migrator: the key of its record.
        public let name: String
        /// Its steps, in order.
        public let steps: [DBBMigrationStep]

        /// A checksum of the steps' summaries (64-bit FNV-1a, hexadecimal): it tells an edited migration from the
        /// one that ran, not a forgery.
        public var checksum: String {
            var hash: UInt64 = 0xcbf2_9ce4_8422_2325
            for byte in steps.map(\.summary).joined(separator: "\n").utf8 {
                hash = (hash ^ UInt64(byte)) &* 0x100_0000_01b3
            }
            let digits = String(hash, radix: 16)
            return String(repeating: "0", count: 16 - digits.count) + digits
        }
    }

    /// A migration recorded in the database.
    public struct AppliedMigration: Sendable, Hashable {
        /// Its name.
        public let name: String
        /// When it ran.
        public let appliedAt: Date
        /// The checksum of its steps when it ran.
        public let checksum: String
    }

    /// What `migrate(_:)` did and found.
    public struct Report: Sendable, Hashable {
        /// The migrations it ran, in order.
        public var applied: [String] = []
        /// Migrations that had run before but whose steps have changed since (their checksums differ). They do
        /// not run again: the database holds what the old steps did.
        public var edited: [String] = []
        /// Migrations recorded in the database that this migrator does not know (a newer release wrote them).
        public var unknown: [String] = []

        /// An empty report: nothing applied, nothing found.
        public init() {}
    }

    /// The migrations, in the order they run.
    public private(set) var migrations: [Migration] = []

    /// Creates a migrator without migrations.
    public init() {}

    /// The table where migrations are recorded.
    public static let recordTable = DBBMigrationStatements.recordTable

    /// Adds a migration after the ones registered before.
    ///
    /// - Parameters:
    ///   - name: its name, unique in the migrator; once released, neither rename it nor change its steps.
    ///   - steps: its steps, run in order in one transaction.
    public mutating func registerMigration(_ name: String, _ steps: [DBBMigrationStep]) {
        migrations.append(Migration(name: name, steps: steps))
    }

    /// The migrations recorded in a database, in the order they ran.
    ///
    /// - Parameter manager: the database's manager.
    /// - Returns: the records; none when no migration ever ran.
    /// - Throws: `DBBError` when the records cannot be read.
    public func appliedMigrations(in manager: DBBManager) throws -> [AppliedMigration] {
        try manager.perform(DBBMigrationRecordsWork(), isWrite: false, reported: false)
    }

    /// Runs the migrations that have not run yet, in order, each in its own transaction.
    ///
    /// - Parameter manager: the database's manager; register the classes after migrating (a step that changes
    ///   the table of a class already registered with the manager is refused, since the class's statements
    ///   would no longer fit the table).
    /// - Returns: what ran, and what was found edited or unknown (each also logged as a warning when the
    ///   manager logs).
    /// - Throws: `DBBError` (misuse) for two migrations of one name, on a read-only manager, or for a step on a
    ///   registered class's table; the error of a failing step, its message naming the migration, the step and,
    ///   for a transform, the row's id (`migration v3 failed: step 1 (changeType Shelf.built): row id 7: …`): the
    ///   migration then changed nothing, and those before it stay applied. An engine's error keeps its kind and
    ///   codes; an error the application's transform or data step threw is the `underlyingError`, unchanged, of
    ///   an error of kind `library`. (constraint) when the foreign-key check finds rows that break a foreign key.
    @discardableResult
    public func migrate(_ manager: DBBManager) throws -> Report {
        try manager.requireWritable("migrating")
        try checkNames()
        try manager.perform(DBBMigrationRecordTableWork(), isWrite: true, reported: false)
        let records = try appliedMigrations(in: manager)
        var report = Report()
        let known = Set(migrations.map(\.name))
        report.unknown = records.map(\.name).filter { !known.contains($0) }
        let recorded = Dictionary(records.map { ($0.name, $0.checksum) }, uniquingKeysWith: { first, _ in first })
        for migration in migrations {
            if let checksum = recorded[migration.name] {
                if checksum != migration.checksum { report.edited.append(migration.name) }
                continue
            }
            try run(migration, manager: manager)
            report.applied.append(migration.name)
        }
        let warnings =
            report.edited.map { "migration \($0) was edited after it ran: its new steps do not run" }
            + report.unknown.map { "migration \($0) is recorded in the database but not registered (a newer release?)" }
        for warning in warnings { manager.warn(warning) }
        return report
    }

    /// `migrate(_:)` without blocking the calling task: the migrations run on a thread of their own.
    ///
    /// - Parameter manager: the database's manager.
    /// - Returns: what ran, and what was found edited or unknown.
    /// - Throws: as `migrate(_:)`.
    @discardableResult
    public func migrate(_ manager: DBBManager) async throws -> Report {
        let migrator = self
        return try await withCheckedThrowingContinuation { continuation in
            Thread.detachNewThread {
                continuation.resume(with: Result { try migrator.migrate(manager) })
            }
        }
    }

    private func checkNames() throws {
        var seen: Set<String> = []
        for migration in migrations where !seen.insert(migration.name).inserted {
            throw DBBError.misuse(
                "two migrations are named \(migration.name)", recovery: "give each migration a name of its own",
                context: "migrating")
        }
    }

    private func run(_ migration: Migration, manager: DBBManager) throws {
        let context = "running migration \(migration.name)"
        let registered = Set(manager.allMaps.map { $0.tableName.lowercased() })
        for table in migration.steps.flatMap(\.tables) where registered.contains(table.lowercased()) {
            throw manager.record(
                DBBError.misuse(
                    "migration \(migration.name) changes table \(table), whose class is registered with the manager",
                    recovery: "run the migrator before addTableClasses", context: context))
        }
        let registeredBefore = Set(manager.allMaps.map { ObjectIdentifier($0.type) })
        do {
            try manager.store.runMigration(migration, manager: manager)
        } catch {
            // Classes a data step registered inside the rolled-back transaction describe tables that are gone.
            manager.unregister(Set(manager.allMaps.map { ObjectIdentifier($0.type) }).subtracting(registeredBefore))
            throw manager.record(Self.failure(of: migration, error, context: context))
        }
    }

    /// The error of a failed migration: `migration v3 failed: step 2 (changeType Shelf.built): row id 7: …`. An
    /// engine's error keeps its kind and codes; the application's own (a transform's, a data step's) is carried
    /// unchanged as the `underlyingError` of an error of kind `library`.
    static func failure(of migration: Migration, _ error: any Error, context: String) -> DBBError {
        var prefix = "migration \(migration.name) failed: "
        var thrown = error
        if let failure = error as? DBBMigrationStepFailure {
            prefix += "step \(failure.index + 1) (\(failure.step.failureName)): "
            thrown = failure.error
        }
        return DBBError.wrapping(thrown, prefix: prefix, context: context)
    }
}

/// A step of a migration failed: which one, and what it threw. The migrator names both in its error; the
/// steps' transaction lets it pass unchanged, as it does the errors of `write` closures.
package struct DBBMigrationStepFailure: Error {
    /// The step's position in the migration, from 0.
    let index: Int
    let step: DBBMigrationStep
    /// What the step threw.
    let error: any Error
}

extension DBBMigrator.Migration {
    /// Runs each step in order with `apply`; an error names the step it came from.
    ///
    /// - Parameter apply: runs one step, in the migration's transaction.
    /// - Throws: `DBBMigrationStepFailure` holding the step and what `apply` threw.
    package func forEachStep(_ apply: (DBBMigrationStep) throws -> Void) throws {
        for (index, step) in steps.enumerated() {
            do {
                try apply(step)
            } catch {
                throw DBBMigrationStepFailure(index: index, step: step, error: error)
            }
        }
    }
}
