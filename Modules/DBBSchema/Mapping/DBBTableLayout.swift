/// How a class's table is laid out on disk.
public enum DBBTableLayout: Sendable {
    /// DBBBuilder's layout: `id Integer PRIMARY KEY AUTOINCREMENT`, `createdTime` and `modifiedTime` columns. A
    /// file in it opens in DBBBuilder on Apple platforms.
    case dbbBuilder
    /// The lean layout for new applications: `id Integer PRIMARY KEY` without `AUTOINCREMENT` (SQLite may reuse the
    /// id of the last row after it was deleted) and no timestamp columns (objects' `createdTime` and `modifiedTime`
    /// stay `nil`), so an insert writes one table row and no `sqlite_sequence` row. Join tables keep their layout.
    /// A migration's `convertLayout(of:to:)` step converts a table either way.
    case lean
}
