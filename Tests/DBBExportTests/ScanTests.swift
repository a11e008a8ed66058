import DBBExport
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// A scan of a dump's rows (``DumpConsumer/scans(_:)``, the first pass of a restore into PostgreSQL) checks
/// them as reading their values does: the same dumps are refused with the same error, and each value scanned
/// has the storage class, the integer, the sign of a zero and the NUL its value has. So does a consumer that
/// reads the rows itself (``DumpConsumer/writeRows(of:from:)``, the load of a restore into PostgreSQL), and
/// it is handed every value exactly.
@Suite("Scanning a dump")
struct ScanTests {
    /// Each row's values as text that tells their storage class and what a scan keeps of them; when reading
    /// or writing, also each value exactly (``values``).
    final class Classes: DumpConsumer {
        enum Pass {
            case scanning, reading, writing
        }

        let pass: Pass
        var rows: [[String]] = []
        var values: [[String]] = []
        /// When writing: the rows of each table the consumer reads itself; the parser reads the rest.
        let rowsWritten: Int

        init(_ pass: Pass, rowsWritten: Int = .max) {
            self.pass = pass
            self.rowsWritten = rowsWritten
        }

        func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws {}
        func beginTable(_ table: DBBDumpTable) throws {}
        func endTable(_ table: DBBDumpTable) throws {}
        func scans(_ table: DBBDumpTable) -> Bool { pass == .scanning }
        func writesRows(of table: DBBDumpTable) -> Bool { pass == .writing }

        func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {
            rows.append(
                values.enumerated().map { index, value in
                    switch value {
                    case .null: "null"
                    case .integer(let number): "integer \(number)"
                    case .real(let number): "real, -0.0: \(number == 0 && number.sign == .minus)"
                    case .text(let text): "text \(text.utf8.contains(0))"
                    case .blob: rawText.contains(index) ? "raw text" : "blob"
                    }
                })
            self.values.append(
                values.enumerated().map { index, value in
                    switch value {
                    case .null: Recorder.null
                    case .integer(let number): Recorder.integer(number)
                    case .real(let number): Recorder.real(number)
                    case .text(let text): Recorder.text(Array(text.utf8))
                    case .blob(let bytes): Recorder.bytes(Array(bytes), isRawText: rawText.contains(index))
                    }
                })
        }

        func writeRows(of table: DBBDumpTable, from rows: inout DumpRows) throws {
            var recorder = Recorder()
            var count = 0
            while count < rowsWritten, try rows.next(into: &recorder) {
                count += 1
                #expect(rows.number == count)
                self.rows.append(recorder.classes)
                values.append(recorder.values)
            }
        }

        func scannedRow(_ values: [ScannedValue], number: Int, of table: DBBDumpTable) throws {
            rows.append(
                values.map { value in
                    switch value.kind {
                    case .null: "null"
                    case .integer: "integer \(value.integer)"
                    case .real: "real, -0.0: \(value.isNegativeZero)"
                    case .text: "text \(value.hasNUL)"
                    case .blob: "blob"
                    case .rawText: "raw text"
                    }
                })
        }
    }

    /// What a consumer that reads the rows itself is handed: each value's storage class, as ``Classes`` tells
    /// them, and the value exactly.
    struct Recorder: DumpValueWriter {
        var classes: [String] = []
        var values: [String] = []

        static let null = "null"
        static func integer(_ number: Int64) -> String { "integer \(number)" }
        static func real(_ number: Double) -> String { "real \(number.bitPattern)" }
        static func text(_ utf8: [UInt8]) -> String { "text \(utf8)" }
        static func bytes(_ bytes: [UInt8], isRawText: Bool) -> String { "\(isRawText ? "raw text" : "blob") \(bytes)" }

        mutating func beginRow() {
            classes = []
            values = []
        }

        mutating func writeNull() {
            classes.append("null")
            values.append(Self.null)
        }

        mutating func writeInteger(_ value: Int64) {
            classes.append("integer \(value)")
            values.append(Self.integer(value))
        }

        mutating func writeReal(_ value: Double) {
            classes.append("real, -0.0: \(value == 0 && value.sign == .minus)")
            values.append(Self.real(value))
        }

        mutating func writeText(_ utf8: UnsafeRawBufferPointer, hasNUL: Bool) {
            classes.append("text \(hasNUL)")
            values.append(Self.text(Array(utf8)))
        }

        mutating func writeBytes(_ bytes: UnsafeRawBufferPointer, isRawText: Bool) {
            classes.append(isRawText ? "raw text" : "blob")
            values.append(Self.bytes(Array(bytes), isRawText: isRawText))
        }
    }

    /// What a pass saw: the rows, or the error it threw.
    enum Outcome: Equatable {
        case rows([[String]])
        case failed(String)
    }

    /// What a pass saw, and the values it was handed (reading and writing).
    static func pass(_ pass: Classes.Pass, over dump: URL, rowsWritten: Int = .max) -> (Outcome, Outcome) {
        let consumer = Classes(pass, rowsWritten: rowsWritten)
        do {
            _ = try DumpParser(dumpAt: dump).run(consumer)
            return (.rows(consumer.rows), .rows(consumer.values))
        } catch {
            return (.failed(String(describing: error)), .failed(String(describing: error)))
        }
    }

    /// What a scan and a read of the values see, and whether a consumer that reads the rows itself is handed
    /// the values read.
    static func both(_ dump: URL) -> (scanned: Outcome, read: Outcome) {
        let (read, values) = pass(.reading, over: dump)
        let (written, valuesWritten) = pass(.writing, over: dump)
        #expect(written == read, "\(dump.lastPathComponent)")
        #expect(valuesWritten == values, "\(dump.lastPathComponent)")
        return (pass(.scanning, over: dump).0, read)
    }

    /// Written `LONG` in the arguments: 480,000 bytes, longer than the chunks the reader gets.
    static let longText = String(repeating: "ü0123456789", count: 40_000)

    @Test(
        "a scan sees what reading the values sees, and refuses what it refuses",
        arguments: [
            #"[1,"a"],[2,null],[3,-0.0],[4,1e300],[5,-9223372036854775808],[6,"ü and \u0000"],[7,"a\"b"]"#,
            #"[1,0.0],[2,-0e5],[3,-1e-400],[4,-2.5],[5,1e999],[6,-1e999],[7,0]"#,
            #"[1,{"blob":"AAEC"}],[2,{"text":"/w=="}],[3,{"real":"inf"}],[4,{"real":"-inf"}],[5,{"real":"nan"}]"#,
            #"[1,"LONG"],[2,"LONG\u0000"],[3,""]"#,
            #"[1,"a"],[2,true]"#, #"[1,"a"],[2]"#, #"[1,"a"],[2,[3]]"#, #"[1,"a"],[2,{"blob":"***"}]"#,
            #"[1,"a"],[2,{"real":"big"}]"#, #"[1,"a"],[2,9223372036854775808]"#, #"[1,"a"],[2,01]"#,
            #"[1,"a"],[2,"\ud800"]"#, "[1,\"a\"],[2,\"tab\tinside\"]", #"[{"text":"YQ=="},"a"],[2,"b"]"#,
            "[1,\"bad \u{FF}\"],[2,\"b\"]",
        ])
    func scanMatchesValues(rows: String) throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("scan.json.gz")
        let count = rows.components(separatedBy: "],[").count
        let rows = rows.replacingOccurrences(of: "LONG", with: Self.longText)
        var text = Data(BadInputTests.handMade(rows: rows, rowCount: count).utf8)
        // A byte that is not UTF-8, inside a JSON string.
        if let marker = text.range(of: Data("\u{FF}".utf8)) { text.replaceSubrange(marker, with: [0xFF]) }
        try gzip(text).write(to: dump)
        let (scanned, read) = Self.both(dump)
        #expect(scanned == read)
        if case .failed(let message) = read { #expect(message.contains("table t, row")) }
    }

    @Test("a scan matches the values of every fixture, and refuses every hostile dump as reading does")
    func fixturesAndHostileDumps() throws {
        let folder = try TemporaryFolder()
        var dumps: [URL] = []
        for name in ["chinook.sqlite", "sakila.sqlite", "northwind.sqlite"] {
            let dump = folder.file("\(name).json.gz")
            try DBBExport.dump(databaseAt: try copyOfFixture(name, into: folder), to: dump)
            dumps.append(dump)
        }
        let accepted = dumps.count
        dumps += HostileDumpTests.names.map { HostileDumpTests.corpus.appendingPathComponent($0) }
        for (index, dump) in dumps.enumerated() {
            let (scanned, read) = Self.both(dump)
            #expect(scanned == read, "\(dump.lastPathComponent)")
            guard index < accepted else { continue }
            guard case .rows(let rows) = scanned else {
                Issue.record("\(dump.lastPathComponent) was refused: \(scanned)")
                continue
            }
            #expect(rows.count > 1000, "\(dump.lastPathComponent)")
        }
    }

    @Test("the rows a consumer leaves unread are read and checked after it returns")
    func rowsLeftUnreadAreChecked() throws {
        let folder = try TemporaryFolder()
        for (rows, failure) in [
            (#"[1,"a"],[2,"b"],[3,"c"]"#, nil), (#"[1,"a"],[2,"b"],[3,true]"#, "table t, row 3"),
            (#"[1,"a"],[2,"b"]"#, "rowCount"),
        ] {
            let dump = folder.file("unread.json.gz")
            try gzip(Data(BadInputTests.handMade(rows: rows, rowCount: 3).utf8)).write(to: dump)
            let (outcome, values) = Self.pass(.writing, over: dump, rowsWritten: 1)
            switch (outcome, failure) {
            case (.rows(let read), nil):
                #expect(read == [["integer 1", "text false"]])
                #expect(values == .rows([[Recorder.integer(1), Recorder.text(Array("a".utf8))]]))
            case (.failed(let message), let failure?):
                #expect(message.contains(failure), "\(message)")
            default:
                Issue.record("\(rows): \(outcome)")
            }
        }
    }

    /// Reads on after the first error it is told, and keeps both errors.
    final class ReadingOn: DumpConsumer {
        var errors: [String] = []

        func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws {}
        func beginTable(_ table: DBBDumpTable) throws {}
        func endTable(_ table: DBBDumpTable) throws {}
        func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {}
        func writesRows(of table: DBBDumpTable) -> Bool { true }

        func writeRows(of table: DBBDumpTable, from rows: inout DumpRows) throws {
            var recorder = Recorder()
            for _ in 0..<2 {
                do {
                    while try rows.next(into: &recorder) {}
                } catch {
                    errors.append("\(error)")
                }
            }
        }
    }

    @Test("a consumer that reads on after a damaged row is told the same error, and so is the parser")
    func readingOnAfterDamage() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("damaged.json.gz")
        try gzip(Data(BadInputTests.handMade(rows: #"[1,"a"],[2,true],[3,"c"]"#, rowCount: 3).utf8)).write(to: dump)
        let consumer = ReadingOn()
        #expect(throws: DBBExportError.self) { _ = try DumpParser(dumpAt: dump).run(consumer) }
        #expect(consumer.errors.count == 2)
        #expect(Set(consumer.errors).count == 1, "\(consumer.errors)")
        #expect(consumer.errors.first?.contains("a row value must be") == true, "\(consumer.errors)")
    }
}
