public import DBBSQL
public import Foundation

/// A `CGFloat` property is stored as `.float` (a `Real` column), as DBBBuilder stores it on Apple platforms.
extension CGFloat: DBBPersistableValue {
    /// `.float`.
    public static var dbbStorageType: DBBStorageType { .float }
    /// `.floatArray`.
    public static var dbbArrayStorageType: DBBStorageType { .floatArray }
    /// Converts a stored REAL (or INTEGER) value back.
    ///
    /// - Throws: `DBBError` (mismatch) for a value that is not a number.
    public static func fromStoredValue(_ value: DBBValue) throws -> CGFloat {
        CGFloat(try Double.fromStoredValue(value))
    }
}
