import SwiftDiagnostics
import SwiftSyntax

/// The errors `@DBBTable` and its markers report, each on the line at fault.
enum DBBMacroDiagnostic {
    case notAClass(kind: String)
    case noSuperclass(String)
    case letProperty(String)
    case unsupportedType(property: String, type: String, reason: String)
    case missingType(String)
    case emptyArrayLiteral(String)
    case noDefaultValue(property: String, type: String)
    case markerNotOnProperty(String)
    case markerMisplaced(marker: String, property: String, reason: String)
    case unnamedColumn(String)
    case tuplePattern

    var message: String {
        switch self {
        case .notAClass(let kind):
            "@DBBTable applies to a class that inherits DBBTableObject, not to \(kind)"
        case .noSuperclass(let name):
            "@DBBTable class '\(name)' must inherit DBBTableObject (or another @DBBTable class)"
        case .letProperty(let name):
            "'let' property '\(name)' cannot be loaded from the database; make it 'var', or mark it @Transient"
        case .unsupportedType(let property, let type, let reason):
            "property '\(property)' has type '\(type)', which cannot be stored: \(reason); "
                + "mark it @Transient to leave it out"
        case .missingType(let name):
            "write the type of property '\(name)' (for example 'var \(name): String'): @DBBTable reads types as "
                + "written, and infers them only from literals, initializer calls such as Date() or Address(), and "
                + "cases such as Status.open"
        case .emptyArrayLiteral(let name):
            "an empty array literal does not say its element type: write 'var \(name): [Element] = []'"
        case .noDefaultValue(let property, let type):
            "property '\(property)' of type '\(type)' needs an initial value (or make it optional), "
                + "or the class must write its own 'required init(dbManager:)'"
        case .markerNotOnProperty(let marker):
            "@\(marker) marks a stored property of a @DBBTable class"
        case .markerMisplaced(let marker, let property, let reason):
            "@\(marker) does not apply to property '\(property)': \(reason)"
        case .unnamedColumn(let marker):
            "@\(marker) needs the column's name as a string: @\(marker)(\"name\")"
        case .tuplePattern:
            "@DBBTable maps properties declared one name at a time; split the tuple into separate 'var's"
        }
    }

    func at(_ node: Syntax) -> Diagnostic {
        Diagnostic(node: node, message: Message(text: message, id: id))
    }

    private var id: String {
        switch self {
        case .notAClass: "notAClass"
        case .noSuperclass: "noSuperclass"
        case .letProperty: "letProperty"
        case .unsupportedType: "unsupportedType"
        case .missingType: "missingType"
        case .emptyArrayLiteral: "emptyArrayLiteral"
        case .noDefaultValue: "noDefaultValue"
        case .markerNotOnProperty: "markerNotOnProperty"
        case .markerMisplaced: "markerMisplaced"
        case .unnamedColumn: "unnamedColumn"
        case .tuplePattern: "tuplePattern"
        }
    }

    private struct Message: DiagnosticMessage {
        let text: String
        let id: String
        var message: String { text }
        var diagnosticID: MessageID { MessageID(domain: "DBBMacros", id: id) }
        var severity: DiagnosticSeverity { .error }
    }
}
