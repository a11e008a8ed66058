internal import DBBSQL
internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// An incremental JSON tokenizer over a stream of byte chunks.
///
/// It never holds more than the current chunk (plus the value being read), so a document of any size
/// reads in flat memory. Every error names the byte offset in the JSON text where it was found.
final class DumpJSONReader {
    private let nextChunk: () throws -> [UInt8]?
    private var buffer: [UInt8] = []
    private var index = 0
    private var bufferStart: Int64 = 0
    private var atEnd = false
    private var scratch: [UInt8] = []
    /// The size of one part of a long string: the part is sealed (checked, and decoded from base64) when it
    /// fills, so that growing the string never copies it, and its bytes are never held twice.
    private static let segmentSize = 16 << 20
    let path: String?
    /// Set when ``readRowValue()`` read a `{"text":…}` value: TEXT whose bytes (returned as a BLOB value)
    /// are not valid UTF-8. The caller clears it.
    var lastValueWasRawText = false
    /// The deepest nesting accepted, so hostile input cannot exhaust the stack.
    static let maximumDepth = 64
    /// The most JSON values one tree read (a header, one schema object, a table's column list) may hold,
    /// so hostile input cannot make a small file build a huge tree.
    static let maximumTreeValues = 1_000_000
    /// The longest string accepted, in bytes of UTF-8 once decoded: the options' limit on one value, at most
    /// the longest value SQLite accepts (`SQLITE_LIMIT_LENGTH`), checked while the string streams in, so a
    /// long one fails before it fills memory. BLOBs and raw text, written in base64, are allowed the base64
    /// length of as many bytes.
    let maximumStringLength: Int
    /// Called once for each string that grows past ``longStringLength`` bytes, before it grows further: the
    /// parser waits there until what it handed on before has been consumed, so that no two long values are
    /// held at once.
    var onLongString: (() throws -> Void)?
    /// The length past which a string is long.
    static let longStringLength = 1 << 20
    private var treeValuesLeft = 0

    init(
        path: String?, maximumStringLength: Int = DBBExport.defaultMaximumValueLength,
        nextChunk: @escaping () throws -> [UInt8]?
    ) {
        self.path = path
        self.maximumStringLength = min(maximumStringLength, DBBExport.valueLengthLimit)
        self.nextChunk = nextChunk
    }

    /// The offset in the JSON text of the next byte to read.
    var offset: Int64 { bufferStart + Int64(index) }

    // MARK: Errors

    func error(_ kind: DBBExportError.Kind, _ message: String, at offset: Int64? = nil) -> DBBExportError {
        DBBExportError(kind, message, path: path, byteOffset: offset ?? self.offset)
    }

    private func unexpected(_ byte: UInt8?, expecting what: String) -> DBBExportError {
        guard let byte else {
            return error(.truncated, "the JSON text ends early, where \(what) was expected")
        }
        let shown =
            byte >= 0x21 && byte < 0x7F ? "'\(Character(Unicode.Scalar(byte)))'" : String(format: "byte 0x%02X", byte)
        return error(.malformed, "found \(shown) where \(what) was expected")
    }

    // MARK: Bytes

    /// Loads the next chunk. Returns `false` at the end of the text.
    private func refill() throws -> Bool {
        if atEnd { return false }
        bufferStart += Int64(buffer.count)
        index = 0
        while true {
            guard let chunk = try nextChunk() else {
                buffer = []
                atEnd = true
                return false
            }
            if !chunk.isEmpty {
                buffer = chunk
                return true
            }
        }
    }

    /// The next byte that is not white space, without consuming it; `nil` at the end of the text.
    @inline(__always)
    func peek() throws -> UInt8? {
        while true {
            while index < buffer.count {
                let byte = buffer[index]
                if byte == 0x20 || byte == 0x0A || byte == 0x0D || byte == 0x09 {
                    index += 1
                } else {
                    return byte
                }
            }
            if try !refill() { return nil }
        }
    }

    /// Consumes the next non-blank byte, which must be `expected`.
    @inline(__always)
    func expect(_ expected: UInt8, _ what: String) throws {
        let byte = try peek()
        guard byte == expected else { throw unexpected(byte, expecting: what) }
        index += 1
    }

    /// Consumes the next non-blank byte when it is `byte`.
    @inline(__always)
    func consume(_ byte: UInt8) throws -> Bool {
        if try peek() == byte {
            index += 1
            return true
        }
        return false
    }

    /// After the last element of an array: `,` (returns `true`, another element follows) or `]`.
    @inline(__always)
    func nextArrayElement() throws -> Bool {
        let byte = try peek()
        index += 1
        if byte == UInt8(ascii: ",") { return true }
        if byte == UInt8(ascii: "]") { return false }
        index -= 1
        throw unexpected(byte, expecting: "',' or ']'")
    }

    /// After an object member: `,` (returns `true`, another member follows) or `}`.
    func nextObjectMember() throws -> Bool {
        let byte = try peek()
        index += 1
        if byte == UInt8(ascii: ",") { return true }
        if byte == UInt8(ascii: "}") { return false }
        index -= 1
        throw unexpected(byte, expecting: "',' or '}'")
    }

    /// Reads an object member's key and the `:` after it.
    func readKey() throws -> String {
        guard try peek() == UInt8(ascii: "\"") else {
            throw unexpected(try peek(), expecting: "a member name in quotes")
        }
        let key = try readString()
        try expect(UInt8(ascii: ":"), "':'")
        return key
    }

    /// Checks that nothing but white space follows the document.
    func expectEnd() throws {
        if let byte = try peek() {
            throw error(
                .malformed, "unexpected \(String(format: "byte 0x%02X", byte)) after the end of the JSON document")
        }
    }

    // MARK: Literals

    private static let trueBytes = Array("true".utf8)
    private static let falseBytes = Array("false".utf8)
    private static let nullBytes = Array("null".utf8)

    private func readLiteral(_ word: [UInt8]) throws {
        let start = offset
        for expected in word {
            if index >= buffer.count {
                guard try refill() else {
                    throw error(.truncated, "the JSON text ends inside a literal", at: start)
                }
            }
            guard buffer[index] == expected else {
                throw error(
                    .malformed, "invalid literal (expected \(String(decoding: word, as: UTF8.self)))", at: start)
            }
            index += 1
        }
    }

    // MARK: Strings

    /// Reads a JSON string (the next non-blank byte must be its opening quote).
    ///
    /// - Parameters:
    ///   - valueLimit: the longest value accepted, in bytes. Default: the longest SQLite stores; row values
    ///     pass ``maximumStringLength``.
    ///   - base64: whether the string is base64 text, so that the limit is on the bytes it encodes.
    func readString(valueLimit: Int = DBBExport.valueLengthLimit, base64: Bool = false) throws -> String {
        try expect(UInt8(ascii: "\""), "a string")
        let start = offset - 1
        let limit = base64 ? valueLimit / 3 * 4 + 4 : valueLimit
        // Fast path: the whole string, without escapes, lies in the current chunk.
        if let end = closingQuoteInChunk() {
            guard end - index <= limit else { throw tooLong(start: start, valueLimit: valueLimit, base64: base64) }
            let string = try buffer.withUnsafeBufferPointer { all in
                try makeString(UnsafeBufferPointer(rebasing: all[index..<end]), start: start)
            }
            index = end + 1
            return string
        }
        return try readStringSlowly(start: start, limit: limit, valueLimit: valueLimit, base64: base64)
    }

    /// Checks a JSON string of text as ``readString(valueLimit:base64:)`` does, without making it when it
    /// lies in the current chunk without escapes (most do).
    ///
    /// - Returns: whether the text holds NUL (which only an escape writes).
    private func scanString(valueLimit: Int) throws -> Bool {
        try expect(UInt8(ascii: "\""), "a string")
        let start = offset - 1
        if let end = closingQuoteInChunk() {
            guard end - index <= valueLimit else { throw tooLong(start: start, valueLimit: valueLimit, base64: false) }
            guard Self.isValidUTF8(buffer, index..<end) else {
                throw error(.malformed, "the string is not valid UTF-8", at: start)
            }
            index = end + 1
            return false
        }
        let text = try readStringSlowly(start: start, limit: valueLimit, valueLimit: valueLimit, base64: false)
        return text.utf8.contains(0)
    }

    /// Whether bytes are valid UTF-8, by the rules `String(validating:as:)` applies, checked in place.
    private static func isValidUTF8(_ bytes: [UInt8], _ range: Range<Int>) -> Bool {
        if #available(macOS 26, *) {
            return (try? UTF8Span(validating: bytes.span.extracting(range))) != nil
        }
        // The slice of the array checks the range; its buffer is read in place, without a copy.
        return bytes[range].withUnsafeBufferPointer { String(validating: $0, as: UTF8.self) != nil }
    }

    /// The part of ``readString(valueLimit:base64:)`` after its fast path: the string is read into parts.
    private func readStringSlowly(start: Int64, limit: Int, valueLimit: Int, base64: Bool) throws -> String {
        var parts = LongString(start: start, base64: false)
        try readStringSlowly(into: &parts, limit: limit) {
            self.tooLong(start: start, valueLimit: valueLimit, base64: base64)
        }
        return try parts.text()
    }

    /// Reads a JSON string of base64 text and decodes it; a long one is decoded part by part as it streams
    /// in, so that its text is never held whole.
    ///
    /// - Parameter valueLimit: the most bytes the text may encode.
    /// - Returns: the bytes, or `nil` when the text is not valid base64.
    func readBase64(valueLimit: Int) throws -> Data? {
        try expect(UInt8(ascii: "\""), "a string")
        let start = offset - 1
        let limit = valueLimit / 3 * 4 + 4  // base64 takes 4 characters for every 3 bytes
        if let end = closingQuoteInChunk() {
            guard end - index <= limit else { throw tooLong(start: start, valueLimit: valueLimit, base64: true) }
            let data = Data(base64Encoded: Data(buffer[index..<end]))
            index = end + 1
            return data
        }
        var parts = LongString(start: start, base64: true)
        try readStringSlowly(into: &parts, limit: limit) {
            self.tooLong(start: start, valueLimit: valueLimit, base64: true)
        }
        return parts.bytes()
    }

    /// The index of the closing quote when the whole string lies in the current chunk without escapes.
    private func closingQuoteInChunk() -> Int? {
        let start = index
        // Through a buffer pointer: the loop then reads no property of the reader, whose every access the
        // runtime would check for exclusivity.
        return buffer.withUnsafeBufferPointer { Self.plainString(in: $0, from: start)?.end }
    }

    /// Where a string's closing quote is when the string, from `start` (after its opening quote), lies in
    /// `bytes` without escapes, and whether its bytes are ASCII (so valid UTF-8 without a further check).
    private static func plainString(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, isASCII: Bool)?
    {
        var end = start
        var high: UInt8 = 0
        while end < bytes.count {
            let byte = bytes[end]
            if byte == UInt8(ascii: "\"") { return (end, high < 0x80) }
            if byte == UInt8(ascii: "\\") || byte < 0x20 { return nil }
            high |= byte
            end += 1
        }
        return nil
    }

    /// What the fast path of ``readText(into:)`` found.
    private enum TextInChunk {
        case written(end: Int)
        case tooLong, invalid, notInChunk
    }

    private func makeString(_ bytes: UnsafeBufferPointer<UInt8>, start: Int64) throws -> String {
        // ASCII is valid UTF-8 as it is: `String(validating:as:)` looks up generic metadata on every call,
        // which cost more than checking the bytes of a dump's typical short strings.
        if bytes.allSatisfy({ $0 < 0x80 }) { return String(decoding: bytes, as: UTF8.self) }
        guard let string = String(validating: bytes, as: UTF8.self) else {
            throw error(.malformed, "the string is not valid UTF-8", at: start)
        }
        return string
    }

    /// The parts of a long string: sealed ones, checked (UTF-8 text) or decoded (base64), and the bytes of
    /// the part being filled.
    private struct LongString {
        let start: Int64
        let base64: Bool
        var textParts: [String] = []
        var dataParts: [Data] = []
        /// Bytes in the sealed parts, as read (before base64 decoding).
        var sealedBytes = 0
        /// Set when a sealed part was not valid base64.
        var invalid = false

        init(start: Int64, base64: Bool) {
            self.start = start
            self.base64 = base64
        }

        /// Seals the complete part at the front of `scratch` (whole characters, or whole base64 quanta) and
        /// leaves the rest in it.
        mutating func seal(_ scratch: inout [UInt8], final: Bool, reader: DumpJSONReader) throws {
            let cut = final ? scratch.count : base64 ? scratch.count / 4 * 4 : Self.characterBoundary(scratch)
            sealedBytes += cut
            if base64 {
                if let data = Data(base64Encoded: Data(scratch[..<cut])) {
                    dataParts.append(data)
                } else {
                    invalid = true
                }
            } else {
                // Cut at a character boundary, each part is valid UTF-8 exactly when the whole string is.
                textParts.append(
                    try scratch[..<cut].withUnsafeBufferPointer { try reader.makeString($0, start: start) })
            }
            scratch.removeSubrange(..<cut)
        }

        /// Where the last whole character of `bytes` ends: before an incomplete multi-byte sequence at the end.
        static func characterBoundary(_ bytes: [UInt8]) -> Int {
            var lead = bytes.count - 1
            while lead >= 0 && lead > bytes.count - 4 && bytes[lead] & 0xC0 == 0x80 { lead -= 1 }
            guard lead >= 0 else { return bytes.count }
            let byte = bytes[lead]
            let length = byte >= 0xF0 ? 4 : byte >= 0xE0 ? 3 : byte >= 0xC0 ? 2 : 1
            return lead + length > bytes.count ? lead : bytes.count
        }

        /// The text, joined part by part, each part released once copied, so it is held only once.
        mutating func text() throws -> String {
            guard textParts.count > 1 else { return textParts.first ?? "" }
            var whole = ""
            whole.reserveCapacity(textParts.reduce(0) { $0 + $1.utf8.count })
            for index in textParts.indices {
                whole += textParts[index]
                textParts[index] = ""
            }
            return whole
        }

        /// The decoded bytes, joined part by part, or `nil` when the text was not valid base64.
        mutating func bytes() -> Data? {
            guard !invalid else { return nil }
            guard dataParts.count > 1 else { return dataParts.first ?? Data() }
            var whole = Data(capacity: dataParts.reduce(0) { $0 + $1.count })
            for index in dataParts.indices {
                whole.append(dataParts[index])
                dataParts[index] = Data()
            }
            return whole
        }
    }

    private func readStringSlowly(into parts: inout LongString, limit: Int, tooLong: () -> DBBExportError) throws {
        scratch.removeAll(keepingCapacity: true)
        if scratch.capacity > Self.longStringLength { scratch = [] }  // give back what a long string took
        var isLong = false
        while true {
            if !isLong && parts.sealedBytes + scratch.count > Self.longStringLength {
                isLong = true
                try onLongString?()
            }
            if index >= buffer.count {
                guard try refill() else {
                    throw error(.truncated, "the JSON text ends inside a string", at: parts.start)
                }
            }
            // Plain bytes are copied a run at a time, and the length is checked before the copy grows.
            let end = plainRunEnd()
            if end > index {
                guard parts.sealedBytes + scratch.count + (end - index) <= limit else { throw tooLong() }
                if scratch.count + (end - index) > Self.segmentSize {
                    try parts.seal(&scratch, final: false, reader: self)
                }
                scratch.append(contentsOf: buffer[index..<end])
                index = end
                continue
            }
            let byte = buffer[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""):
                try parts.seal(&scratch, final: true, reader: self)
                return
            case UInt8(ascii: "\\"):
                // An escape adds at most 4 bytes, checked once it is decoded.
                try readEscape(start: parts.start)
                if parts.sealedBytes + scratch.count > limit { throw tooLong() }
            case 0..<0x20:
                throw error(.malformed, "a control character must be escaped inside a string", at: offset - 1)
            default:
                scratch.append(byte)
            }
        }
    }

    /// The end of the run of plain string bytes (no quote, backslash or control character) starting at
    /// `index`, found with the C library's `memchr`: a string of a billion bytes is scanned at memory
    /// speed, even in a debug build.
    private func plainRunEnd() -> Int {
        buffer.withUnsafeBufferPointer { all -> Int in
            guard let base = all.baseAddress, index < all.count else { return index }
            let start = base + index
            var length = all.count - index
            for stop in [UInt8(ascii: "\""), UInt8(ascii: "\\")] {
                if let found = memchr(start, Int32(stop), length) {
                    // memchr returns a pointer into the same buffer: only its distance is used.
                    length = UnsafeRawPointer(start).distance(to: found)
                }
            }
            // Control characters are rare: each is looked for in what is left of the run.
            for control in UInt8(0)..<0x20 where length > 0 {
                if let found = memchr(start, Int32(control), length) {
                    // memchr returns a pointer into the same buffer: only its distance is used.
                    length = UnsafeRawPointer(start).distance(to: found)
                }
            }
            return index + length
        }
    }

    private func tooLong(start: Int64, valueLimit: Int, base64: Bool) -> DBBExportError {
        let what = base64 ? "a BLOB or raw text encodes more than" : "a string is longer than"
        guard valueLimit < DBBExport.valueLengthLimit else {
            return error(
                .malformed, "\(what) \(valueLimit) bytes, more than SQLite stores in one value (SQLITE_MAX_LENGTH)",
                at: start)
        }
        return error(
            .valueTooLong,
            "\(what) \(valueLimit) bytes, the limit on one value (maximumValueLength in the options; the "
                + "default is \(DBBExport.defaultMaximumValueLength >> 20) MiB), so it is not read",
            at: start)
    }

    /// Reads past a string without keeping it (a member this version does not know).
    private func skipString() throws {
        try expect(UInt8(ascii: "\""), "a string")
        let start = offset - 1
        while true {
            if index >= buffer.count {
                guard try refill() else { throw error(.truncated, "the JSON text ends inside a string", at: start) }
            }
            let byte = buffer[index]
            index += 1
            switch byte {
            case UInt8(ascii: "\""): return
            case UInt8(ascii: "\\"): _ = try nextRawByte(start: start)
            case 0..<0x20:
                throw error(.malformed, "a control character must be escaped inside a string", at: offset - 1)
            default: break
            }
        }
    }

    private func nextRawByte(start: Int64) throws -> UInt8 {
        if index >= buffer.count {
            guard try refill() else { throw error(.truncated, "the JSON text ends inside a string", at: start) }
        }
        let byte = buffer[index]
        index += 1
        return byte
    }

    private func readHex4(start: Int64) throws -> UInt32 {
        var value: UInt32 = 0
        for _ in 0..<4 {
            let byte = try nextRawByte(start: start)
            let digit: UInt32
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digit = UInt32(byte - UInt8(ascii: "0"))
            case UInt8(ascii: "a")...UInt8(ascii: "f"): digit = UInt32(byte - UInt8(ascii: "a") + 10)
            case UInt8(ascii: "A")...UInt8(ascii: "F"): digit = UInt32(byte - UInt8(ascii: "A") + 10)
            default: throw error(.malformed, "invalid \\u escape in a string", at: offset - 1)
            }
            value = value << 4 | digit
        }
        return value
    }

    private func readEscape(start: Int64) throws {
        let escapeOffset = offset - 1
        let byte = try nextRawByte(start: start)
        switch byte {
        case UInt8(ascii: "\""), UInt8(ascii: "\\"), UInt8(ascii: "/"): scratch.append(byte)
        case UInt8(ascii: "n"): scratch.append(0x0A)
        case UInt8(ascii: "r"): scratch.append(0x0D)
        case UInt8(ascii: "t"): scratch.append(0x09)
        case UInt8(ascii: "b"): scratch.append(0x08)
        case UInt8(ascii: "f"): scratch.append(0x0C)
        case UInt8(ascii: "u"):
            var scalar = try readHex4(start: start)
            if scalar >= 0xD800 && scalar < 0xDC00 {
                guard try nextRawByte(start: start) == UInt8(ascii: "\\"),
                    try nextRawByte(start: start) == UInt8(ascii: "u")
                else {
                    throw error(.malformed, "a high surrogate escape is not followed by a low one", at: escapeOffset)
                }
                let low = try readHex4(start: start)
                guard low >= 0xDC00 && low < 0xE000 else {
                    throw error(.malformed, "a high surrogate escape is not followed by a low one", at: escapeOffset)
                }
                scalar = 0x10000 + ((scalar - 0xD800) << 10) + (low - 0xDC00)
            } else if scalar >= 0xDC00 && scalar < 0xE000 {
                throw error(.malformed, "a lone low surrogate escape", at: escapeOffset)
            }
            guard let unicode = Unicode.Scalar(scalar) else {
                throw error(.malformed, "an invalid \\u escape", at: escapeOffset)
            }
            scratch.append(contentsOf: UTF8.encode(unicode)!)
        default:
            throw error(.malformed, "an invalid escape sequence in a string", at: escapeOffset)
        }
    }

    // MARK: Numbers

    /// Reads a JSON number: an exact `.integer` when written without `.` or exponent, else a `.real`.
    func readNumber() throws -> DBBValue {
        try readNumber(parsingReals: true)
    }

    /// Reads a JSON number, checked in full.
    ///
    /// - Parameter parsingReals: whether a real that does not start with `-` is converted (by `strtod`, the
    ///   dearest part); when false, such a real is returned as `.real(0)`, for a scan, which only needs to
    ///   know whether a real is -0.0.
    private func readNumber(parsingReals: Bool) throws -> DBBValue {
        _ = try peek()
        let start = offset
        // Fast path: the number ends in the current chunk, and is parsed where it lies (no copy, and few accesses
        // to the reader's properties, each checked for exclusivity at run time).
        let begin = index
        let parsed = buffer.withUnsafeBufferPointer { bytes -> NumberParse? in
            guard let run = Self.numberRun(in: bytes, from: begin) else { return nil }
            guard run.end - begin <= Self.longestNumber else { return NumberParse(end: run.end, value: .tooLong) }
            let number = UnsafeBufferPointer(rebasing: bytes[begin..<run.end])
            return NumberParse(
                end: run.end, value: Self.parseNumber(number, isReal: run.isReal, parsingReals: parsingReals))
        }
        if let parsed {
            index = parsed.end
            return try number(parsed.value, at: start)
        }
        scratch.removeAll(keepingCapacity: true)
        var isReal = false
        loop: while true {
            if index >= buffer.count {
                guard try refill() else { break }
            }
            let byte = buffer[index]
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"):
                scratch.append(byte)
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"):
                scratch.append(byte)
                isReal = true
            default:
                break loop
            }
            index += 1
            if scratch.count > Self.longestNumber { throw error(.malformed, "the number is too long", at: start) }
        }
        let value = scratch.withUnsafeBufferPointer {
            Self.parseNumber($0, isReal: isReal, parsingReals: parsingReals)
        }
        return try number(value, at: start)
    }

    /// A number read where it lies in the chunk, and where it ends.
    private struct NumberParse {
        var end: Int
        var value: ParsedNumber
    }

    /// A number's bytes as a value, or what is wrong with them.
    private enum ParsedNumber {
        case value(DBBValue)
        case invalid
        case outOfRange
        case tooLong
    }

    /// The value of a parsed number, or the error for what is wrong with it.
    private func number(_ parsed: ParsedNumber, at start: Int64) throws -> DBBValue {
        switch parsed {
        case .value(let value): return value
        case .invalid: throw error(.malformed, "an invalid number", at: start)
        case .outOfRange: throw error(.malformed, "the integer does not fit in 64 bits", at: start)
        case .tooLong: throw error(.malformed, "the number is too long", at: start)
        }
    }

    /// Parses a JSON number's bytes (at most ``longestNumber``): checked in full, an integer exactly, a real by
    /// `strtod` (unless `parsingReals` is false and it does not start with `-`: `.real(0)` then, for a scan).
    private static func parseNumber(_ bytes: UnsafeBufferPointer<UInt8>, isReal: Bool, parsingReals: Bool)
        -> ParsedNumber
    {
        guard isValidNumber(bytes) else { return .invalid }
        // A valid number has at least one byte.
        let negative = bytes[0] == UInt8(ascii: "-")
        if isReal {
            guard parsingReals || negative else { return .value(.real(0)) }
            if let value = fastReal(bytes) { return .value(.real(value)) }
            // strtod reads a C string: the bytes and a NUL, on the stack.
            let value = withUnsafeTemporaryAllocation(of: CChar.self, capacity: bytes.count + 1) { text in
                for (position, byte) in bytes.enumerated() { text[position] = CChar(bitPattern: byte) }
                text[bytes.count] = 0
                return strtod(text.baseAddress!, nil)
            }
            return .value(.real(value))
        }
        var magnitude: UInt64 = 0
        for position in (negative ? 1 : 0)..<bytes.count {
            let (times10, overflow1) = magnitude.multipliedReportingOverflow(by: 10)
            let (sum, overflow2) = times10.addingReportingOverflow(UInt64(bytes[position] - UInt8(ascii: "0")))
            guard !overflow1 && !overflow2 else { return .outOfRange }
            magnitude = sum
        }
        if negative {
            guard magnitude <= UInt64(Int64.max) + 1 else { return .outOfRange }
            return .value(.integer(magnitude == UInt64(Int64.max) + 1 ? .min : -Int64(magnitude)))
        }
        guard magnitude <= UInt64(Int64.max) else { return .outOfRange }
        return .value(.integer(Int64(magnitude)))
    }

    /// The powers of ten that are doubles exactly.
    private static let exactPowersOfTen: [Double] = [
        1e0, 1e1, 1e2, 1e3, 1e4, 1e5, 1e6, 1e7, 1e8, 1e9, 1e10, 1e11, 1e12, 1e13, 1e14, 1e15, 1e16, 1e17, 1e18,
        1e19, 1e20, 1e21, 1e22,
    ]

    /// A valid JSON real whose digits make an integer of at most 2⁵³, times a power of ten from 10⁻²² to 10²²
    /// (Clinger's fast path): the integer and the power are doubles exactly, so the one correctly rounded
    /// multiplication or division is the correctly rounded value, the one strtod gives, at a fraction of its
    /// cost. `nil` for any other number (strtod reads it). Most reals a dump holds are short decimals.
    static func fastReal(_ bytes: UnsafeBufferPointer<UInt8>) -> Double? {
        let zero = UInt8(ascii: "0")
        let negative = bytes[0] == UInt8(ascii: "-")
        var index = negative ? 1 : 0
        var mantissa: UInt64 = 0
        var exponent = 0
        var afterPoint = false
        while index < bytes.count {
            let byte = bytes[index]
            if byte == UInt8(ascii: ".") {
                afterPoint = true
            } else if byte >= zero && byte <= UInt8(ascii: "9") {
                guard mantissa < 100_000_000_000_000_000 else { return nil }
                mantissa = mantissa * 10 + UInt64(byte - zero)
                if afterPoint { exponent -= 1 }
            } else {
                break
            }
            index += 1
        }
        if index < bytes.count {
            // An exponent, validated: `e` or `E`, a sign perhaps, digits.
            index += 1
            let negativeExponent = bytes[index] == UInt8(ascii: "-")
            if bytes[index] == UInt8(ascii: "-") || bytes[index] == UInt8(ascii: "+") { index += 1 }
            var power = 0
            while index < bytes.count {
                guard power < 1000 else { return nil }
                power = power * 10 + Int(bytes[index] - zero)
                index += 1
            }
            exponent += negativeExponent ? -power : power
        }
        guard mantissa <= 1 << 53 else { return nil }
        var value = Double(mantissa)
        if mantissa != 0 {
            guard exponent >= -22 && exponent <= 22 else { return nil }
            if exponent >= 0 {
                value *= exactPowersOfTen[exponent]
            } else {
                value /= exactPowersOfTen[-exponent]
            }
        }
        return negative ? -value : value
    }

    /// The most bytes a number may have.
    private static let longestNumber = 400

    /// The end of the number's bytes starting at `start`, and whether they make a real, when a byte that
    /// cannot be part of a number follows them in the chunk; `nil` when they run to the chunk's end.
    private static func numberRun(in bytes: UnsafeBufferPointer<UInt8>, from start: Int) -> (end: Int, isReal: Bool)? {
        var isReal = false
        // In range: `start..<bytes.count` traps unless `start <= bytes.count`, and `start` (an index) is not negative.
        for position in start..<bytes.count {
            switch bytes[position] {
            case UInt8(ascii: "0")...UInt8(ascii: "9"), UInt8(ascii: "-"), UInt8(ascii: "+"): continue
            case UInt8(ascii: "."), UInt8(ascii: "e"), UInt8(ascii: "E"): isReal = true
            default: return (position, isReal)
            }
        }
        return nil
    }

    /// JSON's number grammar: `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`.
    private static func isValidNumber(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        var position = 0
        let count = bytes.count
        func isDigit(_ at: Int) -> Bool { at < count && bytes[at] >= 0x30 && bytes[at] <= 0x39 }
        if position < count && bytes[position] == UInt8(ascii: "-") { position += 1 }
        guard isDigit(position) else { return false }
        if bytes[position] == UInt8(ascii: "0") {
            position += 1
        } else {
            while isDigit(position) { position += 1 }
        }
        if position < count && bytes[position] == UInt8(ascii: ".") {
            position += 1
            guard isDigit(position) else { return false }
            while isDigit(position) { position += 1 }
        }
        if position < count && (bytes[position] == UInt8(ascii: "e") || bytes[position] == UInt8(ascii: "E")) {
            position += 1
            if position < count && (bytes[position] == UInt8(ascii: "+") || bytes[position] == UInt8(ascii: "-")) {
                position += 1
            }
            guard isDigit(position) else { return false }
            while isDigit(position) { position += 1 }
        }
        return position == count
    }

    // MARK: Values

    /// Reads any JSON value into a tree (for the small parts of a dump), of at most
    /// ``maximumTreeValues`` values.
    func readValue() throws -> JSONValue {
        treeValuesLeft = Self.maximumTreeValues
        return try readTree(depth: 0)
    }

    private func readTree(depth: Int) throws -> JSONValue {
        guard depth < Self.maximumDepth else { throw error(.malformed, "the JSON is nested too deeply") }
        treeValuesLeft -= 1
        guard treeValuesLeft >= 0 else {
            throw error(
                .malformed, "a part of the dump outside the rows holds more than \(Self.maximumTreeValues) values")
        }
        guard let byte = try peek() else { throw unexpected(nil, expecting: "a JSON value") }
        switch byte {
        case UInt8(ascii: "{"):
            index += 1
            var members: [(key: String, value: JSONValue)] = []
            if try consume(UInt8(ascii: "}")) { return .object(members) }
            repeat {
                let key = try readKey()
                members.append((key, try readTree(depth: depth + 1)))
            } while try nextObjectMember()
            return .object(members)
        case UInt8(ascii: "["):
            index += 1
            var elements: [JSONValue] = []
            if try consume(UInt8(ascii: "]")) { return .array(elements) }
            repeat {
                elements.append(try readTree(depth: depth + 1))
            } while try nextArrayElement()
            return .array(elements)
        case UInt8(ascii: "\""):
            return .string(try readString())
        case UInt8(ascii: "t"):
            try readLiteral(Self.trueBytes)
            return .bool(true)
        case UInt8(ascii: "f"):
            try readLiteral(Self.falseBytes)
            return .bool(false)
        case UInt8(ascii: "n"):
            try readLiteral(Self.nullBytes)
            return .null
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            switch try readNumber() {
            case .integer(let value): return .integer(value)
            case .real(let value): return .real(value)
            default: fatalError("readNumber returns numbers only")
            }
        default:
            throw unexpected(byte, expecting: "a JSON value")
        }
    }

    /// Reads and discards any JSON value (a member this version does not know), keeping nothing of it.
    func skipValue(depth: Int = 0) throws {
        guard depth < Self.maximumDepth else { throw error(.malformed, "the JSON is nested too deeply") }
        guard let byte = try peek() else { throw unexpected(nil, expecting: "a JSON value") }
        switch byte {
        case UInt8(ascii: "{"):
            index += 1
            if try consume(UInt8(ascii: "}")) { return }
            repeat {
                guard try peek() == UInt8(ascii: "\"") else {
                    throw unexpected(try peek(), expecting: "a member name in quotes")
                }
                try skipString()
                try expect(UInt8(ascii: ":"), "':'")
                try skipValue(depth: depth + 1)
            } while try nextObjectMember()
        case UInt8(ascii: "["):
            index += 1
            if try consume(UInt8(ascii: "]")) { return }
            repeat {
                try skipValue(depth: depth + 1)
            } while try nextArrayElement()
        case UInt8(ascii: "\""):
            try skipString()
        default:
            treeValuesLeft = 1
            _ = try readTree(depth: depth)
        }
    }

    /// Reads one value of a table row in the dump's value encoding.
    ///
    /// - Throws: ``DBBExportError`` (malformed) for a value of the wrong shape, with its byte offset.
    @inline(__always)
    func readRowValue() throws -> DBBValue {
        guard let byte = try peek() else { throw unexpected(nil, expecting: "a value") }
        switch byte {
        case UInt8(ascii: "\""):
            return .text(try readString(valueLimit: maximumStringLength))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return try readNumber()
        case UInt8(ascii: "n"):
            try readLiteral(Self.nullBytes)
            return .null
        case UInt8(ascii: "{"):
            return try readTaggedValue()
        default:
            throw notARowValue(byte)
        }
    }

    /// Reads one value of a table row as ``readRowValue()`` does, with the same checks, but keeps only what
    /// ``ScannedValue`` holds: a text value that lies in the current chunk is checked in place, never made.
    ///
    /// - Throws: ``DBBExportError`` (malformed) for a value of the wrong shape, with its byte offset.
    @inline(__always)
    func scanRowValue() throws -> ScannedValue {
        guard let byte = try peek() else { throw unexpected(nil, expecting: "a value") }
        switch byte {
        case UInt8(ascii: "\""):
            return ScannedValue(kind: .text, hasNUL: try scanString(valueLimit: maximumStringLength))
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            return ScannedValue(try readNumber(parsingReals: false), isRawText: false)
        case UInt8(ascii: "n"):
            try readLiteral(Self.nullBytes)
            return ScannedValue(kind: .null)
        case UInt8(ascii: "{"):
            let value = try readTaggedValue()
            defer { lastValueWasRawText = false }
            return ScannedValue(value, isRawText: lastValueWasRawText)
        default:
            throw notARowValue(byte)
        }
    }

    /// Reads one value of a table row as ``readRowValue()`` does, with the same checks, and hands it to a
    /// writer as the reader holds it: text that lies in the current chunk without escapes is passed where it
    /// lies, never made into a `String`.
    ///
    /// - Returns: whether the value is an integer (a stored rowid must be).
    /// - Throws: ``DBBExportError`` (malformed) for a value of the wrong shape, with its byte offset.
    func readRowValue<Writer: DumpValueWriter>(into writer: inout Writer) throws -> Bool {
        guard let byte = try peek() else { throw unexpected(nil, expecting: "a value") }
        switch byte {
        case UInt8(ascii: "\""):
            try readText(into: &writer)
        case UInt8(ascii: "-"), UInt8(ascii: "0")...UInt8(ascii: "9"):
            switch try readNumber() {
            case .integer(let number):
                writer.writeInteger(number)
                return true
            case .real(let number):
                writer.writeReal(number)
            default:
                fatalError("readNumber returns numbers only")
            }
        case UInt8(ascii: "n"):
            try readLiteral(Self.nullBytes)
            writer.writeNull()
        case UInt8(ascii: "{"):
            let value = try readTaggedValue()
            let isRawText = lastValueWasRawText
            lastValueWasRawText = false
            switch value {
            case .blob(let bytes): bytes.withUnsafeBytes { writer.writeBytes($0, isRawText: isRawText) }
            case .real(let number): writer.writeReal(number)
            case .null: writer.writeNull()
            default: fatalError("readTaggedValue returns BLOBs and reals only")
            }
        default:
            throw notARowValue(byte)
        }
        return false
    }

    /// Reads a row's text value into a writer: in place when it lies in the current chunk without escapes.
    private func readText<Writer: DumpValueWriter>(into writer: inout Writer) throws {
        try expect(UInt8(ascii: "\""), "a string")
        let start = offset - 1
        let valueLimit = maximumStringLength
        // Fast path: the whole string, without escapes, lies in the current chunk; it is found, checked and
        // handed over in one pass over the buffer (each access to the reader's array retains it).
        let begin = index
        let fast = buffer.withUnsafeBufferPointer { all -> TextInChunk in
            guard let (end, isASCII) = Self.plainString(in: all, from: begin) else { return .notInChunk }
            guard end - begin <= valueLimit else { return .tooLong }
            let bytes = UnsafeBufferPointer(rebasing: all[begin..<end])
            guard isASCII || String(validating: bytes, as: UTF8.self) != nil else { return .invalid }
            writer.writeText(UnsafeRawBufferPointer(bytes), hasNUL: false)
            return .written(end: end)
        }
        switch fast {
        case .written(let end):
            index = end + 1
            return
        case .tooLong:
            throw tooLong(start: start, valueLimit: valueLimit, base64: false)
        case .invalid:
            throw error(.malformed, "the string is not valid UTF-8", at: start)
        case .notInChunk:
            break
        }
        var text = try readStringSlowly(start: start, limit: valueLimit, valueLimit: valueLimit, base64: false)
        text.withUTF8 { writer.writeText(UnsafeRawBufferPointer($0), hasNUL: $0.contains(0)) }
    }

    private func notARowValue(_ byte: UInt8) -> DBBExportError {
        error(
            .malformed,
            "a row value must be null, a number, a string, {\"blob\":…}, {\"real\":…} or {\"text\":…}, not "
                + (byte == UInt8(ascii: "[") ? "an array" : "this"))
    }

    private func readTaggedValue() throws -> DBBValue {
        let start = offset
        try expect(UInt8(ascii: "{"), "'{'")
        let tag = try readKey()
        switch tag {
        case "blob", "text":
            let data = try readBase64(valueLimit: maximumStringLength)
            guard try nextObjectMember() == false else {
                throw error(.malformed, "a tagged value must have exactly one member", at: start)
            }
            guard let data else {
                throw error(.malformed, "the \(tag == "blob" ? "BLOB" : "raw text") is not valid base64", at: start)
            }
            if tag == "text" { lastValueWasRawText = true }
            return .blob(data)
        case "real":
            let payload = try readString(valueLimit: maximumStringLength)
            guard try nextObjectMember() == false else {
                throw error(.malformed, "a tagged value must have exactly one member", at: start)
            }
            switch payload {
            case "inf": return .real(.infinity)
            case "-inf": return .real(-.infinity)
            // SQLite stores a NaN as NULL; restoring it so keeps the format's promise without binding a NaN.
            case "nan": return .null
            default: throw error(.malformed, "a tagged real must be \"inf\", \"-inf\" or \"nan\"", at: start)
            }
        default:
            throw error(
                .malformed, "unknown tagged value \"\(tag)\" (expected \"blob\", \"real\" or \"text\")", at: start)
        }
    }
}
