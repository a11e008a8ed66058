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
        guard let first = bytes.next(), isLetterOrUnderscore(first) else { return false }
        while let byte = bytes.next() {
            guard isLetterOrUnderscore(byte) || (UInt8(ascii: "0")...UInt8(ascii: "9")).contains(byte) else {
                return false
            }
        }
        return true
    }

    private static func isLetterOrUnderscore(_ byte: UInt8) -> Bool {
        // ASCII letters differ in case by bit 0x20 alone.
        (UInt8(ascii: "a")...UInt8(ascii: "z")).contains(byte | 0x20) || byte == UInt8(ascii: "_")
    }
}

extension DBBDatabase {
    /// Quotes an identifier (a table, column or index name) for use in SQL: `my "table"` → `"my ""table"""`.
    ///
    /// - Parameter name: the name.
    /// - Returns: the name in double quotes, its own double quotes doubled.
    public static func quoteIdentifier(_ name: String) -> String {
        // Most names hold no quote: they skip Foundation's search and replace.
        let inner = name.utf8.contains(UInt8(ascii: "\"")) ? name.replacingOccurrences(of: "\"", with: "\"\"") : name
        return "\"" + inner + "\""
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
