// libFuzzer entry point for the dump reader. It is compiled together with DBBExport's sources (so it
// reaches the internal reader) by Scripts/fuzz-dump-reader.sh; it is not part of the package's targets.
//
// Each input is the JSON text of a dump (the layer inside the gzip stream, whose CRC would stop almost
// every mutation). The text is handed to the reader in chunks of varying size, to exercise values that
// span chunks, and what it reads goes to the checking consumer `verify` uses, which builds the schema and
// loads the rows in a private temporary database. Any error is fine; a crash, a trap, a hang or a leak is a
// finding.

import DBBSQL
import Foundation

@_cdecl("LLVMFuzzerTestOneInput")
public func dumpReaderFuzzTest(_ data: UnsafePointer<UInt8>, _ size: Int) -> CInt {
    let bytes = Array(UnsafeBufferPointer(start: data, count: size))
    // The input's length picks the chunk size, 1 to 251 bytes, so every input is plain JSON.
    let chunkSize = size % 251 + 1
    var position = 0
    let reader = DumpJSONReader(path: nil, maximumStringLength: 1 << 20) {
        guard position < bytes.count else { return nil }
        let end = min(position + chunkSize, bytes.count)
        defer { position = end }
        return Array(bytes[position..<end])
    }
    guard let checker = try? RestoreConsumer.checking() else { return 0 }
    do {
        _ = try DumpParser.read(reader, into: checker, progress: nil)
        try checker.finish()
    } catch {
        // Refusing the input is the expected outcome for almost every mutation.
    }
    return 0
}
