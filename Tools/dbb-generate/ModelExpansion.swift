import DBBMacrosImplementation
import SwiftDiagnostics
import SwiftParser
import SwiftParserDiagnostics
import SwiftSyntax
import SwiftSyntaxMacroExpansion

/// A model file expanded ahead of the build: the Swift source the compiler would see with the `@DBBTable` macro,
/// written out, so that a target compiles it with DBBObjects alone.
struct ModelExpansion {
    /// The generated file's text.
    let source: String
    /// The model's syntax errors and the macros' diagnostics, as `file:line:column: error: message` lines.
    let errors: [String]

    /// Expands every `@DBBTable` class of a model file and its markers with the macro's own implementation, and
    /// drops `import DBBMacros`, which the expanded file does not need.
    ///
    /// - Parameters:
    ///   - model: the model file's text: Swift, with classes marked `@DBBTable` as in a target that uses the macro.
    ///   - path: the model file's path, for the error locations.
    ///   - header: the comment lines the generated file starts with.
    init(model: String, path: String, header: [String]) {
        let tree = Parser.parse(source: model)
        let syntaxErrors = ParseDiagnosticsGenerator.diagnostics(for: tree)
        guard syntaxErrors.isEmpty else {
            let converter = SourceLocationConverter(fileName: path, tree: tree)
            self.source = ""
            self.errors = syntaxErrors.map { Self.line($0, $0.location(converter: converter), path: path) }
            return
        }
        let context = BasicMacroExpansionContext(sourceFiles: [tree: .init(moduleName: "Model", fullFilePath: path)])
        let expanded = tree.expand(
            macros: DBBMacroNames.implementations,
            contextGenerator: { syntax in
                BasicMacroExpansionContext(sharingWith: context, lexicalContext: syntax.allMacroLexicalContexts())
            }, indentationWidth: .spaces(4))
        // A macro diagnoses a detached copy of the model's nodes; the context knows where each came from.
        let errors = context.diagnostics.map { diagnostic in
            Self.line(
                diagnostic, context.location(for: diagnostic.position, anchoredAt: diagnostic.node, fileName: path),
                path: path)
        }
        guard errors.isEmpty, let file = expanded.as(SourceFileSyntax.self) else {
            self.source = ""
            self.errors = errors
            return
        }
        let statements = file.statements.filter { item in
            guard let importDecl = item.item.as(ImportDeclSyntax.self) else { return true }
            return importDecl.path.trimmedDescription != "DBBMacros"
        }
        let lines = header.map { "// \($0)" } + [""] + Self.tidied(file.with(\.statements, statements).description)
        self.source = lines.joined(separator: "\n") + "\n"
        self.errors = []
    }

    private static func line(_ diagnostic: Diagnostic, _ location: SourceLocation, path: String) -> String {
        let severity = diagnostic.diagMessage.severity == .error ? "error" : "warning"
        return "\(path):\(location.line):\(location.column): \(severity): \(diagnostic.message)"
    }

    /// The expanded text's lines, without what removing the attributes leaves: a line of spaces where markers
    /// stood on a line of their own, and no blank line between a declaration and the class after it (the blank
    /// line went with `@DBBTable`). Leading and trailing blank lines go too.
    private static func tidied(_ text: String) -> [String] {
        var lines: [String] = []
        for line in text.split(separator: "\n", omittingEmptySubsequences: false).map(String.init) {
            if !line.isEmpty && line.allSatisfy({ $0 == " " }) { continue }
            if let previous = lines.last, previous == "}", !line.isEmpty, line.first != " " { lines.append("") }
            lines.append(line)
        }
        while lines.first?.isEmpty == true { lines.removeFirst() }
        while lines.last?.isEmpty == true { lines.removeLast() }
        return lines
    }
}
