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
