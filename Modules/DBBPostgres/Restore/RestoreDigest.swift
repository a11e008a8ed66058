internal import DBBSQL
internal import Foundation
internal import NIOCore

/// A table's rows summed up so that the server's copy can be checked without reading the dump again: the
/// row count and the wrapping sum of one 64-bit hash per row. The sum does not depend on the rows' order, so
/// the server can send them as it scans the table, and a changed, missing or extra row changes it (unless
/// two SipHash values collide: one chance in 2⁶⁴ per difference).
///
/// Each row is hashed as the bytes of PostgreSQL's binary record format (``RowHasher``): the restore makes
/// them from the values it expects the server to hold, made from the dump's values (``expected(_:type:into:)``),
/// and the comparison hashes the record the server sends for `ROW(…)` of the row's values. `Hasher` is seeded
/// per process, so both sums are made in the same process, and a sum is never stored.
struct RestoreDigest: Equatable, Sendable {
    private(set) var rows = 0
    private var sum: UInt64 = 0

    /// Adds a row's hash.
    mutating func add(_ row: inout RowHasher) {
        row.withRecord { add(record: $0) }
    }

    /// Adds the hash of a row's record as the server sends it.
    mutating func add(record: UnsafeRawBufferPointer) {
        var hasher = Hasher()
        hasher.combine(bytes: record)
        rows += 1
        sum &+= UInt64(truncatingIfNeeded: hasher.finalize())
    }

    /// Adds to `row` the bytes PostgreSQL's binary format has for the value a column of the type holds for a
    /// stored value (``RestoreValues/stored(_:isRawText:type:)``); `false` when the value cannot be predicted
    /// (a storage class the plan does not put in such a column), which makes the digests differ.
    ///
    /// A numeric column is read as text (``RestoreValues/numericColumnText(of:)``).
    static func expected(_ value: DBBValue, type: RestoreValues.ColumnType, into row: inout RowHasher) -> Bool {
        switch (value, type) {
        case (.null, _):
            row.addNull(type)
        case (.integer(let number), .bigint):
            withUnsafeBytes(of: number.bigEndian) { row.add($0, type) }
        case (.real(let number), .double):
            withUnsafeBytes(of: number.bitPattern.bigEndian) { row.add($0, type) }
        case (.text(var text), .text):
            text.withUTF8 { row.add(UnsafeRawBufferPointer($0), type) }
        case (.blob(let bytes), .bytea):
            bytes.withUnsafeBytes { row.add($0, type) }
        case (.integer, .numeric), (.real, .numeric):
            guard var text = RestoreValues.numericColumnText(of: value) else { return false }
            text.withUTF8 { row.add(UnsafeRawBufferPointer($0), type) }
        default:
            return false
        }
        return true
    }
}

/// One row's values as PostgreSQL's binary record format has them (`record_send`): the field count, then per
/// field its type's OID, its length (-1 for NULL) and its bytes, all integers big-endian. The server sends
/// that for `ROW(…)`, one cell a row: postgres-nio spends more on each cell than the server spends making
/// the record.
///
/// The restore's load reuses one for every row (``reset()``), so that a row costs no allocation.
struct RowHasher {
    /// The record so far, its field count not yet written; empty before the first field.
    private var bytes: [UInt8] = []
    private var fields: Int32 = 0

    /// Starts the next row, keeping the storage.
    mutating func reset() {
        bytes.removeAll(keepingCapacity: true)
        fields = 0
    }

    /// Adds NULL in a column of the type.
    mutating func addNull(_ type: RestoreValues.ColumnType) {
        field(type, length: -1)
    }

    /// Adds a value's bytes in a column of the type.
    mutating func add(_ value: UnsafeRawBufferPointer, _ type: RestoreValues.ColumnType) {
        field(type, length: Int32(truncatingIfNeeded: value.count))
        bytes.append(contentsOf: value)
    }

    private mutating func field(_ type: RestoreValues.ColumnType, length: Int32) {
        if bytes.isEmpty { bytes.append(contentsOf: [0, 0, 0, 0]) }
        fields += 1
        withUnsafeBytes(of: type.oidInRecord.bigEndian) { bytes.append(contentsOf: $0) }
        withUnsafeBytes(of: length.bigEndian) { bytes.append(contentsOf: $0) }
    }

    /// Calls `body` with the row's record.
    mutating func withRecord<Result>(_ body: (UnsafeRawBufferPointer) -> Result) -> Result {
        if bytes.isEmpty { bytes.append(contentsOf: [0, 0, 0, 0]) }
        let count = fields.bigEndian
        bytes.withUnsafeMutableBytes { record in
            withUnsafeBytes(of: count) { record.copyMemory(from: $0) }
        }
        return bytes.withUnsafeBytes(body)
    }
}

extension RestoreValues.ColumnType {
    /// The OID of the type a column of this type is read back as in a record: `numeric` is read as `text`.
    var oidInRecord: UInt32 {
        switch self {
        case .bigint: 20
        case .double: 701
        case .numeric, .text: 25
        case .bytea: 17
        }
    }
}
