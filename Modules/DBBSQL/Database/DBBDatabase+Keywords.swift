internal import CSQLite

extension DBBDatabase {
    /// Whether a word is an SQL keyword of this SQLite build (such names must be quoted as identifiers).
    ///
    /// Related SQLite documentation: https://www.sqlite.org/c3ref/keyword_check.html
    public static func isKeyword(_ word: String) -> Bool {
        var word = word
        return word.withUTF8 { buffer in
            buffer.withMemoryRebound(to: CChar.self) { sqlite3_keyword_check($0.baseAddress, Int32($0.count)) != 0 }
        }
    }
}
