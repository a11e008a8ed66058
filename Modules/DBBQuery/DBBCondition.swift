internal import DBBSQL
public import DBBSchema

/// A condition built from key paths, checked by the compiler: the property must exist and hold a value
/// of the compared type, and every value is bound (never spliced into the SQL).
///
/// ```swift
/// var options = DBBQueryOptions()
/// options.filter(\Person.age > 30 && \Person.lastName == "Lovelace")
/// options.filter(\Project.lead?.lastName == "Lovelace" || .isNil(\Project.lead))
/// ```
///
/// Key paths are resolved to mapped properties when the fetch runs (a key path that is not mapped is an
/// error naming it). A key path through a reference (`\Project.lead?.lastName`) matches objects whose
/// referenced object matches; an object with no referenced object does not match. Combine conditions
/// with `&&`, `||` and `!`.
///
/// A condition is `Sendable`, so it takes `Sendable` key paths: a key-path literal written in the expression is
/// one; a key path kept in a variable needs a type declared `KeyPath<Root, Value> & Sendable`.
public struct DBBCondition<Root>: Sendable {
    /// The condition, with its root type erased.
    package let expression: DBBConditionExpression

    package init(_ expression: DBBConditionExpression) {
        self.expression = expression
    }

    /// Matches objects whose property is one of some values.
    ///
    /// ```swift
    /// options.filter(.in(\Person.age, [30, 40]))
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: a mapped property.
    ///   - values: the values; an empty list matches nothing.
    /// - Returns: the condition.
    public static func `in`<Value: DBBPersistableValue>(_ keyPath: KeyPath<Root, Value> & Sendable, _ values: [Value])
        -> DBBCondition
    {
        DBBCondition(.inList(keyPath, values))
    }

    /// Matches objects whose optional property is one of some values.
    ///
    /// - Parameters:
    ///   - keyPath: a mapped optional property; NULL never matches.
    ///   - values: the values.
    /// - Returns: the condition.
    public static func `in`<Value: DBBPersistableValue>(_ keyPath: KeyPath<Root, Value?> & Sendable, _ values: [Value])
        -> DBBCondition
    {
        DBBCondition(.inList(keyPath, values))
    }

    /// Matches objects whose text property matches an SQL `LIKE` pattern (`%` any text, `_` one character;
    /// ASCII letters match either case).
    ///
    /// ```swift
    /// options.filter(.like(\Person.lastName, "Love%"))
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: a mapped `String` property.
    ///   - pattern: the pattern, bound as a value.
    /// - Returns: the condition.
    public static func like(_ keyPath: KeyPath<Root, String> & Sendable, _ pattern: String) -> DBBCondition {
        DBBCondition(.compare(keyPath, "LIKE", pattern))
    }

    /// Matches objects whose optional text property matches an SQL `LIKE` pattern.
    ///
    /// - Parameters:
    ///   - keyPath: a mapped optional property; NULL never matches.
    ///   - pattern: the pattern, bound as a value.
    /// - Returns: the condition.
    public static func like(_ keyPath: KeyPath<Root, String?> & Sendable, _ pattern: String) -> DBBCondition {
        DBBCondition(.compare(keyPath, "LIKE", pattern))
    }

    /// Matches objects whose optional property is `nil` (stored as NULL), or, for an object reference,
    /// objects that reference no object.
    ///
    /// ```swift
    /// options.filter(.isNil(\Project.lead))
    /// ```
    ///
    /// - Parameter keyPath: a mapped optional property.
    /// - Returns: the condition.
    public static func isNil<Value>(_ keyPath: KeyPath<Root, Value?> & Sendable) -> DBBCondition {
        DBBCondition(.isNil(keyPath))
    }

    /// Matches objects with at least one object in an array of references that matches a condition on
    /// the referenced class; every part of the condition must hold for that one object. Each matching
    /// object is returned once.
    ///
    /// ```swift
    /// options.filter(.any(\Meeting.participants, where: \Person.age > 30 && \Person.lastName == "Lee"))
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: a mapped array of references.
    ///   - condition: the condition on the referenced class.
    /// - Returns: the condition.
    public static func any<Element: DBBTableRepresentable>(
        _ keyPath: KeyPath<Root, [Element]> & Sendable, where condition: DBBCondition<Element>
    ) -> DBBCondition {
        DBBCondition(.any(keyPath, condition.expression))
    }

    /// Matches objects whose optional array of references holds an object that matches a condition.
    ///
    /// - Parameters:
    ///   - keyPath: a mapped optional array of references.
    ///   - condition: the condition on the referenced class.
    /// - Returns: the condition.
    public static func any<Element: DBBTableRepresentable>(
        _ keyPath: KeyPath<Root, [Element]?> & Sendable, where condition: DBBCondition<Element>
    ) -> DBBCondition {
        DBBCondition(.any(keyPath, condition.expression))
    }

    /// Matches objects whose referenced object matches a condition (every part of it holds for that
    /// object); an object with no referenced object does not match.
    ///
    /// ```swift
    /// options.filter(.any(\Project.projectLead, where: \Person.age > 30 && \Person.lastName == "Lee"))
    /// ```
    ///
    /// - Parameters:
    ///   - keyPath: a mapped object reference.
    ///   - condition: the condition on the referenced class.
    /// - Returns: the condition.
    public static func any<Element: DBBTableRepresentable>(
        _ keyPath: KeyPath<Root, Element?> & Sendable, where condition: DBBCondition<Element>
    ) -> DBBCondition {
        DBBCondition(.any(keyPath, condition.expression))
    }

    /// Matches objects that match both conditions.
    ///
    /// - Parameters:
    ///   - lhs: a condition.
    ///   - rhs: another condition on the same class.
    /// - Returns: the condition.
    public static func && (lhs: DBBCondition, rhs: DBBCondition) -> DBBCondition {
        DBBCondition(.and(lhs.expression, rhs.expression))
    }

    /// Matches objects that match either condition.
    ///
    /// - Parameters:
    ///   - lhs: a condition.
    ///   - rhs: another condition on the same class.
    /// - Returns: the condition.
    public static func || (lhs: DBBCondition, rhs: DBBCondition) -> DBBCondition {
        DBBCondition(.or(lhs.expression, rhs.expression))
    }

    /// Matches objects that do not match the condition.
    ///
    /// - Parameter condition: the condition.
    /// - Returns: the negated condition.
    public static prefix func ! (condition: DBBCondition) -> DBBCondition {
        DBBCondition(.not(condition.expression))
    }
}

/// A typed condition with its root type erased: comparisons of key paths with bound values, combined. Values
/// are stored as the `DBBValue`s the fetch binds (`DBBQueryOptions.storedArgument(_:)`).
package indirect enum DBBConditionExpression: Sendable {
    case comparison(DBBConditionKeyPath, String, DBBStoredArgument)
    case list(DBBConditionKeyPath, [DBBStoredArgument])
    case null(DBBConditionKeyPath)
    case through(DBBConditionKeyPath, DBBConditionExpression)
    case and(DBBConditionExpression, DBBConditionExpression)
    case or(DBBConditionExpression, DBBConditionExpression)
    case not(DBBConditionExpression)

    /// A comparison of a property with a value.
    static func compare(_ keyPath: AnyKeyPath & Sendable, _ comparison: String, _ value: (any DBBBindable)?) -> Self {
        .comparison(DBBConditionKeyPath(keyPath), comparison, DBBQueryOptions.storedArgument(value))
    }

    /// A property that is one of some values.
    static func inList(_ keyPath: AnyKeyPath & Sendable, _ values: [any DBBBindable]) -> Self {
        .list(DBBConditionKeyPath(keyPath), values.map(DBBQueryOptions.storedArgument))
    }

    /// A property that is NULL (or an object reference that leads nowhere).
    static func isNil(_ keyPath: AnyKeyPath & Sendable) -> Self { .null(DBBConditionKeyPath(keyPath)) }

    /// A condition on the objects a reference (or any element of an array of references) leads to.
    static func any(_ keyPath: AnyKeyPath & Sendable, _ inner: DBBConditionExpression) -> Self {
        .through(DBBConditionKeyPath(keyPath), inner)
    }
}

/// The key path of a typed condition: a `Sendable` one (a key-path literal capturing nothing, or only `Sendable`
/// subscript arguments), so that a condition can be built on one task and fetched with on another.
package struct DBBConditionKeyPath: Sendable {
    package let keyPath: AnyKeyPath & Sendable
    init(_ keyPath: AnyKeyPath & Sendable) { self.keyPath = keyPath }
}

// The comparison operators take a key path on the left and a value of the key path's type on the right,
// so they never compete with the standard library's `==` between key paths; ordering needs `Comparable`.

/// Matches objects whose property equals a value.
///
/// - Parameters:
///   - lhs: a mapped property of the fetched class, or of an object its references lead to.
///   - rhs: the value, bound.
/// - Returns: the condition.
public func == <Root, Value: DBBPersistableValue & Equatable>(lhs: KeyPath<Root, Value> & Sendable, rhs: Value)
    -> DBBCondition<Root>
{
    DBBCondition(.compare(lhs, "=", rhs))
}

/// Matches objects whose optional property equals a value; `nil` matches NULL.
///
/// - Parameters:
///   - lhs: a mapped property of the fetched class, or of an object its references lead to.
///   - rhs: the value, bound.
/// - Returns: the condition.
public func == <Root, Value: DBBPersistableValue & Equatable>(lhs: KeyPath<Root, Value?> & Sendable, rhs: Value?)
    -> DBBCondition<Root>
{
    DBBCondition(rhs.map { .compare(lhs, "=", $0) } ?? .isNil(lhs))
}

/// Matches objects whose property differs from a value.
///
/// - Parameters:
///   - lhs: a mapped property of the fetched class, or of an object its references lead to.
///   - rhs: the value, bound.
/// - Returns: the condition.
public func != <Root, Value: DBBPersistableValue & Equatable>(lhs: KeyPath<Root, Value> & Sendable, rhs: Value)
    -> DBBCondition<Root>
{
    DBBCondition(.compare(lhs, "<>", rhs))
}

/// Matches objects whose optional property differs from a value (`nil`: is not NULL). A NULL property
/// differs from no value: SQL's comparison with NULL is never true.
///
/// - Parameters:
///   - lhs: a mapped property of the fetched class, or of an object its references lead to.
///   - rhs: the value, bound.
/// - Returns: the condition.
public func != <Root, Value: DBBPersistableValue & Equatable>(lhs: KeyPath<Root, Value?> & Sendable, rhs: Value?)
    -> DBBCondition<Root>
{
    DBBCondition(rhs.map { .compare(lhs, "<>", $0) } ?? .not(.isNil(lhs)))
}

/// Matches objects whose property is less than a value.
///
/// - Parameters:
///   - lhs: a mapped property of the fetched class, or of an object its references lead to.
///   - rhs: the value, bound.
/// - Returns: the condition.
public func < <Root, Value: DBBPersistableValue & Comparable>(lhs: KeyPath<Root, Value> & Sendable, rhs: Value)
    -> DBBCondition<Root>
{
    DBBCondition(.compare(lhs, "<", rhs))
}

/// Matches objects whose optional property is less than a value (NULL never matches).
///
/// - Parameters:
///   - lhs: a mapped property of the fetched class, or of an object its references lead to.
///   - rhs: the value, bound.
/// - Returns: the condition.
public func < <Root, Value: DBBPersistableValue & Comparable>(lhs: KeyPath<Root, Value?> & Sendable, rhs: Value)
    -> DBBCondition<Root>
{
    DBBCondition(.compare(lhs, "<", rhs))
}

/// Matches objects whose property is at most a value.
///
/// - Parameters:
///   - lhs: a mapped property of the fetched class, or of an object its references lead to.
///   - rhs: the value, bound.
/// - Returns: the condition.
public func <= <Root, Value: DBBPersistableValue & Comparable>(lhs: KeyPath<Root, Value> & Sendable, rhs: Value)
    -> DBBCondition<Root>
{
    DBBCondition(.compare(lhs, "<=", rhs))
}

/// Matches objects whose optional property is at most a value (NULL never matches).
///
/// - Parameters:
///   - lhs: a mapped property of the fetched class, or of an object its references lead to.
///   - rhs: the value, bound.
/// - Returns: the condition.
public func <= <Root, Value: DBBPersistableValue & Comparable>(lhs: KeyPath<Root, Value?> & Sendable, rhs: Value)
    -> DBBCondition<Root>
{
    DBBCondition(.compare(lhs, "<=", rhs))
}

/// Matches objects whose property is greater than a value.
///
/// - Parameters:
///   - lhs: a mapped property of the fetched class, or of an object its references lead to.
///   - rhs: the value, bound.
/// - Returns: the condition.
public func > <Root, Value: DBBPersistableValue & Comparable>(lhs: KeyPath<Root, Value> & Sendable, rhs: Value)
    -> DBBCondition<Root>
{
    DBBCondition(.compare(lhs, ">", rhs))
}

/// Matches objects whose optional property is greater than a value (NULL never matches).
///
/// - Parameters:
///   - lhs: a mapped property of the fetched class, or of an object its references lead to.
///   - rhs: the value, bound.
/// - Returns: the condition.
public func > <Root, Value: DBBPersistableValue & Comparable>(lhs: KeyPath<Root, Value?> & Sendable, rhs: Value)
    -> DBBCondition<Root>
{
    DBBCondition(.compare(lhs, ">", rhs))
}

/// Matches objects whose property is at least a value.
///
/// - Parameters:
///   - lhs: a mapped property of the fetched class, or of an object its references lead to.
///   - rhs: the value, bound.
/// - Returns: the condition.
public func >= <Root, Value: DBBPersistableValue & Comparable>(lhs: KeyPath<Root, Value> & Sendable, rhs: Value)
    -> DBBCondition<Root>
{
    DBBCondition(.compare(lhs, ">=", rhs))
}

/// Matches objects whose optional property is at least a value (NULL never matches).
///
/// - Parameters:
///   - lhs: a mapped property of the fetched class, or of an object its references lead to.
///   - rhs: the value, bound.
/// - Returns: the condition.
public func >= <Root, Value: DBBPersistableValue & Comparable>(lhs: KeyPath<Root, Value?> & Sendable, rhs: Value)
    -> DBBCondition<Root>
{
    DBBCondition(.compare(lhs, ">=", rhs))
}

extension DBBQueryOptions {
    /// Adds a typed condition; it must hold together with the string ``conditions`` (whether those are
    /// joined with AND or OR).
    ///
    /// ```swift
    /// options.filter(\Person.age > 30 && \Person.lastName == "Lovelace")
    /// ```
    ///
    /// - Parameter condition: the condition, built from key paths of the fetched class.
    public mutating func filter<Root>(_ condition: DBBCondition<Root>) {
        typedConditions.append(condition.expression)
    }
}
