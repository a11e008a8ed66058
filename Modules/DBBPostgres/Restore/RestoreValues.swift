internal import DBBSQL
internal import Foundation
internal import NIOCore

/// The one place that says what a dump's value becomes in a planned column: the COPY text the load sends and
/// the value the verification expects to read back are both made from ``stored(_:isRawText:type:)``.
enum RestoreValues {
    /// The column types of a plan.
    enum ColumnType {
        case bigint, double, numeric, text, bytea

        init(_ name: String) {
            switch name {
            case "bigint": self = .bigint
            case "double precision": self = .double
            case "numeric": self = .numeric
            case "text": self = .text
            default: self = .bytea
            }
        }
    }

    /// The value a column of the type holds for a dump's value: numbers stay numbers in number columns, become
    /// their text in a text column and their text's bytes in a bytea column; text becomes its bytes in a bytea
    /// column; NaN becomes NULL, as SQLite stores it.
    static func stored(_ value: DBBValue, isRawText: Bool, type: ColumnType) -> DBBValue {
        switch (value, type) {
        case (.real(let number), _) where number.isNaN:
            return .null
        case (.integer(let number), .text):
            return .text(String(number))
        case (.real(let number), .text):
            return .text(realText(number))
        case (.integer(let number), .bytea):
            return .blob(Data(String(number).utf8))
        case (.real(let number), .bytea):
            return .blob(Data(realText(number).utf8))
        case (.text(let text), .bytea):
            return .blob(Data(text.utf8))
        case (.blob(let bytes), .text) where isRawText:
            return .blob(bytes)  // not planned: such a column is bytea
        default:
            return value
        }
    }

    /// A double as the shortest text that reads back as the same double; PostgreSQL's spelling of the
    /// infinities.
    static func realText(_ number: Double) -> String {
        if number == .infinity { return "Infinity" }
        if number == -.infinity { return "-Infinity" }
        return number.description
    }

    /// The text PostgreSQL prints for the `numeric` it reads from ``realText(_:)``: plain digits, as many
    /// after the point as the text has once its exponent is applied (`1e-05` is `0.00001`, `1.5e+20` is
    /// `150000000000000000000`), and no negative zero.
    static func numericText(_ number: Double) -> String {
        let text = realText(number)
        guard number.isFinite else { return text }
        var digits: [UInt8] = []
        var pointAt: Int?
        var exponent = 0
        var isNegative = false
        var bytes = text.utf8[...]
        if bytes.first == UInt8(ascii: "-") {
            isNegative = true
            bytes = bytes.dropFirst()
        }
        while let byte = bytes.popFirst() {
            switch byte {
            case UInt8(ascii: "0")...UInt8(ascii: "9"): digits.append(byte)
            case UInt8(ascii: "."): pointAt = digits.count
            case UInt8(ascii: "e"), UInt8(ascii: "E"): exponent = Int(String(decoding: bytes, as: UTF8.self)) ?? 0
            default: break
            }
            if byte == UInt8(ascii: "e") || byte == UInt8(ascii: "E") { break }
        }
        let integerDigits = (pointAt ?? digits.count) + exponent
        let scale = max(0, digits.count - integerDigits)
        var integerPart: [UInt8]
        var fraction: [UInt8]
        if integerDigits <= 0 {
            integerPart = []
            fraction = Array(repeating: UInt8(ascii: "0"), count: -integerDigits) + digits
        } else if integerDigits >= digits.count {
            integerPart = digits + Array(repeating: UInt8(ascii: "0"), count: integerDigits - digits.count)
            fraction = []
        } else {
            integerPart = Array(digits[..<integerDigits])
            fraction = Array(digits[integerDigits...])
        }
        integerPart = Array(integerPart.drop { $0 == UInt8(ascii: "0") })
        if integerPart.isEmpty { integerPart = [UInt8(ascii: "0")] }
        let isZero = !digits.contains { $0 != UInt8(ascii: "0") }
        var result = isNegative && !isZero ? "-" : ""
        result += String(decoding: integerPart, as: UTF8.self)
        if scale > 0 { result += "." + String(decoding: fraction, as: UTF8.self) }
        return result
    }

    private static let hexDigits = Array("0123456789abcdef".utf8)

    /// Appends a stored value in COPY's text format: `\N` for NULL, backslash escapes in text, `\\x` hex for
    /// bytea.
    static func appendCopyText(_ value: DBBValue, to buffer: inout ByteBuffer) {
        switch value {
        case .null:
            buffer.writeStaticString("\\N")
        case .integer(let number):
            buffer.writeString(String(number))
        case .real(let number):
            buffer.writeString(realText(number))
        case .text(let text):
            var text = text
            text.withUTF8 { bytes in
                guard bytes.contains(where: { $0 == 0x5C || $0 == 0x09 || $0 == 0x0A || $0 == 0x0D }) else {
                    buffer.writeBytes(bytes)
                    return
                }
                for byte in bytes {
                    switch byte {
                    case 0x5C: buffer.writeStaticString("\\\\")
                    case 0x09: buffer.writeStaticString("\\t")
                    case 0x0A: buffer.writeStaticString("\\n")
                    case 0x0D: buffer.writeStaticString("\\r")
                    default: buffer.writeInteger(byte)
                    }
                }
            }
        case .blob(let bytes):
            // `\x` introduces bytea's hex format; COPY's own escaping doubles the backslash.
            buffer.writeStaticString("\\\\x")
            // Through buffer pointers: iterating `Data`, and writing a byte at a time, cost more than the digits.
            _ = bytes.withUnsafeBytes { source in
                buffer.writeWithUnsafeMutableBytes(minimumWritableBytes: source.count * 2) { target in
                    var at = 0
                    for byte in source {
                        target[at] = hexDigits[Int(byte >> 4)]
                        target[at + 1] = hexDigits[Int(byte & 0x0F)]
                        at += 2
                    }
                    return at
                }
            }
        }
    }

    /// Whether the value read back from the server is the stored value of the dump's value. A numeric column
    /// is read as text: an integer must read back as its digits, a real as the text PostgreSQL prints for the
    /// real's shortest spelling (``numericText(_:)``, what the digest of the load expects too), which reads back
    /// as the same double. A real of 1e16 or more is spelt with an exponent and has no fractional digits in
    /// `numeric`, so its text is an integer's (`1e+20` is `100000000000000000000`).
    static func matches(_ expected: DBBValue, _ actual: DBBValue, type: ColumnType) -> Bool {
        if type == .numeric, case .text(let read) = actual, let text = numericColumnText(of: expected) {
            return text == read
        }
        if case .real(let a) = expected, case .real(let b) = actual { return a.bitPattern == b.bitPattern }
        return expected == actual
    }

    /// The text a `numeric` column holding a number reads back as, read as text: an integer's digits, a real's
    /// ``numericText(_:)``; `nil` for a value that is not a number.
    static func numericColumnText(of value: DBBValue) -> String? {
        switch value {
        case .integer(let number): String(number)
        case .real(let number): numericText(number)
        default: nil
        }
    }
}

extension DBBPostgresRestorePlan.Table {
    /// The names and types of the table's values as the dump stores them: the rowid's first when it is kept.
    var valueLayout: (names: [String], types: [RestoreValues.ColumnType]) {
        (
            (rowIDColumn.map { [$0] } ?? []) + columns.map(\.name),
            (rowIDColumn != nil ? [.bigint] : []) + columns.map { RestoreValues.ColumnType($0.type) }
        )
    }
}
