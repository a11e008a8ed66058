public import DBBSQL

extension DBBPostgresConnection {
    /// A value bound to a `$n` parameter: one `DBBValue`, or an array that `DBBValue` cannot express.
    ///
    /// ```swift
    /// try db.fetchAll("SELECT id, name FROM person WHERE id = ANY($1::bigint[])",
    ///                 arguments: [.integerArray([3, 5, 8])])
    /// ```
    public enum Argument: Sendable, Hashable {
        /// A single value: `bigint`, `double precision`, `text`, `bytea` or NULL.
        case value(DBBValue)
        /// A `bigint[]`, for `= ANY($1::bigint[])` and `unnest($1::bigint[])`.
        case integerArray([Int64])
        /// A `text[]`, for `= ANY($1::text[])`. No element may contain a NUL character.
        case textArray([String])
    }
}
