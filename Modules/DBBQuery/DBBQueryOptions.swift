public import DBBSQL
internal import DBBSchema

/// Which objects a fetch returns and how: conditions, sorting, the properties to load, distinctness,
/// and paging.
///
/// ```swift
/// var options = DBBQueryOptions.options(withConditions: ["budget > 1000"], sortColumns: ["name"])
/// options.addCondition("code = ?", userInput)   // a bound value: never spliced into the SQL
/// let projects = Project.instancesWithOptions(options, manager: manager)
/// ```
///
/// Conditions name properties (translated to their columns); a condition on an array or reference
/// property matches through its join table (`"tags = 'urgent'"`, `"participants IN (3, 7)"`). They are
/// joined with AND, or with OR when one of the items is `"OR"`.
/// A condition may reach through a reference (`"lead.lastName = ?"`; any element of an array), and
/// ``filter(_:)`` adds typed conditions built from key paths (`\Person.age > 30`).
public struct DBBQueryOptions: Sendable {
    /// Conditions, each a SQL expression over property names. Include the item `"OR"` to join them with OR.
    public var conditions: [String]?
    /// The properties to load; the others keep their defaults (and a later save leaves them alone).
    public var propertyNames: [String]?
    /// Property names (or column names) to sort by, in priority order. An item `ColumnSorting.descending`
    /// makes every column descending; an item `"name DESC"` sets one column's direction.
    public var sorting: [String]?
    /// Property names (or column names) to group by: the fetch returns one object per group of matching
    /// objects — the one with the lowest id — in the order of ``sorting``. Conditions select the objects
    /// before grouping; ``limit`` and ``offset`` page through the groups.
    public var groupBy: [String]?
    /// The array, reference and binary properties to load (`nil`: all of them).
    public var joinPropertiesToPopulate: [String]?
    /// Whether to return each distinct combination of the loaded properties once.
    public var distinct = false
    /// The maximum number of objects to return.
    public var limit: Int?
    /// The number of objects to skip (with ``limit``).
    public var offset: Int?
    /// Values bound, in order, to the `?` placeholders of ``conditions``.
    ///
    /// Each value is stored when it is given, as the `DBBValue` the fetch binds (with the object layer's
    /// conventions: dates as seconds since 2001), so options can cross tasks whatever the values were. Reading
    /// the property gives those stored values; a value that cannot be stored (a `UInt64` above `Int64.max`)
    /// reads as NULL, and the fetch throws its error.
    public var arguments: [(any DBBBindable)?] {
        get { storedArguments.map { (try? $0.get()) ?? DBBValue.null } }
        set { storedArguments = newValue.map(Self.storedArgument) }
    }
    /// ``arguments`` as stored: each value, or the error converting it threw.
    package private(set) var storedArguments: [DBBStoredArgument] = []
    /// Conditions built from key paths (``filter(_:)``), all of which must hold.
    package var typedConditions: [DBBConditionExpression] = []

    /// Creates empty options: every object, in id order.
    public init() {}

    /// Appends a condition whose `?` placeholders take bound values: quotes and SQL in the values are
    /// just data.
    ///
    /// ```swift
    /// options.addCondition("lastName = ?", "O'Brien")
    /// ```
    ///
    /// - Parameters:
    ///   - condition: the condition, with one `?` per value.
    ///   - values: the values.
    public mutating func addCondition(_ condition: String, _ values: (any DBBBindable)?...) {
        conditions = (conditions ?? []) + [condition]
        storedArguments += values.map(Self.storedArgument)
    }

    /// A value as query options store it: the `DBBValue` the fetch binds, or the error converting it threw,
    /// which the fetch reports (as it would report an error binding the value).
    package static func storedArgument(_ value: (any DBBBindable)?) -> DBBStoredArgument {
        Result { try value?.dbbValue(options: .objectLayout) ?? .null }
    }

    /// Creates options with conditions, properties and sorting, or any combination of them.
    ///
    /// - Parameters:
    ///   - conditions: the conditions to match.
    ///   - properties: the properties to load.
    ///   - sortColumns: the properties to sort by, in priority order.
    ///   - ascendingSort: whether the sort is ascending. Default: `true`.
    ///   - distinct: whether to return distinct combinations only. Default: `false`.
    /// - Returns: the options.
    public static func options(
        withConditions conditions: [String]? = nil, properties: [String]? = nil, sortColumns: [String]? = nil,
        ascendingSort: Bool = true, distinct: Bool = false
    ) -> DBBQueryOptions {
        var options = DBBQueryOptions()
        options.conditions = conditions
        options.propertyNames = properties
        if let sortColumns {
            options.sorting = ascendingSort ? sortColumns : sortColumns + [ColumnSorting.descending]
        }
        options.distinct = distinct
        return options
    }

    /// Options that load only some properties.
    @available(*, deprecated, renamed: "options(withConditions:properties:sortColumns:ascendingSort:distinct:)")
    public static func queryOptionsWithPropertyNames(_ properties: [String], distinct: Bool = false) -> DBBQueryOptions
    {
        options(properties: properties, distinct: distinct)
    }

    /// Options that sort ascending by some properties.
    @available(*, deprecated, renamed: "options(withConditions:properties:sortColumns:ascendingSort:distinct:)")
    public static func queryOptionsWithAscendingSortForColumns(_ columnNames: [String], distinct: Bool = false)
        -> DBBQueryOptions
    {
        options(sortColumns: columnNames, distinct: distinct)
    }

    /// Options that sort descending by some properties.
    @available(*, deprecated, renamed: "options(withConditions:properties:sortColumns:ascendingSort:distinct:)")
    public static func queryOptionsWithDescendingSortForColumns(_ columnNames: [String], distinct: Bool = false)
        -> DBBQueryOptions
    {
        options(sortColumns: columnNames, ascendingSort: false, distinct: distinct)
    }

    /// Options with conditions to match.
    @available(*, deprecated, renamed: "options(withConditions:properties:sortColumns:ascendingSort:distinct:)")
    public static func queryOptionsWithConditions(_ conditions: [String], distinct: Bool = false) -> DBBQueryOptions {
        options(withConditions: conditions, distinct: distinct)
    }
}

/// A bound value of query options or of a typed condition, converted when it is given.
package typealias DBBStoredArgument = Result<DBBValue, any Error>
