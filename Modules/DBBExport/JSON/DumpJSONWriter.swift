internal import DBBSQL
internal import Foundation

/// Writes JSON text into a buffer and hands full buffers to the gzip writer.
///
/// Only what a dump needs: punctuation, strings, exact 64-bit integers, doubles that always read
/// back as doubles, and the tagged forms for BLOBs and non-finite doubles.
struct DumpJSONWriter {
    private var buffer: [UInt8] = []
    private let output: GzipFileWriter
    private static let flushThreshold = 1024 * 1024

    init(output: GzipFileWriter) {
        self.output = output
        buffer.reserveCapacity(Self.flushThreshold + 64 * 1024)
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

    /// The number of bytes buffered, to undo a value with ``truncate(to:)``.
    var position: Int { buffer.count }

    /// Drops what was appended after `position` (nothing is flushed in the middle of a value).
    mutating func truncate(to position: Int) {
        buffer.removeSubrange(position...)
    }

    /// Appends a JSON string, escaping quotes, backslashes and every control character.
    ///
    /// - Returns: whether the text holds U+FFFD, the character that stands in for bytes that were not
    ///   valid UTF-8 when the text was read.
    @discardableResult
    mutating func string(_ text: String) -> Bool {
        var text = text
        return text.withUTF8 { appendEscaped($0) }
    }

    private static let hexDigits: [UInt8] = Array("0123456789abcdef".utf8)

    private mutating func appendEscaped(_ bytes: UnsafeBufferPointer<UInt8>) -> Bool {
        buffer.append(UInt8(ascii: "\""))
        var runStart = 0
        var index = 0
        var replacement = false
        let count = bytes.count
        while index < count {
            let byte = bytes[index]
            if byte >= 0x20 && byte != UInt8(ascii: "\"") && byte != UInt8(ascii: "\\") && byte != 0xEF {
                index += 1
                continue
            }
            if byte == 0xEF {
                // U+FFFD is EF BF BD in UTF-8; it needs no escaping.
                if index + 2 < count && bytes[index + 1] == 0xBF && bytes[index + 2] == 0xBD { replacement = true }
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
        buffer.append(UInt8(ascii: "\""))
        return replacement
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

    /// Appends a BLOB in its tagged form, `{"blob":"<base64>"}`.
    mutating func blob(_ data: Data) {
        raw("{\"blob\":\"")
        buffer.append(contentsOf: data.base64EncodedData())
        raw("\"}")
    }

    /// Appends TEXT that is not valid UTF-8 in its tagged form, `{"text":"<base64 of its bytes>"}`.
    mutating func rawText(_ bytes: Data) {
        raw("{\"text\":\"")
        buffer.append(contentsOf: bytes.base64EncodedData())
        raw("\"}")
    }

    /// Appends a value in its storage class's JSON form.
    mutating func value(_ value: DBBValue) {
        switch value {
        case .null: raw("null")
        case .integer(let integer): self.integer(integer)
        case .real(let real): self.real(real)
        case .text(let text): string(text)
        case .blob(let data): blob(data)
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
