/// A class's whole persistence mapping, declared once for the class rather than from each object's
/// initializer: its properties, their column attributes, and its indexes.
///
/// A `DBBTableObject` subclass returns it from its `persistenceMapping` class property (the `@DBBTable`
/// macro writes that property); the manager reads it once when the class is registered. A subclass
/// builds on its superclass's mapping with ``merging(_:)``:
///
/// ```swift
/// override class var persistenceMapping: DBBTableMapping {
///     super.persistenceMapping.merging(
///         DBBTableMapping(
///             ["name": .init(get: { (pet: Pet) in pet.name }, set: { $0.name = $1 })],
///             attributes: ["name": ColumnAttribute.notNull]))
/// }
/// ```
public struct DBBTableMapping: Sendable {
    /// The mapped properties, keyed by property name.
    public var properties: [String: DBBPropertyPersistence]
    /// Column attributes keyed by property name (``ColumnAttribute``), as in `attributesDictionary`.
    public var attributes: [String: String]
    /// The indexes, one per indexer, in order.
    public var indexers: [DBBIndexer]

    /// Creates a mapping.
    ///
    /// - Parameters:
    ///   - properties: the mapped properties, keyed by property name. Default: none.
    ///   - attributes: column attributes keyed by property name. Default: none.
    ///   - indexers: the indexes to create. Default: none.
    public init(
        _ properties: [String: DBBPropertyPersistence] = [:], attributes: [String: String] = [:],
        indexers: [DBBIndexer] = []
    ) {
        self.properties = properties
        self.attributes = attributes
        self.indexers = indexers
    }

    /// Whether the mapping declares nothing.
    public var isEmpty: Bool { properties.isEmpty && attributes.isEmpty && indexers.isEmpty }

    /// This mapping with a subclass's on top: its properties and attributes replace ones of the same name,
    /// and its indexers follow these.
    ///
    /// - Parameter other: the subclass's mapping.
    /// - Returns: the combined mapping.
    public func merging(_ other: DBBTableMapping) -> DBBTableMapping {
        DBBTableMapping(
            properties.merging(other.properties, uniquingKeysWith: { _, subclass in subclass }),
            attributes: attributes.merging(other.attributes, uniquingKeysWith: { _, subclass in subclass }),
            indexers: indexers + other.indexers)
    }
}
