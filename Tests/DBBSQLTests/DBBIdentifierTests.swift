import DBBSQL
import Testing

@Suite struct DBBIdentifierTests {
    @Test func plainNamesStayAsTheyAreAndOddOnesAreQuoted() {
        #expect(DBBIdentifier.sql("Project") == "Project")
        #expect(DBBIdentifier.sql("_private1") == "_private1")
        #expect(DBBIdentifier.sql("Project_ID") == "Project_ID")
        #expect(DBBIdentifier.sql("order") == "\"order\"")
        #expect(DBBIdentifier.sql("Select") == "\"Select\"")
        #expect(DBBIdentifier.sql("my table") == "\"my table\"")
        #expect(DBBIdentifier.sql("1st") == "\"1st\"")
        #expect(DBBIdentifier.sql("a\"b") == "\"a\"\"b\"")
        #expect(DBBIdentifier.sql("naïve") == "\"naïve\"")
        #expect(DBBIdentifier.sql("") == "\"\"")
    }

    /// The rule as `Character`s state it (the first a letter or `_`, every one an ASCII letter or digit or `_`),
    /// which ``DBBIdentifier/sql(_:)`` decides on UTF-8 bytes.
    static func characterRule(_ name: String) -> String {
        let isPlain =
            !name.isEmpty && name.first.map { $0.isLetter || $0 == "_" } == true
            && name.allSatisfy { ($0.isASCII && ($0.isLetter || $0.isNumber)) || $0 == "_" }
        return isPlain && !DBBDatabase.isKeyword(name) ? name : DBBDatabase.quoteIdentifier(name)
    }

    static let awkwardNames = [
        // ASCII, keywords in any case, digits first, empty, quotes inside.
        "a", "Z", "_", "__", "a1", "_9", "Project_ID", "zZ_09", "order", "ORDER", "Group", "rowid", "1st", "9", "0a",
        "", "\"", "\"\"", "a\"b", "\"order\"", "a b", "a-b", "a$b", "a.b", "[x]", "`x`", "@a", "a\0b", "\r\n",
        "a\r\nb", "a\tb",
        // Letters and digits of other scripts, composed and decomposed, and characters that look like ASCII.
        "naïve", "nai\u{308}ve", "é", "e\u{301}", "_\u{301}", "a\u{301}", "\u{212A}", "Ärger", "名前", "ｆｕｌｌ",
        "\u{661}abc", "abc\u{661}", "Ⅻ", "x²", "👍", "a👍", "\u{A0}a", "a\u{2003}", "\"\u{301}", "a\"\u{301}b",
    ]

    @Test("names are quoted exactly as the Character-based rule quotes them", arguments: awkwardNames)
    func bytesDecideAsCharactersDo(name: String) {
        #expect(DBBIdentifier.sql(name).unicodeScalars.elementsEqual(Self.characterRule(name).unicodeScalars))
    }

    @Test func everyScalarAloneOrBetweenLettersIsQuotedAsTheCharacterRuleQuotesIt() {
        let values: [UInt32] = Array(0...0x2FF) + [0x301, 0x660, 0x2003, 0x212A, 0xFF41, 0x1F44D]
        let scalars = values.compactMap(Unicode.Scalar.init)
        var plain = 0
        for scalar in scalars {
            let character = String(scalar)
            for name in [character, "a" + character, character + "a", "_" + character + "9"] {
                let sql = DBBIdentifier.sql(name)
                #expect(sql.unicodeScalars.elementsEqual(Self.characterRule(name).unicodeScalars), "\(name)")
                if sql == name { plain += 1 }
            }
        }
        // Alone: 52 letters and `_`; after `a`: those and 10 digits, less keywords; and so on. Not all quoted.
        #expect(plain > 200)
    }

    @Test func plainASCIINamesAreReturnedAsTheyAreAndOthersQuoted() {
        #expect(DBBIdentifier.sql("zZ_09") == "zZ_09")
        #expect(DBBIdentifier.sql("_") == "_")
        #expect(DBBIdentifier.sql("ORDER") == "\"ORDER\"")
        #expect(DBBIdentifier.sql("0a") == "\"0a\"")
        #expect(DBBIdentifier.sql("\u{212A}") == "\"\u{212A}\"")
        #expect(DBBIdentifier.sql("e\u{301}").unicodeScalars.elementsEqual("\"e\u{301}\"".unicodeScalars))
        #expect(DBBIdentifier.sql("\"") == "\"\"\"\"")
        #expect(DBBIdentifier.sql("a[b]") == "\"a[b]\"")
    }

    @Test func quotingAlwaysQuotesAndDoublesQuotes() {
        #expect(DBBDatabase.quoteIdentifier("Project") == "\"Project\"")
        #expect(DBBDatabase.quoteIdentifier("my \"table\"") == "\"my \"\"table\"\"\"")
        #expect(DBBDatabase.quoteIdentifier("") == "\"\"")
    }

    @Test func keywordsAreThoseOfSQLite() {
        #expect(DBBDatabase.isKeyword("SELECT"))
        #expect(DBBDatabase.isKeyword("order"))
        #expect(DBBDatabase.isKeyword("Group"))
        #expect(!DBBDatabase.isKeyword("Project"))
        #expect(!DBBDatabase.isKeyword("select1"))
    }

    @Test(arguments: DatabaseKind.allCases)
    func aQuotedNameNamesTheSameTableInSQLite(kind: DatabaseKind) throws {
        try withDatabase(kind) { db in
            for name in ["order", "my \"odd\" table", "naïve", "Plain"] {
                try db.execute("CREATE TABLE \(DBBIdentifier.sql(name)) (\(DBBIdentifier.sql("group")) TEXT)")
                try db.execute("INSERT INTO \(DBBDatabase.quoteIdentifier(name)) VALUES ('x')")
                #expect(try db.fetchValue(String.self, "SELECT \"group\" FROM \(DBBIdentifier.sql(name))") == "x")
            }
            #expect(try db.tableExists("my \"odd\" table"))
            #expect(try db.tableExists("naïve"))
        }
    }
}
