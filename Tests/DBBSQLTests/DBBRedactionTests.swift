import DBBSQL
import Foundation
import Testing

/// Passwords never reach a message: `user:password@` is redacted wherever it appears, URL or not.
@Suite("Redaction")
struct DBBRedactionTests {
    @Test(
        "user:password@ becomes user:***@ in URLs, malformed URLs, paths and sentences",
        arguments: [
            ("postgres://app:secret@127.0.0.1:5432/app", "postgres://app:***@127.0.0.1:5432/app"),
            ("postgres//app:secret@127.0.0.1:54101/app", "postgres//app:***@127.0.0.1:54101/app"),
            ("postgres:app:secret@host/app", "postgres:***@host/app"),
            ("/srv/postgres//app:secret@h:1/restored", "/srv/postgres//app:***@h:1/restored"),
            ("file /tmp/app:se:c@ret@db/x.json.gz does not exist", "file /tmp/app:***@db/x.json.gz does not exist"),
            ("invalid URL 'mysql://u:p%40ss@h/d': no", "invalid URL 'mysql://u:***@h/d': no"),
            ("(postgresql://u:pw@[::1]:5433/d?sslmode=disable)", "(postgresql://u:***@[::1]:5433/d?sslmode=disable)"),
            ("first a:b@x, then c:d@y", "first a:***@x, then c:***@y"),
            ("naïve:é@ünïcode", "naïve:***@ünïcode"),
        ])
    func redacts(text: String, expected: String) {
        #expect(DBBRedaction.redactingPasswords(in: text) == expected)
        // Redacting twice changes nothing more.
        #expect(DBBRedaction.redactingPasswords(in: expected) == expected)
    }

    @Test(
        "text without a password is left as it is",
        arguments: [
            "postgres://app@127.0.0.1:5432/app", "a@example.com", "12:30 at the desk", "SELECT tags @> ARRAY[1]",
            "time 10:00 @ noon", "", "postgres://app:***@h/d",
        ])
    func leavesOthers(text: String) {
        #expect(DBBRedaction.redactingPasswords(in: text) == text)
    }

    @Test("an error's message, context and description never show a password")
    func errors() {
        let error = DBBError(
            .cannotOpen, message: "unable to open /data/postgres//app:secret@h/x.sqlite",
            sql: "SELECT 'u:secret@h'", context: "opening postgres//app:secret@h/x.sqlite")
        #expect(error.message == "unable to open /data/postgres//app:***@h/x.sqlite")
        #expect(error.context == "opening postgres//app:***@h/x.sqlite")
        #expect(!error.description.contains("secret"))
        #expect(!String(reflecting: error).contains("secret"))
        var misuse = DBBError.misuse("bad", recovery: "try postgres://app:secret@h/d instead")
        #expect(!misuse.description.contains("secret"))
        misuse.message = "set later: app:secret@h"
        #expect(misuse.description.hasPrefix("misuse of DBBBuilder: set later: app:***@h"))
    }
}
