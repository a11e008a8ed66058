import DBBMacrosImplementation
import SwiftCompilerPlugin
import SwiftSyntax
import SwiftSyntaxMacros

/// The compiler plugin that provides `@DBBTable` and its property markers.
///
/// The expansions live in DBBMacrosImplementation, which `dbb-generate` runs too. The compiler finds a macro by
/// its module and type name (`DBBMacrosPlugin.DBBTableMacro`, as `#externalMacro` names it), so this module
/// declares the types and each forwards to its implementation.
@main
struct DBBMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [DBBTableMacro.self, DBBPropertyMarkerMacro.self, DBBTrackedMacro.self]
}

/// `@DBBTable`: see `DBBMacrosImplementation.DBBTableMacro`.
public struct DBBTableMacro: MemberMacro, MemberAttributeMacro {
    public static var formatMode: FormatMode { DBBMacrosImplementation.DBBTableMacro.formatMode }

    public static func expansion(
        of node: AttributeSyntax, providingMembersOf declaration: some DeclGroupSyntax,
        conformingTo protocols: [TypeSyntax], in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try DBBMacrosImplementation.DBBTableMacro.expansion(
            of: node, providingMembersOf: declaration, conformingTo: protocols, in: context)
    }

    public static func expansion(
        of node: AttributeSyntax, attachedTo declaration: some DeclGroupSyntax,
        providingAttributesFor member: some DeclSyntaxProtocol, in context: some MacroExpansionContext
    ) throws -> [AttributeSyntax] {
        try DBBMacrosImplementation.DBBTableMacro.expansion(
            of: node, attachedTo: declaration, providingAttributesFor: member, in: context)
    }
}

/// The property markers: see `DBBMacrosImplementation.DBBPropertyMarkerMacro`.
public struct DBBPropertyMarkerMacro: PeerMacro {
    public static func expansion(
        of node: AttributeSyntax, providingPeersOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [DeclSyntax] {
        try DBBMacrosImplementation.DBBPropertyMarkerMacro.expansion(
            of: node, providingPeersOf: declaration, in: context)
    }
}

/// `@DBBTracked`: see `DBBMacrosImplementation.DBBTrackedMacro`.
public struct DBBTrackedMacro: AccessorMacro {
    public static func expansion(
        of node: AttributeSyntax, providingAccessorsOf declaration: some DeclSyntaxProtocol,
        in context: some MacroExpansionContext
    ) throws -> [AccessorDeclSyntax] {
        try DBBMacrosImplementation.DBBTrackedMacro.expansion(of: node, providingAccessorsOf: declaration, in: context)
    }
}
