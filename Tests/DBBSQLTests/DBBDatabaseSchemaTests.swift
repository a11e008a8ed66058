import DBBSQL
import Foundation
import Testing

@Suite("Schema helpers")
struct DBBDatabaseSchemaTests {
    static let schema = """
        CREATE TABLE "order line" (
            id INTEGER PRIMARY KEY,
            "product name" TEXT NOT NULL DEFAULT 'unknown',
            qty INTEGER NOT NULL DEFAULT 1,
            price NUMERIC(10,2),
            note
        );
        CREATE TABLE pair (a TEXT, b INTEGER, PRIMARY KEY (b, a));
        CREATE VIEW cheap AS SELECT * FROM "order line" WHERE price < 1;
        """

    @Test("table exists, column exists, and a table's columns", arguments: DatabaseKind.allCases)
    func tablesAndColumns(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            try db.executeStatements(Self.schema)
            #expect(try db.tableExists("order line"))
            #expect(try db.tableExists("ORDER LINE"))
            #expect(try db.tableExists("cheap"))  // views count
            #expect(try !db.tableExists("order"))
            #expect(try db.tableNames() == ["order line", "pair"])
            #expect(try db.columnExists("product name", in: "order line"))
            #expect(try db.columnExists("QTY", in: "order line"))
            #expect(try !db.columnExists("quantity", in: "order line"))
            #expect(try !db.columnExists("id", in: "no such table"))

            let columns = try db.columns(in: "order line")
            #expect(
                columns == [
                    DBBColumnInfo(
                        name: "id", declaredType: "INTEGER", isNotNull: false, defaultValueSQL: nil, primaryKeyIndex: 1),
                    DBBColumnInfo(
                        name: "product name", declaredType: "TEXT", isNotNull: true, defaultValueSQL: "'unknown'",
                        primaryKeyIndex: 0),
                    DBBColumnInfo(
                        name: "qty", declaredType: "INTEGER", isNotNull: true, defaultValueSQL: "1", primaryKeyIndex: 0),
                    DBBColumnInfo(
                        name: "price", declaredType: "NUMERIC(10,2)", isNotNull: false, defaultValueSQL: nil,
                        primaryKeyIndex: 0),
                    DBBColumnInfo(
                        name: "note", declaredType: "", isNotNull: false, defaultValueSQL: nil, primaryKeyIndex: 0),
                ])
            #expect(columns[0].isPrimaryKey)
            #expect(!columns[1].isPrimaryKey)
            let pair = try db.columns(in: "pair")
            #expect(pair.map(\.name) == ["a", "b"])
            #expect(pair.map(\.primaryKeyIndex) == [2, 1])
            #expect(try db.columns(in: "nothing") == [])
        }
    }

    @Test("create and drop an index, unique or not", arguments: DatabaseKind.allCases)
    func indexes(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            try db.executeStatements(Self.schema)
            try db.createIndex("line_product", on: "order line", columns: ["product name", "qty"])
            try db.createIndex("line_product", on: "order line", columns: ["product name", "qty"])  // exists: no-op
            #expect(try db.indexNames(in: "order line") == ["line_product"])
            let sql = try db.fetchValue(String.self, "SELECT sql FROM sqlite_master WHERE name = 'line_product'")
            #expect(sql == #"CREATE INDEX line_product ON "order line" ("product name", qty)"#)
            let detail = try db.fetchCursor(
                #"EXPLAIN QUERY PLAN SELECT qty FROM "order line" WHERE "product name" = 'x'"#
            ).map { try $0["detail"] as String }
            #expect(detail.contains { $0.contains("line_product") })

            try db.execute(#"INSERT INTO "order line" ("product name", qty) VALUES ('a', 1), ('a', 1)"#)
            let duplicate = expectDBBError {
                try db.createIndex("line_unique", on: "order line", columns: ["qty"], unique: true)
            }
            #expect(duplicate?.resultCode == .constraint)
            #expect(try db.indexNames(in: "order line") == ["line_product"])
            try db.execute(#"DELETE FROM "order line" WHERE rowid = 2"#)
            try db.createIndex("line_unique", on: "order line", columns: ["qty"], unique: true)
            #expect(
                try db.fetchValue(
                    Bool.self, "SELECT \"unique\" FROM pragma_index_list('order line') WHERE name = 'line_unique'")
                    == true)
            #expect(
                expectDBBError { try db.execute(#"INSERT INTO "order line" (qty) VALUES (1)"#) }?.extendedCode == 2067)

            try db.dropIndex("line_product")
            try db.dropIndex("line_product")  // gone: no-op
            #expect(try db.indexNames(in: "order line") == ["line_unique"])
            #expect(
                expectDBBError { try db.createIndex("bad", on: "order line", columns: ["nope"]) }?.message.contains(
                    "nope") == true)
            #expect(
                expectDBBError { try db.createIndex("bad", on: "nowhere", columns: ["x"]) }?.message.contains("nowhere")
                    == true)
        }
    }

    @Test("the rowid alias column is a single INTEGER PRIMARY KEY that SQLite does not back with an index")
    func rowidAliasColumn() throws {
        let db = try DBBDatabase(path: ":memory:")
        try db.executeStatements(
            """
            CREATE TABLE aliased (Id INTEGER PRIMARY KEY, v);
            CREATE TABLE constrained (k integer, v, PRIMARY KEY (k));
            CREATE TABLE descending (id INTEGER PRIMARY KEY DESC, v);
            CREATE TABLE keyed (id INTEGER PRIMARY KEY, v) WITHOUT ROWID;
            CREATE TABLE keyless (v, w);
            CREATE TABLE textual (id TEXT PRIMARY KEY, v);
            CREATE TABLE composite (a INTEGER, b INTEGER, PRIMARY KEY (a, b));
            """)
        #expect(try db.rowidAliasColumn(in: "aliased") == "Id")
        #expect(try db.rowidAliasColumn(in: "constrained") == "k")
        #expect(try db.rowidAliasColumn(in: "descending") == nil)
        #expect(try db.rowidAliasColumn(in: "keyed") == nil)
        #expect(try db.rowidAliasColumn(in: "keyless") == nil)
        #expect(try db.rowidAliasColumn(in: "textual") == nil)
        #expect(try db.rowidAliasColumn(in: "composite") == nil)
        #expect(try db.rowidAliasColumn(in: "missing") == nil)
    }

    @Test("identifiers with quotes are quoted correctly")
    func quoting() throws {
        #expect(DBBDatabase.quoteIdentifier(#"my "table""#) == #""my ""table""""#)
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE \(DBBDatabase.quoteIdentifier(#"a"b"#)) (\(DBBDatabase.quoteIdentifier("c d")))")
        try db.createIndex(#"i"x"#, on: #"a"b"#, columns: ["c d"])
        #expect(try db.indexNames(in: #"a"b"#) == [#"i"x"#])
        #expect(try db.tableExists(#"a"b"#))
    }

    @Test("a quote followed by a combining mark is doubled too")
    func quoteBeforeACombiningMark() throws {
        // The quote and the mark form one Character: only a search for the quote's byte finds it.
        let name = "a\"\u{301}b"
        #expect(DBBDatabase.quoteIdentifier(name) == "\"a\"\"\u{301}b\"")
        let db = try DBBDatabase.inMemory()
        try db.execute("CREATE TABLE \(DBBDatabase.quoteIdentifier(name)) (x)")
        try db.execute("INSERT INTO \(DBBIdentifier.sql(name)) VALUES (1)")
        #expect(try db.fetchValues(String.self, "SELECT name FROM sqlite_schema") == [name])
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM \(DBBDatabase.quoteIdentifier(name))") == 1)
    }

    @Test("vacuum reclaims free pages and is refused inside a transaction")
    func vacuum() throws {
        let directory = try TemporaryFolder()
        let path = directory.path("vacuum.sqlite")
        let db = try DBBDatabase(path: path)
        try db.execute("CREATE TABLE t (x BLOB)")
        try db.inTransaction { db in
            for _ in 0..<200 { try db.execute("INSERT INTO t VALUES (zeroblob(4000))") }
        }
        try db.execute("DELETE FROM t")
        let before = try db.fetchValue(Int.self, "PRAGMA page_count") ?? 0
        #expect(try db.fetchValue(Int.self, "PRAGMA freelist_count") ?? 0 > 150)
        try db.vacuum()
        #expect(try db.fetchValue(Int.self, "PRAGMA freelist_count") == 0)
        let after = try db.fetchValue(Int.self, "PRAGMA page_count") ?? 0
        #expect(after < before)
        let size = try FileManager.default.attributesOfItem(atPath: path)[.size] as? Int
        #expect(size == after * (try db.fetchValue(Int.self, "PRAGMA page_size") ?? 0))

        try db.beginTransaction()
        #expect(expectDBBError { try db.vacuum() }?.message.contains("transaction") == true)
        try db.rollback()
    }
}
