internal import DBBSQL
internal import Foundation

/// The one place that says what a dump's value becomes in a planned column: the value the verification expects
/// to read back (``stored(_:isRawText:type:)``), and the COPY data the load sends (``appendInteger(_:type:to:)``,
/// ``appendReal(_:type:to:)``, ``appendText(_:type:to:)``, ``appendBytes(_:type:to:)``, which write the bytes of
/// the value `stored` gives; a test holds them to it).
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

        /// The type's name in SQL.
        var name: String {
            switch self {
            case .bigint: "bigint"
            case .double: "double precision"
            case .numeric: "numeric"
            case .text: "text"
            case .bytea: "bytea"
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

    /// Appends a dump's value, in a column of the type, as a field of COPY's binary format: its length, -1 for
    /// NULL, then the bytes of the column type's binary format for the value the column stores
    /// (``stored(_:isRawText:type:)``), the ones the verification hashes (``RestoreDigest/add(copyData:)``).
    /// An integer in a `double precision` column becomes the nearest double, as the server reads its digits.
    /// A value ``stored(_:isRawText:type:)`` has already converted is appended as the same bytes. TEXT that is
    /// not valid UTF-8, given as its bytes, is appended as a BLOB is.
    ///
    /// - Parameters:
    ///   - value: the dump's value.
    ///   - type: the column's type.
    ///   - buffer: the COPY data.
    /// - Returns: `false`, having written nothing, when a column of the type cannot hold the value (the plan
    ///   puts no such value there), or when it is longer than a field can be.
    static func appendCopyBinary(
        _ value: DBBValue, type: ColumnType, to buffer: inout CopyBuffer
    ) -> Bool {
        switch value {
        case .null:
            appendNull(to: &buffer)
            return true
        case .integer(let number):
            return appendInteger(number, type: type, to: &buffer)
        case .real(let number):
            return appendReal(number, type: type, to: &buffer)
        case .text(var text):
            return text.withUTF8 { appendText(UnsafeRawBufferPointer($0), type: type, to: &buffer) }
        case .blob(let bytes):
            return bytes.withUnsafeBytes { appendBytes($0, type: type, to: &buffer) }
        }
    }

    /// Appends NULL as a field of COPY's binary format.
    static func appendNull(to buffer: inout CopyBuffer) {
        buffer.appendBigEndian(Int32(-1))
    }

    /// Appends an integer as ``appendCopyBinary(_:type:to:)`` does.
    static func appendInteger(_ number: Int64, type: ColumnType, to buffer: inout CopyBuffer) -> Bool {
        switch type {
        case .bigint: appendEightBytes(UInt64(bitPattern: number), to: &buffer)
        case .double: appendEightBytes(Double(number).bitPattern, to: &buffer)
        case .numeric: appendNumeric(String(number), to: &buffer)
        case .text, .bytea: return appendField(String(number), to: &buffer)
        }
        return true
    }

    /// Appends a real as ``appendCopyBinary(_:type:to:)`` does: NaN as NULL.
    static func appendReal(_ number: Double, type: ColumnType, to buffer: inout CopyBuffer) -> Bool {
        guard !number.isNaN else {
            appendNull(to: &buffer)
            return true
        }
        switch type {
        case .bigint: return false
        case .double: appendEightBytes(number.bitPattern, to: &buffer)
        case .numeric: appendNumeric(numericText(number), to: &buffer)
        case .text, .bytea: return appendField(realText(number), to: &buffer)
        }
        return true
    }

    /// Appends a field of eight bytes: `bigint`'s and `double precision`'s binary format.
    private static func appendEightBytes(_ bits: UInt64, to buffer: inout CopyBuffer) {
        buffer.appendBigEndian(Int32(8))
        buffer.appendBigEndian(bits)
    }

    /// Appends a field holding a text's UTF-8 bytes.
    private static func appendField(_ text: String, to buffer: inout CopyBuffer) -> Bool {
        var text = text
        return text.withUTF8 { appendField(UnsafeRawBufferPointer($0), to: &buffer) }
    }

    /// Appends text, given as its UTF-8 bytes, as ``appendCopyBinary(_:type:to:)`` does: its bytes,
    /// in a `text` or a `bytea` column.
    static func appendText(_ utf8: UnsafeRawBufferPointer, type: ColumnType, to buffer: inout CopyBuffer) -> Bool {
        switch type {
        case .text, .bytea: appendField(utf8, to: &buffer)
        case .bigint, .double, .numeric: false
        }
    }

    /// Appends a BLOB, or TEXT that is not valid UTF-8 given as its bytes, as ``appendCopyBinary(_:type:to:)``
    /// does: its bytes, in a `bytea` column.
    static func appendBytes(_ bytes: UnsafeRawBufferPointer, type: ColumnType, to buffer: inout CopyBuffer) -> Bool {
        type == .bytea && appendField(bytes, to: &buffer)
    }

    /// Appends a field of bytes: its length, then the bytes.
    ///
    /// - Returns: `false`, having written nothing, when they are longer than a field can be.
    private static func appendField(_ bytes: UnsafeRawBufferPointer, to buffer: inout CopyBuffer) -> Bool {
        guard let length = Int32(exactly: bytes.count) else { return false }
        buffer.appendBigEndian(length)
        buffer.append(bytes)
        return true
    }

    /// Appends a number's text as ``numericText(_:)`` spells it (an optional minus, digits, an optional point
    /// and digits, or an infinity) as a field holding `numeric`'s binary format: the count of base-10000 digits,
    /// the weight of the first (the power of 10000 it stands for), the sign, the count of decimal digits after
    /// the point, then the base-10000 digits, grouped from the point outwards. The bytes are the server's for
    /// the number it stores, which the digest relies on.
    private static func appendNumeric(_ text: String, to buffer: inout CopyBuffer) {
        let positive: UInt16 = 0x0000
        let negative: UInt16 = 0x4000
        if text == "Infinity" || text == "-Infinity" {
            buffer.appendBigEndian(Int32(8))
            buffer.appendBigEndian(Int16(0))
            buffer.appendBigEndian(Int16(0))
            buffer.appendBigEndian(UInt16(text == "Infinity" ? 0xD000 : 0xF000))
            // The server reads no scale for an infinity, and sends 32 (PostgreSQL 15 does): the same bytes.
            buffer.appendBigEndian(Int16(32))
            return
        }
        var bytes = text.utf8[...]
        let isNegative = bytes.first == UInt8(ascii: "-")
        if isNegative { bytes = bytes.dropFirst() }
        let point = bytes.firstIndex(of: UInt8(ascii: ".")) ?? bytes.endIndex
        let integerDigits = bytes[..<point].map { Int16($0 - UInt8(ascii: "0")) }
        let fractionDigits =
            point == bytes.endIndex ? [] : bytes[bytes.index(after: point)...].map { Int16($0 - UInt8(ascii: "0")) }
        // Whole groups of four: zeros before the integer digits, after the fraction's.
        let integer = Array(repeating: 0, count: (4 - integerDigits.count % 4) % 4) + integerDigits
        let fraction = fractionDigits + Array(repeating: 0, count: (4 - fractionDigits.count % 4) % 4)
        let digits = integer + fraction
        var groups: [Int16] = stride(from: 0, to: digits.count, by: 4).map { (at: Int) -> Int16 in
            let high: Int16 = digits[at] * 1000 + digits[at + 1] * 100
            return high + digits[at + 2] * 10 + digits[at + 3]
        }
        // As the server keeps it, and sends it back (`numeric_send`): without zero groups at either end, the
        // weight counting those dropped before, and zero as no groups, positive, with weight 0.
        var weight = integer.count / 4 - 1
        let leadingZeros = groups.prefix { $0 == 0 }.count
        groups.removeFirst(leadingZeros)
        weight -= leadingZeros
        groups.removeLast(groups.reversed().prefix { $0 == 0 }.count)
        if groups.isEmpty { weight = 0 }
        buffer.appendBigEndian(Int32(8 + 2 * groups.count))
        buffer.appendBigEndian(Int16(groups.count))
        buffer.appendBigEndian(Int16(weight))
        buffer.appendBigEndian(isNegative && !groups.isEmpty ? negative : positive)
        buffer.appendBigEndian(Int16(fractionDigits.count))
        for group in groups { buffer.appendBigEndian(group) }
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

/// COPY data being written: bytes in an array that grows by doubling, each value written in place.
///
/// A `ByteBuffer` checks exclusivity at run time on every write (its storage is a class), and an array's
/// `append(contentsOf:)` costs more than the few bytes of an integer: together they were a tenth of a
/// restore's processor time.
struct CopyBuffer {
    /// The bytes written, then zeros up to the capacity.
    private var storage: [UInt8] = []
    /// How many bytes are written.
    private(set) var count = 0

    /// An empty buffer with room for `capacity` bytes.
    init(capacity: Int = 0) {
        storage = Array(repeating: 0, count: capacity)
    }

    var isEmpty: Bool { count == 0 }

    /// How many bytes the buffer holds without growing.
    var capacity: Int { storage.count }

    /// The bytes written.
    var bytes: ArraySlice<UInt8> { storage[..<count] }

    /// Calls `body` with the bytes written.
    func withUnsafeBytes<Result>(_ body: (UnsafeRawBufferPointer) throws -> Result) rethrows -> Result {
        try storage.withUnsafeBytes { try body(UnsafeRawBufferPointer(rebasing: $0[..<count])) }
    }

    /// Makes room for `size` more bytes.
    @inline(__always)
    private mutating func reserve(_ size: Int) {
        guard storage.count - count < size else { return }
        storage.append(contentsOf: repeatElement(0, count: max(size, storage.count)))
    }

    /// Appends an integer in network byte order, as COPY's binary format holds integers.
    @inline(__always)
    mutating func appendBigEndian<Integer: FixedWidthInteger>(_ value: Integer) {
        let size = MemoryLayout<Integer>.size
        reserve(size)
        let at = count
        // In range: `reserve` made room for the integer's bytes from `at`.
        storage.withUnsafeMutableBytes { $0.storeBytes(of: value.bigEndian, toByteOffset: at, as: Integer.self) }
        count += size
    }

    /// Appends bytes.
    @inline(__always)
    mutating func append(_ bytes: UnsafeRawBufferPointer) {
        reserve(bytes.count)
        let at = count
        // In range: `reserve` made room for the bytes from `at`.
        storage.withUnsafeMutableBytes {
            UnsafeMutableRawBufferPointer(rebasing: $0[at..<at + bytes.count]).copyMemory(from: bytes)
        }
        count += bytes.count
    }

    /// Forgets the bytes written from `count` on.
    mutating func removeLast(from count: Int) {
        precondition(count >= 0 && count <= self.count, "the count is outside the bytes written")
        self.count = count
    }

    /// Forgets every byte written, keeping the capacity.
    mutating func removeAll() {
        count = 0
    }
}
