/// The arguments of a statement: positional (`?`) or named (`:name`, `@name`, `$name`).
///
/// Write them as literals:
///
/// ```swift
/// try db.execute("INSERT INTO user (name, age) VALUES (?, ?)", arguments: ["Ann", 41])
/// try db.execute("UPDATE user SET age = :age WHERE name = :name", arguments: ["name": "Ann", "age": 42])
/// ```
public struct DBBArguments: ExpressibleByArrayLiteral, ExpressibleByDictionaryLiteral {
    enum Storage {
        case positional([(any DBBBindable)?])
        case named([String: (any DBBBindable)?])
    }

    let storage: Storage

    /// Positional arguments, bound in order to `?` parameters.
    public init(_ values: [(any DBBBindable)?]) { storage = .positional(values) }

    /// Named arguments; keys may be written with or without the `:`, `@` or `$` prefix.
    public init(named values: [String: (any DBBBindable)?]) { storage = .named(values) }

    /// Positional arguments written as an array literal: `["Ann", 41, nil]`.
    public init(arrayLiteral elements: (any DBBBindable)?...) { storage = .positional(elements) }

    /// Named arguments written as a dictionary literal: `["name": "Ann", "age": 41]`.
    public init(dictionaryLiteral elements: (String, (any DBBBindable)?)...) {
        storage = .named(Dictionary(elements, uniquingKeysWith: { _, last in last }))
    }

    /// No arguments.
    public static var none: DBBArguments { DBBArguments([]) }
}

extension DBBStatement {
    /// Binds positional or named arguments; every parameter gets a value, so earlier bindings are replaced.
    ///
    /// - Throws: ``DBBError`` (misuse) when arguments and parameters do not match, or the error of a value
    ///   that cannot be bound.
    public func bind(_ arguments: DBBArguments) throws {
        switch arguments.storage {
        case .positional(let values): try bind(values)
        case .named(let values): try bind(named: values)
        }
    }
}
