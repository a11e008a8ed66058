import SwiftSyntaxMacros

/// The macros `DBBMacros` declares, by the name a source file writes, mapped to their implementations: what
/// the compiler plugin provides, and what `dbb-generate` expands ahead of the build.
public enum DBBMacroNames {
    /// `@DBBTable`, its property markers and `@DBBTracked`, by attribute name.
    public static let implementations: [String: any Macro.Type] = [
        "DBBTable": DBBTableMacro.self,
        "Column": DBBPropertyMarkerMacro.self,
        "Indexed": DBBPropertyMarkerMacro.self,
        "Unique": DBBPropertyMarkerMacro.self,
        "NotNull": DBBPropertyMarkerMacro.self,
        "Transient": DBBPropertyMarkerMacro.self,
        "CascadeDelete": DBBPropertyMarkerMacro.self,
        "ForeignKey": DBBPropertyMarkerMacro.self,
        "DBBTracked": DBBTrackedMacro.self,
    ]
}
