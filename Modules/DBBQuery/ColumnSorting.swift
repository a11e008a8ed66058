/// Sort directions for query options (DBBBuilder's constants): an item ``descending`` in
/// ``DBBQueryOptions/sorting`` makes every column descending.
///
/// ```swift
/// var options = DBBQueryOptions()
/// options.sorting = ["lastName", "firstName", ColumnSorting.descending]
/// ```
public struct ColumnSorting: Sendable {
    /// Ascending order (`ASC`), the default.
    public static let ascending = "ASC"
    /// Descending order (`DESC`).
    public static let descending = "DESC"
}
