import DBBExport
import DBBPostgres
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// Restores of dumps into PostgreSQL: the fixtures restore and verify row for row, values keep their exact
/// bits, what cannot be kept is in the plan's notes, and a bad dump or a failing restore leaves the server as
/// it was.
@Suite(.postgres)
struct DBBPostgresRestoreTests {
    /// A dump of a fixture, in a temporary folder.
    static func dumpOfFixture(_ name: String, in folder: TemporaryFolder) throws -> URL {
        let dump = folder.file(URL(fileURLWithPath: name).deletingPathExtension().lastPathComponent + ".json.gz")
        try DBBExport.dump(databaseAt: try copyOfFixture(name, into: folder), to: dump)
        return dump
    }

    /// A dump of a database made by `sql`.
    static func dump(of sql: String, in folder: TemporaryFolder, name: String = "made") throws -> URL {
        let database = folder.file("\(name).sqlite")
        let db = try DBBDatabase(path: database.path)
        try db.executeStatements(sql)
        try db.close()
        let dump = folder.file("\(name).json.gz")
        try DBBExport.dump(databaseAt: database, to: dump)
        return dump
    }

    static func tableNames(in schema: String, _ db: DBBPostgresConnection) throws -> [String] {
        try db.fetchAll(
            "SELECT table_name::text FROM information_schema.tables WHERE table_schema = $1 ORDER BY 1", [.text(schema)]
        ).compactMap { if case .text(let name) = $0.first { name } else { nil } }
    }

    static func schemaExists(_ schema: String, _ db: DBBPostgresConnection) throws -> Bool {
        try db.fetchAll("SELECT 1 FROM pg_namespace WHERE nspname = $1", [.text(schema)]).count == 1
    }

    @Test(
        "a fixture restores into PostgreSQL, verifies row for row, and a changed value is found",
        arguments: ["chinook.sqlite", "northwind.sqlite", "sakila.sqlite", "mbtiles_plain_2.sqlite"])
    func fixtureRestoresAndVerifies(name: String) async throws {
        let folder = try TemporaryFolder()
        let dump = try Self.dumpOfFixture(name, in: folder)
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            let options = DBBPostgresRestoreOptions(schema: "restored")
            let report = try DBBPostgresRestore.restore(dumpAt: dump, into: db, options: options)
            #expect(report.verified)
            // Every table of the dump is there with its row count (counted here, not by the restore).
            for table in report.plan.tables {
                let count = try db.fetchAll(
                    "SELECT count(*) FROM \"restored\".\"\(table.name.replacingOccurrences(of: "\"", with: "\"\""))\"")
                #expect(count == [[.integer(Int64(table.rowCount))]], "\(name): table \(table.name)")
            }
            let dumped = report.dump.tables.filter { !$0.name.lowercased().hasPrefix("sqlite_") }.map(\.name)
            #expect(Set(report.plan.tables.map(\.name)) == Set(dumped))
            #expect(try DBBPostgresRestore.compare(dumpAt: dump, with: db, options: options) == nil)
            // A changed value is found, with its table, row and column.
            let table = try #require(
                report.plan.tables.first { table in
                    table.rowCount > 1 && table.columns.contains { $0.type == "text" }
                })
            let column = try #require(table.columns.first { $0.type == "text" })
            let quotedTable = "\"restored\".\"\(table.name)\""
            let key = table.rowIDColumn ?? table.identityColumn ?? table.primaryKey.first ?? column.name
            let changed = try db.execute(
                "UPDATE \(quotedTable) SET \"\(column.name)\" = coalesce(\"\(column.name)\", '') || 'x' WHERE "
                    + "\"\(key)\" = (SELECT max(\"\(key)\") FROM \(quotedTable))")
            #expect(changed >= 1)
            let difference = try #require(try DBBPostgresRestore.compare(dumpAt: dump, with: db, options: options))
            #expect(difference.table == table.name, "\(difference)")
            #expect(difference.column == column.name, "\(difference)")
        }
    }

    /// DBBBuilder's own layout: `Real` timestamps with fractions, `Boolean` and `DateTimeStamp` columns,
    /// AUTOINCREMENT ids whose high-water mark is past the largest id.
    static let builderLayout = """
        CREATE TABLE IF NOT EXISTS Meeting (id Integer PRIMARY KEY AUTOINCREMENT, createdTime Real, modifiedTime Real,
            isDeleted Boolean, title Text, attendees Integer);
        CREATE TABLE IF NOT EXISTS Meeting_dates (id Integer PRIMARY KEY AUTOINCREMENT, Meeting_ID Integer,
            dates DateTimeStamp);
        CREATE INDEX IF NOT EXISTS Meeting_dates_idx ON Meeting_dates (Meeting_ID);
        INSERT INTO Meeting VALUES (1, 786000000.123456, 786000001.654321, 0, 'Kick-off', 4);
        INSERT INTO Meeting VALUES (2, 786000002.000001, 786000002.999999, 1, 'Review', 12);
        INSERT INTO Meeting VALUES (3, 1.0e-7, 0.1, 0, 'Edge', 0);
        INSERT INTO Meeting VALUES (9, 5e-324, 1.7976931348623157e308, 0, 'Deleted later', 1);
        DELETE FROM Meeting WHERE id = 9;
        INSERT INTO Meeting_dates (Meeting_ID, dates) VALUES (1, 786000000.5), (1, 786086400.25), (2, 786172800.125);
        """

    @Test("a file in DBBBuilder's layout restores bit for bit, with its identities past sqlite_sequence")
    func builderLayoutRestoresBitExact() async throws {
        let folder = try TemporaryFolder()
        let dump = try Self.dump(of: Self.builderLayout, in: folder, name: "app")
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            let options = DBBPostgresRestoreOptions(schema: DBBPostgresRestore.defaultSchemaName(forDumpAt: dump))
            #expect(options.schema == "app")
            let report = try DBBPostgresRestore.restore(dumpAt: dump, into: db, options: options)
            let meeting = try #require(report.plan.tables.first { $0.name == "Meeting" })
            #expect(
                meeting.columns.map(\.type) == [
                    "bigint", "double precision", "double precision", "bigint", "text", "bigint",
                ])
            #expect(meeting.identityColumn == "id")
            #expect(meeting.nextIdentity == 10)  // sqlite_sequence says 9
            let rows = try db.fetchAll("SELECT \"createdTime\", \"modifiedTime\" FROM app.\"Meeting\" ORDER BY id")
            let expected: [[Double]] = [
                [786000000.123456, 786000001.654321], [786000002.000001, 786000002.999999], [1.0e-7, 0.1],
            ]
            #expect(rows.count == 3)
            for (row, values) in zip(rows, expected) {
                for (read, value) in zip(row, values) {
                    guard case .real(let number) = read else {
                        Issue.record("not a double: \(read)")
                        continue
                    }
                    #expect(number.bitPattern == value.bitPattern, "\(number) is not \(value)")
                }
            }
            // New rows continue SQLite's sequences.
            let id = try db.fetchAll("INSERT INTO app.\"Meeting\" (title) VALUES ('next') RETURNING id")
            #expect(id == [[.integer(10)]])
            let dates = try db.fetchAll("SELECT dates FROM app.\"Meeting_dates\" ORDER BY id")
            #expect(dates == [[.real(786000000.5)], [.real(786086400.25)], [.real(786172800.125)]])
            let indexes = try db.fetchAll(
                "SELECT indexname::text FROM pg_indexes WHERE schemaname = 'app' AND tablename = 'Meeting_dates' "
                    + "ORDER BY 1")
            #expect(indexes.contains([.text("Meeting_dates_idx")]))
        }
    }

    /// Changes the server's copy of row `id` 2 of `app.Meeting` inside the restore's transaction, once the rows
    /// are loaded (from the progress callback, when the verification begins).
    static let damages: [(change: String, column: String)] = [
        ("UPDATE app.\"Meeting\" SET title = title || '!' WHERE id = 2", "title"),
        ("UPDATE app.\"Meeting\" SET \"modifiedTime\" = \"modifiedTime\" + 1e-6 WHERE id = 2", "modifiedTime"),
        ("UPDATE app.\"Meeting\" SET \"createdTime\" = NULL WHERE id = 2", "createdTime"),
        ("DELETE FROM app.\"Meeting\" WHERE id = 2", "id"),  // row 2 is then id 3
    ]

    @Test(
        "a row the server holds differently from the dump is named by the restore's verification, which keeps nothing",
        arguments: damages.indices)
    func damagedServerRowIsNamed(damage: Int) async throws {
        let folder = try TemporaryFolder()
        let dump = try Self.dump(of: Self.builderLayout, in: folder, name: "app")
        let configuration = try await TestPostgres.freshDatabase()
        let (change, column) = Self.damages[damage]
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            let options = DBBPostgresRestoreOptions(schema: "app")
            var changed: Int?
            #expect {
                try DBBPostgresRestore.restore(dumpAt: dump, into: db, options: options) { phase, _ in
                    if phase == .verifying, changed == nil { changed = try? db.execute(change) }
                }
            } throws: { error in
                guard let mismatch = error as? DBBPostgresRestoreMismatch else { return false }
                return mismatch.difference.table == "Meeting" && mismatch.difference.row == 2
                    && mismatch.difference.column == column
            }
            #expect(changed == 1)
            #expect(try !Self.schemaExists("app", db))
            // Undamaged, the same dump restores and verifies.
            let report = try DBBPostgresRestore.restore(dumpAt: dump, into: db, options: options)
            #expect(report.verified)
            #expect(try db.fetchAll("SELECT title FROM app.\"Meeting\" WHERE id = 2") == [[.text("Review")]])
        }
    }

    @Test("mixed columns: integers and reals become numeric and stay apart; NUL and invalid UTF-8 text become bytea")
    func mixedColumnsArePlannedFromTheirValues() async throws {
        let folder = try TemporaryFolder()
        let database = folder.file("mixed.sqlite")
        let db = try DBBDatabase(path: database.path)
        try db.executeStatements(
            """
            CREATE TABLE m (amount, note TEXT, raw TEXT, label Integer);
            INSERT INTO m VALUES (14, 'plain', CAST(X'61FF62' AS TEXT), 1);
            INSERT INTO m VALUES (14.0, NULL, 'ok', 'not a number');
            INSERT INTO m VALUES (0.1, NULL, NULL, 2.5);
            """)
        try db.execute("INSERT INTO m VALUES (?, ?, NULL, NULL)", 7, "a\u{0}b")
        // Reals that Swift spells with an exponent: numeric holds them without fractional digits.
        try db.execute("INSERT INTO m VALUES (?, NULL, NULL, NULL)", 1e20)
        try db.execute("INSERT INTO m VALUES (?, NULL, NULL, NULL)", -1.5e300)
        try db.execute("INSERT INTO m VALUES (?, NULL, NULL, NULL)", 1e-7)
        try db.close()
        let dump = folder.file("mixed.json.gz")
        try DBBExport.dump(databaseAt: database, to: dump)
        let options = DBBPostgresRestoreOptions(schema: "mixed")
        let plan = try DBBPostgresRestore.plan(dumpAt: dump, options: options)
        let columns = try #require(plan.tables.first).columns
        #expect(columns.map(\.type) == ["numeric", "bytea", "bytea", "text"])
        #expect(columns.map(\.keepsStorageClass) == [true, false, false, false])
        #expect(plan.notes.contains { $0.object == "column m.note" && $0.action.contains("NUL") })
        #expect(plan.notes.contains { $0.object == "column m.raw" && $0.action.contains("not valid UTF-8") })
        #expect(
            plan.notes.contains { $0.object == "column m.label" && $0.action.contains("mixes integer, real, text") })
        #expect(plan.tables.first?.rowIDColumn == "rowid")
        // --strict refuses the plan, naming the column.
        #expect {
            try DBBPostgresRestore.plan(dumpAt: dump, options: DBBPostgresRestoreOptions(schema: "mixed", strict: true))
        } throws: { error in
            (error as? DBBExportError)?.column == "note"
        }
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let server = try DBBPostgresConnection.connect(configuration)
            defer { try? server.close() }
            #expect(throws: DBBExportError.self) {
                try DBBPostgresRestore.restore(
                    dumpAt: dump, into: server, options: DBBPostgresRestoreOptions(schema: "mixed", strict: true))
            }
            #expect(try !Self.schemaExists("mixed", server))
            let report = try DBBPostgresRestore.restore(dumpAt: dump, into: server, options: options)
            #expect(report.verified)
            let rows = try server.fetchAll(
                "SELECT rowid, amount::text, note, raw, label FROM mixed.m ORDER BY rowid")
            #expect(
                rows[0] == [
                    .integer(1), .text("14"), .blob(Data("plain".utf8)), .blob(Data([0x61, 0xFF, 0x62])), .text("1"),
                ])
            #expect(rows[1][1] == .text("14.0"))
            #expect(rows[1][4] == .text("not a number"))
            #expect(rows[2][4] == .text("2.5"))
            #expect(rows[3][2] == .blob(Data([0x61, 0, 0x62])))
            #expect(rows[4][1] == .text("100000000000000000000"))
            #expect(rows[6][1] == .text("0.0000001"))
            // Compared row by row, as `dbb-backup verify --against` does: no difference.
            #expect(try DBBPostgresRestore.compare(dumpAt: dump, with: server, options: options) == nil)
            // The metadata table keeps the header values and the plan.
            let metadata = try server.fetchAll("SELECT key FROM mixed.dbb_sqlite_metadata ORDER BY key")
            #expect(metadata.contains([.text("plan")]) && metadata.contains([.text("user_version")]))
        }
    }

    @Test(
        "keys, unique indexes, defaults and foreign keys carry over; orphans are reported and their key left NOT VALID")
    func constraintsCarryOver() async throws {
        let folder = try TemporaryFolder()
        let dump = try Self.dump(
            of: """
                PRAGMA user_version = 7;
                CREATE TABLE parent (id INTEGER PRIMARY KEY, code TEXT NOT NULL UNIQUE, made TEXT DEFAULT CURRENT_TIMESTAMP,
                    n INTEGER DEFAULT 5);
                CREATE TABLE child (a INTEGER, b TEXT COLLATE NOCASE, parent_id INTEGER REFERENCES parent (id) ON DELETE CASCADE,
                    PRIMARY KEY (a, b)) WITHOUT ROWID;
                CREATE INDEX child_b ON child (b DESC);
                CREATE INDEX child_expr ON child (lower(b));
                CREATE VIEW v AS SELECT * FROM parent;
                CREATE TRIGGER t AFTER INSERT ON parent BEGIN SELECT 1; END;
                INSERT INTO parent (id, code) VALUES (1, 'a'), (2, 'b');
                INSERT INTO child VALUES (1, 'x', 1), (2, 'y', 99), (3, 'z', NULL);
                CREATE TABLE tag (name TEXT COLLATE NOCASE PRIMARY KEY) WITHOUT ROWID;
                INSERT INTO tag VALUES ('b'), ('A'), ('c'), ('_'), ('B2');
                CREATE TABLE note (id INTEGER PRIMARY KEY, parent_id INTEGER REFERENCES parent (id));
                INSERT INTO note VALUES (1, 2), (2, NULL);
                """, in: folder, name: "keys")
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            let report = try DBBPostgresRestore.restore(
                dumpAt: dump, into: db, options: DBBPostgresRestoreOptions(schema: "keys"))
            #expect(report.orphans.count == 1)
            #expect(report.orphans.first?.table == "child")
            #expect(report.orphans.first?.count == 1)
            #expect(report.orphans.first?.rows == ["2, y"])
            let notes = report.plan.notes.map(\.description)
            #expect(notes.contains { $0.hasPrefix("view v:") })
            #expect(notes.contains { $0.hasPrefix("trigger t:") })
            #expect(notes.contains { $0.hasPrefix("index child_expr on child:") })
            #expect(notes.contains { $0.hasPrefix("column child.b:") && $0.contains("NOCASE") })
            // The unique constraint holds, the default applies, the cascade works.
            let made = try db.fetchAll("INSERT INTO keys.parent (code) VALUES ('c') RETURNING id, n, length(made)")
            #expect(made == [[.integer(3), .integer(5), .integer(19)]])
            #expect(throws: DBBError.self) { try db.execute("INSERT INTO keys.parent (code) VALUES ('a')") }
            #expect(try db.execute("DELETE FROM keys.parent WHERE id = 1") == 1)
            #expect(try db.fetchAll("SELECT a FROM keys.child ORDER BY a") == [[.integer(2)], [.integer(3)]])
            let validated = try db.fetchAll(
                "SELECT conname::text, convalidated FROM pg_constraint WHERE contype = 'f' ORDER BY conname")
            #expect(
                validated == [
                    [.text("child_parent_id_fkey"), .integer(0)], [.text("note_parent_id_fkey"), .integer(1)],
                ])
            #expect(throws: DBBError.self) { try db.execute("INSERT INTO keys.note (parent_id) VALUES (99)") }
            let version = try db.fetchAll("SELECT value FROM keys.dbb_sqlite_metadata WHERE key = 'user_version'")
            #expect(version == [[.text("7")]])
            let view = try db.fetchAll("SELECT value FROM keys.dbb_sqlite_metadata WHERE key = 'view v'")
            #expect(view == [[.text("CREATE VIEW v AS SELECT * FROM parent")]])
        }
    }

    @Test("virtual tables, partial indexes and generated columns are reported; the shadow tables' rows are kept")
    func untranslatedObjectsAreReported() async throws {
        let folder = try TemporaryFolder()
        let dump = try Self.dump(
            of: """
                CREATE VIRTUAL TABLE notes USING fts5(body);
                INSERT INTO notes (body) VALUES ('full text search'), ('in SQLite');
                CREATE TABLE doc (id INTEGER PRIMARY KEY, title TEXT, size INTEGER CHECK (size >= 0),
                    double_size INTEGER GENERATED ALWAYS AS (size * 2) VIRTUAL);
                CREATE INDEX doc_big ON doc (size) WHERE size > 100;
                CREATE INDEX doc_double ON doc (double_size);
                INSERT INTO doc (id, title, size) VALUES (1, 'a', 10), (2, 'b', 200);
                """, in: folder, name: "fts")
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            let report = try DBBPostgresRestore.restore(
                dumpAt: dump, into: db, options: DBBPostgresRestoreOptions(schema: "fts"))
            let notes = report.plan.notes.map(\.description)
            #expect(notes.contains { $0.hasPrefix("virtual table notes: not created") })
            #expect(notes.contains { $0.hasPrefix("index doc_big on doc: partial index not created") })
            #expect(notes.contains { $0.hasPrefix("index doc_double on doc: not created") })
            #expect(notes.contains { $0.hasPrefix("column doc.double_size: generated column not created") })
            #expect(notes.contains { $0.hasPrefix("table doc: CHECK constraints not created") })
            #expect(try db.fetchAll("SELECT count(*) FROM fts.notes_content") == [[.integer(2)]])
            #expect(
                try db.fetchAll("SELECT id, title, size FROM fts.doc ORDER BY id")
                    == [[.integer(1), .text("a"), .integer(10)], [.integer(2), .text("b"), .integer(200)]])
            let kept = try db.fetchAll(
                "SELECT key FROM fts.dbb_sqlite_metadata WHERE key IN ('virtual table notes', 'index doc_big') ORDER BY key"
            )
            #expect(kept == [[.text("index doc_big")], [.text("virtual table notes")]])
        }
    }

    @Test("existing tables are refused unless replaced; a failing replacement leaves them as they were")
    func existingTablesAreKeptOrReplaced() async throws {
        let folder = try TemporaryFolder()
        let dump = try Self.dump(
            of: "CREATE TABLE t (id INTEGER PRIMARY KEY, v TEXT); INSERT INTO t VALUES (1, 'new');", in: folder,
            name: "small")
        let damaged = folder.file("damaged.json.gz")
        let bytes = try Data(contentsOf: dump)
        try bytes.prefix(bytes.count - 12).write(to: damaged)
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            try db.execute("CREATE SCHEMA small")
            try db.execute("CREATE TABLE small.t (old text)")
            try db.execute("INSERT INTO small.t VALUES ('kept')")
            #expect {
                try DBBPostgresRestore.restore(
                    dumpAt: dump, into: db, options: DBBPostgresRestoreOptions(schema: "small"))
            } throws: { error in
                (error as? DBBExportError)?.kind == .targetExists
            }
            #expect(try db.fetchAll("SELECT old FROM small.t") == [[.text("kept")]])
            // A damaged dump is refused before the server is touched, replacement asked or not.
            #expect(throws: DBBExportError.self) {
                try DBBPostgresRestore.restore(
                    dumpAt: damaged, into: db,
                    options: DBBPostgresRestoreOptions(schema: "small", replaceExisting: true))
            }
            #expect(try db.fetchAll("SELECT old FROM small.t") == [[.text("kept")]])
            let report = try DBBPostgresRestore.restore(
                dumpAt: dump, into: db, options: DBBPostgresRestoreOptions(schema: "small", replaceExisting: true))
            #expect(report.verified)
            #expect(try db.fetchAll("SELECT id, v FROM small.t") == [[.integer(1), .text("new")]])
        }
    }

    /// The crafted dumps of `Tests/Corpus/HostileDumps` but `missing-module`: a virtual table is not created in
    /// PostgreSQL, so a missing module harms nothing there (``virtualTableOfAMissingModuleIsOnlyNoted()``).
    static let hostileDumps: [String] = {
        let folder = repositoryRoot.appendingPathComponent("Tests/Corpus/HostileDumps")
        return ((try? FileManager.default.contentsOfDirectory(atPath: folder.path)) ?? [])
            .filter { $0.hasSuffix(".json.gz") && $0 != "missing-module.json.gz" }.sorted()
    }()

    @Test("a virtual table of a missing module is noted, not created")
    func virtualTableOfAMissingModuleIsOnlyNoted() throws {
        #expect(Self.hostileDumps.count >= 16)
        let dump = repositoryRoot.appendingPathComponent("Tests/Corpus/HostileDumps/missing-module.json.gz")
        let plan = try DBBPostgresRestore.plan(dumpAt: dump, options: DBBPostgresRestoreOptions(schema: "m"))
        #expect(plan.notes.contains { $0.object.hasPrefix("virtual table ") && $0.action.hasPrefix("not created") })
    }

    @Test("a hostile dump is refused and leaves the server untouched", arguments: hostileDumps)
    func hostileDumpIsRefused(name: String) async throws {
        let dump = repositoryRoot.appendingPathComponent("Tests/Corpus/HostileDumps/\(name)")
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            var failure: (any Error)?
            do {
                try DBBPostgresRestore.restore(dumpAt: dump, into: db, options: DBBPostgresRestoreOptions(schema: "h"))
            } catch {
                failure = error
            }
            #expect(failure != nil, "\(name) was restored")
            #expect(String(describing: failure.map { "\($0)" } ?? "").count > 20)
            #expect(try !Self.schemaExists("h", db), "\(name) left a schema")
        }
    }

    @Test("dbb-backup restores into a postgres:// URL, prints the plan, verifies, and a killed restore leaves nothing")
    func backupToolRestoresIntoPostgres() async throws {
        let folder = try TemporaryFolder()
        let dump = try Self.dumpOfFixture("chinook.sqlite", in: folder)
        let configuration = try await TestPostgres.freshDatabase()
        var url = "postgres://\(configuration.username)"
        if let password = configuration.password { url += ":\(password)" }
        url += "@\(configuration.host):\(configuration.port)/\(configuration.database ?? "")"
        let plan = try ToolProcess.run("dbb-backup", ["restore", dump.path, url, "--plan"])
        #expect(plan.exitCode == 0, "\(plan.standardError)")
        let decoded = try JSONDecoder().decode(DBBPostgresRestorePlan.self, from: plan.output)
        #expect(decoded.schema == "public")
        #expect(decoded.tables.count == 11)
        let restore = try ToolProcess.run("dbb-backup", ["restore", dump.path, url])
        #expect(restore.exitCode == 0, "\(restore.standardError)")
        #expect(restore.standardOutput.contains("verified row for row"))
        #expect(restore.standardOutput.contains("into schema public of postgres://"), "\(restore.standardOutput)")
        #expect(restore.standardOutput.contains("works in schema public and finds them there"))
        let again = try ToolProcess.run("dbb-backup", ["restore", dump.path, url])
        #expect(again.exitCode == 73)
        #expect(again.standardError.contains("--force"))
        let verify = try ToolProcess.run("dbb-backup", ["verify", dump.path, "--against", url])
        #expect(verify.exitCode == 0, "\(verify.standardError)")
        #expect(verify.standardOutput.contains("identical to schema public"))
        // Into a schema of its own, the summary says how to open it.
        let own = try ToolProcess.run("dbb-backup", ["restore", dump.path, url, "--schema", "chinook"])
        #expect(own.exitCode == 0, "\(own.standardError)")
        #expect(
            own.standardOutput.contains(
                "works in schema public and does not see them; open them with schema: \"chinook\""),
            "\(own.standardOutput)")
        #expect(own.standardOutput.contains("&options=-csearch_path%3Dchinook"), "\(own.standardOutput)")
        let inURL = try ToolProcess.run(
            "dbb-backup", ["verify", dump.path, "--against", url + "?options=-csearch_path%3Dchinook"])
        #expect(inURL.standardOutput.contains("identical to schema chinook"), "\(inURL.standardOutput)")
        let other = try ToolProcess.run("dbb-backup", ["verify", dump.path, "--against", url, "--schema", "none"])
        #expect(other.exitCode != 0)

        // A restore killed while it loads leaves no schema behind: the server rolls its transaction back.
        let big = try Self.dump(
            of: """
                CREATE TABLE big (id INTEGER PRIMARY KEY, v TEXT, r REAL);
                WITH RECURSIVE n(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM n WHERE i < 1000000)
                INSERT INTO big SELECT i, printf('row %d of the big table', i), i / 7.0 FROM n;
                """, in: folder, name: "big")
        let executable = try #require(ToolProcess.executable("dbb-backup"))
        let db = try await TestPostgres.onQueue { try DBBPostgresConnection.connect(configuration) }
        let outputFolder = folder.url
        let target = url
        // The restore is stopped (SIGSTOP) as soon as its COPY runs, then killed only if the COPY is still running:
        // a loaded machine can leave the watching thread idle until the restore is done. Then it starts again.
        let outcome = try await TestPostgres.onQueue { () -> (killed: Bool, status: Int32) in
            func copying() throws -> Bool {
                // Running now: a session keeps showing its last statement after it ended.
                try !db.fetchAll("SELECT 1 FROM pg_stat_activity WHERE state = 'active' AND query LIKE 'COPY %big%'")
                    .isEmpty
            }
            for _ in 0..<3 {
                let child = try ChildProcess(
                    executable, ["restore", big.path, target, "--no-verify", "--schema", "big"], outputIn: outputFolder)
                let copyDeadline = ContinuousClock.now + .seconds(180)
                while ContinuousClock.now < copyDeadline, try !copying() { usleep(5_000) }
                kill(child.pid, SIGSTOP)
                usleep(200_000)
                if try copying() {
                    kill(child.pid, SIGKILL)
                    return (true, child.wait())
                }
                // Too late: the COPY ended before the stop. Let it finish, and start again.
                kill(child.pid, SIGCONT)
                _ = child.wait()
                try db.execute("DROP SCHEMA IF EXISTS big CASCADE")
            }
            return (false, 0)
        }
        #expect(outcome.killed, "the restore was killed while it copied")
        // Ended by the signal (128 + SIGKILL), not by finishing first.
        #expect(outcome.status == 128 + SIGKILL)
        var gone = false
        for _ in 0..<400 where !gone {
            let left = try await TestPostgres.onQueue {
                try db.fetchAll("SELECT 1 FROM pg_stat_activity WHERE query LIKE 'COPY %big%'").count
            }
            gone = left == 0
            if !gone { try await Task.sleep(nanoseconds: 10_000_000) }
        }
        #expect(gone)
        let exists = try await TestPostgres.onQueue { try Self.schemaExists("big", db) }
        #expect(!exists)
        try await TestPostgres.onQueue { try db.close() }
    }
}
