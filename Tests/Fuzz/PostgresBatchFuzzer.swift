// libFuzzer entry point for the decoding of the rows a PostgreSQL dump receives: records (`ROW(…)` in binary
// format) and arrays of columns (`array_agg`), as the server's bytes. It is compiled together with DBBPostgres's
// `Dump/RecordDecoder.swift` and `Dump/FieldBatch.swift` by Scripts/fuzz-postgres-batch.sh; it is not part of
// the package's targets.
//
// The first byte picks records or arrays, the second the number of columns (1 to 8), the third the row count
// the arrays claim. Records are the rest cut by 2-byte lengths; arrays are the rest cut into equal parts. Every
// field of what is accepted is decoded. Refusing the input is fine; a crash, a trap or a hang is a finding.

import DBBSQL
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func postgresBatchFuzzTest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    guard size >= 3 else { return 0 }
    let input = UnsafeRawBufferPointer(start: data, count: size)
    let columns = Int(input[1] % 8) + 1
    let rest = UnsafeRawBufferPointer(rebasing: input[3...])
    var batch: FieldBatch?
    if input[0] % 2 == 0 {
        var records = FieldBatch(columns: columns, rows: 0)
        var offset = 0
        while offset + 2 <= rest.count {
            let length = Int(rest[offset]) << 8 | Int(rest[offset + 1])
            let end = min(rest.count, offset + 2 + length)
            guard records.append(record: UnsafeRawBufferPointer(rebasing: rest[(offset + 2)..<end])) else { break }
            offset = end
        }
        batch = records
    } else {
        let part = rest.count / columns
        let arrays = (0..<columns).map { UnsafeRawBufferPointer(rebasing: rest[($0 * part)..<(($0 + 1) * part)]) }
        batch = FieldBatch.fromColumnArrays(arrays, count: Int(input[2]))
    }
    guard let batch else { return 0 }
    batch.bytes.withUnsafeBytes { bytes in
        for row in 0..<batch.rows {
            for column in 0..<batch.columns {
                let field = batch.field(row: row, column: column, in: bytes)
                if let value = field.bytes {
                    _ = RecordDecoder.value(value, oid: field.oid)
                    _ = RecordDecoder.forEachField(of: value) { _, oid, bytes in
                        _ = bytes.map { RecordDecoder.value($0, oid: oid) }
                    }
                }
            }
        }
    }
    return 0
}
