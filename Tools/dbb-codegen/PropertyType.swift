import Foundation

/// The Swift type of a generated property, limited to what `DBBPropertyPersistence` can map.
struct PropertyType: Equatable {
    /// The scalar types, by their Swift names.
    enum Scalar: String, CaseIterable {
        case bool = "Bool"
        case int = "Int"
        case int8 = "Int8"
        case int16 = "Int16"
        case int32 = "Int32"
        case int64 = "Int64"
        case uint = "UInt"
        case uint8 = "UInt8"
        case uint16 = "UInt16"
        case uint32 = "UInt32"
        case uint64 = "UInt64"
        case float = "Float"
        case double = "Double"
        case string = "String"
        case date = "Date"
        case data = "Data"

        /// The default value of a non-optional property, and whether the declaration needs the type
        /// written out (`var budget: Float = 0`) because the literal alone would infer another type.
        var defaultValue: (literal: String, needsAnnotation: Bool) {
            switch self {
            case .bool: ("false", false)
            case .int: ("0", false)
            case .double: ("0.0", false)
            case .string: ("\"\"", false)
            case .date: ("Date()", false)
            case .data: ("Data()", false)
            case .int8, .int16, .int32, .int64, .uint, .uint8, .uint16, .uint32, .uint64, .float: ("0", true)
            }
        }
    }

    /// What the property holds.
    enum Base: Equatable {
        case scalar(Scalar)
        /// A `DBBTableObject` subclass, by name.
        case reference(String)
    }

    var base: Base
    var isArray = false
    var isOptional = false

    /// Well-known types that are not `DBBTableObject` subclasses and have no storage type.
    static let knownValueTypes: Set<String> = [
        "Array", "Optional", "Dictionary", "Set", "Any", "AnyObject", "Character", "Substring", "Float16", "Float80",
        "CGFloat", "Decimal", "NSDecimalNumber", "NSNumber", "NSString", "NSDate", "NSData", "URL", "UUID",
        "Int128", "UInt128", "Result", "Range", "ClosedRange", "DateComponents", "TimeInterval", "Measurement",
        "Void", "Never",
    ]

    /// Every spelling the parser accepts, for error messages.
    static let supportedSummary =
        Scalar.allCases.map(\.rawValue).joined(separator: ", ")
        + ", a DBBTableObject subclass, an array of any of these but Data ([String], [Person]), and an "
        + "optional of any of them (Date?, [Int]?, Person?)"

    /// Parses a type as written in Swift (`Int`, `Date?`, `[String]`, `[Meeting]?`, `Person?`).
    ///
    /// - Parameters:
    ///   - text: the type.
    ///   - subject: what has the type, for the error message (`property 'name'`, `--default-type`).
    /// - Throws: ``CodegenError`` naming the subject for a type DBBBuilder cannot store.
    init(parsing text: String, for subject: String) throws {
        var rest = text.trimmingCharacters(in: .whitespaces)
        func unsupported(_ reason: String) -> CodegenError {
            CodegenError("unsupported type '\(text)' for \(subject): \(reason)")
        }
        if rest.hasSuffix("?") {
            isOptional = true
            rest.removeLast()
            if rest.hasSuffix("?") || rest.hasSuffix("!") { throw unsupported("nested optionals have no storage") }
        } else if rest.hasSuffix("!") {
            throw unsupported("write an optional (T?) instead of an implicitly unwrapped one")
        }
        if rest.hasPrefix("[") && rest.hasSuffix("]") {
            isArray = true
            rest = String(rest.dropFirst().dropLast()).trimmingCharacters(in: .whitespaces)
            if rest.hasSuffix("?") { throw unsupported("array elements cannot be optional") }
            if rest.hasPrefix("[") { throw unsupported("arrays of arrays have no storage") }
            if rest.contains(":") { throw unsupported("dictionaries have no storage") }
        }
        if let scalar = Scalar(rawValue: rest) {
            if isArray && scalar == .data { throw unsupported("arrays of Data have no storage") }
            base = .scalar(scalar)
        } else if Naming.isIdentifier(rest), rest.first?.isUppercase == true,
            !Self.knownValueTypes.contains(rest), !rest.hasPrefix("DBB")
        {
            base = .reference(rest)
        } else {
            let hint = Scalar.allCases.first { $0.rawValue.lowercased() == rest.lowercased() }
            if let hint { throw unsupported("did you mean \(hint.rawValue)?") }
            throw unsupported("supported are \(Self.supportedSummary)")
        }
    }

    init(base: Base, isArray: Bool = false, isOptional: Bool = false) {
        self.base = base
        self.isArray = isArray
        self.isOptional = isOptional
    }

    /// Whether the property is a single object reference.
    var isReference: Bool {
        if case .reference = base, !isArray { return true }
        return false
    }

    /// Whether the property is stored in a column of the class's own table (scalars but `Data`), so it can
    /// be indexed.
    var isColumn: Bool {
        if case .scalar(let scalar) = base { return !isArray && scalar != .data }
        return false
    }

    /// The element type's Swift spelling.
    var elementName: String {
        switch base {
        case .scalar(let scalar): scalar.rawValue
        case .reference(let name): name
        }
    }

    /// The type's Swift spelling, optional mark included.
    var swiftName: String {
        (isArray ? "[\(elementName)]" : elementName) + (isOptional ? "?" : "")
    }

    /// Whether the declaration needs Foundation (`Date`, `Data`).
    var needsFoundation: Bool {
        base == .scalar(.date) || base == .scalar(.data)
    }
}
