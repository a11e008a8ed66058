import DBBPostgres
import DBBSQL
import Foundation
import NIOPosix
import Testing

@Suite(.postgres)
struct DBBPostgresConnectionTests {
    /// Every kind of value, with the edges of each.
    static let integers: [Int64] = [.min, -1, 0, 1, .max]
    static let reals: [Double] = [
        -0.0, 0.0, 1e308, -1e308, .leastNonzeroMagnitude, .leastNormalMagnitude, .greatestFiniteMagnitude, .pi,
        0.1, .infinity, -.infinity,
    ]
    static let texts = ["", "plain", "héllo wörld", "emoji 👩‍👩‍👧‍👦 and 🇫🇷", "quote ' and \" and \\", "line\nbreak"]
    static let blobs = [Data(), Data([0]), Data([0, 1, 0, 255, 0]), Data((0..<256).map { UInt8($0) })]

    static func connect() async throws -> DBBPostgresConnection {
        try await DBBPostgresConnection.connect(try await TestPostgres.shared().configuration)
    }

    @Test func everyValueKindRoundTripsThroughATableAsync() async throws {
        let db = try await Self.connect()
        try await db.execute("CREATE TEMPORARY TABLE value_kinds (i bigint, r double precision, t text, b bytea)")
        var expected: [[DBBValue]] = []
        let count = max(Self.integers.count, Self.reals.count, Self.texts.count, Self.blobs.count)
        for index in 0..<count {
            let row: [DBBValue] = [
                index < Self.integers.count ? .integer(Self.integers[index]) : .null,
                index < Self.reals.count ? .real(Self.reals[index]) : .null,
                index < Self.texts.count ? .text(Self.texts[index]) : .null,
                index < Self.blobs.count ? .blob(Self.blobs[index]) : .null,
            ]
            #expect(try await db.execute("INSERT INTO value_kinds VALUES ($1, $2, $3, $4)", row) == 1)
            expected.append(row)
        }
        let result = try await db.fetchResult("SELECT i, r, t, b FROM value_kinds")
        #expect(result.columnNames == ["i", "r", "t", "b"])
        #expect(result.rowsChanged == count)
        #expect(result.rows == expected)
        // Bit-exact doubles: -0.0 == 0.0 for `==`, so compare the bit patterns too.
        for (row, value) in zip(result.rows, expected) {
            if case .real(let read) = row[1], case .real(let written) = value[1] {
                #expect(read.bitPattern == written.bitPattern)
            }
        }
        try await db.close()
    }

    @Test func everyValueKindRoundTripsAsParametersOnAQueue() async throws {
        let configuration = try await TestPostgres.shared().configuration
        let rows = try await TestPostgres.onQueue { () throws -> [[DBBValue]] in
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            var rows: [[DBBValue]] = []
            for value in Self.integers {
                rows += try db.fetchAll("SELECT $1::bigint", [.integer(value)])
            }
            for value in Self.reals {
                rows += try db.fetchAll("SELECT $1::double precision", [.real(value)])
            }
            for value in Self.texts {
                rows += try db.fetchAll("SELECT $1::text", [.text(value)])
            }
            for value in Self.blobs {
                rows += try db.fetchAll("SELECT $1::bytea", [.blob(value)])
            }
            rows += try db.fetchAll("SELECT $1::bigint, $2::text", [.null, .null])
            return rows
        }
        let expected: [[DBBValue]] =
            Self.integers.map { [.integer($0)] } + Self.reals.map { [.real($0)] } + Self.texts.map { [.text($0)] }
            + Self.blobs.map { [.blob($0)] } + [[.null, .null]]
        #expect(rows == expected)
        #expect(rows[Self.integers.count].first == .real(-0.0))
        if case .real(let negativeZero) = rows[Self.integers.count][0] {
            #expect(negativeZero.sign == .minus)
        }
    }

    @Test func otherColumnTypesReadIntoValues() async throws {
        let db = try await Self.connect()
        let row = try await db.fetchAll(
            """
            SELECT 7::int2, -8::int4, true, false, 1.5::float4, 12.50::numeric, 42::numeric, 'v'::varchar(5),
                   timestamp '2000-01-01 00:00:01.5', timestamptz '1970-01-01 00:00:00+00', date '1970-01-02',
                   'c'::char(1), '{"a": 1}'::jsonb
            """)
        #expect(
            row == [
                [
                    .integer(7), .integer(-8), .integer(1), .integer(0), .real(1.5), .real(12.5), .integer(42),
                    .text("v"), .real(946_684_801.5), .real(0), .real(86_400), .text("c"), .text(#"{"a": 1}"#),
                ]
            ])
        let unreadable = try #require(
            await #expect(throws: DBBError.self) { try await db.fetchAll("SELECT point(1, 2) AS location") })
        #expect(unreadable.message.contains("location::text"))
        try await db.close()
    }

    @Test func integerArraysBindAsBigintArrays() async throws {
        let db = try await Self.connect()
        try await db.execute("CREATE TEMPORARY TABLE item (id bigint PRIMARY KEY, name text)")
        for id in 1...6 {
            try await db.execute("INSERT INTO item VALUES ($1, $2)", [.integer(Int64(id)), .text("item \(id)")])
        }
        let rows = try await db.fetchAll(
            "SELECT id FROM item WHERE id = ANY($1::bigint[]) ORDER BY id", arguments: [.integerArray([2, 5, 9])])
        #expect(rows == [[.integer(2)], [.integer(5)]])
        let none = try await db.fetchAll("SELECT id FROM item WHERE id = ANY($1)", arguments: [.integerArray([])])
        #expect(none.isEmpty)
        let named = try await db.fetchAll(
            "SELECT id FROM item WHERE name = ANY($1::text[]) ORDER BY id",
            arguments: [.textArray(["item 3", "item 4"])])
        #expect(named == [[.integer(3)], [.integer(4)]])
        try await db.close()
    }

    @Test func aRolledBackTransactionLeavesNothing() async throws {
        let configuration = try await TestPostgres.shared().configuration
        let counts = try await TestPostgres.onQueue { () throws -> [Int64?] in
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            try db.execute("CREATE TEMPORARY TABLE entry (id bigint PRIMARY KEY)")
            struct Cancel: Error {}
            #expect(throws: Cancel.self) {
                try db.inTransaction { db in
                    try db.execute("INSERT INTO entry VALUES (1), (2)")
                    throw Cancel()
                }
            }
            let afterThrow = try db.fetchAll("SELECT count(*) FROM entry")[0][0].int64Value
            try db.begin()
            try db.execute("INSERT INTO entry VALUES (3)")
            try db.rollback()
            let afterRollback = try db.fetchAll("SELECT count(*) FROM entry")[0][0].int64Value
            _ = try db.inTransaction(isolation: .serializable) { db in
                try db.execute("INSERT INTO entry VALUES (4)")
            }
            let afterCommit = try db.fetchAll("SELECT count(*) FROM entry")[0][0].int64Value
            return [afterThrow, afterRollback, afterCommit]
        }
        #expect(counts == [0, 0, 1])
    }

    @Test func committingAFailedTransactionIsAnError() async throws {
        let db = try await Self.connect()
        try await db.execute("CREATE TEMPORARY TABLE entry (id bigint PRIMARY KEY)")
        try await db.begin()
        try await db.execute("INSERT INTO entry VALUES (1)")
        await #expect(throws: DBBError.self) { try await db.execute("INSERT INTO entry VALUES (1)") }
        let error = try #require(await #expect(throws: DBBError.self) { try await db.commit() })
        #expect(error.kind == .server)
        #expect(error.resultCode == .abort)
        #expect(error.message.contains("rolled"))
        #expect(try await db.fetchAll("SELECT count(*) FROM entry") == [[.integer(0)]])
        try await db.close()
    }

    @Test func aUniqueViolationIsTheUniqueError() async throws {
        let db = try await Self.connect()
        try await db.execute("CREATE TEMPORARY TABLE person (email text UNIQUE)")
        try await db.execute("INSERT INTO person VALUES ($1)", [.text("a@example.com")])
        let insert = "INSERT INTO person VALUES ($1)"
        do {
            try await db.execute(insert, [.text("a@example.com")])
            Issue.record("a duplicate was inserted")
        } catch DBBError.constraintUnique {
            // The pattern a SQLite caller writes matches.
        }
        let error = try #require(
            await #expect(throws: DBBError.self) { try await db.execute(insert, [.text("a@example.com")]) })
        #expect(error.kind == .server)
        #expect(error.sqlState == "23505")
        #expect(error.code == DBBError.constraintUnique)
        #expect(DBBError.constraint.matches(error))
        #expect(error.sql == insert)
        #expect(error.description.contains("SQLSTATE 23505"))
        #expect(error.description.contains("duplicate key"))
        #expect(error.description.contains(insert))
        #expect(error.message.contains("person_email_key"))
        #expect(!error.description.contains("a@example.com"))
        try await db.close()
    }

    @Test func textWithNULIsRefusedBeforeSending() async throws {
        let db = try await Self.connect()
        try await db.execute("CREATE TEMPORARY TABLE note (title text)")
        let error = try #require(
            await #expect(throws: DBBError.self) {
                try await db.execute("INSERT INTO note VALUES ($1)", [.text("before\u{0}after")])
            })
        #expect(error.kind == .misuse)
        #expect(error.message.contains("NUL"))
        #expect(error.context?.contains("argument 1") == true)
        await #expect(throws: DBBError.self) {
            try await db.fetchAll("SELECT $1::text[]", arguments: [.textArray(["ok", "\u{0}"])])
        }
        #expect(try await db.fetchAll("SELECT count(*) FROM note") == [[.integer(0)]])
        try await db.close()
    }

    @Test func synchronousCallsAreRefusedInsideATask() async throws {
        let db = try await Self.connect()
        let call: () throws -> Int = { try db.execute("SELECT 1") }
        let error = try #require(#expect(throws: DBBError.self) { try call() })
        #expect(error.kind == .misuse)
        #expect(error.recoverySuggestion?.contains("async") == true)
        try await db.close()
    }

    @Test func aConnectionTheServerEndsGivesClearErrors() async throws {
        let configuration = try await TestPostgres.shared().configuration
        let victim = try await DBBPostgresConnection.connect(configuration)
        let admin = try await DBBPostgresConnection.connect(configuration)
        let pid = try #require(try await victim.fetchAll("SELECT pg_backend_pid()").first?.first)
        #expect(try await admin.fetchAll("SELECT pg_terminate_backend($1::int)", [pid]) == [[.integer(1)]])
        let first = try #require(await #expect(throws: DBBError.self) { try await victim.execute("SELECT 1") })
        #expect(first.kind == .server)
        let password = try #require(configuration.password)
        #expect(!first.description.contains(password))
        // Later calls fail at once rather than wait for an answer that cannot come.
        let later = try await TestPostgres.onQueue { () -> DBBError? in
            do {
                try victim.execute("SELECT 1")
                return nil
            } catch {
                return error as? DBBError
            }
        }
        #expect(later?.message.contains("closed") == true)
        #expect(victim.isClosed)
        try await admin.close()
    }

    @Test func synchronousCallsAreRefusedOnAnEventLoopThread() async throws {
        let db = try await Self.connect()
        let outcome = try await MultiThreadedEventLoopGroup.singleton.any().submit { () -> String in
            do {
                try db.execute("SELECT 1")
                return "ran"
            } catch {
                return String(describing: error)
            }
        }.get()
        #expect(outcome.contains("event-loop thread would deadlock"))
        try await db.close()
    }

    @Test func closedConnectionsSayTheyAreClosed() async throws {
        let db = try await Self.connect()
        try await db.close()
        #expect(db.isClosed)
        try await db.close()
        await #expect(throws: DBBError.self) { try await db.execute("SELECT 1") }
    }
}

@Suite(.postgres)
struct DBBPostgresNotificationTests {
    @Test func aListenerReceivesNotificationsFromAnotherConnection() async throws {
        let configuration = try await TestPostgres.shared().configuration
        let listener = try await DBBPostgresConnection.connect(configuration)
        let sender = try await DBBPostgresConnection.connect(configuration)
        let payloads = try await listener.listen(channel: "dbb_changes") { notifications in
            try await sender.notify(channel: "dbb_changes", payload: "first")
            try await sender.inTransaction { db in try await db.notify(channel: "dbb_changes", payload: "second") }
            var payloads: [String] = []
            for try await notification in notifications {
                #expect(notification.channel == "dbb_changes")
                payloads.append(notification.payload)
                if payloads.count == 2 { break }
            }
            return payloads
        }
        #expect(payloads == ["first", "second"])
        try await listener.close()
        try await sender.close()
    }
}
