internal import DBBSQL
internal import Foundation
internal import NIOCore

/// A table's rows summed up so that the server's copy can be checked without reading the dump again: the
/// row count and the wrapping sum of one 64-bit hash per row. The sum does not depend on the rows' order, so
/// the server can send them as it scans the table, and a changed, missing or extra row changes it (unless
/// two SipHash values collide: one chance in 2⁶⁴ per difference).
///
/// Each row hashes its values in column order, each value as the bytes PostgreSQL's binary format has for it
/// (``RowHasher``): the restore hashes the values it expects the server to hold, made from the dump's values
/// (``expected(_:type:)``), and the comparison hashes the bytes the server sends. `Hasher` is seeded per
/// process, so both sums are made in the same process, and a sum is never stored.
struct RestoreDigest: Equatable, Sendable {
    private(set) var rows = 0
    private var sum: UInt64 = 0

    /// Adds a row's hash.
    mutating func add(_ row: consuming RowHasher) {
        rows += 1
        sum &+= UInt64(truncatingIfNeeded: row.hasher.finalize())
    }

    /// The bytes PostgreSQL's binary format has for the value a column of the type holds for a stored value
    /// (``RestoreValues/stored(_:isRawText:type:)``), hashed; `false` when the value cannot be predicted (a
    /// storage class the plan does not put in such a column), which makes the digests differ.
    ///
    /// A numeric column is read as text (``RestoreValues/numericColumnText(of:)``).
    static func expected(_ value: DBBValue, type: RestoreValues.ColumnType, into row: inout RowHasher) -> Bool {
        switch (value, type) {
        case (.null, _):
            row.addNull()
        case (.integer(let number), .bigint):
            withUnsafeBytes(of: number.bigEndian) { row.add($0) }
        case (.real(let number), .double):
            withUnsafeBytes(of: number.bitPattern.bigEndian) { row.add($0) }
        case (.text(var text), .text):
            text.withUTF8 { row.add(UnsafeRawBufferPointer($0)) }
        case (.blob(let bytes), .bytea):
            bytes.withUnsafeBytes { row.add($0) }
        case (.integer, .numeric), (.real, .numeric):
            guard var text = RestoreValues.numericColumnText(of: value) else { return false }
            text.withUTF8 { row.add(UnsafeRawBufferPointer($0)) }
        default:
            return false
        }
        return true
    }
}

/// One row's hash: each value as a presence byte, its length and its bytes, so that no two rows' values run
/// into each other.
struct RowHasher {
    fileprivate var hasher = Hasher()

    mutating func addNull() {
        hasher.combine(UInt8(0))
    }

    mutating func add(_ bytes: UnsafeRawBufferPointer) {
        hasher.combine(UInt8(1))
        hasher.combine(bytes.count)
        hasher.combine(bytes: bytes)
    }

    /// A value as the server sends it in binary format; `nil` is NULL.
    mutating func add(_ cell: ByteBuffer?) {
        guard let cell else { return addNull() }
        cell.withUnsafeReadableBytes { add($0) }
    }
}
