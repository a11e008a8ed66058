import SwiftSyntax

/// What a property's written type means to the mapping, read from its spelling alone (a macro sees no types).
struct PersistedType {
    enum Shape {
        /// A scalar, stored in a column (or, for `Data`, a join table).
        case value
        /// A `DBBTableObject` subclass.
        case object
        /// An array of scalars.
        case values
        /// An array of objects.
        case objects
    }

    let shape: Shape
    let isOptional: Bool
    /// The scalar or class name (`String`, `Person`).
    let baseName: String

    /// The types that are persisted as scalars.
    static let scalarNames: Set<String> = [
        "Bool", "Int", "Int8", "Int16", "Int32", "Int64", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Float",
        "Double", "String", "Date", "Data",
    ]

    /// Common types that are neither scalars nor table objects, and what to do instead.
    private static let unstorable: [String: String] = [
        "URL": "store its 'absoluteString' in a String property",
        "UUID": "store its 'uuidString' in a String property",
        "Decimal": "store it as a Double or as text",
        "Character": "store it as a String",
        "Substring": "store it as a String",
        "CGFloat": "store it as a Double",
        "Float16": "store it as a Float",
        "Float80": "store it as a Double",
        "NSNumber": "store it as a number type",
        "Set": "store it as an array",
        "Dictionary": "dictionaries are not a storage type",
        "Any": "its type must be known",
        "AnyObject": "its type must be known",
    ]

    /// Reads a type as written.
    ///
    /// - Returns: the type, or why it cannot be stored.
    static func read(_ type: TypeSyntax) -> Result<PersistedType, Unsupported> {
        var inner = type
        var isOptional = false
        if let wrapped = optionalWrapped(type) {
            inner = wrapped
            isOptional = true
            if optionalWrapped(inner) != nil { return .failure(Unsupported("nested optionals are not a storage type")) }
        }
        if let element = arrayElement(inner) {
            if optionalWrapped(element) != nil {
                return .failure(Unsupported("arrays of optionals are not a storage type"))
            }
            if arrayElement(element) != nil { return .failure(Unsupported("arrays of arrays are not a storage type")) }
            return base(element).flatMap { name in
                if name == "Data" { return .failure(Unsupported("arrays of Data are not a storage type")) }
                let shape: Shape = scalarNames.contains(name) ? .values : .objects
                return .success(PersistedType(shape: shape, isOptional: isOptional, baseName: name))
            }
        }
        return base(inner).map { name in
            PersistedType(shape: scalarNames.contains(name) ? .value : .object, isOptional: isOptional, baseName: name)
        }
    }

    struct Unsupported: Error {
        let reason: String
        init(_ reason: String) { self.reason = reason }
    }

    private static func optionalWrapped(_ type: TypeSyntax) -> TypeSyntax? {
        if let optional = type.as(OptionalTypeSyntax.self) { return optional.wrappedType }
        if let optional = type.as(ImplicitlyUnwrappedOptionalTypeSyntax.self) { return optional.wrappedType }
        return genericArgument(of: type, named: "Optional")
    }

    private static func arrayElement(_ type: TypeSyntax) -> TypeSyntax? {
        if let array = type.as(ArrayTypeSyntax.self) { return array.element }
        return genericArgument(of: type, named: "Array")
    }

    private static func genericArgument(of type: TypeSyntax, named name: String) -> TypeSyntax? {
        guard let identifier = type.as(IdentifierTypeSyntax.self), identifier.name.text == name,
            let arguments = identifier.genericArgumentClause?.arguments, arguments.count == 1,
            case .type(let argument) = arguments.first!.argument
        else { return nil }
        return argument
    }

    /// The name of a nominal type without generic arguments (`Date`, `Foundation.Date`, `Models.Person`).
    private static func base(_ type: TypeSyntax) -> Result<String, Unsupported> {
        let name: String
        if let identifier = type.as(IdentifierTypeSyntax.self), identifier.genericArgumentClause == nil {
            name = identifier.name.text
        } else if let member = type.as(MemberTypeSyntax.self), member.genericArgumentClause == nil {
            name = member.name.text
        } else if type.is(DictionaryTypeSyntax.self) {
            return .failure(Unsupported("dictionaries are not a storage type"))
        } else if type.is(TupleTypeSyntax.self) {
            return .failure(Unsupported("tuples are not a storage type"))
        } else if type.is(FunctionTypeSyntax.self) || type.is(AttributedTypeSyntax.self) {
            return .failure(Unsupported("functions are not a storage type"))
        } else {
            return .failure(Unsupported("only scalars, DBBTableObject subclasses and arrays of them are stored"))
        }
        if let reason = unstorable[name] { return .failure(Unsupported(reason)) }
        return .success(name)
    }

    /// The value a non-optional property starts with when the class's initializer gives it none, or `nil` for
    /// an object reference (which has no natural default).
    var defaultValue: String? {
        if isOptional { return "nil" }
        switch shape {
        case .values, .objects: return "[]"
        case .object: return nil
        case .value:
            switch baseName {
            case "Bool": return "false"
            case "String": return "\"\""
            case "Date": return "Date(timeIntervalSinceReferenceDate: 0)"
            case "Data": return "Data()"
            default: return "0"
            }
        }
    }

    /// The type of a property initialized with `expression` and written without a type, where the
    /// expression says it: a literal, `-` before a numeric literal, an array literal of literals, a call
    /// of (or a member of) a scalar type such as `Date()` or `Date.now`, an initializer call of any type
    /// (`Address()`), or a case of a type named with it (`Status.open`).
    static func inferred(from expression: ExprSyntax) -> String? {
        if expression.is(IntegerLiteralExprSyntax.self) { return "Int" }
        if expression.is(FloatLiteralExprSyntax.self) { return "Double" }
        if expression.is(StringLiteralExprSyntax.self) { return "String" }
        if expression.is(BooleanLiteralExprSyntax.self) { return "Bool" }
        if let prefix = expression.as(PrefixOperatorExprSyntax.self), prefix.operator.text == "-" {
            let operand = inferred(from: prefix.expression)
            return operand == "Int" || operand == "Double" ? operand : nil
        }
        if let array = expression.as(ArrayExprSyntax.self), let first = array.elements.first,
            let element = inferred(from: first.expression), !element.hasPrefix("[")
        {
            return "[\(element)]"
        }
        if let call = expression.as(FunctionCallExprSyntax.self),
            let callee = call.calledExpression.as(DeclReferenceExprSyntax.self), isTypeName(callee.baseName.text)
        {
            return callee.baseName.text
        }
        if let member = expression.as(MemberAccessExprSyntax.self),
            let base = member.base?.as(DeclReferenceExprSyntax.self),
            scalarNames.contains(base.baseName.text)
                || (isTypeName(base.baseName.text) && member.declName.baseName.text.first?.isLowercase == true)
        {
            return base.baseName.text
        }
        return nil
    }

    /// Whether a name is spelled as a type is (`Address`, not `makeAddress`).
    private static func isTypeName(_ name: String) -> Bool {
        name.first?.isUppercase == true
    }
}
