internal import CSQLite
internal import Foundation

/// How the library writes names into the SQL it generates: the one quoting policy of the package. DBBSchema's
/// DDL and table statements, DBBQuery's clauses and DBBObjects' statements write every table, column and index
/// name through ``sql(_:)``; DBBExport quotes every name with ``DBBDatabase/quoteIdentifier(_:)``.
public enum DBBIdentifier {
    /// A name as generated SQL writes it: a plain identifier (an ASCII letter or `_`, then ASCII letters,
    /// digits or `_`) that is not an SQL keyword stays as it is, as DBBBuilder's DDL text has it; anything
    /// else is quoted with ``DBBDatabase/quoteIdentifier(_:)``.
    ///
    /// ```swift
    /// DBBIdentifier.sql("Project")   // Project
    /// DBBIdentifier.sql("order")     // "order"
    /// DBBIdentifier.sql("my table")  // "my table"
    /// ```
    ///
    /// - Parameter name: a table, column or index name.
    /// - Returns: the name, quoted when it has to be.
    public static func sql(_ name: String) -> String {
        isPlain(name) && !DBBDatabase.isKeyword(name) ? name : DBBDatabase.quoteIdentifier(name)
    }

    /// Whether a name is a plain identifier: an ASCII letter or `_`, then ASCII letters, digits or `_`.
    /// Decided on the UTF-8 bytes: every byte of a non-ASCII character is 0x80 or more, so a name holding one
    /// is never plain, as with `Character` checks, which cost thousands of instructions per name.
    static func isPlain(_ name: String) -> Bool {
        var bytes = name.utf8.makeIterator()
        guard let first = bytes.next(), first.isASCIILetterOrUnderscore else { return false }
        while let byte = bytes.next() {
            guard byte.isASCIILetterOrUnderscore || byte.isASCIIDigit else {
                return false
            }
        }
        return true
    }

}

// The byte classes of SQL's identifiers, as SQLite's tokenizer reads them; one definition for every scanner of
// SQL text in the package.
extension UInt8 {
    /// Whether the byte is an ASCII letter or `_`.
    @inlinable package var isASCIILetterOrUnderscore: Bool {
        // ASCII letters differ in case by bit 0x20 alone.
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(self | 0x20) || self == UInt8(ascii: "_")
    }

    /// Whether the byte is an ASCII digit.
    @inlinable package var isASCIIDigit: Bool { (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(self) }

    /// Whether the byte starts an identifier: a letter, `_`, or a byte of a non-ASCII scalar.
    @inlinable package var startsIdentifier: Bool { self >= 0x80 || isASCIILetterOrUnderscore }

    /// Whether the byte continues an identifier: one that starts one, a digit, or `$`.
    @inlinable package var continuesIdentifier: Bool {
        startsIdentifier || isASCIIDigit || self == UInt8(ascii: "$")
    }
}

extension DBBDatabase {
    /// Quotes an identifier (a table, column or index name) for use in SQL: `my "table"` → `"my ""table"""`.
    ///
    /// - Parameter name: the name.
    /// - Returns: the name in double quotes, its own double quotes doubled.
    public static func quoteIdentifier(_ name: String) -> String {
        quoted(name, with: UInt8(ascii: "\""))
    }

    /// Text between two quote characters, each of its own quotes doubled: an SQL identifier (`"`) or string
    /// literal (`'`).
    ///
    /// Quotes are doubled byte by byte. A quote followed by a combining mark forms one `Character` with it, so a
    /// search for the `Character` would pass it over and leave the quoted text unterminated; in UTF-8 an ASCII
    /// quote is always its own byte.
    ///
    /// - Parameters:
    ///   - text: the text.
    ///   - quote: the ASCII quote character.
    /// - Returns: the quoted text.
    package static func quoted(_ text: String, with quote: UInt8) -> String {
        let utf8 = text.utf8
        let quoteText = String(decoding: [quote], as: UTF8.self)
        // Most names hold no quote: they need no copy byte by byte.
        guard utf8.contains(quote) else { return quoteText + text + quoteText }
        var bytes: [UInt8] = [quote]
        bytes.reserveCapacity(utf8.count + 8)
        for byte in utf8 {
            bytes.append(byte)
            if byte == quote { bytes.append(quote) }
        }
        bytes.append(quote)
        return String(decoding: bytes, as: UTF8.self)
    }

    /// Whether a word is an SQL keyword of this SQLite build (such names must be quoted as identifiers).
    ///
    /// Related SQLite documentation: https://www.sqlite.org/c3ref/keyword_check.html
    ///
    /// - Parameter word: the word.
    /// - Returns: whether SQLite reserves it.
    public static func isKeyword(_ word: String) -> Bool {
        var word = word
        return word.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { sqlite3_keyword_check($0.baseAddress, Int32($0.count)) != 0 }
        }
    }
}
