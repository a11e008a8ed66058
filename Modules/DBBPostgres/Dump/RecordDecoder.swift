internal import DBBSQL
internal import Foundation

/// Reads a row that came as one record, `ROW(…)` in PostgreSQL's binary format, into values: postgres-nio spends
/// more on each cell of a row than the server spends making the record, so a dump reads each row as one.
///
/// A record is a 32-bit count of fields, then per field its type's OID (32 bits), its length (32 bits, -1 for
/// NULL) and its bytes. The dump's `SELECT` casts every column to one of the types read here.
enum RecordDecoder {
    /// The values of a record, or `nil` when its bytes are not a record of the types read here.
    static func values(of record: UnsafeRawBufferPointer) -> [DBBValue]? {
        func uint32(at offset: Int) -> UInt32? {
            guard offset >= 0, offset + 4 <= record.count else { return nil }
            return UInt32(bigEndian: record.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
        }
        guard let count = uint32(at: 0) else { return nil }
        var values: [DBBValue] = []
        values.reserveCapacity(Int(count))
        var offset = 4
        for _ in 0..<count {
            guard let oid = uint32(at: offset), let length = uint32(at: offset + 4).map(Int32.init(bitPattern:))
            else { return nil }
            offset += 8
            if length < 0 {
                values.append(.null)
                continue
            }
            let end = offset + Int(length)
            guard end <= record.count,
                let value = value(UnsafeRawBufferPointer(rebasing: record[offset..<end]), oid: oid)
            else { return nil }
            values.append(value)
            offset = end
        }
        return offset == record.count ? values : nil
    }

    /// One field's value by its type: `bool` (16) as 0 or 1, `int8` (20), `int2` (21), `int4` (23), `float4`
    /// (700, widened), `float8` (701), `bytea` (17), and `text` (25), `name` (19), `bpchar` (1042), `varchar`
    /// (1043) as text.
    private static func value(_ bytes: UnsafeRawBufferPointer, oid: UInt32) -> DBBValue? {
        func integer<T: FixedWidthInteger>(_ type: T.Type) -> T? {
            guard bytes.count == MemoryLayout<T>.size else { return nil }
            return T(bigEndian: bytes.loadUnaligned(as: T.self))
        }
        switch oid {
        case 16: return integer(UInt8.self).map { .integer($0 == 0 ? 0 : 1) }
        case 20: return integer(Int64.self).map { .integer($0) }
        case 21: return integer(Int16.self).map { .integer(Int64($0)) }
        case 23: return integer(Int32.self).map { .integer(Int64($0)) }
        case 700: return integer(UInt32.self).map { .real(Double(Float(bitPattern: $0))) }
        case 701: return integer(UInt64.self).map { .real(Double(bitPattern: $0)) }
        case 17: return .blob(Data(bytes))
        case 25, 19, 1042, 1043: return .text(String(decoding: bytes, as: UTF8.self))
        default: return nil
        }
    }
}
