internal import CZlib
internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

// The only file of DBBExport that talks to zlib. Both directions run the (de)compression on worker
// threads so that it overlaps the JSON work of the calling thread; chunks pass through bounded
// channels, so memory stays flat.

/// The size of the chunks the reader hands on, and of its buffers.
let gzipChunkSize = 256 * 1024

/// A human-readable text for the C library's last error.
func systemErrorText() -> String {
    String(cString: strerror(errno))
}

/// A C stream over a duplicate of a handle's descriptor, so that closing the stream leaves the handle open.
private func openStream(_ handle: FileHandle, mode: String) throws -> UnsafeMutablePointer<FILE> {
    let descriptor = dup(handle.fileDescriptor)
    guard descriptor >= 0, let file = fdopen(descriptor, mode) else {
        let error = DBBExportError(.io, "cannot use the open file: \(systemErrorText())")
        if descriptor >= 0 { close(descriptor) }
        throw error
    }
    return file
}

/// Uncompressed bytes from the decompressing thread, and whether they end a gzip member (whose CRC-32
/// and length zlib has then checked).
struct InflatedChunk: Sendable {
    var bytes: [UInt8]
    var endsMember: Bool
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
///
/// Each chunk becomes one gzip member, compressed on one of several threads and written in order. The
/// members concatenate to one stream that every gzip reader reads as a whole (`gzip -d`, `zcat`, Python's
/// `gzip`), and compressing them in parallel keeps up with the thread that produces the JSON.
final class GzipFileWriter {
    /// The file written, for error messages; `nil` when writing to a handle.
    let path: String?
    private let shared: DeflateShared
    /// Sixteen chunks (``DumpJSONWriter/flushThreshold``, 256 KiB) wait at most: 4 MiB in flight, as four
    /// chunks of 1 MiB were before chunks were made smaller so that a small dump's last one compresses sooner.
    private let jobs = BoundedChannel<DeflateJob>(capacity: 16)
    private let group = DispatchGroup()
    private var nextSequence = 0
    private var uncompressedBytes: Int64 = 0
    private var isFinished = false

    /// The number of compressing threads: one per processor, at most 2 (the JSON thread needs one too).
    static let defaultThreadCount = min(2, max(1, ProcessInfo.processInfo.activeProcessorCount))

    /// Creates the file and starts the compressing threads.
    ///
    /// - Parameters:
    ///   - path: the file to create; it must not exist.
    ///   - level: the zlib compression level, 0 (none) to 9 (best).
    ///   - threadCount: how many threads compress.
    /// - Throws: ``DBBExportError`` (io) when the file cannot be created.
    convenience init(path: String, level: Int, threadCount: Int = GzipFileWriter.defaultThreadCount) throws {
        guard let file = fopen(path, "wbx") else {
            throw DBBExportError(.io, "cannot create the file: \(systemErrorText())", path: path)
        }
        try self.init(file: file, path: path, level: level, threadCount: threadCount)
    }

    /// Starts writing to an open handle (standard output, a pipe), from where it is; the handle stays open.
    ///
    /// - Parameters:
    ///   - handle: where to write.
    ///   - level: the zlib compression level, 0 (none) to 9 (best).
    /// - Throws: ``DBBExportError`` (io) when the handle cannot be written.
    convenience init(handle: FileHandle, level: Int) throws {
        try self.init(file: try openStream(handle, mode: "wb"), path: nil, level: level)
    }

    private init(
        file: UnsafeMutablePointer<FILE>, path: String?, level: Int,
        threadCount: Int = GzipFileWriter.defaultThreadCount
    ) throws {
        self.path = path
        shared = DeflateShared(file: file, path: path)
        var compressors: [MemberCompressor] = []
        do {
            for _ in 0..<max(threadCount, 1) {
                compressors.append(try MemberCompressor(level: Int32(min(max(level, 0), 9)), path: path))
            }
        } catch {
            fclose(file)
            throw error
        }
        for (index, compressor) in compressors.enumerated() {
            let jobs = self.jobs
            let shared = self.shared
            let group = self.group
            group.enter()
            let thread = Thread {
                compressor.run(jobs, shared)
                group.leave()
            }
            thread.name = "DBBExport gzip writer \(index + 1)"
            thread.start()
        }
    }

    deinit {
        if !isFinished { abandon() }
    }

    /// Queues a chunk for compression as the next gzip member.
    ///
    /// - Throws: ``DBBExportError`` (io) when an earlier chunk could not be compressed or written.
    func write(_ chunk: [UInt8]) throws {
        let job = DeflateJob(sequence: nextSequence, bytes: chunk)
        guard jobs.send(job) else {
            throw shared.failure ?? DBBExportError(.io, "the gzip writer has stopped", path: path)
        }
        nextSequence += 1
        uncompressedBytes += Int64(chunk.count)
    }

    /// Compresses what is left, flushes the file to disk and closes it.
    ///
    /// - Returns: the number of uncompressed bytes and the size of the file.
    /// - Throws: ``DBBExportError`` (io) when compressing, writing or closing fails.
    @discardableResult
    func finish() throws -> (uncompressed: Int64, compressed: Int64) {
        if nextSequence == 0 { try write([]) }  // even an empty stream is one member
        isFinished = true
        jobs.finish()
        group.wait()
        let file = shared.file
        if let failure = shared.failure {
            fclose(file)
            throw failure
        }
        // A pipe or terminal cannot be synced (EINVAL); what it carries is the reader's to keep.
        guard fflush(file) == 0, fsync(fileno(file)) == 0 || errno == EINVAL else {
            let error = DBBExportError(.io, "cannot flush the file to disk: \(systemErrorText())", path: path)
            fclose(file)
            throw error
        }
        guard fclose(file) == 0 else {
            throw DBBExportError(.io, "cannot close the file: \(systemErrorText())", path: path)
        }
        return (uncompressedBytes, shared.compressedBytes)
    }

    /// Stops compressing and closes the file as it is (the caller removes it).
    func abandon() {
        guard !isFinished else { return }
        isFinished = true
        shared.fail(DBBExportError(.io, "the dump was abandoned", path: path))
        jobs.cancel()
        jobs.finish()
        group.wait()
        fclose(shared.file)
    }
}

/// One chunk to compress, and its place in the file.
private struct DeflateJob: Sendable {
    var sequence: Int
    var bytes: [UInt8]
}

/// The file and the order of the members, shared by the compressing threads.
private final class DeflateShared: @unchecked Sendable {
    // @unchecked: mutable state is used only under `condition`'s lock; `file` is written under it, in member order.

    let file: UnsafeMutablePointer<FILE>
    private let path: String?
    private let condition = NSCondition()
    private var next = 0
    private var storedFailure: DBBExportError?
    private var written: Int64 = 0

    init(file: UnsafeMutablePointer<FILE>, path: String?) {
        self.file = file
        self.path = path
    }

    var failure: DBBExportError? {
        condition.lock()
        defer { condition.unlock() }
        return storedFailure
    }

    var compressedBytes: Int64 {
        condition.lock()
        defer { condition.unlock() }
        return written
    }

    /// Records the first failure and wakes every waiting thread.
    func fail(_ error: DBBExportError) {
        condition.lock()
        defer { condition.unlock() }
        if storedFailure == nil { storedFailure = error }
        condition.broadcast()
    }

    /// Writes a compressed member once every member before it has been written.
    ///
    /// - Returns: `false` when writing has failed (here or on another thread).
    func write(_ member: [UInt8], sequence: Int) -> Bool {
        condition.lock()
        defer { condition.unlock() }
        while next != sequence && storedFailure == nil { condition.wait() }
        guard storedFailure == nil else { return false }
        let count = member.withUnsafeBufferPointer { fwrite($0.baseAddress, 1, $0.count, file) }
        guard count == member.count else {
            storedFailure = DBBExportError(.io, "cannot write the file: \(systemErrorText())", path: path)
            condition.broadcast()
            return false
        }
        written += Int64(count)
        next += 1
        condition.broadcast()
        return true
    }
}

/// A compressing thread's zlib stream: each chunk becomes one complete gzip member.
private final class MemberCompressor: @unchecked Sendable {
    // @unchecked: after it is made, only its own thread uses it.

    private let stream = ZStream()
    private let path: String?

    init(level: Int32, path: String?) throws {
        self.path = path
        let code = deflateInit2_(
            stream.pointer, level, Z_DEFLATED, MAX_WBITS + 16, 8, Z_DEFAULT_STRATEGY, zlibVersion(),
            Int32(MemoryLayout<z_stream>.size))
        guard code == Z_OK else {
            throw DBBExportError(.io, "zlib could not start compressing (code \(code))", path: path)
        }
    }

    deinit {
        deflateEnd(stream.pointer)
    }

    func run(_ jobs: BoundedChannel<DeflateJob>, _ shared: DeflateShared) {
        while let job = try? jobs.receive() {
            do {
                let member = try compress(job.bytes)
                guard shared.write(member, sequence: job.sequence) else { break }
            } catch let error as DBBExportError {
                shared.fail(error)
                break
            } catch {
                break
            }
        }
        if shared.failure != nil { jobs.cancel() }
    }

    private func compress(_ bytes: [UInt8]) throws -> [UInt8] {
        let stream = self.stream.pointer
        deflateReset(stream)
        var output = [UInt8](repeating: 0, count: Int(deflateBound(stream, UInt(bytes.count))))
        let (code, produced) = bytes.withUnsafeBufferPointer { input in
            output.withUnsafeMutableBufferPointer { buffer in
                stream.pointee.next_in = UnsafeMutablePointer(mutating: input.baseAddress)
                stream.pointee.avail_in = UInt32(input.count)
                stream.pointee.next_out = buffer.baseAddress
                stream.pointee.avail_out = UInt32(buffer.count)
                let code = deflate(stream, Z_FINISH)
                return (code, buffer.count - Int(stream.pointee.avail_out))
            }
        }
        guard code == Z_STREAM_END else {
            throw DBBExportError(.io, "zlib failed while compressing: \(self.stream.message)", path: path)
        }
        output.removeSubrange(produced...)
        return output
    }
}

/// Reads a gzip file (one or more members, RFC 1952) as chunks of uncompressed bytes, checking every
/// member's CRC-32 and length.
final class GzipFileReader {
    /// The file read, for error messages; `nil` when reading from a handle.
    let path: String?
    private let channel = ChunkChannel(capacity: 3)
    private let worker: InflateWorker
    private var isClosed = false
    /// Whether the last chunk received left its member unfinished (its CRC-32 and length not yet checked).
    private var isInsideMember = false
    /// Whether reading has failed: the error came from the gzip stream, and was thrown.
    private var hasFailed = false

    /// Opens the file and starts the decompressing thread.
    ///
    /// - Throws: ``DBBExportError`` (io) when the file cannot be opened.
    convenience init(path: String) throws {
        guard let file = fopen(path, "rb") else {
            throw DBBExportError(.io, "cannot open the file: \(systemErrorText())", path: path)
        }
        try self.init(file: file, path: path)
    }

    /// Starts reading an open handle (standard input, a pipe) from where it is; the handle stays open.
    ///
    /// - Throws: ``DBBExportError`` (io) when the handle cannot be read.
    convenience init(handle: FileHandle) throws {
        try self.init(file: try openStream(handle, mode: "rb"), path: nil)
    }

    private init(file: UnsafeMutablePointer<FILE>, path: String?) throws {
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
        do {
            while let chunk = try channel.receive() {
                isInsideMember = !chunk.endsMember
                if !chunk.bytes.isEmpty { return chunk.bytes }
            }
            return nil
        } catch {
            hasFailed = true
            throw error
        }
    }

    /// Reads on to the end of the current member, so that its CRC-32 and length are checked.
    ///
    /// Damaged deflate data can inflate to garbage that the JSON reader rejects before zlib reaches the
    /// member's trailer; a caller that found such an error asks here whether the compressed data is to blame.
    ///
    /// - Returns: the gzip stream's error (damage, truncation, a read failure), or `nil` when the member is
    ///   whole or the stream's error was already thrown.
    func damageInCurrentMember() -> DBBExportError? {
        guard !hasFailed else { return nil }
        do {
            while isInsideMember, let chunk = try channel.receive() {
                isInsideMember = !chunk.endsMember
            }
            return nil
        } catch {
            hasFailed = true
            return error as? DBBExportError
        }
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
    // @unchecked: only the worker thread uses the stream and file; the owner reads `consumedBytes` after the end.

    private let file: UnsafeMutablePointer<FILE>
    private let stream: ZStream
    private let path: String?
    private(set) var consumedBytes: Int64 = 0

    init(file: UnsafeMutablePointer<FILE>, stream: ZStream, path: String?) {
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
            if input[0..<min(inputCount, 16)].elementsEqual("SQLite format 3\0".utf8) {
                // The usual mix-up: a database given where a dump is read.
                throw DBBExportError(
                    .notADump,
                    "this is an SQLite database, not a dump; did you mean dump? (dbb-backup dump DATABASE DUMP, "
                        + "or DBBExport.dump(databaseAt:to:))", path: path)
            }
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
                let member = "the gzip member at byte \(memberStart)"
                let what =
                    switch message {
                    case "incorrect data check": "gzip CRC-32 mismatch in \(member): the compressed data is damaged"
                    case "incorrect length check": "gzip length mismatch in \(member): the compressed data is damaged"
                    case _ where message.contains("header") || message == "unknown compression method":
                        "damaged gzip header in \(member) (\(message))"
                    default: "invalid deflate data in \(member) (\(message)): the compressed data is damaged"
                    }
                // A failed check has just read its 4-byte field of the trailer: point at the field.
                let isTrailerCheck = message == "incorrect data check" || message == "incorrect length check"
                throw corrupt(what, at: isTrailerCheck ? position - 4 : position)
            case Z_MEM_ERROR:
                throw DBBExportError(.io, "zlib ran out of memory", path: path, compressedOffset: position)
            default:
                throw corrupt("zlib failed while decompressing: \(self.stream.message)", at: position)
            }
            // A member's end is passed on even without bytes, so the reader knows its trailer was checked.
            if produced > 0 || memberEnded {
                guard channel.send(InflatedChunk(bytes: Array(output[0..<produced]), endsMember: memberEnded)) else {
                    return
                }
            }
        }
    }
}
