import SwiftDiagnostics
import SwiftSyntax
import SwiftSyntaxMacros

/// `@DBBTable`: writes a `DBBTableObject` subclass's class-level mapping, with a direct get/set closure for
/// every stored property, and its `required init(dbManager:)`.
public struct DBBTableMacro: MemberMacro {
    /// The members are written laid out; reformatting would break every closure over several lines.
    public static var formatMode: FormatMode { .disabled }

    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        guard let classDecl = declaration.as(ClassDeclSyntax.self) else {
            context.diagnose(DBBMacroDiagnostic.notAClass(kind: kindName(of: declaration)).at(Syntax(declaration)))
            return []
        }
        let className = classDecl.name.trimmedDescription
        guard let inherited = classDecl.inheritanceClause?.inheritedTypes, !inherited.isEmpty else {
            context.diagnose(DBBMacroDiagnostic.noSuperclass(className).at(Syntax(classDecl.name)))
            return []
        }

        var reader = PropertyReader(className: className)
        for member in classDecl.memberBlock.members {
            if let variable = member.decl.as(VariableDeclSyntax.self) { reader.read(variable) }
        }
        for diagnostic in reader.diagnostics { context.diagnose(diagnostic) }
        guard reader.diagnostics.isEmpty else { return [] }

        let access = accessModifier(of: classDecl)
        let arguments = TableArguments(node)
        var members: [DeclSyntax] = []
        if let name = arguments.name {
            members.append("\(raw: access)override class var tableName: String { \(raw: name) }")
        }
        if let idColumn = arguments.idColumn {
            members.append("\(raw: access)override class var idColumnName: String { \(raw: idColumn) }")
        }
        if let layout = arguments.layout {
            members.append("\(raw: access)override class var layout: DBBTableLayout { \(raw: layout) }")
        }
        if let timestamps = arguments.timestamps {
            members.append("\(raw: access)override class var hasTimestampColumns: Bool { \(raw: timestamps) }")
        }
        // Only this class's own objects: a subclass written without the macro does not track its properties.
        members.append(
            "\(raw: access)override class var tracksChanges: Bool { self == \(raw: className).self }")
        members.append(
            mapping(reader.properties, className: className, extraIndexes: arguments.indexes, access: access))
        members.append(rowReader(reader.properties, className: className, access: access))
        if !declaresInitializer(classDecl) {
            let unset = reader.uninitialized.filter { $0.value == nil }
            for property in unset {
                context.diagnose(
                    DBBMacroDiagnostic.noDefaultValue(property: property.name, type: property.typeText).at(
                        property.node))
            }
            guard unset.isEmpty else { return [] }
            members.append(initializer(reader.uninitialized, access: access))
        }
        return members
    }

    private static func kindName(of declaration: some DeclGroupSyntax) -> String {
        if declaration.is(StructDeclSyntax.self) { return "a struct" }
        if declaration.is(EnumDeclSyntax.self) { return "an enum" }
        if declaration.is(ActorDeclSyntax.self) { return "an actor" }
        if declaration.is(ProtocolDeclSyntax.self) { return "a protocol" }
        return "an extension"
    }

    /// `public ` for a public or open class, whose overrides and required initializer must be visible as widely.
    private static func accessModifier(of classDecl: ClassDeclSyntax) -> String {
        let names = Set(classDecl.modifiers.map(\.name.text))
        if names.contains("open") { return "open " }
        return names.contains("public") ? "public " : ""
    }

    private static func declaresInitializer(_ classDecl: ClassDeclSyntax) -> Bool {
        classDecl.memberBlock.members.contains { member in
            guard let initializer = member.decl.as(InitializerDeclSyntax.self) else { return false }
            let parameters = initializer.signature.parameterClause.parameters
            return parameters.count == 1 && parameters.first?.firstName.text == "dbManager"
        }
    }

    private static func mapping(
        _ properties: [MappedProperty], className: String, extraIndexes: String?, access: String
    ) -> DeclSyntax {
        let entries = properties.map { property in
            var labels: [String] = []
            if let column = property.columnName { labels.append("columnName: \(column)") }
            if property.isForeignKey { labels.append("foreignKey: true") }
            let name = property.name
            labels.append("get: { (object: \(className)) -> \(property.typeText) in object.\(name) }")
            labels.append("set: { $0.\(name) = $1 }")
            return "\"\(property.key)\": .init(\(labels.joined(separator: ", "))).keyed(by: \\\(className).\(name))"
        }
        // Laid out by hand (the expansion is not reformatted), one entry a line, as a person would write it.
        let dictionary =
            entries.isEmpty ? "[:]" : "[\n" + entries.map { "                \($0),\n" }.joined() + "            ]"
        var arguments = [dictionary]
        let attributes = properties.compactMap { property in property.attribute.map { "\"\(property.key)\": \($0)" } }
        if !attributes.isEmpty { arguments.append("attributes: [\(attributes.joined(separator: ", "))]") }
        let indexed = properties.filter(\.isIndexed).map { "DBBIndexer(columnsToIndex: [\"\($0.key)\"])" }
        switch (indexed.isEmpty, extraIndexes) {
        case (true, nil): break
        case (true, let extra?): arguments.append("indexers: \(extra)")
        case (false, nil): arguments.append("indexers: [\(indexed.joined(separator: ", "))]")
        case (false, let extra?): arguments.append("indexers: [\(indexed.joined(separator: ", "))] + \(extra)")
        }
        return """
            \(raw: access)override class var persistenceMapping: DBBTableMapping {
                super.persistenceMapping.merging(
                    DBBTableMapping(
                        \(raw: arguments.joined(separator: ",\n            "))))
            }
            """
    }

    /// The whole-row reader: each property set from its column, with no closure per column, in the order of the
    /// mapping's columns (by name), in which the closures set them.
    private static func rowReader(_ properties: [MappedProperty], className: String, access: String) -> DeclSyntax {
        let sorted = properties.sorted { $0.key < $1.key }
        let names = sorted.map { "\"\($0.key)\"" }.joined(separator: ", ")
        let reads = sorted.enumerated().map { index, property in
            "        if let value = try row.dbbValue(at: positions[\(index)], as: object.\(property.name)) "
                + "{ object.\(property.name) = value }\n"
        }
        return """
            \(raw: access)override class var dbbRowReader: DBBRowReader? {
                // A load sets each property here, not through the mapping's `set:` closures: edit both alike.
                guard self == \(raw: className).self else { return nil }
                return DBBRowReader(\(raw: className).self, properties: [\(raw: names)]) { object, row, positions in
                    guard let object = object as? \(raw: className) else {
                        throw DBBRowReader.wrongClass(object, expected: \(raw: className).self)
                    }
            \(raw: reads.joined())    }
            }
            """
    }

    private static func initializer(_ uninitialized: [PropertyReader.Uninitialized], access: String) -> DeclSyntax {
        let assignments = uninitialized.map { "self.\($0.name) = \($0.value ?? "")\n    " }.joined()
        return """
            \(raw: access)required init(dbManager: DBBManager) {
                \(raw: assignments)super.init(dbManager: dbManager)
            }
            """
    }
}

extension DBBTableMacro: MemberAttributeMacro {
    /// `@DBBTracked` on each stored property the class maps, so that setting one marks the object dirty.
    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        // Only where the members are written: a class with a superclass (the others get a diagnostic).
        guard let classDecl = declaration.as(ClassDeclSyntax.self), classDecl.inheritanceClause != nil,
            PropertyReader.isTracked(member)
        else { return [] }
        return ["@DBBTracked"]
    }
}

/// The arguments of `@DBBTable(name:idColumn:layout:timestamps:indexes:)`, as written (any expression is copied).
private struct TableArguments {
    var name: String?
    var idColumn: String?
    var layout: String?
    var timestamps: String?
    var indexes: String?

    init(_ node: AttributeSyntax) {
        guard case .argumentList(let list) = node.arguments else { return }
        for argument in list {
            let text = argument.expression.trimmedDescription
            switch argument.label?.text {
            case "name": name = text
            case "idColumn": idColumn = text
            case "layout": layout = text
            case "timestamps": timestamps = text
            case "indexes": indexes = text
            default: break
            }
        }
    }
}

/// One mapped property, ready to be written.
struct MappedProperty {
    /// The property's name as written in code (backticks kept).
    let name: String
    /// The mapping key: the name without backticks.
    let key: String
    let typeText: String
    let columnName: String?
    let isForeignKey: Bool
    let isIndexed: Bool
    /// The column attribute expression, if any.
    let attribute: String?
}
