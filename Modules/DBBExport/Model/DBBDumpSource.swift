/// The database server a dump was read from, when it was not an SQLite file (a dump of a PostgreSQL schema).
///
/// A dump of another engine holds what an SQLite restore needs, like any dump: its schema is SQLite's SQL,
/// written from the source's catalog, and its values are SQLite's storage classes. What the source had beyond
/// that is in the header too: each conversion of a column's type (``DBBDumpConversion``) and, as text never run
/// by a restore, the source's views, functions, triggers, sequences and extensions (``DBBDumpSourceObject``).
///
/// `Sendable`: a value type of `Sendable` values.
public struct DBBDumpSource: Sendable, Equatable {
    /// The engine: `"PostgreSQL"`.
    public var engine: String
    /// The server's version, as it reports it (`server_version`), for example `"15.4"`.
    public var version: String
    /// The database the dump was read from.
    public var database: String
    /// The schema (namespace) whose tables the dump holds, if the engine has schemas.
    public var schema: String?

    /// Creates a source description.
    ///
    /// - Parameters:
    ///   - engine: the engine's name.
    ///   - version: the server's version.
    ///   - database: the database's name.
    ///   - schema: the schema dumped.
    public init(engine: String, version: String, database: String, schema: String? = nil) {
        self.engine = engine
        self.version = version
        self.database = database
        self.schema = schema
    }
}

/// How the values of one column of another engine's table were written as SQLite values, when not as they are.
///
/// A dump lists one for every column whose type does not map exactly (a PostgreSQL `integer` becomes SQLite's
/// 64-bit INTEGER, a `timestamptz` ISO 8601 text, a type with no mapping its text form), so that what changed is
/// known before a row is read; `dbb-backup` prints each as a `note:`.
///
/// `Sendable`: a value type of `Sendable` values.
public struct DBBDumpConversion: Sendable, Equatable, CustomStringConvertible {
    /// The table.
    public var table: String
    /// The column.
    public var column: String
    /// The column's type in the source, as the source spells it (`timestamp with time zone`).
    public var sourceType: String
    /// The SQLite storage class the values are written in: `INTEGER`, `REAL`, `TEXT` or `BLOB`.
    public var storedAs: String
    /// What the conversion does, and what it loses.
    public var note: String

    /// Creates a conversion.
    ///
    /// - Parameters:
    ///   - table: the table.
    ///   - column: the column.
    ///   - sourceType: the source's type.
    ///   - storedAs: the storage class written.
    ///   - note: what the conversion does.
    public init(table: String, column: String, sourceType: String, storedAs: String, note: String) {
        self.table = table
        self.column = column
        self.sourceType = sourceType
        self.storedAs = storedAs
        self.note = note
    }

    /// `column t.c (type) as CLASS: note`.
    public var description: String { "column \(table).\(column) (\(sourceType)) as \(storedAs): \(note)" }
}

/// Something of the source database that a dump keeps as text only: a view, function, trigger, sequence,
/// extension, type or constraint of another engine, in that engine's SQL. No restore runs it.
///
/// `Sendable`: a value type of `Sendable` values.
public struct DBBDumpSourceObject: Sendable, Equatable, CustomStringConvertible {
    /// What it is: `view`, `materialized view`, `function`, `trigger`, `sequence`, `extension`, `type`,
    /// `constraint`, `index`, …
    public var type: String
    /// Its name (for a trigger, an index or a constraint: `table.name`).
    public var name: String
    /// Its definition in the source engine's SQL.
    public var sql: String

    /// Creates a source object.
    ///
    /// - Parameters:
    ///   - type: what it is.
    ///   - name: its name.
    ///   - sql: its definition.
    public init(type: String, name: String, sql: String) {
        self.type = type
        self.name = name
        self.sql = sql
    }

    /// `type name`.
    public var description: String { "\(type) \(name)" }
}
