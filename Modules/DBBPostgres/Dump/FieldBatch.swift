/// A batch of rows as the server sent them: each field's type and bytes, copied into one buffer.
///
/// `Sendable` is not needed: one thread reads a batch.
struct FieldBatch {
    /// One field of a row.
    struct Field {
        /// Its type's OID.
        var oid: UInt32
        /// Its bytes in PostgreSQL's binary format, `nil` for NULL.
        var bytes: UnsafeRawBufferPointer?
    }

    /// The fields' bytes, one after the other.
    var bytes: [UInt8] = []
    /// The number of rows.
    private(set) var rows = 0
    /// The number of fields a row has.
    let columns: Int
    /// Per field, row after row: its type, where its bytes start in ``bytes`` and how many there are (-1 for NULL).
    private var oids: [UInt32] = []
    private var starts: [Int] = []
    private var lengths: [Int] = []

    /// About the memory the batch holds: its bytes and, per field, its type, start and length (the three arrays
    /// grow together).
    var footprint: Int {
        bytes.capacity + oids.capacity * Self.bytesPerField
    }

    /// What a batch keeps for each field besides its bytes: its type, start and length.
    static let bytesPerField = MemoryLayout<UInt32>.stride + 2 * MemoryLayout<Int>.stride

    init(columns: Int, rows: Int) {
        self.columns = columns
        oids.reserveCapacity(columns * rows)
        starts.reserveCapacity(columns * rows)
        lengths.reserveCapacity(columns * rows)
    }

    /// A field of a row; `bytes` is ``bytes`` made unsafe for the time it is read.
    func field(row: Int, column: Int, in bytes: UnsafeRawBufferPointer) -> Field {
        let index = row * columns + column
        let length = lengths[index]
        guard length >= 0 else { return Field(oid: oids[index], bytes: nil) }
        let start = starts[index]
        return Field(oid: oids[index], bytes: UnsafeRawBufferPointer(rebasing: bytes[start..<start + length]))
    }

    /// Appends a row that came as one record (`ROW(…)` in binary format).
    ///
    /// - Returns: `false` when the bytes are not a record of ``columns`` fields.
    mutating func append(record: UnsafeRawBufferPointer) -> Bool {
        var count = 0
        let isRecord = RecordDecoder.forEachField(of: record) { _, oid, field in
            count += 1
            append(oid: oid, field)
        }
        guard isRecord, count == columns else { return false }
        rows += 1
        return true
    }

    private mutating func append(oid: UInt32, _ field: UnsafeRawBufferPointer?) {
        oids.append(oid)
        starts.append(bytes.count)
        lengths.append(field?.count ?? -1)
        if let field { bytes.append(contentsOf: field) }
    }

    /// Fills the batch from one array per column (`array_agg`, in binary format), each of the same length.
    ///
    /// - Returns: `nil` when a column is not a one-dimensional array of `count` elements.
    static func fromColumnArrays(_ arrays: [UnsafeRawBufferPointer], count: Int) -> FieldBatch? {
        // Per column: its element type, and where its next element begins.
        var oids: [UInt32] = []
        var offsets: [Int] = []
        for array in arrays {
            // The number of dimensions, a flag for NULLs, the element type; per dimension its length and lower
            // bound; then per element its length (-1 for NULL) and bytes: at least 4 bytes an element, so a
            // count the bytes cannot hold is refused before anything is reserved for it.
            guard count >= 0, count <= (array.count - 20) / 4, let dimensions = RecordDecoder.uint32(array, at: 0),
                dimensions == 1, let oid = RecordDecoder.uint32(array, at: 8),
                let length = RecordDecoder.uint32(array, at: 12), length == count
            else { return nil }
            oids.append(oid)
            offsets.append(20)
        }
        var batch = FieldBatch(columns: arrays.count, rows: count)
        batch.bytes.reserveCapacity(arrays.reduce(0) { $0 + $1.count })
        for _ in 0..<count {
            for (column, array) in arrays.enumerated() {
                let offset = offsets[column]
                guard let length = RecordDecoder.uint32(array, at: offset).map(Int32.init(bitPattern:)) else {
                    return nil
                }
                if length < 0 {
                    batch.append(oid: oids[column], nil)
                    offsets[column] = offset + 4
                    continue
                }
                let end = offset + 4 + Int(length)
                guard end <= array.count else { return nil }
                batch.append(oid: oids[column], UnsafeRawBufferPointer(rebasing: array[(offset + 4)..<end]))
                offsets[column] = end
            }
            batch.rows += 1
        }
        guard zip(offsets, arrays).allSatisfy({ $0 == $1.count }) else { return nil }
        return batch
    }
}
