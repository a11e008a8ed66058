/// Hides passwords in text meant for people: error messages, descriptions, log lines, a tool's output.
///
/// Anything that looks like the user information of a URL, `user:password@`, has its password replaced by `***`,
/// whether or not the rest is a URL that parses: `postgres//app:secret@db/app` (a typo), a file path that holds
/// one, or a URL inside a sentence all read `app:***@`.
///
/// ```swift
/// DBBRedaction.redactingPasswords(in: "no such file /srv/postgres//app:secret@db:5432/app")
/// // "no such file /srv/postgres//app:***@db:5432/app"
/// ```
///
/// ``DBBError`` applies it to its message, context and description, so an error never shows a password that a
/// caller put in a URL or a path.
public enum DBBRedaction {
    /// The characters that end a piece of text that may hold `user:password@host`: white space, a path's or
    /// URL's separators, quotes and brackets around a word.
    private static func endsWord(_ byte: UInt8) -> Bool {
        switch byte {
        case UInt8(ascii: " "), UInt8(ascii: "\t"), UInt8(ascii: "\n"), UInt8(ascii: "\r"), UInt8(ascii: "/"),
            UInt8(ascii: "\""), UInt8(ascii: "'"), UInt8(ascii: "`"), UInt8(ascii: "("), UInt8(ascii: ")"),
            UInt8(ascii: "<"), UInt8(ascii: ">"), UInt8(ascii: ","), UInt8(ascii: ";"), UInt8(ascii: "?"),
            UInt8(ascii: "#"), UInt8(ascii: "{"), UInt8(ascii: "}"):
            true
        default:
            false
        }
    }

    /// The text with the password of every `user:password@` replaced by `***`.
    ///
    /// In each word (text between white space, `/`, quotes, brackets, `?` or `#`) that holds an `@` after a `:`,
    /// everything from the first `:` to the last `@` is the password: a password may itself hold `:` or `@`.
    /// A word that is already redacted (`user:***@host`) is left as it is.
    ///
    /// - Parameter text: any text.
    /// - Returns: the text without passwords.
    public static func redactingPasswords(in text: String) -> String {
        // Most text holds no `@` at all: nothing to do.
        guard text.utf8.contains(UInt8(ascii: "@")) else { return text }
        let bytes = Array(text.utf8)
        var output: [UInt8] = []
        output.reserveCapacity(bytes.count)
        var start = 0
        while start < bytes.count {
            var end = start
            while end < bytes.count && !endsWord(bytes[end]) { end += 1 }
            appendRedacted(bytes[start..<end], to: &output)
            if end < bytes.count { output.append(bytes[end]) }
            start = end + 1
        }
        return String(decoding: output, as: UTF8.self)
    }

    private static func appendRedacted(_ word: ArraySlice<UInt8>, to output: inout [UInt8]) {
        guard let at = word.lastIndex(of: UInt8(ascii: "@")),
            let colon = word[..<at].firstIndex(of: UInt8(ascii: ":")), colon + 1 < at
        else {
            output.append(contentsOf: word)
            return
        }
        output.append(contentsOf: word[...colon])
        output.append(contentsOf: "***".utf8)
        output.append(contentsOf: word[at...])
    }
}
