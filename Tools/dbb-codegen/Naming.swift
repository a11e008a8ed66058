/// Swift names: identifiers, keywords, and names derived from SQL table and column names.
enum Naming {
    /// Words that must be written in backticks to be used as a property name.
    static let keywords: Set<String> = [
        "associatedtype", "class", "enum", "extension", "fileprivate", "func", "import", "inout", "internal", "let",
        "open", "operator", "private", "precedencegroup", "protocol", "public", "rethrows", "static", "struct",
        "typealias", "var", "break", "case", "catch", "continue", "default", "defer", "do", "else", "fallthrough",
        "for", "guard", "if", "in", "repeat", "return", "throw", "switch", "where", "while", "Any", "as", "await",
        "false", "is", "nil", "throws", "true", "try",
    ]

    /// Names a generated class cannot use for a property: members of `DBBTableObject`, and words that
    /// cannot be used as a property name even in backticks.
    static let reservedPropertyNames: Set<String> = [
        "idNum", "createdTime", "modifiedTime", "isDirty", "attributesDictionary", "dbManager", "shortName",
        "loadedProperties", "tableName", "idColumnName", "hasTimestampColumns", "save", "saveToDB",
        "performPreSaveActions", "performPostSaveActions", "makeDirty", "makeClean", "init", "deinit", "self",
        "Self", "super", "subscript", "Type", "Protocol",
    ]

    /// Type names a class derived from a table name must not take, with the module that declares them: a
    /// class named `Actor` would hide Swift's `Actor` from every file of the module that declares it.
    static let shadowedTypes: [String: String] = {
        var owners: [String: String] = [:]
        for name in [
            "Actor", "AnyActor", "Array", "Bool", "Character", "Codable", "Collection", "Comparable", "Decodable",
            "Dictionary", "Double", "Encodable", "Equatable", "Error", "Float", "Hashable", "Identifiable", "Int",
            "Int8", "Int16", "Int32", "Int64", "Never", "Optional", "Range", "Result", "Sendable", "Sequence", "Set",
            "String", "Substring", "Task", "UInt", "UInt8", "UInt16", "UInt32", "UInt64", "Void",
        ] {
            owners[name] = "Swift"
        }
        for name in [
            "Bundle", "Calendar", "Data", "Date", "DateComponents", "Decimal", "FileManager", "Locale",
            "Measurement", "Notification", "Operation", "Predicate", "Process", "Progress", "Thread", "TimeZone",
            "Timer", "Unit", "URL", "UUID",
        ] {
            owners[name] = "Foundation"
        }
        for name in ["DBBDatabase", "DBBError", "DBBIndexer", "DBBManager", "DBBQueryOptions", "DBBValue"] {
            owners[name] = "DBBBuilder"
        }
        return owners
    }()

    /// Whether `name` is a Swift identifier (letters, digits and `_`, not starting with a digit).
    static func isIdentifier(_ name: String) -> Bool {
        guard let first = name.unicodeScalars.first, !("0"..."9").contains(first) else { return false }
        return name.unicodeScalars.allSatisfy { $0 == "_" || $0.properties.isAlphabetic || ("0"..."9").contains($0) }
    }

    /// The class every generated class subclasses, so no generated class can take its name.
    static let baseClassName = "DBBTableObject"

    /// Whether `name` can name a generated class: an identifier that is neither a keyword nor
    /// ``baseClassName``.
    static func isClassName(_ name: String) -> Bool {
        isIdentifier(name) && !keywords.contains(name) && name != baseClassName
    }

    /// The message for a name that ``isClassName(_:)`` refuses, with the reason when it is the base class.
    static func invalidClassNameMessage(_ name: String) -> String {
        "'\(name)' is not a valid class name"
            + (name == baseClassName ? ": every generated class is a subclass of \(baseClassName)" : "")
    }

    /// `base` if it is not used, else the first unused of `base + suffix(2)`, `base + suffix(3)`, ….
    static func unique(_ base: String, suffix: (Int) -> String, isUsed: (String) -> Bool) -> String {
        var candidate = base
        var counter = 2
        while isUsed(candidate) {
            candidate = base + suffix(counter)
            counter += 1
        }
        return candidate
    }

    /// The name as written in Swift source: in backticks when it is a keyword.
    static func escaped(_ name: String) -> String {
        keywords.contains(name) ? "`\(name)`" : name
    }

    /// The words of an SQL name: runs of letters and digits.
    static func words(_ name: String) -> [String] {
        var words: [String] = []
        var current = ""
        for character in name {
            if character.isLetter || character.isNumber {
                current.append(character)
            } else if !current.isEmpty {
                words.append(current)
                current = ""
            }
        }
        if !current.isEmpty { words.append(current) }
        return words
    }

    /// `invoice_items` → `InvoiceItems`, `Album` → `Album`, `order details` → `OrderDetails`.
    static func upperCamelCase(_ name: String) -> String {
        let result = words(name).map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        return startsWithLetter(result) ? result : "Table" + result
    }

    /// `ArtistId` → `artistId`, `first_name` → `firstName`, `ID` → `id`, `URLPath` → `urlPath`.
    static func lowerCamelCase(_ name: String) -> String {
        let parts = words(name)
        guard let first = parts.first else { return "value" }
        let rest = parts.dropFirst().map { $0.prefix(1).uppercased() + $0.dropFirst() }.joined()
        let result = lowercasedLeadingCapitals(first) + rest
        return startsWithLetter(result) ? result : "value" + result
    }

    private static func startsWithLetter(_ name: String) -> Bool {
        name.first.map { $0.isLetter } ?? false
    }

    /// Lowers the leading run of capitals, keeping the last one when it starts a lowercase word (`URLPath`).
    private static func lowercasedLeadingCapitals(_ word: String) -> String {
        let characters = Array(word)
        let capitals = characters.prefix { $0.isUppercase }.count
        if capitals == characters.count { return word.lowercased() }
        let lowered = capitals > 1 ? capitals - 1 : capitals
        return String(characters[..<lowered]).lowercased() + String(characters[lowered...])
    }

    /// A Swift string literal.
    static func stringLiteral(_ text: String) -> String {
        var result = "\""
        for scalar in text.unicodeScalars {
            switch scalar {
            case "\"": result += "\\\""
            case "\\": result += "\\\\"
            case "\n": result += "\\n"
            case "\r": result += "\\r"
            case "\t": result += "\\t"
            default:
                if scalar.value < 0x20 {
                    result += "\\u{\(String(scalar.value, radix: 16))}"
                } else {
                    result.unicodeScalars.append(scalar)
                }
            }
        }
        return result + "\""
    }
}
