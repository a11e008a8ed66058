import CZlib
import Foundation

#if canImport(Glibc)
    import Glibc
#elseif canImport(Darwin)
    import Darwin
#endif

// The only file of DBBExport that talks to zlib. Both directions run the (de)compression on a worker
// thread so that it overlaps the JSON work of the calling thread; chunks pass through a bounded
// `ChunkChannel`, so memory stays flat.

/// The size of the chunks that pass between the threads, and of zlib's buffers.
let gzipChunkSize = 256 * 1024

/// A human-readable text for the C library's last error.
func systemErrorText() -> String {
    String(cString: strerror(errno))
}

/// A z_stream that stays at one address: zlib keeps a pointer back to it.
private final class ZStream {
    let pointer: UnsafeMutablePointer<z_stream>

    init() {
        pointer = .allocate(capacity: 1)
        pointer.initialize(to: z_stream())
    }

    deinit {
        pointer.deinitialize(count: 1)
        pointer.deallocate()
    }

    var message: String {
        pointer.pointee.msg.map { String(cString: $0) } ?? "unknown zlib error"
    }
}

/// Writes a gzip file (RFC 1952) from chunks of uncompressed bytes.
final class GzipFileWriter {
    let path: String
    private let worker: DeflateWorker
    private let channel = ChunkChannel(capacity: 3)
    private let done = DispatchSemaphore(value: 0)
    private var isFinished = false

    /// Creates the file and starts the compressing thread.
    ///
    /// - Parameters:
    ///   - path: the file to create; it must not exist.
    ///   - level: the zlib compression level, 0 (none) to 9 (best).
    /// - Throws: ``DBBExportError`` (io) when the file cannot be created.
    init(path: String, level: Int) throws {
        guard let file = fopen(path, "wbx") else {
            throw DBBExportError(.io, "cannot create the file: \(systemErrorText())", path: path)
        }
        self.path = path
        let stream = ZStream()
        let code = deflateInit2_(
            stream.pointer, Int32(min(max(level, 0), 9)), Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY,
            zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard code == Z_OK else {
            fclose(file)
            throw DBBExportError(.io, "zlib could not start compressing (code \(code))", path: path)
        }
        worker = DeflateWorker(file: file, stream: stream, path: path)
        let worker = self.worker
        let channel = self.channel
        let done = self.done
        let thread = Thread {
            worker.run(channel)
            done.signal()
        }
        thread.name = "DBBExport gzip writer"
        thread.start()
    }

    deinit {
        if !isFinished { abandon() }
    }

    /// Queues a chunk for compression.
    ///
    /// - Throws: ``DBBExportError`` (io) when an earlier chunk could not be compressed or written.
    func write(_ chunk: [UInt8]) throws {
        if !channel.send(chunk) {
            throw worker.failure ?? DBBExportError(.io, "the gzip writer has stopped", path: path)
        }
    }

    /// Compresses what is left, writes the gzip trailer, flushes the file to disk and closes it.
    ///
    /// - Returns: the number of uncompressed bytes and the size of the file.
    /// - Throws: ``DBBExportError`` (io) when compressing, writing or closing fails.
    @discardableResult
    func finish() throws -> (uncompressed: Int64, compressed: Int64) {
        isFinished = true
        channel.finish()
        done.wait()
        if let failure = worker.failure { throw failure }
        return (worker.uncompressedBytes, worker.compressedBytes)
    }

    /// Stops compressing and closes the file as it is (the caller removes it).
    func abandon() {
        guard !isFinished else { return }
        isFinished = true
        channel.cancel()
        channel.finish()
        done.wait()
    }
}

/// The state of the compressing thread. Only that thread touches it until it signals that it is done.
private final class DeflateWorker: @unchecked Sendable {
    // @unchecked: the owning writer reads the results only after the thread has signalled completion.

    private let file: UnsafeMutablePointer<FILE>
    private let stream: ZStream
    private let path: String
    private var output = [UInt8](repeating: 0, count: gzipChunkSize)
    private let failureLock = NSLock()
    private var storedFailure: DBBExportError?
    private(set) var uncompressedBytes: Int64 = 0
    private(set) var compressedBytes: Int64 = 0

    init(file: UnsafeMutablePointer<FILE>, stream: ZStream, path: String) {
        self.file = file
        self.stream = stream
        self.path = path
    }

    var failure: DBBExportError? {
        failureLock.lock()
        defer { failureLock.unlock() }
        return storedFailure
    }

    func run(_ channel: ChunkChannel) {
        var cancelled = false
        do {
            while let chunk = try channel.receive() {
                try compress(chunk, flush: Z_NO_FLUSH)
            }
        } catch let error as DBBExportError {
            failureLock.lock()
            storedFailure = error
            failureLock.unlock()
            channel.cancel()
            cancelled = true
        } catch {
            cancelled = true
        }
        do {
            if !cancelled {
                try compress([], flush: Z_FINISH)
                guard fflush(file) == 0, fsync(fileno(file)) == 0 else {
                    throw DBBExportError(.io, "cannot flush the file to disk: \(systemErrorText())", path: path)
                }
            }
        } catch let error as DBBExportError {
            failureLock.lock()
            storedFailure = error
            failureLock.unlock()
        } catch {}
        deflateEnd(stream.pointer)
        if fclose(file) != 0 && failure == nil && !cancelled {
            failureLock.lock()
            storedFailure = DBBExportError(.io, "cannot close the file: \(systemErrorText())", path: path)
            failureLock.unlock()
        }
    }

    private func compress(_ chunk: [UInt8], flush: Int32) throws {
        uncompressedBytes += Int64(chunk.count)
        let stream = self.stream.pointer
        try chunk.withUnsafeBufferPointer { input in
            stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
            stream.pointee.avail_in = UInt32(input.count)
            while true {
                let (code, produced) = output.withUnsafeMutableBufferPointer { buffer in
                    stream.pointee.next_out = buffer.baseAddress
                    stream.pointee.avail_out = UInt32(buffer.count)
                    let code = deflate(stream, flush)
                    return (code, buffer.count - Int(stream.pointee.avail_out))
                }
                guard code == Z_OK || code == Z_STREAM_END || code == Z_BUF_ERROR else {
                    throw DBBExportError(.io, "zlib failed while compressing: \(self.stream.message)", path: path)
                }
                if produced > 0 {
                    let written = output.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, produced, file) }
                    guard written == produced else {
                        throw DBBExportError(.io, "cannot write the file: \(systemErrorText())", path: path)
                    }
                    compressedBytes += Int64(produced)
                }
                if flush == Z_FINISH {
                    if code == Z_STREAM_END { break }
                } else if stream.pointee.avail_out != 0 {
                    break
                }
            }
        }
    }
}

/// Reads a gzip file (one or more members, RFC 1952) as chunks of uncompressed bytes, checking every
/// member's CRC-32 and length.
final class GzipFileReader {
    let path: String
    private let channel = ChunkChannel(capacity: 3)
    private let worker: InflateWorker
    private var isClosed = false

    /// Opens the file and starts the decompressing thread.
    ///
    /// - Throws: ``DBBExportError`` (io) when the file cannot be opened.
    init(path: String) throws {
        guard let file = fopen(path, "rb") else {
            throw DBBExportError(.io, "cannot open the file: \(systemErrorText())", path: path)
        }
        self.path = path
        let stream = ZStream()
        // 16 + MAX_WBITS: gzip only, so a zlib or raw stream is reported as not gzip.
        let code = inflateInit2_(stream.pointer, MAX_WBITS + 16, zlibVersion(), Int32(MemoryLayout<z_stream>.size))
        guard code == Z_OK else {
            fclose(file)
            throw DBBExportError(.io, "zlib could not start decompressing (code \(code))", path: path)
        }
        worker = InflateWorker(file: file, stream: stream, path: path)
        let worker = self.worker
        let channel = self.channel
        let thread = Thread { worker.run(channel) }
        thread.name = "DBBExport gzip reader"
        thread.start()
    }

    deinit { close() }

    /// The next chunk of uncompressed bytes.
    ///
    /// - Returns: a non-empty chunk, or `nil` after the last member's trailer has been checked.
    /// - Throws: ``DBBExportError`` (truncated, corruptCompression or io) naming the compressed offset.
    func nextChunk() throws -> [UInt8]? {
        try channel.receive()
    }

    /// The size of the compressed file in bytes, once the whole stream has been read.
    var compressedBytes: Int64 { worker.consumedBytes }

    /// Stops the decompressing thread and closes the file.
    func close() {
        guard !isClosed else { return }
        isClosed = true
        channel.cancel()
        channel.waitUntilFinished()
    }
}

/// The state of the decompressing thread.
private final class InflateWorker: @unchecked Sendable {
    // @unchecked: only the worker thread uses the stream and the file; `consumedBytes` is read by the
    // owner after the channel has delivered its end.

    private let file: UnsafeMutablePointer<FILE>
    private let stream: ZStream
    private let path: String
    private(set) var consumedBytes: Int64 = 0

    init(file: UnsafeMutablePointer<FILE>, stream: ZStream, path: String) {
        self.file = file
        self.stream = stream
        self.path = path
    }

    func run(_ channel: ChunkChannel) {
        do {
            try inflateAll(channel)
            channel.finish()
        } catch {
            channel.finish(throwing: error)
        }
        inflateEnd(stream.pointer)
        fclose(file)
    }

    private func corrupt(_ message: String, at offset: Int64) -> DBBExportError {
        DBBExportError(.corruptCompression, message, path: path, compressedOffset: offset)
    }

    private func inflateAll(_ channel: ChunkChannel) throws {
        let stream = self.stream.pointer
        var input = [UInt8](repeating: 0, count: gzipChunkSize)
        var inputCount = 0  // bytes of `input` filled by the last read
        var readBytes: Int64 = 0  // bytes read from the file so far
        var endOfFile = false
        var memberEnded = false  // the last inflate call ended a member
        var memberStart: Int64 = 0

        func refill() throws {
            inputCount = input.withUnsafeMutableBufferPointer { fread($0.baseAddress, 1, $0.count, file) }
            if inputCount < input.count {
                if ferror(file) != 0 {
                    throw DBBExportError(
                        .io, "cannot read the file: \(systemErrorText())", path: path, compressedOffset: readBytes)
                }
                endOfFile = true
            }
            readBytes += Int64(inputCount)
        }

        try refill()
        if inputCount == 0 {
            throw DBBExportError(.truncated, "the file is empty", path: path, compressedOffset: 0)
        }
        if inputCount < 2 || input[0] != 0x1F || input[1] != 0x8B {
            throw corrupt("the file is not gzip-compressed (it does not start with the gzip magic bytes)", at: 0)
        }
        var inputOffset = 0
        var output = [UInt8](repeating: 0, count: gzipChunkSize)
        while true {
            if inputOffset >= inputCount {
                if endOfFile {
                    if memberEnded { break }
                    throw DBBExportError(
                        .truncated, "the gzip stream ends early: the file is truncated", path: path,
                        compressedOffset: readBytes)
                }
                try refill()
                inputOffset = 0
                if inputCount == 0 { continue }
            }
            if memberEnded {
                // Another member may follow; anything else after a complete member is damage.
                let next = input[inputOffset]
                guard next == 0x1F else {
                    throw corrupt(
                        "unexpected data after the end of the gzip stream",
                        at: readBytes - Int64(inputCount - inputOffset))
                }
                inflateReset(stream)
                memberEnded = false
                memberStart = readBytes - Int64(inputCount - inputOffset)
            }
            let (code, produced, used) = input.withUnsafeMutableBufferPointer { inBuffer in
                output.withUnsafeMutableBufferPointer { outBuffer in
                    let available = inputCount - inputOffset
                    stream.pointee.next_in = inBuffer.baseAddress! + inputOffset
                    stream.pointee.avail_in = UInt32(available)
                    stream.pointee.next_out = outBuffer.baseAddress
                    stream.pointee.avail_out = UInt32(outBuffer.count)
                    let code = inflate(stream, Z_NO_FLUSH)
                    return (
                        code, outBuffer.count - Int(stream.pointee.avail_out), available - Int(stream.pointee.avail_in)
                    )
                }
            }
            inputOffset += used
            let position = readBytes - Int64(inputCount - inputOffset)
            stream.pointee.avail_in = 0
            consumedBytes = position
            switch code {
            case Z_OK, Z_BUF_ERROR:
                if used == 0 && produced == 0 && inputOffset < inputCount {
                    throw corrupt("the compressed data is damaged: zlib makes no progress", at: position)
                }
            case Z_STREAM_END:
                memberEnded = true
            case Z_DATA_ERROR:
                let message = self.stream.message
                let what =
                    switch message {
                    case "incorrect data check": "the CRC-32 check of the gzip member starting at \(memberStart) fails"
                    case "incorrect length check":
                        "the length check of the gzip member starting at \(memberStart) fails"
                    case "incorrect header check": "the gzip header is damaged"
                    default: "the compressed data is damaged: \(message)"
                    }
                throw corrupt(what, at: position)
            case Z_MEM_ERROR:
                throw DBBExportError(.io, "zlib ran out of memory", path: path, compressedOffset: position)
            default:
                throw corrupt("zlib failed while decompressing: \(self.stream.message)", at: position)
            }
            if produced > 0 {
                guard channel.send(Array(output[0..<produced])) else { return }
            }
        }
    }
}
