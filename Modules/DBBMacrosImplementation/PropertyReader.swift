import SwiftDiagnostics
import SwiftSyntax

/// Reads a `@DBBTable` class's stored properties and their markers.
struct PropertyReader {
    let className: String
    private(set) var properties: [MappedProperty] = []
    /// Non-optional stored properties with no initial value, and the value the generated initializer gives them
    /// (`nil` when there is none to give).
    private(set) var uninitialized: [Uninitialized] = []

    struct Uninitialized {
        let name: String
        let typeText: String
        let value: String?
        let node: Syntax
    }
    private(set) var diagnostics: [Diagnostic] = []

    init(className: String) {
        self.className = className
    }

    private static let markers: Set<String> = [
        "Column", "Indexed", "Unique", "NotNull", "Transient", "CascadeDelete", "ForeignKey",
    ]

    mutating func read(_ variable: VariableDeclSyntax) {
        let modifiers = Set(variable.modifiers.map(\.name.text))
        if modifiers.contains("static") || modifiers.contains("class") { return }
        let markers = Self.markers(of: variable)
        let isTransient = markers["Transient"] != nil
        let isLet = variable.bindingSpecifier.tokenKind == .keyword(.let)

        let bindings = Array(variable.bindings)
        for (index, binding) in bindings.enumerated() {
            guard let identifier = binding.pattern.as(IdentifierPatternSyntax.self) else {
                diagnostics.append(DBBMacroDiagnostic.tuplePattern.at(Syntax(binding.pattern)))
                continue
            }
            if Self.isComputed(binding) { continue }
            let name = identifier.identifier.text
            let key = name.trimmingBackticks
            // `var a, b: Int`: a binding without a type takes the next written one.
            let written =
                binding.typeAnnotation?.type ?? bindings[(index + 1)...].lazy.compactMap(\.typeAnnotation).first?.type
            let typeText: String
            if let written {
                typeText = written.trimmedDescription
            } else if let value = binding.initializer?.value, let inferred = PersistedType.inferred(from: value) {
                typeText = inferred
            } else {
                if isTransient && binding.initializer != nil { continue }
                let isEmptyArray = binding.initializer?.value.as(ArrayExprSyntax.self)?.elements.isEmpty == true
                let diagnostic: DBBMacroDiagnostic = isEmptyArray ? .emptyArrayLiteral(key) : .missingType(key)
                diagnostics.append(diagnostic.at(Syntax(binding)))
                continue
            }
            if isTransient {
                if binding.initializer == nil && !isLet, let written {
                    let value: String? =
                        if case .success(let type) = PersistedType.read(written) { type.defaultValue } else { nil }
                    let isOptional =
                        written.is(OptionalTypeSyntax.self)
                        || written.is(ImplicitlyUnwrappedOptionalTypeSyntax.self)
                    if !isOptional {
                        uninitialized.append(
                            Uninitialized(name: name, typeText: typeText, value: value, node: Syntax(binding)))
                    }
                }
                continue
            }
            if isLet {
                diagnostics.append(DBBMacroDiagnostic.letProperty(key).at(Syntax(variable.bindingSpecifier)))
                continue
            }
            let type: PersistedType
            switch PersistedType.read(written ?? TypeSyntax(stringLiteral: typeText)) {
            case .success(let read): type = read
            case .failure(let unsupported):
                diagnostics.append(
                    DBBMacroDiagnostic.unsupportedType(property: key, type: typeText, reason: unsupported.reason)
                        .at(written.map { Syntax($0) } ?? Syntax(binding)))
                continue
            }
            if binding.initializer == nil && !type.isOptional {
                uninitialized.append(
                    Uninitialized(name: name, typeText: typeText, value: type.defaultValue, node: Syntax(binding)))
            }
            if let property = mapped(name: name, key: key, typeText: typeText, type: type, markers: markers) {
                properties.append(property)
            }
        }
    }

    /// Checks the markers against the property's type and makes the mapping entry.
    private mutating func mapped(
        name: String, key: String, typeText: String, type: PersistedType, markers: [String: AttributeSyntax]
    ) -> MappedProperty? {
        // A type the macro does not know may be a class (a reference, in a join table) or an enum or Codable
        // value (a column): its column markers are left for registration to check.
        let isColumn = (type.shape == .value && type.baseName != "Data") || type.shape == .object
        let isJoinedObject = (type.shape == .object && markers["ForeignKey"] == nil) || type.shape == .objects
        var failed = false
        func misplaced(_ marker: String, _ reason: String) {
            guard let attribute = markers[marker] else { return }
            diagnostics.append(
                DBBMacroDiagnostic.markerMisplaced(marker: marker, property: key, reason: reason).at(Syntax(attribute)))
            failed = true
        }
        let columnOnly = "it is stored in a join table, not a column"
        let isForeignKey = markers["ForeignKey"] != nil
        if !(isColumn || isForeignKey) {
            misplaced("Indexed", columnOnly)
            misplaced("Unique", columnOnly)
            misplaced("NotNull", columnOnly)
        }
        if type.shape != .object { misplaced("ForeignKey", "only a reference to one object is a foreign key") }
        if !isJoinedObject { misplaced("CascadeDelete", "only references kept in a join table cascade") }

        var columnName: String?
        if let column = markers["Column"] {
            columnName = Self.firstArgument(of: column)
            if columnName == nil {
                diagnostics.append(DBBMacroDiagnostic.unnamedColumn("Column").at(Syntax(column)))
                failed = true
            }
        }
        if let foreignKey = markers["ForeignKey"], let column = Self.firstArgument(of: foreignKey) {
            if columnName != nil {
                misplaced("ForeignKey", "@Column already names its column; write @ForeignKey without a name")
            }
            columnName = column
        }
        if failed { return nil }

        var attributes: [String] = []
        if markers["NotNull"] != nil { attributes.append("ColumnAttribute.notNull") }
        if markers["Unique"] != nil { attributes.append("ColumnAttribute.unique") }
        if markers["CascadeDelete"] != nil { attributes.append("ColumnAttribute.cascadingDeletion") }
        let attribute: String? =
            switch attributes.count {
            case 0: nil
            case 1: attributes[0]
            default: "\"" + attributes.map { "\\(\($0))" }.joined(separator: " ") + "\""
            }
        return MappedProperty(
            name: name, key: key, typeText: typeText, columnName: columnName, isForeignKey: isForeignKey,
            isIndexed: markers["Indexed"] != nil, attribute: attribute)
    }

    /// The markers on a declaration, by name (`@DBBMacros.Unique` counts as `Unique`).
    /// Whether a member is a property `@DBBTable` maps and tracks: a single stored `var` of the instance,
    /// neither `@Transient` nor `lazy`, without observers of its own (an accessor macro cannot add to them).
    static func isTracked(_ member: some DeclSyntaxProtocol) -> Bool {
        guard let variable = member.as(VariableDeclSyntax.self), variable.bindingSpecifier.tokenKind == .keyword(.var),
            variable.bindings.count == 1, let binding = variable.bindings.first,
            binding.pattern.is(IdentifierPatternSyntax.self), binding.accessorBlock == nil
        else { return false }
        let modifiers = Set(variable.modifiers.map(\.name.text))
        guard modifiers.isDisjoint(with: ["static", "class", "lazy"]) else { return false }
        return markers(of: variable)["Transient"] == nil
    }

    private static func markers(of variable: VariableDeclSyntax) -> [String: AttributeSyntax] {
        var found: [String: AttributeSyntax] = [:]
        for element in variable.attributes {
            guard let attribute = element.as(AttributeSyntax.self) else { continue }
            let name = attribute.attributeName.trimmedDescription.split(separator: ".").last.map(String.init) ?? ""
            if Self.markers.contains(name) { found[name] = attribute }
        }
        return found
    }

    /// The first argument of a marker, as written, or `nil` when it has none.
    private static func firstArgument(of attribute: AttributeSyntax) -> String? {
        guard case .argumentList(let list) = attribute.arguments, let first = list.first else { return nil }
        let text = first.expression.trimmedDescription
        return text == "nil" ? nil : text
    }

    /// Whether a binding is computed: a getter, or `get`/`set` accessors (observers alone keep it stored).
    private static func isComputed(_ binding: PatternBindingSyntax) -> Bool {
        switch binding.accessorBlock?.accessors {
        case .none: false
        case .getter: true
        case .accessors(let accessors):
            accessors.contains { accessor in
                [.keyword(.get), .keyword(.set), .keyword(._read), .keyword(._modify)].contains(
                    accessor.accessorSpecifier.tokenKind)
            }
        }
    }
}

extension String {
    fileprivate var trimmingBackticks: String {
        hasPrefix("`") && hasSuffix("`") && count > 1 ? String(dropFirst().dropLast()) : self
    }
}
