import Foundation

/// Builds a class from a class name and a property list (`name:String startDate:Date? tags:[String]`).
struct PropertyListSource {
    var className: String
    /// Property specifications: `name:Type`, or a bare `name` when `defaultType` is set.
    var specifications: [String]
    var defaultType: String?
    /// Custom column names: `property=column`.
    var columns: [String] = []
    /// The properties to index, in order.
    var index: [String] = []
    var unique = false

    /// Reads a properties file: one property per line (`name: Type` or a bare name), blank lines and lines
    /// starting with `#` ignored.
    ///
    /// - Throws: ``CodegenError`` (no input) when the file cannot be read.
    static func specifications(fromFile path: String) throws -> [String] {
        let text: String
        do {
            text = try String(contentsOfFile: path, encoding: .utf8)
        } catch {
            throw CodegenError("cannot read properties file \(path)", exitCode: CodegenError.noInput)
        }
        return text.components(separatedBy: .newlines).map { $0.trimmingCharacters(in: .whitespaces) }
            .filter { !$0.isEmpty && !$0.hasPrefix("#") }
    }

    /// The class, with every name and type checked.
    ///
    /// - Returns: the class and notes for standard error (references made optional).
    /// - Throws: ``CodegenError`` for a bad class or property name, an unsupported type, a duplicate
    ///   property, or a `--column`/`--index` that names no property.
    func generate() throws -> (GeneratedClass, notes: [String]) {
        guard Naming.isClassName(className) else { throw CodegenError(Naming.invalidClassNameMessage(className)) }
        if let defaultType { _ = try PropertyType(parsing: defaultType, for: "--default-type") }
        var generated = GeneratedClass(className: className)
        var notes: [String] = []
        var seen: Set<String> = []
        for specification in specifications {
            var property = try parse(specification)
            guard seen.insert(property.name).inserted else {
                throw CodegenError("property '\(property.name)' is listed twice")
            }
            if property.type.isReference && !property.type.isOptional {
                property.type.isOptional = true
                property.note =
                    "Declared `\(property.type.elementName)`; generated optional, as a reference has no "
                    + "default object."
                notes.append(
                    "property '\(property.name)' is generated as \(property.type.swiftName): a reference has no default "
                        + "object")
            }
            generated.properties.append(property)
        }
        for column in columns {
            let parts = column.split(separator: "=", maxSplits: 1).map {
                String($0).trimmingCharacters(in: .whitespaces)
            }
            guard parts.count == 2, !parts[0].isEmpty, !parts[1].isEmpty else {
                throw CodegenError("--column '\(column)' is not of the form property=column")
            }
            guard let position = generated.properties.firstIndex(where: { $0.name == parts[0] }) else {
                throw CodegenError("--column names '\(parts[0])', which is not a property of \(className)")
            }
            generated.properties[position].columnName = parts[1] == parts[0] ? nil : parts[1]
        }
        if !index.isEmpty {
            for (position, name) in index.enumerated() {
                guard !index[..<position].contains(name) else { throw CodegenError("--index lists '\(name)' twice") }
                guard let property = generated.properties.first(where: { $0.name == name }) else {
                    throw CodegenError("--index names '\(name)', which is not a property of \(className)")
                }
                guard property.type.isColumn else {
                    throw CodegenError(
                        "--index names '\(name)', a \(property.type.swiftName) kept in a join table; only properties "
                            + "stored in the class's own table can be indexed")
                }
            }
            generated.index = (index, unique)
        }
        return (generated, notes)
    }

    /// `name:Type`, `name: Type`, or a bare `name` given the default type.
    private func parse(_ specification: String) throws -> GeneratedProperty {
        let name: String
        let typeText: String
        if let colon = specification.firstIndex(of: ":") {
            name = specification[..<colon].trimmingCharacters(in: .whitespaces)
            typeText = specification[specification.index(after: colon)...].trimmingCharacters(in: .whitespaces)
            guard !typeText.isEmpty else {
                throw CodegenError("property '\(specification)' has no type after ':'")
            }
        } else if let defaultType {
            name = specification.trimmingCharacters(in: .whitespaces)
            typeText = defaultType
        } else {
            throw CodegenError(
                "property '\(specification)' has no type: write it as name:Type (for example \(specification):String) "
                    + "or pass --default-type")
        }
        guard Naming.isIdentifier(name) else {
            throw CodegenError("'\(name)' in '\(specification)' is not a valid property name")
        }
        guard !Naming.reservedPropertyNames.contains(name) else {
            throw CodegenError(
                "property name '\(name)' is taken by DBBTableObject or Swift; choose another name (map it to a "
                    + "column of that name with --column)")
        }
        return GeneratedProperty(name: name, type: try PropertyType(parsing: typeText, for: "property '\(name)'"))
    }
}
