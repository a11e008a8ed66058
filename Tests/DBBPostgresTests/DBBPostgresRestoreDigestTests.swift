import DBBExport
import DBBSQL
import DBBTestSupport
import Foundation
import NIOCore
import Testing

@testable import DBBPostgres

/// The restore's verification by digest: the digest of the values the load expects the server to hold is the
/// digest of the rows the server sends back, for every column type, so a verified restore does not read the
/// dump again (a wrong prediction would only fall back to the row-by-row comparison, which these tests catch).
@Suite(.postgres)
struct DBBPostgresRestoreDigestTests {
    /// Each table's digest of a dump's values as the plan stores them.
    final class ExpectedDigests: DumpConsumer {
        let plan: DBBPostgresRestorePlan
        var digests: [String: RestoreDigest] = [:]
        var unpredictable: Set<String> = []
        private var types: [RestoreValues.ColumnType]?
        private var digest = RestoreDigest()

        init(plan: DBBPostgresRestorePlan) { self.plan = plan }

        func begin(header: DBBDumpHeader, schema: [DBBSchemaObject]) throws {}

        func beginTable(_ table: DBBDumpTable) throws {
            types = plan.tables.first { $0.name == table.name }.map { planned in
                (planned.rowIDColumn != nil ? [.bigint] : [])
                    + planned.columns.map { RestoreValues.ColumnType($0.type) }
            }
            digest = RestoreDigest()
        }

        func row(_ values: ArraySlice<DBBValue>, rawText: [Int], number: Int, of table: DBBDumpTable) throws {
            guard let types else { return }
            let stored = zip(values.indices, types).map { position, type in
                let index = position - values.startIndex
                return RestoreValues.stored(values[position], isRawText: rawText.contains(index), type: type)
            }
            if !RestoreDigestTests.add(stored, types, to: &digest) { unpredictable.insert(table.name) }
        }

        func endTable(_ table: DBBDumpTable) throws {
            if types != nil { digests[table.name] = digest }
        }
    }

    static let mixed = """
        CREATE TABLE m (amount, note TEXT, raw TEXT, label Integer, r REAL, b BLOB);
        INSERT INTO m VALUES (14, 'plain', CAST(X'61FF62' AS TEXT), 1, 0.1, X'00FF');
        INSERT INTO m VALUES (14.0, NULL, 'ok', 'not a number', -0.0, NULL);
        INSERT INTO m VALUES (0.1, 'tab\tand\\back', NULL, 2.5, 1e300, X'');
        INSERT INTO m VALUES (1e-5, NULL, NULL, NULL, 5e-324, NULL);
        INSERT INTO m VALUES (-2.5e20, NULL, NULL, NULL, NULL, NULL);
        INSERT INTO m VALUES (-0.0, NULL, NULL, NULL, NULL, NULL);
        INSERT INTO m VALUES (1.7976931348623157e308, NULL, NULL, NULL, NULL, NULL);
        INSERT INTO m VALUES (-9223372036854775808, NULL, NULL, NULL, NULL, NULL);
        CREATE TABLE k (id INTEGER PRIMARY KEY, t TEXT, x INTEGER);
        INSERT INTO k VALUES (1, 'ü', 9223372036854775807), (5, '', NULL);
        """

    @Test("the expected digest of every column type is the server's, and a changed value changes it")
    func expectedDigestIsTheServers() async throws {
        let folder = try TemporaryFolder()
        let database = folder.file("mixed.sqlite")
        let db = try DBBDatabase(path: database.path)
        try db.executeStatements(Self.mixed)
        try db.execute("INSERT INTO m (note) VALUES (?)", "a\u{0}b")
        try db.close()
        let dump = folder.file("mixed.json.gz")
        try DBBExport.dump(databaseAt: database, to: dump)
        let options = DBBPostgresRestoreOptions(schema: "mixed")
        let plan = try DBBPostgresRestore.plan(dumpAt: dump, options: options)
        #expect(plan.tables.first { $0.name == "m" }?.columns.map(\.type).first == "numeric")
        let expected = ExpectedDigests(plan: plan)
        _ = try ConcurrentDumpParser(dumpAt: dump).run(expected)
        #expect(expected.unpredictable.isEmpty)
        let digests = expected.digests
        #expect(digests.keys.sorted() == ["k", "m"])
        #expect(digests["m"]?.rows == 9)
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let server = try DBBPostgresConnection.connect(configuration)
            defer { try? server.close() }
            try DBBPostgresRestore.restore(dumpAt: dump, into: server, options: options)
            let verifier = VerifyConsumer(connection: server, plan: plan)
            for table in plan.tables {
                let digest = try verifier.serverDigest(of: table)
                #expect(digest == digests[table.name], "table \(table.name)")
            }
            // One changed bit of a double, one numeric's scale, one byte: each changes the digest.
            let m = try #require(plan.tables.first { $0.name == "m" })
            for change in [
                "UPDATE mixed.m SET r = 0.30000000000000004 WHERE rowid = 1",
                "UPDATE mixed.m SET amount = 14.00 WHERE rowid = 2",
                "UPDATE mixed.m SET b = '\\x00fe' WHERE rowid = 1",
            ] {
                try server.begin()
                try server.execute(change)
                let digest = try verifier.serverDigest(of: m)
                try server.rollback()
                #expect(digest != nil && digest != digests["m"], "\(change)")
            }
        }
    }

    @Test(
        "the load's digest of every table is the one the server makes of what it received",
        arguments: ["chinook.sqlite", "northwind.sqlite", "sakila.sqlite"])
    func loadDigestIsTheServers(name: String) async throws {
        let folder = try TemporaryFolder()
        let dump = try DBBPostgresRestoreTests.dumpOfFixture(name, in: folder)
        let options = DBBPostgresRestoreOptions(schema: "loaded")
        let plan = try DBBPostgresRestore.plan(dumpAt: dump, options: options)
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let server = try DBBPostgresConnection.connect(configuration)
            defer { try? server.close() }
            let writer = RestoreSchemaWriter(connection: server, schema: "loaded")
            try writer.prepareSchema(for: plan.tables.map(\.name), replacing: false)
            for table in plan.tables { try writer.createTable(table) }
            let load = LoadConsumer(
                writer: writer, tables: .planned(Dictionary(uniqueKeysWithValues: plan.tables.map { ($0.name, $0) })),
                makesDigests: true)
            _ = try ConcurrentDumpParser(dumpAt: dump).run(load)
            #expect(try RestoreDigest.isMade(by: server))
            let verifier = VerifyConsumer(connection: server, plan: plan)
            for table in plan.tables {
                let digest = try #require(load.digests[table.name], "table \(table.name)")
                #expect(digest.rows == table.rowCount, "table \(table.name)")
                #expect(try verifier.serverDigest(of: table) == digest, "table \(table.name)")
            }
        }
    }

    @Test("the hash of bytes is the server's, for every length of the last word")
    func hashIsTheServers() async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let server = try DBBPostgresConnection.connect(configuration)
            defer { try? server.close() }
            for length in 0...40 {
                let bytes = Data((0..<length).map { UInt8(truncatingIfNeeded: $0 &* 37 &+ 200) })
                let read = try server.fetchAll("SELECT hash_record_extended(ROW($1::bytea), 0)", [.blob(bytes)])
                let hash = bytes.withUnsafeBytes { RowHasher.hash($0) }
                #expect(read == [[.integer(Int64(bitPattern: hash))]], "\(length) bytes")
            }
        }
    }

    static let doubles: [Double] = [
        0.1, 14.0, 100.0, 1e-5, 1.5e20, -2.5e20, -0.0, 0.0, .leastNonzeroMagnitude, .greatestFiniteMagnitude,
        -2.5, 123456.789, 1e16, 1e15, 0.000123, 2.2250738585072014e-308, 9007199254740993.0, -1e-7, .infinity,
        -.infinity,
    ]

    @Test("a number in COPY's binary format is stored as the numeric its text reads as")
    func binaryNumericIsItsText() async throws {
        let numbers: [DBBValue] =
            Self.doubles.map { .real($0) }
            + [Int64.min, Int64.max, 0, -1, 9999, 10000, -123_456_789].map { .integer($0) }
        var chunk = CopyBuffer()
        for (index, number) in numbers.enumerated() {
            chunk.appendBigEndian(Int16(3))
            #expect(RestoreValues.appendCopyBinary(.integer(Int64(index)), type: .bigint, to: &chunk))
            #expect(RestoreValues.appendCopyBinary(number, type: .numeric, to: &chunk))
            #expect(RestoreValues.appendCopyBinary(number, type: .double, to: &chunk))
        }
        let data = chunk
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let server = try DBBPostgresConnection.connect(configuration)
            defer { try? server.close() }
            try server.execute("CREATE TABLE n (i bigint, x numeric, d double precision)")
            let feed = CopyFeed(connection: server, table: #""public"."n""#, columns: [#""i""#, #""x""#, #""d""#])
            try feed.send(ByteBuffer(bytes: data.bytes))
            feed.finish()
            try feed.wait()
            let read = try server.fetchAll("SELECT x::text, d, numeric_send(x) FROM n ORDER BY i")
            #expect(read.count == numbers.count)
            for (row, number) in zip(read, numbers) {
                // The bytes sent are the ones the server sends back for what it stored (the digest needs it).
                var field = CopyBuffer()
                #expect(RestoreValues.appendCopyBinary(number, type: .numeric, to: &field))
                #expect(row[2] == .blob(Data(field.bytes.dropFirst(4))), "\(number)")
                let double: Double
                switch number {
                case .integer(let integer): double = Double(integer)
                case .real(let real): double = real
                default: double = .nan
                }
                #expect(row.first == .text(RestoreValues.numericColumnText(of: number) ?? ""), "\(number)")
                if case .real(let read) = row[1] {
                    #expect(read.bitPattern == double.bitPattern, "\(number)")
                } else {
                    Issue.record("\(number): \(row)")
                }
            }
        }
    }

    @Test("a value its column's type cannot hold is refused before it is written")
    func binaryRefusesMismatches() {
        var chunk = CopyBuffer()
        for (value, type) in [
            (DBBValue.real(1.5), RestoreValues.ColumnType.bigint), (.text("1"), .bigint), (.text("1.5"), .double),
            (.blob(Data([1])), .text), (.blob(Data()), .bigint), (.text("2"), .numeric), (.blob(Data([2])), .numeric),
        ] {
            #expect(!RestoreValues.appendCopyBinary(value, type: type, to: &chunk), "\(value) in \(type.name)")
        }
        #expect(chunk.isEmpty)
    }

    @Test("a dump's value is written as the value its column stores")
    func binaryWritesTheStoredValue() {
        let values: [DBBValue] = [
            .null, .integer(-42), .integer(.max), .real(0.1), .real(-0.0), .real(.infinity), .real(.nan),
            .real(1e300), .text("héllo"), .text(""), .blob(Data([0, 255])), .blob(Data()),
        ]
        let types: [RestoreValues.ColumnType] = [.bigint, .double, .numeric, .text, .bytea]
        var written = 0
        for value in values {
            for type in types {
                var direct = CopyBuffer()
                guard RestoreValues.appendCopyBinary(value, type: type, to: &direct) else { continue }
                written += 1
                var stored = CopyBuffer()
                let storedValue = RestoreValues.stored(value, isRawText: false, type: type)
                #expect(RestoreValues.appendCopyBinary(storedValue, type: type, to: &stored))
                #expect(direct.bytes == stored.bytes, "\(value) in \(type.name)")
            }
        }
        // Null and NaN (stored as NULL) in every type; integers in all five; the other reals in all but bigint;
        // text in text and bytea; BLOBs in bytea.
        #expect(written == 2 * 5 + 2 * 5 + 4 * 4 + 2 * 2 + 2)
    }

    @Test("a double's numeric text is PostgreSQL's", arguments: doubles)
    func numericTextIsPostgreSQLs(number: Double) async throws {
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let server = try DBBPostgresConnection.connect(configuration)
            defer { try? server.close() }
            let read = try server.fetchAll(
                "SELECT $1::text::numeric::text", [.text(RestoreValues.realText(number))])
            #expect(read == [[.text(RestoreValues.numericText(number))]], "\(number)")
        }
    }
}

/// The digest without a server: what it tells apart.
struct RestoreDigestTests {
    /// Adds a row to a digest as the load does: written as a row of COPY's binary format, then hashed.
    static func add(
        _ values: [DBBValue], _ types: [RestoreValues.ColumnType], to digest: inout RestoreDigest
    ) -> Bool {
        var row = CopyBuffer()
        row.appendBigEndian(Int16(values.count))
        for (value, type) in zip(values, types) {
            guard RestoreValues.appendCopyBinary(value, type: type, to: &row) else { return false }
        }
        return row.withUnsafeBytes { digest.add(copyData: $0) }
    }

    static func digest(_ rows: [[DBBValue]], _ types: [RestoreValues.ColumnType]) -> RestoreDigest {
        var digest = RestoreDigest()
        for values in rows {
            #expect(Self.add(values, types, to: &digest))
        }
        return digest
    }

    @Test("the rows' order does not count; a value moved to another row or column, or changed, does")
    func digestTellsRowsApart() {
        let types: [RestoreValues.ColumnType] = [.bigint, .text, .text, .double]
        let rows: [[DBBValue]] = [
            [.integer(7), .null, .text("hé"), .real(0.5)], [.integer(8), .text("x"), .null, .null],
        ]
        let digest = Self.digest(rows, types)
        #expect(digest.rows == 2)
        #expect(Self.digest(rows.reversed(), types) == digest)
        for changed in [
            [[.integer(7), .text("x"), .text("hé"), .real(0.5)], [.integer(8), .null, .null, .null]],
            [[.integer(7), .text("hé"), .null, .real(0.5)], [.integer(8), .text("x"), .null, .null]],
            [[.integer(7), .null, .text("hé"), .real(-0.5)], [.integer(8), .text("x"), .null, .null]],
            [[.integer(7), .null, .text("he"), .real(0.5)], [.integer(8), .text("x"), .null, .null]],
            [[.integer(7 + 1 << 32), .null, .text("hé"), .real(0.5)], [.integer(8), .text("x"), .null, .null]],
            [rows[0]],
            rows + [rows[1]],
        ] as [[[DBBValue]]] {
            #expect(Self.digest(changed, types) != digest, "\(changed)")
        }
        #expect(Self.digest([[.real(0.0)]], [.double]) != Self.digest([[.real(-0.0)]], [.double]))
    }
}
