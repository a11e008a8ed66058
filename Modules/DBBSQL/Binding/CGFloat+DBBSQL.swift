public import Foundation

// `CGFloat` (Foundation's, on Linux a wrapper around `Double`) is stored as REAL, like `Double`.

extension CGFloat: DBBBindable {
    /// A `CGFloat` is stored as REAL.
    public func dbbValue(options: DBBCodingOptions) -> DBBValue { .real(Double(self)) }
    /// Binds the value as REAL.
    public func bind(to statement: DBBStatement, at index: Int32, options: DBBCodingOptions) throws {
        try statement.bindDouble(Double(self), at: index)
    }
}

extension CGFloat: DBBColumnReadable {
    /// Reads a column as `Double` does.
    public static func read(from row: DBBRow, at column: Int32) throws -> CGFloat {
        CGFloat(try Double.read(from: row, at: column))
    }
}
