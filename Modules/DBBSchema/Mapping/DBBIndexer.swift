/// Which columns of a class's table to index.
///
/// One indexer makes one index over its columns, in order, named `<Table>_` followed by the column names
/// run together (DBBBuilder's naming), `UNIQUE` when asked.
///
/// ```swift
/// dbManager.addPersistenceMapping(map, for: self, indexer: DBBIndexer(columnsToIndex: ["lastName", "firstName"]))
/// ```
public struct DBBIndexer: Sendable, Hashable {
    /// The property names to index (translated to their column names when the table is built).
    public var columnsToIndex: [String]
    /// Whether the index enforces unique values.
    public var unique: Bool

    /// Creates an indexer.
    ///
    /// - Parameters:
    ///   - columnsToIndex: the property names to index, in order.
    ///   - unique: whether the index is `UNIQUE`. Default: `false`.
    public init(columnsToIndex: [String], unique: Bool = false) {
        self.columnsToIndex = columnsToIndex
        self.unique = unique
    }

    /// Creates an indexer (the label earlier DBBBuilder documentation used).
    public init(columnNames: [String], unique: Bool = false) {
        self.init(columnsToIndex: columnNames, unique: unique)
    }
}

/// Column attributes for a class's `attributesDictionary` (property name → attribute).
public struct ColumnAttribute: Sendable {
    /// The column must hold a value.
    public static let notNull = "NOT NULL"
    /// The column's values must be unique.
    public static let unique = "UNIQUE"
    /// On an array of object references: deleting the owner deletes the referenced objects too
    /// (DBBuilder's cascading array deletion). It adds nothing to the SQL.
    public static let cascadingDeletion = "CASCADING DELETION"
}

/// The name DBBBuilder's documentation uses for ``ColumnAttribute``.
public typealias ColumnAttributes = ColumnAttribute
