internal import DBBSQL
internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Writes JSON text into a buffer and hands full buffers to the gzip writer.
///
/// Only what a dump needs: punctuation, strings, exact 64-bit integers, doubles that always read
/// back as doubles, and the tagged forms for BLOBs and non-finite doubles.
struct DumpJSONWriter {
    private var buffer: [UInt8] = []
    private let output: GzipFileWriter
    static let flushThreshold = 256 * 1024

    init(output: GzipFileWriter, reserving: Bool = true) {
        self.output = output
        if reserving { buffer.reserveCapacity(Self.flushThreshold + 64 * 1024) }
    }

    /// Hands the buffer to the gzip writer when it is full enough.
    mutating func flushIfNeeded() throws {
        if buffer.count >= Self.flushThreshold { try flush() }
    }

    /// Hands whatever is buffered to the gzip writer.
    mutating func flush() throws {
        guard !buffer.isEmpty else { return }
        let full = buffer
        buffer = []
        buffer.reserveCapacity(Self.flushThreshold + 64 * 1024)
        try output.write(full)
    }

    /// Appends text as it is (punctuation, keys known to need no escaping).
    mutating func raw(_ text: StaticString) {
        text.withUTF8Buffer { buffer.append(contentsOf: $0) }
    }

    /// Appends one byte as it is.
    mutating func byte(_ value: UInt8) {
        buffer.append(value)
    }

    /// Appends a JSON string, escaping quotes, backslashes and every control character.
    mutating func string(_ text: String) {
        var text = text
        text.withUTF8 { appendEscaped($0) }
    }

    /// Appends a row's JSON string, handing the buffer to the gzip writer every ``flushThreshold`` bytes of
    /// text, so that the JSON text of a long value is never held whole.
    ///
    /// - Throws: ``DBBExportError`` (io) when an earlier chunk could not be compressed or written.
    mutating func streamedString(_ text: String) throws {
        var text = text
        try text.withUTF8 { bytes in
            buffer.append(UInt8(ascii: "\""))
            var start = 0
            while start < bytes.count {
                let end = min(start + Self.flushThreshold, bytes.count)
                // Escapes concern single bytes below 0x80, so a part may end inside a multi-byte character.
                appendEscapedContent(UnsafeBufferPointer(rebasing: bytes[start..<end]))
                try flushIfNeeded()
                start = end
            }
            buffer.append(UInt8(ascii: "\""))
        }
    }

    /// Whether text holds U+FFFD, the character that stands in for bytes that were not valid UTF-8 when the
    /// text was read (`EF BF BD` in UTF-8).
    static func holdsReplacementCharacter(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { bytes in
            guard let base = bytes.baseAddress else { return false }
            var index = 0
            // memchr finds each candidate lead byte at memory speed, even in a debug build.
            while index + 2 < bytes.count, let found = memchr(base + index, 0xEF, bytes.count - index - 2) {
                // memchr returns a pointer into the same buffer: only its distance is used.
                index = UnsafeRawPointer(base).distance(to: found)
                if bytes[index + 1] == 0xBF && bytes[index + 2] == 0xBD { return true }
                index += 1
            }
            return false
        }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>) {
        buffer.append(UInt8(ascii: "\""))
        appendEscapedContent(bytes)
        buffer.append(UInt8(ascii: "\""))
    }

    private mutating func appendEscapedContent(_ bytes: UnsafeBufferPointer<UInt8>) {
        var runStart = 0
        var index = 0
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") {
                index += 1
                continue
            }
            if runStart < index {
                buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<index]))
            }
            buffer.append(UInt8(ascii: "\\"))
            switch byte {
            case UInt8(ascii: "\""): buffer.append(UInt8(ascii: "\""))
            case UInt8(ascii: "\\"): buffer.append(UInt8(ascii: "\\"))
            case 0x0A: buffer.append(UInt8(ascii: "n"))
            case 0x0D: buffer.append(UInt8(ascii: "r"))
            case 0x09: buffer.append(UInt8(ascii: "t"))
            case 0x08: buffer.append(UInt8(ascii: "b"))
            case 0x0C: buffer.append(UInt8(ascii: "f"))
            default:
                buffer.append(contentsOf: [UInt8(ascii: "u"), UInt8(ascii: "0"), UInt8(ascii: "0")])
                buffer.append(Self.hexDigits[Int(byte >> 4)])
                buffer.append(Self.hexDigits[Int(byte & 0x0F)])
            }
            index += 1
            runStart = index
        }
        if runStart < count {
            buffer.append(contentsOf: UnsafeBufferPointer(rebasing: bytes[runStart..<count]))
        }
    }

    /// Appends an integer exactly, as a JSON number without fraction or exponent.
    mutating func integer(_ value: Int64) {
        if value == .min {
            raw("-9223372036854775808")
            return
        }
        var magnitude = value.magnitude
        if value < 0 { buffer.append(UInt8(ascii: "-")) }
        let start = buffer.count
        repeat {
            buffer.append(UInt8(ascii: "0") + UInt8(magnitude % 10))
            magnitude /= 10
        } while magnitude > 0
        buffer[start...].reverse()
    }

    /// Appends a double so that it reads back as the same bits and as REAL: finite values always carry a
    /// `.` or an exponent (`14.0`, `1e-07`); infinities and NaN use the tagged form `{"real":"inf"}`.
    mutating func real(_ value: Double) {
        guard value.isFinite else {
            raw("{\"real\":\"")
            if value.isNaN {
                raw("nan")
            } else if value < 0 {
                raw("-inf")
            } else {
                raw("inf")
            }
            raw("\"}")
            return
        }
        // Swift prints the shortest text that reads back as the same double.
        var text = value.description
        text.withUTF8 { buffer.append(contentsOf: $0) }
        if !text.utf8.contains(where: { $0 == UInt8(ascii: ".") || $0 == UInt8(ascii: "e") }) {
            raw(".0")
        }
    }

    /// Appends a BLOB in its tagged form, `{"blob":"<base64>"}`, handing the buffer to the gzip writer as it
    /// fills.
    ///
    /// - Throws: ``DBBExportError`` (io) when an earlier chunk could not be compressed or written.
    mutating func blob(_ data: Data) throws {
        raw("{\"blob\":\"")
        try base64(data)
        raw("\"}")
    }

    /// Appends TEXT that is not valid UTF-8 in its tagged form, `{"text":"<base64 of its bytes>"}`.
    ///
    /// - Throws: ``DBBExportError`` (io) when an earlier chunk could not be compressed or written.
    mutating func rawText(_ bytes: Data) throws {
        raw("{\"text\":\"")
        try base64(bytes)
        raw("\"}")
    }

    /// Appends bytes as a BLOB in its tagged form, as ``blob(_:)`` does, without copying them first.
    ///
    /// - Throws: ``DBBExportError`` (io) when an earlier chunk could not be compressed or written.
    mutating func blob(bytes: UnsafeRawBufferPointer) throws {
        raw("{\"blob\":\"")
        try base64(bytes)
        raw("\"}")
    }

    /// Appends UTF-8 text given as bytes as a JSON string: ASCII as it is (escaped), other text as
    /// `String(decoding:as:)` reads it, each byte that is not valid UTF-8 becoming U+FFFD.
    ///
    /// - Throws: ``DBBExportError`` (io) when an earlier chunk could not be compressed or written.
    mutating func text(bytes: UnsafeRawBufferPointer) throws {
        let ascii = bytes.withMemoryRebound(to: UInt8.self) { utf8 in
            if utf8.allSatisfy({ $0 < 0x80 }) {
                if utf8.count <= Self.flushThreshold { appendEscaped(utf8) }
                return true
            }
            return false
        }
        if !ascii || bytes.count > Self.flushThreshold {
            try streamedString(String(decoding: bytes, as: UTF8.self))
        }
    }

    /// Base64 in parts of a multiple of 3 bytes, which encode to the same text as the whole.
    private mutating func base64(_ data: Data) throws {
        try data.withUnsafeBytes { try base64($0) }
    }

    private static let base64Digits: [UInt8] = Array(
        "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/".utf8)

    /// Standard base64 with padding (RFC 4648), handing the buffer to the gzip writer every ``flushThreshold``
    /// bytes or so: parts of a multiple of 3 bytes encode to the same text as the whole.
    private mutating func base64(_ bytes: UnsafeRawBufferPointer) throws {
        let digits = Self.base64Digits
        let part = Self.flushThreshold / 4 * 3
        var start = 0
        while start < bytes.count {
            let end = min(start + part, bytes.count)
            buffer.reserveCapacity(buffer.count + (end - start + 2) / 3 * 4)
            var index = start
            while index + 3 <= end {
                let chunk = UInt32(bytes[index]) << 16 | UInt32(bytes[index + 1]) << 8 | UInt32(bytes[index + 2])
                buffer.append(digits[Int(chunk >> 18)])
                buffer.append(digits[Int(chunk >> 12 & 0x3F)])
                buffer.append(digits[Int(chunk >> 6 & 0x3F)])
                buffer.append(digits[Int(chunk & 0x3F)])
                index += 3
            }
            if index < end {
                let second = index + 1 < end ? UInt32(bytes[index + 1]) : 0
                let chunk = UInt32(bytes[index]) << 16 | second << 8
                buffer.append(digits[Int(chunk >> 18)])
                buffer.append(digits[Int(chunk >> 12 & 0x3F)])
                buffer.append(index + 1 < end ? digits[Int(chunk >> 6 & 0x3F)] : UInt8(ascii: "="))
                buffer.append(UInt8(ascii: "="))
            }
            try flushIfNeeded()
            start = end
        }
    }

    /// Appends a row value in its storage class's JSON form.
    ///
    /// - Throws: ``DBBExportError`` (io) when an earlier chunk could not be compressed or written.
    mutating func value(_ value: DBBValue) throws {
        switch value {
        case .null: raw("null")
        case .integer(let integer): self.integer(integer)
        case .real(let real): self.real(real)
        case .text(let text): try streamedString(text)
        case .blob(let data): try blob(data)
        }
    }

    /// Appends a generic JSON value (header and schema parts).
    mutating func json(_ value: JSONValue) {
        switch value {
        case .null: raw("null")
        case .bool(let flag): flag ? raw("true") : raw("false")
        case .integer(let integer): self.integer(integer)
        case .real(let real): self.real(real)
        case .string(let text): string(text)
        case .array(let elements):
            byte(UInt8(ascii: "["))
            for (index, element) in elements.enumerated() {
                if index > 0 { byte(UInt8(ascii: ",")) }
                json(element)
            }
            byte(UInt8(ascii: "]"))
        case .object(let members):
            byte(UInt8(ascii: "{"))
            for (index, member) in members.enumerated() {
                if index > 0 { byte(UInt8(ascii: ",")) }
                string(member.key)
                byte(UInt8(ascii: ":"))
                json(member.value)
            }
            byte(UInt8(ascii: "}"))
        }
    }
}
