import DBBSQL
import Foundation
import Testing

@Suite("Executing statements")
struct DBBDatabaseExecutionTests {
    static let schema =
        "CREATE TABLE person (id INTEGER PRIMARY KEY, name TEXT NOT NULL UNIQUE, age INTEGER, score REAL)"

    @Test("variadic arguments, an argument array and named parameters all bind", arguments: DatabaseKind.allCases)
    func argumentForms(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            try db.execute(Self.schema)
            try db.execute("INSERT INTO person (name, age, score) VALUES (?, ?, ?)", "Ann", 41, 3.5)
            try db.execute("INSERT INTO person (name, age, score) VALUES (?, ?, ?)", arguments: ["Bo", 29, nil])
            let values: [(any DBBBindable)?] = ["Cy", Int8(7), Float(0.5)]
            try db.execute("INSERT INTO person (name, age, score) VALUES (?, ?, ?)", arguments: DBBArguments(values))
            try db.execute(
                "INSERT INTO person (name, age, score) VALUES (:name, @age, $score)",
                arguments: ["name": "Di", "age": 63, "score": 1.25])
            try db.execute(
                "INSERT INTO person (name, age, score) VALUES (:name, :age, :score)",
                arguments: DBBArguments(named: [":name": "Ed", "age": nil, ":score": 2.0]))
            let name: String? = nil
            try db.execute("UPDATE person SET age = age + 1 WHERE name = ? OR name = ?", "Ann", name)

            let rows = try db.fetchDictionary("SELECT name, age, score FROM person ORDER BY id")
            #expect(
                rows == [
                    ["name": .text("Ann"), "age": .integer(42), "score": .real(3.5)],
                    ["name": .text("Bo"), "age": .integer(29), "score": .null],
                    ["name": .text("Cy"), "age": .integer(7), "score": .real(0.5)],
                    ["name": .text("Di"), "age": .integer(63), "score": .real(1.25)],
                    ["name": .text("Ed"), "age": .null, "score": .real(2.0)],
                ])
        }
    }

    @Test("a named parameter used twice takes one value")
    func repeatedNamedParameter() throws {
        let db = try DBBDatabase.inMemory()
        #expect(try db.fetchValue(Int.self, "SELECT :x * :x + :y", arguments: ["x": 7, "y": 1]) == 50)
    }

    @Test("named arguments must match the parameters exactly")
    func namedArgumentMismatch() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute(Self.schema)
        let missing = expectDBBError {
            try db.execute("INSERT INTO person (name, age) VALUES (:name, :age)", arguments: ["name": "Ann"])
        }
        #expect(missing?.resultCode == .misuse)
        #expect(missing?.message.contains(":age") == true)
        let extra = expectDBBError {
            try db.execute("INSERT INTO person (name) VALUES (:name)", arguments: ["name": "Ann", "nickname": "A"])
        }
        #expect(extra?.message.contains("nickname") == true)
        let positional = expectDBBError {
            try db.execute("INSERT INTO person (name) VALUES (?)", arguments: ["name": "Ann"])
        }
        #expect(positional?.resultCode == .misuse)
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM person") == 0)
    }

    @Test("several ;-separated statements run in order, comments and blanks included", arguments: DatabaseKind.allCases)
    func severalStatements(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            try db.executeStatements(
                """
                -- a schema and its data
                CREATE TABLE a (x INTEGER);
                INSERT INTO a VALUES (1);  /* one */
                INSERT INTO a VALUES (2);
                CREATE TABLE b AS SELECT x * 10 AS y FROM a;
                SELECT * FROM b;
                ;
                """)
            #expect(try db.fetchValues(Int.self, "SELECT y FROM b ORDER BY y") == [10, 20])
        }
    }

    @Test("the statements before a failing one stay applied, the failing one is named")
    func severalStatementsFailing() throws {
        let db = try DBBDatabase.inMemory()
        let error = expectDBBError {
            try db.executeStatements(
                "CREATE TABLE a (x); INSERT INTO a VALUES (1); INSERT INTO nowhere VALUES (2); INSERT INTO a VALUES (3)"
            )
        }
        #expect(error?.resultCode == .error)
        #expect(error?.message.contains("no such table: nowhere") == true)
        #expect(error?.sql?.hasPrefix("INSERT INTO nowhere") == true)
        #expect(try db.fetchValues(Int.self, "SELECT x FROM a") == [1])
    }

    @Test("execute refuses text with more than one statement and runs none of it")
    func executeRefusesSeveralStatements() throws {
        let db = try DBBDatabase.inMemory()
        let error = expectDBBError { try db.execute("CREATE TABLE a (x); CREATE TABLE b (y)") }
        #expect(error?.resultCode == .misuse)
        #expect(error?.message.contains("executeStatements") == true)
        #expect(try db.tableNames() == [])
        // A trailing semicolon and comment are fine.
        try db.execute("CREATE TABLE a (x); -- done")
        #expect(try db.tableNames() == ["a"])
    }

    @Test("lastInsertRowID and changes follow each statement", arguments: DatabaseKind.allCases)
    func rowIDAndChanges(kind: DatabaseKind) throws {
        try withDatabase(kind) { db throws in
            try db.execute(Self.schema)
            try db.execute("INSERT INTO person (id, name) VALUES (?, ?)", 100, "Ann")
            #expect(db.lastInsertRowID == 100)
            #expect(db.changes == 1)
            try db.execute("INSERT INTO person (name) VALUES (?)", "Bo")
            #expect(db.lastInsertRowID == 101)
            try db.execute("INSERT INTO person (id, name) VALUES (?, ?)", Int64.max, "Cy")
            #expect(db.lastInsertRowID == Int64.max)
            try db.execute("UPDATE person SET age = 1 WHERE id < ?", 1000)
            #expect(db.changes == 2)
            try db.execute("DELETE FROM person")
            #expect(db.changes == 3)
            #expect(db.totalChanges == 8)
        }
    }

    @Test("the last error's code, extended code and message are kept by the connection")
    func lastError() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute(Self.schema)
        try db.execute("INSERT INTO person (name) VALUES ('Ann')")
        #expect(db.lastErrorCode == .ok)
        let error = expectDBBError { try db.execute("INSERT INTO person (name) VALUES ('Ann')") }
        #expect(db.lastErrorCode == .constraint)
        #expect(db.lastExtendedErrorCode == 2067)  // SQLITE_CONSTRAINT_UNIQUE
        #expect(db.lastErrorMessage == "UNIQUE constraint failed: person.name")
        #expect(error?.extendedCode == 2067)
        #expect(error?.message == db.lastErrorMessage)
    }

    @Test("a prepared statement runs many times with different arguments")
    func reusingPreparedStatement() throws {
        let db = try DBBDatabase.inMemory()
        try db.execute(Self.schema)
        let insert = try db.prepare("INSERT INTO person (name, age) VALUES (?, ?)")
        #expect(insert.parameterCount == 2)
        #expect(insert.columnCount == 0)
        for age in 1...20 { try insert.execute("p\(age)", age) }
        try insert.execute(arguments: ["p21", 21])
        #expect(try db.fetchValue(Int.self, "SELECT sum(age) FROM person") == 231)
        let select = try db.prepare("SELECT name FROM person WHERE age > :min ORDER BY age")
        #expect(select.columnNames == ["name"])
        #expect(try select.cursor(arguments: ["min": 19]).map { try $0[0] as String } == ["p20", "p21"])
        #expect(try select.cursor(arguments: ["min": 20]).map { try $0[0] as String } == ["p21"])
    }
}
