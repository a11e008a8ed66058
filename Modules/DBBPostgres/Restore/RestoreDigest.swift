internal import DBBSQL
internal import Foundation

/// A table's rows summed up so that the server's copy can be checked without reading the dump again: the
/// row count and the wrapping sum of one 64-bit hash per row (``RowHasher``). The sum does not depend on the
/// rows' order, so the server can send them as it scans the table, and a changed, missing or extra row
/// changes it, but for a chance of about one in 2⁶⁴ per difference.
///
/// The restore hashes the values it expects the server to hold, made from the dump's values
/// (``expected(_:type:into:)``), and the comparison hashes the record the server sends for `ROW(…)` of the
/// row's values (``add(record:)``): both hash each value as the bytes of PostgreSQL's binary format, with its
/// type's OID.
struct RestoreDigest: Equatable, Sendable {
    private(set) var rows = 0
    private var sum: UInt64 = 0

    /// Adds a row's hash.
    mutating func add(_ row: RowHasher) {
        rows += 1
        sum &+= row.finalize()
    }

    /// Adds the hash of a row sent as a record in PostgreSQL's binary format (`record_send`: the field count,
    /// then per field its type's OID, its length, -1 for NULL, and its bytes, integers big-endian).
    ///
    /// - Returns: `false` when the bytes are not such a record.
    mutating func add(record: UnsafeRawBufferPointer) -> Bool {
        var row = RowHasher()
        let isRecord = RecordDecoder.forEachField(of: record) { _, oid, bytes in
            if let bytes { row.add(bytes, oid: oid) } else { row.addNull(oid: oid) }
        }
        if isRecord { add(row) }
        return isRecord
    }

    /// Adds to `row` the bytes PostgreSQL's binary format has for the value a column of the type holds for a
    /// stored value (``RestoreValues/stored(_:isRawText:type:)``); `false` when the value cannot be predicted
    /// (a storage class the plan does not put in such a column), which makes the digests differ.
    ///
    /// A numeric column is read as text (``RestoreValues/numericColumnText(of:)``).
    static func expected(_ value: DBBValue, type: RestoreValues.ColumnType, into row: inout RowHasher) -> Bool {
        let oid = type.oidInRecord
        switch (value, type) {
        case (.null, _):
            row.addNull(oid: oid)
        case (.integer(let number), .bigint):
            withUnsafeBytes(of: number.bigEndian) { row.add($0, oid: oid) }
        case (.real(let number), .double):
            withUnsafeBytes(of: number.bitPattern.bigEndian) { row.add($0, oid: oid) }
        case (.text(var text), .text):
            text.withUTF8 { row.add(UnsafeRawBufferPointer($0), oid: oid) }
        case (.blob(let bytes), .bytea):
            bytes.withUnsafeBytes { row.add($0, oid: oid) }
        case (.integer, .numeric), (.real, .numeric):
            guard var text = RestoreValues.numericColumnText(of: value) else { return false }
            text.withUTF8 { row.add(UnsafeRawBufferPointer($0), oid: oid) }
        default:
            return false
        }
        return true
    }
}

/// One row's hash, made field by field: each value's bytes in PostgreSQL's binary format with its type's OID,
/// or NULL with it, in column order.
///
/// Not `Hasher`: SipHash, fed a record's bytes, slowed the load's thread, which the load waits on. This is a
/// 64-bit multiply-and-shift mix (the finalizer of MurmurHash3) over eight bytes at a time, enough to tell
/// rows apart by chance, not to resist someone choosing them.
struct RowHasher {
    private var state: UInt64 = 0x243F_6A88_85A3_08D3
    private var fields: UInt64 = 0

    /// Adds NULL in a column of the type with the OID.
    mutating func addNull(oid: UInt32) {
        field(0x9E37_79B9_7F4A_7C15, oid: oid)
    }

    /// Adds a value's bytes in a column of the type with the OID.
    mutating func add(_ value: UnsafeRawBufferPointer, oid: UInt32) {
        var hash = Self.mix(0x1000_0000_01B3 ^ UInt64(value.count))
        var offset = 0
        while offset + 8 <= value.count {
            hash = Self.mix(hash ^ value.loadUnaligned(fromByteOffset: offset, as: UInt64.self))
            offset += 8
        }
        if offset < value.count {
            var tail: UInt64 = 0
            for index in offset..<value.count { tail = tail << 8 | UInt64(value[index]) }
            hash = Self.mix(hash ^ tail ^ 0xFF51_AFD7_ED55_8CCD)
        }
        field(hash, oid: oid)
    }

    private mutating func field(_ hash: UInt64, oid: UInt32) {
        fields += 1
        state = Self.mix(state &* 0x9E37_79B9_7F4A_7C15 ^ hash ^ UInt64(oid) << 32)
    }

    /// The row's hash.
    func finalize() -> UInt64 {
        Self.mix(state ^ fields)
    }

    private static func mix(_ value: UInt64) -> UInt64 {
        var z = value
        z ^= z >> 33
        z &*= 0xFF51_AFD7_ED55_8CCD
        z ^= z >> 33
        z &*= 0xC4CE_B9FE_1A85_EC53
        z ^= z >> 33
        return z
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
