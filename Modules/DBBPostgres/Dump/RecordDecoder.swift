internal import DBBSQL
internal import Foundation

/// Reads a row that came as one record, `ROW(…)` in PostgreSQL's binary format, into values: postgres-nio spends
/// more on each cell of a row than the server spends making the record, so a dump reads each row as one.
///
/// A record is a 32-bit count of fields, then per field its type's OID (32 bits), its length (32 bits, -1 for
/// NULL) and its bytes. The dump's `SELECT` casts every column to one of the types read here.
enum RecordDecoder {
    /// The OIDs of the types read here.
    enum OID {
        static let bool: UInt32 = 16
        static let bytea: UInt32 = 17
        static let name: UInt32 = 19
        static let int8: UInt32 = 20
        static let int2: UInt32 = 21
        static let int4: UInt32 = 23
        static let text: UInt32 = 25
        static let float4: UInt32 = 700
        static let float8: UInt32 = 701
        static let bpchar: UInt32 = 1042
        static let varchar: UInt32 = 1043
        static let record: UInt32 = 2249

        /// Whether values of the type are read as text.
        static func isText(_ oid: UInt32) -> Bool {
            oid == text || oid == name || oid == bpchar || oid == varchar
        }
    }

    /// Calls `body` with each field of a record: its index, its type's OID and its bytes (`nil` for NULL).
    ///
    /// - Returns: `false` when the bytes are not a record.
    /// - Throws: what `body` throws.
    static func forEachField(
        of record: UnsafeRawBufferPointer,
        _ body: (_ index: Int, _ oid: UInt32, _ bytes: UnsafeRawBufferPointer?) throws -> Void
    ) rethrows -> Bool {
        guard let count = uint32(record, at: 0) else { return false }
        var offset = 4
        for index in 0..<Int(count) {
            guard let oid = uint32(record, at: offset),
                let length = uint32(record, at: offset + 4).map(Int32.init(bitPattern:))
            else { return false }
            offset += 8
            if length < 0 {
                try body(index, oid, nil)
                continue
            }
            let end = offset + Int(length)
            guard end <= record.count else { return false }
            try body(index, oid, UnsafeRawBufferPointer(rebasing: record[offset..<end]))
            offset = end
        }
        return offset == record.count
    }

    /// The big-endian 32-bit number at an offset, or `nil` past the end.
    static func uint32(_ bytes: UnsafeRawBufferPointer, at offset: Int) -> UInt32? {
        guard offset >= 0, offset + 4 <= bytes.count else { return nil }
        return UInt32(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
    }

    /// One field's value by its type: `bool` as 0 or 1, `int8`, `int2`, `int4`, `float4` (widened), `float8`,
    /// `bytea`, and `text`, `name`, `bpchar`, `varchar` as text.
    static func value(_ bytes: UnsafeRawBufferPointer, oid: UInt32) -> DBBValue? {
        if let number = number(bytes, oid: oid) { return number }
        if oid == OID.bytea { return .blob(Data(bytes)) }
        if OID.isText(oid) { return .text(String(decoding: bytes, as: UTF8.self)) }
        return nil
    }

    /// A field of a numeric type (`bool`, `int8`, `int2`, `int4`, `float4`, `float8`) as its value, or `nil` for
    /// any other type or a length that is not the type's.
    static func number(_ bytes: UnsafeRawBufferPointer, oid: UInt32) -> DBBValue? {
        func integer<T: FixedWidthInteger>(_ type: T.Type) -> T? {
            guard bytes.count == MemoryLayout<T>.size else { return nil }
            return T(bigEndian: bytes.loadUnaligned(as: T.self))
        }
        switch oid {
        case OID.bool: return integer(UInt8.self).map { .integer($0 == 0 ? 0 : 1) }
        case OID.int8: return integer(Int64.self).map { .integer($0) }
        case OID.int2: return integer(Int16.self).map { .integer(Int64($0)) }
        case OID.int4: return integer(Int32.self).map { .integer(Int64($0)) }
        case OID.float4: return integer(UInt32.self).map { .real(Double(Float(bitPattern: $0))) }
        case OID.float8: return integer(UInt64.self).map { .real(Double(bitPattern: $0)) }
        default: return nil
        }
    }
}
