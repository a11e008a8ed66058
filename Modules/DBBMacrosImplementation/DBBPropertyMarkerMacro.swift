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
public struct DBBTrackedMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        guard PropertyReader.isTracked(declaration) else { return [] }
        return ["didSet { dbbPropertyDidChange() }"]
    }
}
