internal import DBBSQL
internal import Foundation

/// A table's rows summed up so that the server's copy can be checked without reading the dump again or
/// sending the rows back: the row count and the exact sum of one 64-bit hash per row (``RowHasher``). The sum
/// does not depend on the rows' order, and a changed, missing or extra row changes it, but for a chance of
/// about one in 2⁶⁴ per difference.
///
/// The restore hashes the COPY data it sends (``add(copyData:)``), each value as the bytes of its type's binary
/// format, and the server hashes the rows it holds, with its own functions, in one query
/// (``serverQuery(for:in:)``): each value as the bytes its type's send function gives, which are the bytes
/// sent, as `hash_record_extended` (PostgreSQL 14 and later) hashes a record of `bytea` values, and each row's
/// record hash is hashed again, so that no value can move to another row unseen.
struct RestoreDigest: Equatable, Sendable {
    private(set) var rows = 0
    /// The sum of the rows' hashes, each read as a signed 64-bit integer, as PostgreSQL's `sum(bigint)` adds
    /// them: exactly.
    private(set) var sum: Int128 = 0

    init() {}

    init(rows: Int, sum: Int128) {
        self.rows = rows
        self.sum = sum
    }

    /// Adds a row's hash.
    mutating func add(_ row: RowHasher) {
        rows += 1
        sum += Int128(Int64(bitPattern: row.finalize()))
    }

    /// Adds whole rows of COPY data in the binary format: per row its field count, then per field its length
    /// (-1 for NULL) and its bytes.
    ///
    /// - Returns: `false` when the bytes are not such rows (the digest is then not the server's).
    mutating func add(copyData bytes: UnsafeRawBufferPointer) -> Bool {
        var offset = 0
        func integer<Integer: FixedWidthInteger>(_: Integer.Type) -> Integer? {
            guard bytes.count - offset >= MemoryLayout<Integer>.size else { return nil }
            defer { offset += MemoryLayout<Integer>.size }
            return Integer(bigEndian: bytes.loadUnaligned(fromByteOffset: offset, as: Integer.self))
        }
        while offset < bytes.count {
            guard let fields = integer(Int16.self), fields >= 0 else { return false }
            var row = RowHasher()
            for _ in 0..<fields {
                guard let length = integer(Int32.self) else { return false }
                if length == -1 {
                    row.addNull()
                    continue
                }
                guard length >= 0, bytes.count - offset >= Int(length) else { return false }
                row.add(UnsafeRawBufferPointer(rebasing: bytes[offset..<offset + Int(length)]))
                offset += Int(length)
            }
            add(row)
        }
        return true
    }

    /// The query by which the server makes a table's digest: one row, the count and the sum as text.
    ///
    /// Each value is given to `hash_record_extended` as the bytes COPY sent: the binary format of `bigint`,
    /// `double precision` and `numeric` (`int8send`, `float8send`, `numeric_send`, which keep what their own
    /// hash functions fold together: the sign of zero, the high half of an integer, a numeric's scale), text's
    /// bytes (`textsend`, whatever the column's collation).
    static func serverQuery(for table: DBBPostgresRestorePlan.Table, in schema: String) -> String {
        let (names, types) = table.valueLayout
        let values = zip(names, types).map { name, type in
            let column = DBBDatabase.quoteIdentifier(name)
            switch type {
            case .bigint: return "int8send(\(column))"
            case .double: return "float8send(\(column))"
            case .text: return "textsend(\(column))"
            case .numeric: return "numeric_send(\(column))"
            case .bytea: return column
            }
        }.joined(separator: ", ")
        return
            "SELECT count(*), coalesce(sum(hash_record_extended(ROW(int8send(hash_record_extended(ROW(\(values)), 0))), "
            + "0)), 0)::text FROM ONLY \(RestoreSchemaWriter.qualified(table.name, in: schema))"
    }

    /// Whether the server can make digests: `hash_record_extended` came with PostgreSQL 14. An older server's
    /// restore compares its rows with the dump's one by one.
    static func isMade(by connection: DBBPostgresConnection) throws -> Bool {
        let rows = try connection.fetchAll("SELECT current_setting('server_version_num')::integer >= 140000")
        return rows.first?.first == .integer(1)
    }
}

/// One row's hash, made field by field as PostgreSQL's `hash_record_extended` (seed 0) hashes a record of
/// `bytea` values: each value's hash (``hash(_:)``; 0 for NULL) added to 31 times the hash so far, in column
/// order. The row's hash is that record hash, hashed again as the 8 bytes of a `bigint`'s binary format.
struct RowHasher {
    private var record: UInt64 = 0

    /// Adds NULL.
    mutating func addNull() {
        record = record &* 31
    }

    /// Adds a value's bytes.
    mutating func add(_ value: UnsafeRawBufferPointer) {
        record = record &* 31 &+ Self.hash(value)
    }

    /// The row's hash.
    func finalize() -> UInt64 {
        withUnsafeBytes(of: record.bigEndian) { Self.hash($0) }
    }

    /// PostgreSQL's hash of a string of bytes with seed 0 (`hash_bytes_extended`): Bob Jenkins's lookup3 over
    /// little-endian 32-bit words, three at a time, the last up to eleven bytes added to the state as the
    /// words' low bytes first (the third word's lowest byte left out), then the final mix; `b` and `c` make
    /// the 64 bits. (PostgreSQL on a big-endian processor reads its words the other way and hashes
    /// differently: the digests differ, and the restore compares the rows one by one.)
    static func hash(_ bytes: UnsafeRawBufferPointer) -> UInt64 {
        var a = 0x9E37_79B9 &+ UInt32(truncatingIfNeeded: bytes.count) &+ 3_923_095
        var b = a
        var c = a
        var offset = 0
        while bytes.count - offset >= 12 {
            a &+= UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset, as: UInt32.self))
            b &+= UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 4, as: UInt32.self))
            c &+= UInt32(littleEndian: bytes.loadUnaligned(fromByteOffset: offset + 8, as: UInt32.self))
            mix(&a, &b, &c)
            offset += 12
        }
        // The last 0 to 11 bytes, as three words padded with zeros (most values end here: an integer or a
        // double is 8 bytes).
        var tail: (UInt32, UInt32, UInt32) = (0, 0, 0)
        withUnsafeMutableBytes(of: &tail) { words in
            words.copyMemory(from: UnsafeRawBufferPointer(rebasing: bytes[offset...]))
        }
        a &+= UInt32(littleEndian: tail.0)
        b &+= UInt32(littleEndian: tail.1)
        c &+= UInt32(littleEndian: tail.2) << 8
        final(&a, &b, &c)
        return UInt64(b) << 32 | UInt64(c)
    }

    private static func rotate(_ x: UInt32, _ k: UInt32) -> UInt32 {
        x << k | x >> (32 - k)
    }

    /// lookup3's `mix`: six steps, each of one word with the one after it and the one before it.
    private static func mix(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32) {
        func step(_ x: inout UInt32, _ next: UInt32, _ previous: inout UInt32, _ k: UInt32) {
            x &-= previous
            x ^= rotate(previous, k)
            previous &+= next
        }
        step(&a, b, &c, 4)
        step(&b, c, &a, 6)
        step(&c, a, &b, 8)
        step(&a, b, &c, 16)
        step(&b, c, &a, 19)
        step(&c, a, &b, 4)
    }

    /// lookup3's `final`: seven steps, each of one word with the one before it.
    private static func final(_ a: inout UInt32, _ b: inout UInt32, _ c: inout UInt32) {
        func step(_ x: inout UInt32, _ previous: UInt32, _ k: UInt32) {
            x ^= previous
            x &-= rotate(previous, k)
        }
        step(&c, b, 14)
        step(&a, c, 11)
        step(&b, a, 25)
        step(&c, b, 16)
        step(&a, c, 4)
        step(&b, a, 14)
        step(&c, b, 24)
    }
}
