import SwiftCompilerPlugin
import SwiftSyntaxMacros

/// The compiler plugin that provides `@DBBTable` and its property markers.
@main
struct DBBMacrosPlugin: CompilerPlugin {
    let providingMacros: [Macro.Type] = [DBBTableMacro.self, DBBPropertyMarkerMacro.self, DBBTrackedMacro.self]
}
