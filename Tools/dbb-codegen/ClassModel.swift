/// One property of a generated class.
struct GeneratedProperty {
    /// The Swift name (without backticks).
    var name: String
    var type: PropertyType
    /// The column name when it differs from the property name.
    var columnName: String?
    /// Whether a reference is stored as an id column of the class's own table.
    var isForeignKey = false
    /// A documentation line written above the property.
    var note: String?
    /// The initial value as a Swift literal, when it is not the type's usual default (a column's DEFAULT).
    var initialValue: String?
}

/// A read-only property that fetches the object a foreign key names by a key that is not the target's id
/// (a TEXT primary key of a table mapped through its rowid).
struct GeneratedLookup {
    /// The Swift name (without backticks).
    var name: String
    /// The class fetched.
    var targetClass: String
    /// The target's property holding the referenced key.
    var targetProperty: String
    /// This class's property holding the foreign key value.
    var property: String
    /// A documentation line written above the property.
    var note: String
}

/// One generated `DBBTableObject` subclass.
struct GeneratedClass {
    var className: String
    var properties: [GeneratedProperty] = []
    /// Objects found by a foreign key to a key other than the id.
    var lookups: [GeneratedLookup] = []
    /// The table name when it differs from the class name.
    var tableName: String?
    /// The id column when it is not `id`.
    var idColumnName: String?
    var hasTimestampColumns = true
    /// The properties to index, in order, and whether the index is unique.
    var index: (properties: [String], unique: Bool)?

    /// Whether the class's declarations need Foundation.
    var needsFoundation: Bool { properties.contains { $0.type.needsFoundation } }
}

/// How a generated class declares its mapping.
enum MappingStyle: String, CaseIterable {
    /// `@DBBTable` and property markers: the macro writes the mapping with direct closures.
    case macro
    /// Key paths registered from `required init(dbManager:)` (scalars with `get:`/`set:` closures too).
    case keypaths
    /// A class-level `persistenceMapping` with direct closures, written out.
    case closures
}

/// Writes generated classes as Swift source laid out the way the repository's swift-format configuration
/// formats it, so a generated file passes `swift format lint` unchanged.
enum ClassRenderer {
    static let lineLength = 120

    /// A complete Swift file: header comments, imports, then the classes separated by blank lines.
    static func file(
        _ classes: [GeneratedClass], header: [String], importing module: String, style: MappingStyle = .macro
    ) -> String {
        var lines = header.flatMap { wrapped($0, width: lineLength - 3) }.map { "// " + $0 }
        if !lines.isEmpty { lines.append("") }
        var imports = [module]
        // The macro is declared in DBBMacros, which the umbrella re-exports and the lower modules do not.
        if style == .macro && module.hasPrefix("DBB") && !["DBBBuilder", "DBBMacros"].contains(module) {
            imports.append("DBBMacros")
        }
        if classes.contains(where: \.needsFoundation) && module != "Foundation" { imports.append("Foundation") }
        lines += imports.sorted().map { "import \($0)" }
        for generated in classes {
            lines.append("")
            switch style {
            case .macro: lines += renderMacro(generated)
            case .keypaths: lines += render(generated)
            case .closures: lines += renderClosures(generated)
            }
        }
        return lines.joined(separator: "\n") + "\n"
    }

    /// A comment's text broken at spaces into lines of at most `width` characters.
    static func wrapped(_ text: String, width: Int) -> [String] {
        filledLines(text.split(separator: " ").map(String.init), width: width)
    }

    /// `pieces` joined by spaces on as few lines as fit in `width` characters, each line filled greedily; a
    /// piece longer than `width` stands on a line of its own.
    static func filledLines(_ pieces: [String], width: Int) -> [String] {
        var lines: [String] = []
        var current = ""
        for piece in pieces {
            if !current.isEmpty && current.count + 1 + piece.count > width {
                lines.append(current)
                current = ""
            }
            current += (current.isEmpty ? "" : " ") + piece
        }
        if !current.isEmpty { lines.append(current) }
        return lines
    }

    /// The lines of one class, mapped from its initializer with key paths.
    static func render(_ generated: GeneratedClass) -> [String] {
        let className = generated.className
        var lines = classOpening(generated)
        let overrides = tableOverrides(generated)
        if !overrides.isEmpty {
            if !generated.properties.isEmpty { lines.append("") }
            lines += overrides
        }
        if !generated.properties.isEmpty || !overrides.isEmpty { lines.append("") }
        lines.append("    required init(dbManager: DBBManager) {")
        lines.append("        super.init(dbManager: dbManager)")
        let indexer = indexerArguments(generated)
        let tail = "for: self" + (indexer.map { ", indexer: DBBIndexer(\($0.joined(separator: ", ")))" } ?? "")
        if generated.properties.isEmpty {
            lines.append("        dbManager.addPersistenceMapping([:], \(tail))")
        } else {
            lines.append("        dbManager.addPersistenceMapping(")
            lines.append("            [")
            for property in generated.properties {
                lines += entry(for: property, in: className)
            }
            if generated.properties.count == 1 {
                // swift-format keeps no trailing comma after the only element of a collection.
                lines[lines.count - 1].removeLast()
            }
            lines += closing(tail: tail, indexer: indexer)
        }
        lines.append("    }")
        lines.append("}")
        return lines
    }

    /// `final class …: DBBTableObject {` and the property declarations, each after its note.
    private static func classOpening(_ generated: GeneratedClass) -> [String] {
        var lines = ["final class \(generated.className): DBBTableObject {"]
        for property in generated.properties {
            lines += noteLines(property.note)
            lines.append("    " + declaration(of: property))
        }
        for lookup in generated.lookups {
            lines += [""] + lookupLines(lookup, in: generated)
        }
        return lines
    }

    /// A property's note as documentation lines, wrapped.
    private static func noteLines(_ note: String?) -> [String] {
        note.map { wrapped($0, width: lineLength - 8).map { "    /// " + $0 } } ?? []
    }

    /// The `tableName`, `idColumnName` and `hasTimestampColumns` overrides a class needs.
    private static func tableOverrides(_ generated: GeneratedClass) -> [String] {
        var overrides: [String] = []
        if let tableName = generated.tableName {
            overrides.append("    override class var tableName: String { \(Naming.stringLiteral(tableName)) }")
        }
        if let idColumn = generated.idColumnName {
            overrides.append("    override class var idColumnName: String { \(Naming.stringLiteral(idColumn)) }")
        }
        if !generated.hasTimestampColumns {
            overrides.append("    override class var hasTimestampColumns: Bool { false }")
        }
        return overrides
    }

    /// The arguments of the class's `DBBIndexer`, if it has one.
    private static func indexerArguments(_ generated: GeneratedClass) -> [String]? {
        guard let index = generated.index else { return nil }
        let names = index.properties.map(Naming.stringLiteral).joined(separator: ", ")
        return ["columnsToIndex: [\(names)]"] + (index.unique ? ["unique: true"] : [])
    }

    /// The lines of one class marked `@DBBTable`: markers carry column names, foreign keys and a single-column
    /// index; the macro's arguments carry the table overrides and any other index.
    static func renderMacro(_ generated: GeneratedClass) -> [String] {
        var arguments: [String] = []
        if let tableName = generated.tableName { arguments.append("name: \(Naming.stringLiteral(tableName))") }
        if let idColumn = generated.idColumnName { arguments.append("idColumn: \(Naming.stringLiteral(idColumn))") }
        if !generated.hasTimestampColumns { arguments.append("timestamps: false") }
        var indexed: String?
        if let index = generated.index, index.properties.count == 1, !index.unique {
            indexed = index.properties[0]
        } else if let indexer = indexerArguments(generated) {
            arguments.append("indexes: [DBBIndexer(\(indexer.joined(separator: ", ")))]")
        }
        var lines: [String]
        let attribute = "@DBBTable" + (arguments.isEmpty ? "" : "(\(arguments.joined(separator: ", ")))")
        if attribute.count <= lineLength {
            lines = [attribute]
        } else {
            lines = ["@DBBTable("] + filled(arguments, indent: 4, suffix: ")")
        }
        lines.append("final class \(generated.className): DBBTableObject {")
        for property in generated.properties {
            lines += noteLines(property.note)
            var markers: [String] = []
            if property.name == indexed { markers.append("@Indexed") }
            if property.isForeignKey {
                markers.append("@ForeignKey" + (property.columnName.map { "(\(Naming.stringLiteral($0)))" } ?? ""))
            } else if let column = property.columnName {
                markers.append("@Column(\(Naming.stringLiteral(column)))")
            }
            lines.append("    " + (markers + [declaration(of: property)]).joined(separator: " "))
        }
        for lookup in generated.lookups {
            lines += [""] + lookupLines(lookup, in: generated)
        }
        lines.append("}")
        return lines
    }

    /// The lines of one class that declares its mapping as a class-level `persistenceMapping` with direct
    /// closures: what the macro writes, written out.
    static func renderClosures(_ generated: GeneratedClass) -> [String] {
        let className = generated.className
        var lines = classOpening(generated)
        if !generated.properties.isEmpty { lines.append("") }
        lines += tableOverrides(generated)
        lines.append("    override class var persistenceMapping: DBBTableMapping {")
        lines.append("        super.persistenceMapping.merging(")
        var arguments: [String] = []
        if let indexer = indexerArguments(generated) {
            arguments.append("indexers: [DBBIndexer(\(indexer.joined(separator: ", ")))]")
        }
        if generated.properties.isEmpty {
            lines.append("            DBBTableMapping(\((["[:]"] + arguments).joined(separator: ", "))))")
        } else {
            lines.append("            DBBTableMapping(")
            lines.append("                [")
            for property in generated.properties {
                lines += closureEntry(for: property, in: className)
            }
            if generated.properties.count == 1 { lines[lines.count - 1].removeLast() }
            let tail = arguments.map { ",\n                \($0)" }.joined()
            lines.append("                ]\(tail)))")
        }
        lines.append("    }")
        lines.append("}")
        return lines
    }

    /// `"name": .init(columnName: "itemName", get: { (object: Project) -> String in object.name }, set: …),`,
    /// wrapped after `.init(` when too long.
    static func closureEntry(for property: GeneratedProperty, in className: String) -> [String] {
        let name = Naming.escaped(property.name)
        var arguments: [String] = []
        if let column = property.columnName { arguments.append("columnName: \(Naming.stringLiteral(column))") }
        if property.isForeignKey { arguments.append("foreignKey: true") }
        arguments.append("get: { (object: \(className)) -> \(property.type.swiftName) in object.\(name) }")
        arguments.append("set: { $0.\(name) = $1 }")
        let key = Naming.stringLiteral(property.name)
        let line = "                    \(key): .init(\(arguments.joined(separator: ", "))),"
        if line.count <= lineLength { return [line] }
        return ["                    \(key): .init("] + filled(arguments, indent: 24, suffix: "),")
    }

    /// A computed property that fetches the object whose key equals the foreign key property, throwing what
    /// the fetch throws.
    static func lookupLines(_ lookup: GeneratedLookup, in generated: GeneratedClass) -> [String] {
        let optional = generated.properties.first { $0.name == lookup.property }?.type.isOptional ?? true
        let value = Naming.escaped(lookup.property)
        return wrapped(lookup.note, width: lineLength - 8).map { "    /// " + $0 } + [
            "    var \(Naming.escaped(lookup.name)): \(lookup.targetClass)? {",
            "        get throws {",
        ] + (optional ? ["            guard let \(value) else { return nil }"] : []) + [
            "            var options = DBBQueryOptions()",
            "            options.addCondition(\(Naming.stringLiteral(lookup.targetProperty + " = ?")), \(value))",
            "            return try \(lookup.targetClass).fetch(options: options, manager: dbManager).first",
            "        }",
            "    }",
        ]
    }

    /// `], for: self, indexer: …)`, broken before the indexer (and inside it) when too long.
    private static func closing(tail: String, indexer: [String]?) -> [String] {
        let line = "            ], \(tail))"
        guard line.count > lineLength, let indexer else { return [line] }
        let indexerLine = "            indexer: DBBIndexer(\(indexer.joined(separator: ", "))))"
        if indexerLine.count <= lineLength { return ["            ], for: self,", indexerLine] }
        return ["            ], for: self,", "            indexer: DBBIndexer("]
            + filled(indexer, indent: 16, suffix: "))")
    }

    /// `var name = ""`, `var budget: Float = 0`, `var startDate: Date?`.
    static func declaration(of property: GeneratedProperty) -> String {
        let name = Naming.escaped(property.name)
        let type = property.type
        if let value = property.initialValue {
            return type.isOptional ? "var \(name): \(type.swiftName) = \(value)" : "var \(name) = \(value)"
        }
        if type.isOptional { return "var \(name): \(type.swiftName)" }
        if type.isArray { return "var \(name): \(type.swiftName) = []" }
        guard case .scalar(let scalar) = type.base else { return "var \(name): \(type.swiftName)?" }
        let value = scalar.defaultValue
        return value.needsAnnotation
            ? "var \(name): \(scalar.rawValue) = \(value.literal)" : "var \(name) = \(value.literal)"
    }

    /// `"name": .init(\Project.name, columnName: "itemName", get: { $0.name }, set: { $0.name = $1 }),` —
    /// wrapped after `.init(` when too long.
    ///
    /// A scalar property (not an array, not a reference) also gets `get:` and `set:` closures: they read and
    /// write it directly, where the key path alone would be applied at run time on every row, which is
    /// several times slower. References and arrays keep the key-path-only form.
    static func entry(for property: GeneratedProperty, in className: String) -> [String] {
        let name = Naming.escaped(property.name)
        var arguments = ["\\\(className).\(name)"]
        if let column = property.columnName { arguments.append("columnName: \(Naming.stringLiteral(column))") }
        if property.isForeignKey { arguments.append("foreignKey: true") }
        if case .scalar = property.type.base, !property.type.isArray {
            arguments += ["get: { $0.\(name) }", "set: { $0.\(name) = $1 }"]
        }
        let key = Naming.stringLiteral(property.name)
        let line = "                \(key): .init(\(arguments.joined(separator: ", "))),"
        if line.count <= lineLength { return [line] }
        return ["                \(key): .init("] + filled(arguments, indent: 20, suffix: "),")
    }

    /// Arguments run together on as few lines as fit, as swift-format breaks a long argument list.
    static func filled(_ arguments: [String], indent: Int, suffix: String) -> [String] {
        let prefix = String(repeating: " ", count: indent)
        let pieces = arguments.enumerated().map { $1 + ($0 == arguments.count - 1 ? suffix : ",") }
        return filledLines(pieces, width: lineLength - indent).map { prefix + $0 }
    }
}
