import SwiftSyntax
import SwiftSyntaxMacros

/// `@Column`, `@Indexed`, `@Unique`, `@NotNull`, `@Transient`, `@CascadeDelete` and `@ForeignKey`: markers that
/// `@DBBTable` reads from the class's properties. On their own they add nothing.
public struct DBBPropertyMarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        if !declaration.is(VariableDeclSyntax.self) {
            context.diagnose(
                DBBMacroDiagnostic.markerNotOnProperty(node.attributeName.trimmedDescription).at(Syntax(node)))
        }
        return []
    }
}

/// `@DBBTracked`, which `@DBBTable` attaches to each stored property it maps: a `didSet` observer that marks the
/// object dirty, so that a save of a stored object whose persisted properties were not set writes nothing.
///
/// The observer names the property (never evaluated): the overload of `dbbPropertyDidChange` its type selects is
/// where the compiler checks that the type can be stored, so an unsupported type is reported on the property.
public struct DBBTrackedMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard PropertyReader.isTracked(declaration), let variable = declaration.as(VariableDeclSyntax.self),
            let name = variable.bindings.first?.pattern.trimmedDescription
        else { return [] }
        return ["didSet { dbbPropertyDidChange(self.\(raw: name)) }"]
    }
}
