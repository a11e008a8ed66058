import DBBBuilder
@_exported import DBBTestSupport
import Foundation

/// Checks generated classes against the real database they were generated from: every table has a class,
/// registering changes no table, every class loads as many objects as its table has rows, and writing every
/// object back leaves every row as SQLite had it (rowid, storage class and value of each column).
public enum GeneratedTablesCheck {
    /// What the check found for one class.
    public struct TableResult: Sendable, CustomStringConvertible {
        /// The class's name.
        public var className: String
        /// The table it maps.
        public var table: String
        /// The objects `fetchAll` loaded.
        public var objects: Int
        /// The rows SQLite counts in the table.
        public var rows: Int
        /// The rows that differ from the fixture after every object was saved back.
        public var differingRows: Int

        public var description: String {
            "\(className) (\(table)): \(objects) objects, \(rows) rows, \(differingRows) rows changed by saving"
        }
    }

    /// What the check found for a database.
    public struct Result: Sendable {
        /// The tables of the database that no class maps.
        public var unmappedTables: [String]
        /// The schema entries (`type name sql`) that registering the classes added or changed.
        public var schemaChanges: [String]
        /// One result per class, in the order given.
        public var tables: [TableResult]

        /// Everything that is not as it should be: an unmapped table, a schema change, a class that loads
        /// another number of objects than its table has rows or whose saves change rows. Empty when all is well.
        public var problems: [String] {
            unmappedTables.map { "no class maps table \($0)" } + schemaChanges.map { "registering changed: \($0)" }
                + tables.filter { $0.objects != $0.rows || $0.differingRows != 0 }.map(\.description)
        }
    }

    /// Runs the check on a copy of a fixture.
    ///
    /// The copy's triggers are dropped first: Sakila's stamp `last_update` with the current time on every
    /// update, which would hide what the objects wrote.
    ///
    /// - Parameters:
    ///   - name: the fixture (`"northwind.sqlite"`).
    ///   - classes: the generated classes, one per table.
    /// - Returns: what was found.
    /// - Throws: what copying, registering, loading or saving throws.
    public static func run(fixture name: String, classes: [DBBTableObject.Type]) throws -> Result {
        let folder = try TemporaryFolder()
        let original = try fixture(name)
        let url = try copyOfFixture(name, into: folder)
        let triggers = try sqlite3Shell(url, "SELECT name FROM sqlite_master WHERE type = 'trigger'")
        for trigger in triggers.split(separator: "\n") {
            _ = try sqlite3Shell(url, "DROP TRIGGER \(DBBDatabase.quoteIdentifier(String(trigger)))")
        }
        // SQLite's own tables and the manager's DBVersion table are no tables of the database's.
        let ownTables = "name NOT LIKE 'sqlite\\_%' ESCAPE '\\' AND name != 'DBVersion'"
        let schemaSQL =
            "SELECT type || ' ' || name || ' ' || ifnull(sql, '') FROM sqlite_master WHERE type != 'trigger' "
            + "AND \(ownTables) ORDER BY name"
        let before = Set(try sqlite3Shell(url, schemaSQL).components(separatedBy: "\n"))
        let manager = try DBBManager(databaseURL: url)
        try manager.addTableClasses(classes)
        let after = Set(try sqlite3Shell(url, schemaSQL).components(separatedBy: "\n"))
        let tableNames = try sqlite3Shell(
            url, "SELECT name FROM sqlite_master WHERE type = 'table' AND \(ownTables) ORDER BY name"
        ).components(separatedBy: "\n")
        let mapped = Set(classes.map { $0.tableName })

        var tables: [TableResult] = []
        for type in classes {
            let objects = try type.fetchAll(manager: manager)
            try type.save(objects, manager: manager)
            let table = type.tableName
            tables.append(
                TableResult(
                    className: String(describing: type), table: table, objects: objects.count,
                    rows: Int(try sqlite3Shell(url, "SELECT count(*) FROM \(DBBDatabase.quoteIdentifier(table))"))
                        ?? -1,
                    differingRows: try differingRows(of: table, in: url, from: original)))
        }
        try manager.close()
        return Result(
            unmappedTables: tableNames.filter { !mapped.contains($0) },
            schemaChanges: after.subtracting(before).sorted(), tables: tables)
    }

    /// The rows of `table` whose rowid, storage classes or values (compared as SQL literals, so `14` and
    /// `14.0` differ) are not the same in both databases, counted both ways.
    ///
    /// - Parameters:
    ///   - table: the table, present in both.
    ///   - copy: the database that may differ.
    ///   - original: the database it came from.
    /// - Returns: the rows only in one of them, both ways.
    /// - Throws: when the sqlite3 shell does not answer with a count.
    public static func differingRows(of table: String, in copy: URL, from original: URL) throws -> Int {
        let quoted = DBBDatabase.quoteIdentifier(table)
        let columns = try sqlite3Shell(original, "SELECT name FROM pragma_table_info('\(table)')")
            .components(separatedBy: "\n").map { "quote(\(DBBDatabase.quoteIdentifier($0)))" }
        let select = "SELECT rowid, \(columns.joined(separator: ", ")) FROM %@.\(quoted)"
        let main = select.replacingOccurrences(of: "%@", with: "main")
        let source = select.replacingOccurrences(of: "%@", with: "source")
        let sql =
            "ATTACH '\(original.path)' AS source; SELECT (SELECT count(*) FROM (\(main) EXCEPT \(source))) + "
            + "(SELECT count(*) FROM (\(source) EXCEPT \(main)))"
        let output = try sqlite3Shell(copy, sql)
        guard let count = Int(output) else {
            throw CocoaError(.fileReadCorruptFile, userInfo: [NSLocalizedDescriptionKey: "sqlite3: \(output)"])
        }
        return count
    }
}
