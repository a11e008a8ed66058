import DBBSQL
import Foundation
import Testing

@testable import DBBExport

/// The numbers of a dump's rows, read where they lie in a chunk or gathered across chunks: the same values and the
/// same errors either way.
struct DumpJSONNumberTests {
    /// Reads one row value from the text followed by a comma, handed over in chunks of `chunkSize` bytes (a
    /// number then ends inside its chunk, or is split across several).
    static func read(_ text: String, chunkSize: Int) throws -> DBBValue {
        let chunks = Chunks(Array((text + ",").utf8), size: chunkSize)
        let reader = DumpJSONReader(path: nil) { chunks.next() }
        return try reader.readRowValue()
    }

    final class Chunks {
        private var bytes: ArraySlice<UInt8>
        private let size: Int

        init(_ bytes: [UInt8], size: Int) {
            self.bytes = bytes[...]
            self.size = size
        }

        func next() -> [UInt8]? {
            guard !bytes.isEmpty else { return nil }
            defer { bytes = bytes.dropFirst(size) }
            return Array(bytes.prefix(size))
        }
    }

    static let chunkSizes = [1, 3, 4096]

    @Test(arguments: chunkSizes)
    func validNumbersKeepTheirValues(chunkSize: Int) throws {
        let cases: [(String, DBBValue)] = [
            ("0", .integer(0)), ("-0", .integer(0)), ("42", .integer(42)), ("-17", .integer(-17)),
            ("9223372036854775807", .integer(.max)), ("-9223372036854775808", .integer(.min)),
            ("1.5", .real(1.5)), ("-2.25", .real(-2.25)), ("1e3", .real(1000)), ("2.5E-3", .real(0.0025)),
            ("786000000.123456", .real(786_000_000.123456)), ("1e+20", .real(1e20)),
        ]
        for (text, value) in cases {
            #expect(try Self.read(text, chunkSize: chunkSize) == value, "\(text)")
        }
        let negativeZero = try Self.read("-0.0", chunkSize: chunkSize)
        guard case .real(let zero) = negativeZero else {
            Issue.record("-0.0 read as \(negativeZero)")
            return
        }
        #expect(zero == 0 && zero.sign == .minus)
    }

    @Test("a real is read as strtod reads it, bit for bit, on the fast path and off it")
    func realsAreStrtods() throws {
        var generator = SystemRandomNumberGenerator()
        var texts = [
            "0.1", "-0.0", "0.0", "2754.13", "9007199254740992.0", "9007199254740993.0", "1e22", "1e23", "1e-22",
            "1e-23", "123456789012345678.5", "0.000000000000000000000000001", "4.9e-324", "1.7976931348623157e308",
            "2.2250738585072014e-308", "5e-324", "0e999", "-1.5E+3", "100000000000000000000000.0", "1.0e-5",
        ]
        for _ in 0..<3000 {
            let double = Double(bitPattern: generator.next() & ~(0x7FF << 52) | UInt64.random(in: 900...1150) << 52)
            texts.append(double.description)
            let digits = String(UInt64.random(in: 0...UInt64.max, using: &generator) >> UInt64.random(in: 0...63))
            let point = Int.random(in: 0...digits.count)
            var text = String(digits.prefix(point).isEmpty ? "0" : digits.prefix(point))
            text += "." + (digits.dropFirst(point).isEmpty ? "0" : digits.dropFirst(point))
            if Bool.random() { text += "e\(Int.random(in: -30...30))" }
            texts.append(Bool.random() ? "-" + text : text)
        }
        var fast = 0
        for text in texts {
            let expected = strtod(text, nil)
            #expect(try Self.read(text, chunkSize: 4096) == .real(expected), "\(text)")
            let value = Array(text.utf8).withUnsafeBufferPointer { DumpJSONReader.fastReal($0) }
            if let value {
                #expect(value.bitPattern == expected.bitPattern, "\(text)")
                fast += 1
            }
        }
        #expect(fast > texts.count / 3)
    }

    @Test(arguments: chunkSizes)
    func badNumbersAreRefusedWithTheirReason(chunkSize: Int) {
        let cases: [(String, String)] = [
            ("01", "an invalid number"), ("1.", "an invalid number"), ("-", "an invalid number"),
            ("1e", "an invalid number"), ("1.2.3", "an invalid number"), ("--1", "an invalid number"),
            ("1e+-2", "an invalid number"),
            ("9223372036854775808", "the integer does not fit in 64 bits"),
            ("-9223372036854775809", "the integer does not fit in 64 bits"),
            ("99999999999999999999", "the integer does not fit in 64 bits"),
            (String(repeating: "1", count: 401), "the number is too long"),
            ("0." + String(repeating: "5", count: 399), "the number is too long"),
        ]
        for (text, reason) in cases {
            do {
                let value = try Self.read(text, chunkSize: chunkSize)
                Issue.record("\(text.prefix(30)) read as \(value)")
            } catch let error as DBBExportError {
                #expect(error.kind == .malformed, "\(text.prefix(30))")
                #expect(error.message.contains(reason), "\(text.prefix(30)): \(error.message)")
                #expect(error.byteOffset == 0, "\(text.prefix(30))")
            } catch {
                Issue.record("\(text.prefix(30)): \(error)")
            }
        }
    }
}
