internal import DBBExport
internal import DBBSQL
internal import Foundation

/// Takes the rows of a table the load restores (``LoadConsumer``) as the dump's reader hands over their values
/// (``DumpValueWriter``), without a `String` or `Data` for each: it writes them into ``chunk`` as rows of
/// COPY's binary format, or keeps them while the table's types are not planned yet; and, when the load
/// speculates, counts each value by storage class as the planning pass does (``statistics``).
///
/// The load keeps it in a local while it reads a table's rows: each access to a class's property is checked
/// for exclusivity at run time, which would cost more per value than the value's bytes do.
struct CopyRowWriter: DumpValueWriter {
    enum Mode {
        /// Each row's values are kept (``values``): the table's types are planned from the first rows.
        case sampling
        /// Each row is written to ``chunk``.
        case loading
        /// The values are only counted.
        case counting
    }

    private(set) var mode: Mode
    /// Whether each value is added to ``statistics``.
    private let counts: Bool
    /// Per value of a row (the rowid's first when the dump stores it): the statistics of the values so far,
    /// when the writer counts.
    private(set) var statistics: [ColumnStatistics]
    /// The column types of a row's values, when loading.
    private(set) var types: [RestoreValues.ColumnType] = []
    /// Per type, the storage classes (``ColumnStatistics/classes(storableIn:)``) its column holds.
    private var allowed: [UInt8] = []
    /// COPY data not sent yet: whole rows.
    var chunk = CopyBuffer()
    /// The values of the row read last, while sampling. TEXT that is not valid UTF-8 is kept as its bytes, as
    /// a BLOB: the COPY data is the same (``RestoreValues/appendCopyBinary(_:type:to:)``), and it was counted as
    /// text (``statistics``).
    private(set) var values: [DBBValue] = []
    /// The bytes of the text and BLOBs in ``values``.
    private(set) var valueBytes = 0
    /// The first value of the row read last that its column cannot hold, when loading: its position and
    /// storage class. The row is not written, and the writer counts from there on.
    var misfit: (position: Int, storageClass: String)?
    private var position = 0
    private var rowStart = 0

    /// A writer of a table's rows.
    ///
    /// - Parameters:
    ///   - mode: ``Mode/sampling`` when the table is not created yet; ``Mode/loading`` after
    ///     ``startLoading(_:)``.
    ///   - counting: how many values a row has, when the writer counts them; `nil` when it does not.
    init(mode: Mode, counting valuesPerRow: Int?) {
        self.mode = mode
        counts = valuesPerRow != nil
        statistics = Array(repeating: ColumnStatistics(), count: valuesPerRow ?? 0)
    }

    /// Writes the rows from here on into ``chunk``, as values of the given column types.
    mutating func startLoading(_ types: [RestoreValues.ColumnType]) {
        self.types = types
        allowed = types.map(ColumnStatistics.classes(storableIn:))
        mode = .loading
    }

    /// Only counts the values from here on.
    mutating func stopLoading() {
        mode = .counting
    }

    mutating func beginRow() {
        position = 0
        switch mode {
        case .sampling:
            values.removeAll(keepingCapacity: true)
            valueBytes = 0
        case .loading:
            rowStart = chunk.count
            // At most 1600 columns: PostgreSQL creates no wider table.
            chunk.appendBigEndian(Int16(types.count))
        case .counting:
            break
        }
    }

    /// What becomes of a value.
    private enum Action {
        case keep, write, skip
    }

    /// Counts a value (when the writer counts) and says what becomes of it: when loading, a value its column
    /// cannot hold ends the row (``misfit``).
    @inline(__always)
    private mutating func take(_ value: ScannedValue) -> Action {
        if counts { statistics[position].add(value) }
        switch mode {
        case .sampling:
            return .keep
        case .counting:
            return .skip
        case .loading:
            let fits: Bool
            if counts {
                fits = statistics[position].fits(allowed[position])
            } else {
                var single = ColumnStatistics()
                single.add(value)
                fits = single.fits(allowed[position])
            }
            if fits { return .write }
            refuse(value)
            return .skip
        }
    }

    /// Takes back what the current row wrote, and counts from here on.
    private mutating func refuse(_ value: ScannedValue) {
        chunk.removeLast(from: rowStart)
        misfit = (position, Self.describe(value))
        mode = .counting
    }

    /// A value's storage class as a column's refusal names it: text with NUL and text that is not UTF-8 apart.
    static func describe(_ value: ScannedValue) -> String {
        switch value.kind {
        case .null: "null"
        case .integer: "integer"
        case .real: "real"
        case .text: value.hasNUL ? "text with NUL" : "text"
        case .rawText: "text that is not valid UTF-8"
        case .blob: "blob"
        }
    }

    mutating func writeNull() {
        put(ScannedValue(kind: .null), keeping: .null) { _, chunk in
            RestoreValues.appendNull(to: &chunk)
            return true
        }
    }

    mutating func writeInteger(_ value: Int64) {
        put(ScannedValue(kind: .integer, integer: value), keeping: .integer(value)) { type, chunk in
            RestoreValues.appendInteger(value, type: type, to: &chunk)
        }
    }

    mutating func writeReal(_ value: Double) {
        guard !value.isNaN else { return writeNull() }
        let scanned = ScannedValue(kind: .real, isNegativeZero: value == 0 && value.sign == .minus)
        put(scanned, keeping: .real(value)) { type, chunk in RestoreValues.appendReal(value, type: type, to: &chunk) }
    }

    mutating func writeText(_ utf8: UnsafeRawBufferPointer, hasNUL: Bool) {
        put(
            ScannedValue(kind: .text, hasNUL: hasNUL), keeping: .text(String(decoding: utf8, as: UTF8.self)),
            bytes: utf8.count
        ) { type, chunk in
            RestoreValues.appendText(utf8, type: type, to: &chunk)
        }
    }

    mutating func writeBytes(_ bytes: UnsafeRawBufferPointer, isRawText: Bool) {
        put(ScannedValue(kind: isRawText ? .rawText : .blob), keeping: .blob(Data(bytes)), bytes: bytes.count) {
            type, chunk in RestoreValues.appendBytes(bytes, type: type, to: &chunk)
        }
    }

    /// Takes a value (``take(_:)``): keeps it while sampling (made only then), or writes it into ``chunk`` with
    /// `write`, which says whether the column's type holds it.
    ///
    /// - Parameter bytes: the bytes of text or a BLOB, counted in ``valueBytes`` when kept.
    @inline(__always)
    private mutating func put(
        _ scanned: ScannedValue, keeping value: @autoclosure () -> DBBValue, bytes: Int = 0,
        write: (RestoreValues.ColumnType, inout CopyBuffer) -> Bool
    ) {
        switch take(scanned) {
        case .keep:
            values.append(value())
            valueBytes += bytes
        case .write:
            if !write(types[position], &chunk) { refuse(scanned) }
        case .skip:
            break
        }
        position += 1
    }

    /// Writes a row kept while sampling, when loading, without counting it again (it was counted when kept).
    ///
    /// - Returns: the position of the first value its column cannot hold, having written nothing; `nil` when
    ///   the row is written.
    mutating func writeKept(_ row: [DBBValue]) -> Int? {
        let start = chunk.count
        chunk.appendBigEndian(Int16(types.count))
        for (position, value) in row.enumerated()
        where !RestoreValues.appendCopyBinary(value, type: types[position], to: &chunk) {
            chunk.removeLast(from: start)
            return position
        }
        return nil
    }
}
