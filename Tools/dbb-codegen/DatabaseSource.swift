import DBBSQL
import DBBSchema
import Foundation

/// Builds classes that map onto the existing tables of an SQLite database, read through DBBSQL.
struct DatabaseSource {
    /// What the generator learned about one table it can map.
    private struct Table {
        var name: String
        var className: String
        var columns: [DBBColumnInfo]
        var idColumn: String
        /// The primary key columns when the id is the rowid rather than an INTEGER PRIMARY KEY column (a TEXT
        /// or composite key; empty for a table without one).
        var keyColumns: [String] = []
        /// Whether the id is the table's rowid, which no column holds.
        var isMappedThroughRowid = false
    }

    let path: String
    private let database: DBBDatabase

    /// Opens the database read-only.
    ///
    /// - Throws: ``CodegenError`` (no input) when the file is missing or is not an SQLite database.
    init(path: String) throws {
        self.path = path
        guard FileManager.default.fileExists(atPath: path) else {
            throw CodegenError("no database at \(path)", exitCode: CodegenError.noInput)
        }
        do {
            database = try DBBDatabase(path: path, mode: .readOnly)
        } catch let error as DBBError {
            throw CodegenError("cannot open database \(path): \(error.message)", exitCode: CodegenError.noInput)
        }
    }

    /// The classes for the named tables (or every table when `tables` is `nil`).
    ///
    /// A table with a single INTEGER PRIMARY KEY uses it as its id; any other rowid table (a TEXT or composite
    /// primary key, or none) is mapped through its rowid, with its key columns as ordinary properties that the
    /// table keeps unique. A table named explicitly that cannot be mapped (`WITHOUT ROWID`) is an error; with
    /// every table, such tables are skipped and reported in the notes.
    ///
    /// - Parameters:
    ///   - tables: the tables to map, or `nil` for all of them.
    ///   - className: the class name of the single table, when it should not be derived from the table name.
    /// - Returns: the classes in table order, and notes (skipped tables and columns).
    /// - Throws: ``CodegenError`` for a missing table, a `WITHOUT ROWID` table, or a failure reading the
    ///   schema.
    func generate(tables requested: [String]?, className: String? = nil) throws -> (
        [GeneratedClass], notes: [String]
    ) {
        do {
            return try generateClasses(tables: requested, className: className)
        } catch let error as DBBError {
            throw CodegenError("cannot read the schema of \(path): \(error.message)")
        }
    }

    private func generateClasses(tables requested: [String]?, className: String?) throws -> (
        [GeneratedClass], notes: [String]
    ) {
        let existing = try database.tableNames()
        var names: [String] = []
        for name in requested ?? existing {
            guard let actual = existing.first(where: { $0.caseInsensitiveCompare(name) == .orderedSame }) else {
                let isView = try database.tableExists(name)
                throw CodegenError("\(path) has no table \(name)\(isView ? " (it is a view)" : "")")
            }
            if !names.contains(actual) { names.append(actual) }
        }
        var notes: [String] = []
        var tables: [Table] = []
        var usedClassNames: Set<String> = []
        for name in names {
            let columns = try database.columns(in: name)
            var table = Table(name: name, className: "", columns: columns, idColumn: "")
            do {
                try identify(&table)
            } catch let error as CodegenError {
                guard requested == nil else { throw CodegenError("table \(name) cannot be mapped: \(error.message)") }
                notes.append("skipped table \(name): \(error.message)")
                continue
            }
            var base = className ?? Naming.upperCamelCase(name)
            if !Naming.isClassName(base) { base += "Table" }
            if className == nil, let owner = Naming.shadowedTypes[base] {
                notes.append("class \(base)Table maps table \(name): \(base) would shadow \(owner)'s \(base)")
                base += "Table"
            }
            table.className = Naming.unique(base, suffix: { String($0) }, isUsed: usedClassNames.contains)
            usedClassNames.insert(table.className)
            if table.isMappedThroughRowid {
                let key =
                    table.keyColumns.isEmpty
                    ? "it has no primary key"
                    : table.keyColumns.count > 1
                        ? "its primary key is composite (\(table.keyColumns.joined(separator: ", ")))"
                        : "its primary key \(table.keyColumns[0]) is not an INTEGER PRIMARY KEY"
                notes.append("class \(table.className) uses the rowid of table \(name) as its id: \(key)")
            }
            tables.append(table)
        }
        guard !tables.isEmpty else { throw CodegenError("\(path) has no table that can be mapped") }
        var classes: [GeneratedClass] = []
        for table in tables {
            let (generated, columnNotes) = try makeClass(table, among: tables)
            classes.append(generated)
            notes += columnNotes
        }
        // A lookup names the target's key column until the target's property for it is known.
        for index in classes.indices {
            for position in classes[index].lookups.indices {
                let lookup = classes[index].lookups[position]
                let target = classes.first { $0.className == lookup.targetClass }
                let property = target?.properties.first { ($0.columnName ?? $0.name) == lookup.targetProperty }
                classes[index].lookups[position].targetProperty = property?.name ?? lookup.targetProperty
            }
        }
        return (classes, notes)
    }

    /// Sets the table's id: its INTEGER PRIMARY KEY column when it has one (the rowid alias a
    /// `DBBTableObject` uses as its id), else the rowid itself under a name no column takes, with the primary
    /// key columns (if any) kept as properties.
    ///
    /// - Throws: ``CodegenError`` for a `WITHOUT ROWID` table, or a table whose columns take every name of
    ///   its rowid.
    private func identify(_ table: inout Table) throws {
        // DBBSQL tells whether an INTEGER PRIMARY KEY really is the rowid (not in a WITHOUT ROWID table).
        if let alias = try database.rowidAliasColumn(in: table.name) {
            table.idColumn = alias
            return
        }
        let names = Set(table.columns.map { $0.name.lowercased() })
        guard let rowid = ["rowid", "_rowid_", "oid"].first(where: { !names.contains($0) }) else {
            throw CodegenError("its columns are named rowid, _rowid_ and oid, so its rowid has no name left")
        }
        do {
            // Only a WITHOUT ROWID table has no rowid to select.
            try database.execute(
                "SELECT \(rowid) FROM \(DBBDatabase.quoteIdentifier(table.name)) LIMIT 0")
        } catch is DBBError {
            throw CodegenError(
                "it is a WITHOUT ROWID table, but a DBBTableObject needs a rowid table whose rowid or INTEGER "
                    + "PRIMARY KEY is its id")
        }
        table.idColumn = rowid
        table.isMappedThroughRowid = true
        table.keyColumns = table.columns.filter(\.isPrimaryKey).sorted { $0.primaryKeyIndex < $1.primaryKeyIndex }
            .map(\.name)
    }

    /// A single-column foreign key: the referencing column, the referenced table, the referenced column
    /// (`nil`: the table's primary key).
    private func foreignKeys(of table: String) throws -> [(from: String, table: String, to: String?)] {
        var byID: [Int: [(from: String, table: String, to: String?)]] = [:]
        try database.forEachRow(
            "SELECT id, \"from\", \"table\", \"to\" FROM pragma_foreign_key_list(?) ORDER BY id, seq",
            arguments: [table]
        ) { row in
            byID[try row[0], default: []].append((try row[1], try row[2], try row[3]))
        }
        return byID.keys.sorted().compactMap { id in byID[id]!.count == 1 ? byID[id]![0] : nil }
    }

    private func makeClass(_ table: Table, among tables: [Table]) throws -> (GeneratedClass, [String]) {
        var generated = GeneratedClass(className: table.className)
        if table.className != table.name { generated.tableName = table.name }
        if table.idColumn != "id" { generated.idColumnName = table.idColumn }
        let lowered = Set(table.columns.map { $0.name.lowercased() })
        generated.hasTimestampColumns = lowered.contains("createdtime") && lowered.contains("modifiedtime")
        var notes: [String] = []
        let keys = try foreignKeys(of: table.name)
        let stored = try storageClasses(of: table)
        var usedNames = Naming.reservedPropertyNames
        var lookups: [(property: String, column: String, target: Table)] = []
        for column in table.columns where column.name != table.idColumn {
            if generated.hasTimestampColumns && ["createdtime", "modifiedtime"].contains(column.name.lowercased()) {
                continue
            }
            let foreignKey = keys.first { $0.from == column.name }
            let targetTable = foreignKey.flatMap { key in
                tables.first { $0.name.caseInsensitiveCompare(key.table) == .orderedSame }
            }
            // A foreign key to the target's INTEGER PRIMARY KEY is a reference; one to the single key column
            // of a table mapped through its rowid is looked up by that key.
            let referencedColumn = foreignKey.flatMap { key in
                key.to ?? targetTable.flatMap { $0.isMappedThroughRowid ? $0.keyColumns.first : $0.idColumn }
            }
            let reference = targetTable.flatMap { target in
                !target.isMappedThroughRowid
                    && referencedColumn?.caseInsensitiveCompare(target.idColumn) == .orderedSame ? target : nil
            }
            let lookupTarget = targetTable.flatMap { target in
                target.keyColumns.count == 1
                    && referencedColumn?.caseInsensitiveCompare(target.keyColumns[0]) == .orderedSame ? target : nil
            }
            var property: GeneratedProperty
            if let target = reference {
                property = GeneratedProperty(
                    name: Naming.lowerCamelCase(column.name),
                    type: PropertyType(base: .reference(target.className), isOptional: true), isForeignKey: true)
                if let stripped = Self.strippingIdSuffix(property.name), !usedNames.contains(stripped),
                    !table.columns.contains(where: { Naming.lowerCamelCase($0.name) == stripped })
                {
                    property.name = stripped
                }
                if column.isNotNull {
                    property.note = "Set it before saving: column \(column.name) is NOT NULL."
                }
            } else {
                guard let (type, note) = swiftType(of: column, stored: stored) else {
                    notes.append(
                        "skipped column \(table.name).\(column.name): a \(column.declaredType.isEmpty ? "column without a type" : column.declaredType + " column") "
                            + "holds binary data, which DBBBuilder keeps in a join table")
                    continue
                }
                if case .scalar(let scalar) = type.base,
                    let unreadable = Self.unreadableClasses(stored[column.name] ?? [], for: scalar)
                {
                    notes.append(
                        "column \(table.name).\(column.name) is declared \(column.declaredType) but holds \(unreadable) "
                            + "values, which a property of type \(scalar.rawValue) cannot read; check its type")
                }
                property = GeneratedProperty(name: Naming.lowerCamelCase(column.name), type: type, note: note)
                if case .scalar(let scalar) = type.base {
                    property.initialValue = Self.initialValue(column.defaultValueSQL, for: scalar)
                }
            }
            if let position = table.keyColumns.firstIndex(of: column.name) {
                let key =
                    table.keyColumns.count == 1
                    ? "The primary key"
                    : "Column \(position + 1) of the primary key (\(table.keyColumns.joined(separator: ", ")))"
                property.note = ([property.note].compactMap { $0 } + ["\(key); the table keeps it unique."])
                    .joined(separator: " ")
            }
            let name = Naming.unique(
                property.name, suffix: { $0 == 2 ? "Value" : "Value\($0)" }, isUsed: usedNames.contains)
            usedNames.insert(name)
            property.name = name
            if column.name != name { property.columnName = column.name }
            generated.properties.append(property)
            if let target = lookupTarget {
                lookups.append((property.name, column.name, target))
            }
        }
        for (property, column, target) in lookups {
            let base =
                Self.strippingIdSuffix(property).map { usedNames.contains($0) ? $0 + "Row" : $0 } ?? property + "Row"
            let name = Naming.unique(base, suffix: { String($0) }, isUsed: usedNames.contains)
            usedNames.insert(name)
            generated.lookups.append(
                GeneratedLookup(
                    name: name, targetClass: target.className,
                    targetProperty: target.keyColumns[0], property: property,
                    note:
                        "The \(target.className) row whose \(target.keyColumns[0]) equals this row's \(column): a "
                        + "foreign key to a key that is not an INTEGER PRIMARY KEY, so it is looked up rather than "
                        + "mapped."))
        }
        return (generated, notes)
    }

    /// The storage classes (`integer`, `real`, `text`, `blob`) of each column's non-NULL values, found in one
    /// pass over the table.
    private func storageClasses(of table: Table) throws -> [String: Set<String>] {
        guard !table.columns.isEmpty else { return [:] }
        let lists = table.columns.map { "group_concat(DISTINCT typeof(\(DBBDatabase.quoteIdentifier($0.name))))" }
        let sql = "SELECT \(lists.joined(separator: ", ")) FROM \(DBBDatabase.quoteIdentifier(table.name))"
        var result: [String: Set<String>] = [:]
        try database.forEachRow(sql) { row in
            for (position, column) in table.columns.enumerated() {
                let list: String? = try row[position]
                result[column.name] = Set((list ?? "").split(separator: ",").map(String.init)).subtracting(["null"])
            }
        }
        return result
    }

    /// The stored classes a property of type `scalar` cannot read (joined for a message), or `nil`.
    private static func unreadableClasses(_ classes: Set<String>, for scalar: PropertyType.Scalar) -> String? {
        let readable: Set<String> =
            switch scalar {
            case .string: ["integer", "real", "text"]
            case .double, .float: ["integer", "real"]
            case .bool: ["integer", "real"]
            default: ["integer"]
            }
        let unreadable = classes.subtracting(readable)
        return unreadable.isEmpty ? nil : unreadable.sorted().map { $0.uppercased() }.joined(separator: " and ")
    }

    /// `artistId` → `artist`, `album_ID` → `album`; `nil` when there is no such suffix.
    private static func strippingIdSuffix(_ name: String) -> String? {
        for suffix in ["Id", "ID"] where name.hasSuffix(suffix) && name.count > suffix.count {
            return String(name.dropLast(suffix.count))
        }
        return nil
    }

    /// The Swift type of a column from its declared type, following SQLite's affinity rules
    /// (`DBBAffinity`), and a note for the property; `nil` for a column that holds binary data.
    ///
    /// - INTEGER affinity (`INT` in the name) → `Int`; TEXT affinity (`CHAR`, `CLOB`, `TEXT`) → `String`;
    ///   REAL affinity (`REAL`, `FLOA`, `DOUB`) → `Double`.
    /// - NUMERIC affinity: `BOOL` in the name → `Bool`; `DATE` or `TIME` in the name → `String`, since such
    ///   columns of existing databases hold text (`2021-01-01 00:00:00`) that a `Date` would rewrite as a
    ///   number (`DBBAffinity.namesDateOrTime(_:)`); anything else (`NUMERIC(10,2)`, `DECIMAL`) → `Double`.
    /// - `BLOB` → skipped. No declared type → decided by the stored values (integers → `Int`, numbers →
    ///   `Double`, text → `String`); skipped when they include BLOBs or there are none.
    /// - Nullable columns become optionals.
    private func swiftType(of column: DBBColumnInfo, stored: [String: Set<String>]) -> (PropertyType, String?)? {
        let declared = column.declaredType
        var note: String?
        let scalar: PropertyType.Scalar
        switch DBBAffinity(declaredType: declared) {
        case .integer:
            scalar = .int
        case .text:
            scalar = .string
        case .blob:
            guard declared.isEmpty else { return nil }
            let classes = stored[column.name] ?? []
            if classes.isEmpty || classes.contains("blob") {
                return nil
            } else if classes == ["integer"] {
                scalar = .int
            } else if classes.isSubset(of: ["integer", "real"]) {
                scalar = .double
            } else {
                scalar = .string
            }
            note = "Column \(column.name) has no declared type; the type follows its stored values."
        case .real:
            scalar = .double
        case .numeric:
            if declared.uppercased().contains("BOOL") {
                scalar = .bool
            } else if DBBAffinity.namesDateOrTime(declared) {
                scalar = .string
                note = "Column \(column.name) is \(declared): kept as text so saves keep its format."
            } else {
                scalar = .double
            }
        }
        return (PropertyType(base: .scalar(scalar), isOptional: !column.isNotNull), note)
    }

    /// A column's `DEFAULT` as a Swift literal of the property's type, when it is a plain literal (`1`,
    /// `-2.5`, `'open'`, `TRUE`); `nil` for expressions (`CURRENT_TIMESTAMP`, `(1 + 2)`) and `NULL`.
    static func initialValue(_ sql: String?, for scalar: PropertyType.Scalar) -> String? {
        guard var text = sql?.trimmingCharacters(in: .whitespaces), !text.isEmpty else { return nil }
        switch scalar {
        case .string:
            guard text.count >= 2, text.hasPrefix("'"), text.hasSuffix("'") else { return nil }
            text = String(text.dropFirst().dropLast())
            guard !text.replacingOccurrences(of: "''", with: "").contains("'") else { return nil }
            return Naming.stringLiteral(text.replacingOccurrences(of: "''", with: "'"))
        case .bool:
            switch text.uppercased() {
            case "0", "FALSE": return "false"
            case "1", "TRUE": return "true"
            default: return nil
            }
        case .int:
            return Int(text).map(String.init)
        case .double:
            guard let value = Double(text), value.isFinite, text.allSatisfy({ $0.isNumber || "+-.eE".contains($0) })
            else { return nil }
            return text.contains(".") || text.lowercased().contains("e") ? text : text + ".0"
        default:
            return nil
        }
    }
}
