import DBBExport
import DBBPostgres
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

#if canImport(Glibc)
    import Glibc
#endif

/// A dump of PostgreSQL that cannot be made fails with a clear error and leaves no file, partial or not, under
/// the final name; a dump of tables that change while it reads them holds the snapshot it began with.
@Suite(.postgres)
struct DBBPostgresDumpBadInputTests {
    /// The files of a folder, temporary ones included.
    static func files(in folder: TemporaryFolder) throws -> [String] {
        try files(in: folder.url)
    }

    static func files(in folder: URL) throws -> [String] {
        try FileManager.default.contentsOfDirectory(atPath: folder.path).sorted()
    }

    @Test("rows that change while the dump reads them: the dump holds the snapshot it began with")
    func tableChangingDuringDumpKeepsTheSnapshot() async throws {
        let folder = try TemporaryFolder()
        let dumpURL = folder.file("moving.json.gz")
        let configuration = try await TestPostgres.freshDatabase()
        let changed = try await TestPostgres.onQueue { () -> Int in
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            let writer = try DBBPostgresConnection.connect(configuration)
            defer { try? writer.close() }
            _ = try db.execute("CREATE TABLE moving (id bigint PRIMARY KEY, v text)")
            _ = try db.execute("CREATE TABLE later (id bigint PRIMARY KEY, v text)")
            _ = try db.execute("INSERT INTO moving SELECT i, 'row ' || i FROM generate_series(1, 20000) AS i")
            _ = try db.execute("INSERT INTO later VALUES (1, 'first')")
            var changes = 0
            // Once rows of the first table are written, another session deletes, updates and inserts, and commits.
            try DBBPostgresDump.dump(
                from: db, to: dumpURL, options: DBBPostgresDumpOptions(schema: "public")
            ) { progress in
                guard changes == 0, progress.currentTable == "moving", progress.rowsDone > 0 else { return }
                changes += (try? writer.execute("DELETE FROM moving WHERE id > 10000")) ?? 0
                changes += (try? writer.execute("UPDATE moving SET v = 'changed' WHERE id <= 10")) ?? 0
                changes += (try? writer.execute("INSERT INTO later VALUES (2, 'second')")) ?? 0
            }
            return changes
        }
        #expect(changed == 10011)
        let sqlite = folder.file("moving.sqlite")
        try DBBExport.restore(dumpAt: dumpURL, to: sqlite)
        let db = try DBBDatabase(path: sqlite.path, mode: .readOnly)
        defer { try? db.close() }
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM moving") == 20000)
        #expect(try db.fetchValue(String.self, "SELECT v FROM moving WHERE id = 1") == "row 1")
        #expect(try db.fetchValue(String.self, "SELECT v FROM moving WHERE id = 20000") == "row 20000")
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM later") == 1)
    }

    @Test("a schema that does not exist is refused, naming it, and no file is written")
    func missingSchemaIsRefused() async throws {
        let folder = try TemporaryFolder()
        let dumpURL = folder.file("none.json.gz")
        let configuration = try await TestPostgres.freshDatabase()
        let error = try await TestPostgres.onQueue { () -> DBBExportError? in
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            do {
                try DBBPostgresDump.dump(from: db, to: dumpURL, options: DBBPostgresDumpOptions(schema: "nowhere"))
                return nil
            } catch let error as DBBExportError {
                // The connection is usable again: the dump's transaction was rolled back.
                _ = try db.fetchAll("SELECT 1")
                return error
            }
        }
        #expect(error?.kind == .unknownTable)
        #expect(error?.message.contains("no schema named nowhere") == true, "\(String(describing: error))")
        #expect(try Self.files(in: folder) == [])
    }

    @Test("--strict refuses a type with no mapping, naming the column; without it, the type is its text")
    func strictRefusesATypeWithoutMapping() async throws {
        let folder = try TemporaryFolder()
        let dumpURL = folder.file("shapes.json.gz")
        let configuration = try await TestPostgres.freshDatabase()
        let folderURL = folder.url
        let (error, report) = try await TestPostgres.onQueue { () -> (DBBExportError?, DBBDumpReport) in
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            _ = try db.execute("CREATE TABLE shape (id bigint PRIMARY KEY, at point, net inet)")
            _ = try db.execute("INSERT INTO shape VALUES (1, '(1.5,2)', '10.0.0.1/8')")
            var refusal: DBBExportError?
            do {
                try DBBPostgresDump.dump(
                    from: db, to: dumpURL, options: DBBPostgresDumpOptions(schema: "public", strict: true))
            } catch let error as DBBExportError {
                refusal = error
            }
            #expect(try Self.files(in: folderURL) == [])
            let report = try DBBPostgresDump.dump(
                from: db, to: dumpURL, options: DBBPostgresDumpOptions(schema: "public"))
            return (refusal, report)
        }
        #expect(error?.kind == .malformed)
        #expect(error?.table == "shape")
        #expect(error?.column == "at")
        #expect(error?.message.contains("point") == true, "\(String(describing: error))")
        #expect(report.header.conversions.filter { $0.note.contains("no mapping") }.map(\.column) == ["at", "net"])
        let sqlite = folder.file("shapes.sqlite")
        try DBBExport.restore(dumpAt: dumpURL, to: sqlite)
        let db = try DBBDatabase(path: sqlite.path, mode: .readOnly)
        defer { try? db.close() }
        #expect(try db.fetchValue(String.self, "SELECT at || ' ' || net FROM shape") == "(1.5,2) 10.0.0.1/8")
    }

    @Test("a table whose name SQLite reserves is refused, naming it, and no file is written")
    func reservedTableNameIsRefused() async throws {
        let folder = try TemporaryFolder()
        let dumpURL = folder.file("reserved.json.gz")
        let configuration = try await TestPostgres.freshDatabase()
        let error = try await TestPostgres.onQueue { () -> DBBExportError? in
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            _ = try db.execute("CREATE TABLE \"SQLite_stats\" (id bigint PRIMARY KEY)")
            do {
                try DBBPostgresDump.dump(from: db, to: dumpURL, options: DBBPostgresDumpOptions(schema: "public"))
                return nil
            } catch let error as DBBExportError {
                return error
            }
        }
        #expect(error?.table == "SQLite_stats", "\(String(describing: error))")
        #expect(error?.message.contains("reserves") == true)
        #expect(try Self.files(in: folder) == [])
    }

    @Test("a full disk while the dump is written: an I/O error, and neither the dump nor its temporary file is left")
    func fullDiskLeavesNoDump() async throws {
        guard geteuid() == 0, FileManager.default.isExecutableFile(atPath: "/bin/mount") else { return }
        let folder = try TemporaryFolder()
        let disk = folder.file("disk")
        try FileManager.default.createDirectory(at: disk, withIntermediateDirectories: false)
        let mounted = try ToolProcess.run(
            executable: URL(fileURLWithPath: "/bin/mount"), ["-t", "tmpfs", "-o", "size=1m", "tmpfs", disk.path],
            mergingStandardError: true)
        guard mounted.exitCode == 0 else { return }  // no tmpfs here: nothing to fill
        defer { _ = try? ToolProcess.run(executable: URL(fileURLWithPath: "/bin/umount"), [disk.path]) }
        let dumpURL = disk.appendingPathComponent("full.json.gz")
        let configuration = try await TestPostgres.freshDatabase()
        let error = try await TestPostgres.onQueue { () -> (any Error)? in
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            _ = try db.execute("CREATE TABLE noise (id bigint PRIMARY KEY, bytes bytea)")
            // Random bytes do not compress: 4 MiB of them cannot fit in 1 MiB.
            _ = try db.execute(
                "INSERT INTO noise SELECT i, decode(string_agg(lpad(to_hex((random() * 255)::int), 2, '0'), ''), 'hex') "
                    + "FROM generate_series(1, 64) AS i, generate_series(1, 65536) AS j GROUP BY i")
            do {
                try DBBPostgresDump.dump(from: db, to: dumpURL, options: DBBPostgresDumpOptions(schema: "public"))
                return nil
            } catch {
                return error
            }
        }
        let exportError = try #require(error as? DBBExportError, "\(String(describing: error))")
        #expect(exportError.kind == .io)
        #expect("\(exportError)".contains("No space left on device"), "\(exportError)")
        #expect(try FileManager.default.contentsOfDirectory(atPath: disk.path) == [])
    }

    @Test("a value too long in the first of several tables stops the rows read ahead too; the connection is free")
    func valueTooLongStopsTheReadingAhead() async throws {
        let folder = try TemporaryFolder()
        let dumpURL = folder.file("long.json.gz")
        let configuration = try await TestPostgres.freshDatabase()
        let folderURL = folder.url
        let (error, count) = try await TestPostgres.onQueue { () -> (DBBExportError?, [[DBBValue]]) in
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            _ = try db.execute("CREATE TABLE first (id bigint PRIMARY KEY, v text)")
            _ = try db.execute("INSERT INTO first SELECT i, repeat('x', i) FROM generate_series(1, 3000) AS i")
            for name in ["second", "third", "fourth"] {
                _ = try db.execute("CREATE TABLE \(name) (id bigint PRIMARY KEY, v text)")
                _ = try db.execute("INSERT INTO \(name) SELECT i, 'row ' || i FROM generate_series(1, 5000) AS i")
            }
            var refusal: DBBExportError?
            do {
                try DBBPostgresDump.dump(
                    from: db, to: dumpURL,
                    options: DBBPostgresDumpOptions(schema: "public", maximumValueLength: 2_500))
            } catch let error as DBBExportError {
                refusal = error
            }
            // The reading thread has stopped and the dump's transaction is rolled back: the connection takes
            // queries again, in a transaction of its own.
            #expect(try Self.files(in: folderURL) == [])
            try db.begin()
            let count = try db.fetchAll("SELECT count(*) FROM fourth")
            try db.rollback()
            return (refusal, count)
        }
        #expect(error?.kind == .valueTooLong, "\(String(describing: error))")
        #expect(error?.table == "first")
        #expect(error?.row == 2_501)
        #expect(count == [[.integer(5000)]])
    }

    @Test("a connection that ends while the rows are read ahead: a clear error, and no file is left")
    func connectionEndingWhileReadingAhead() async throws {
        let folder = try TemporaryFolder()
        let dumpURL = folder.file("ended.json.gz")
        let configuration = try await TestPostgres.freshDatabase()
        let folderURL = folder.url
        let (error, terminated) = try await TestPostgres.onQueue { () -> ((any Error)?, Bool) in
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            let admin = try DBBPostgresConnection.connect(configuration)
            defer { try? admin.close() }
            _ = try db.execute("CREATE TABLE small (id bigint PRIMARY KEY, v text)")
            _ = try db.execute("INSERT INTO small SELECT i, 'row ' || i FROM generate_series(1, 100) AS i")
            // More than the batches read ahead may hold (4 MiB): the reading thread has queries left to send.
            _ = try db.execute("CREATE TABLE large (id bigint PRIMARY KEY, v text)")
            _ = try db.execute(
                "INSERT INTO large SELECT i, 'a row of the large table, number ' || i "
                    + "FROM generate_series(1, 400000) AS i")
            guard case .integer(let pid)? = try db.fetchAll("SELECT pg_backend_pid()").first?.first else {
                return (nil, false)
            }
            var terminated = false
            do {
                try DBBPostgresDump.dump(
                    from: db, to: dumpURL, options: DBBPostgresDumpOptions(schema: "public")
                ) { progress in
                    guard !terminated, progress.currentTable == "large", progress.rowsDone > 100 else { return }
                    terminated =
                        (try? admin.fetchAll("SELECT pg_terminate_backend($1::int)", [.integer(pid)]))
                        == [[.integer(1)]]
                }
                return (nil, terminated)
            } catch {
                #expect(try Self.files(in: folderURL) == [])
                return (error, terminated)
            }
        }
        #expect(terminated)
        let failure = try #require(error as? DBBError, "\(String(describing: error))")
        // The server's error while a batch is read names the table; a batch written after the connection closed
        // (postgres-nio drops it) is the closed connection's error.
        let message = "\(failure)"
        #expect(
            message.contains("dumping table large") || message.contains("closed before the statement was answered"),
            "\(message)")
        #expect(try Self.files(in: folder) == [])
    }

    @Test("a table another session holds locked: the dump waits at most 30 seconds, then fails, leaving no file")
    func lockedTableTimesOut() async throws {
        let folder = try TemporaryFolder()
        let dumpURL = folder.file("locked.json.gz")
        let configuration = try await TestPostgres.freshDatabase()
        let folderURL = folder.url
        let (error, seconds) = try await TestPostgres.onQueue { () -> ((any Error)?, Double) in
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            let holder = try DBBPostgresConnection.connect(configuration)
            defer { try? holder.close() }
            _ = try db.execute("CREATE TABLE held (id bigint PRIMARY KEY, v text)")
            _ = try db.execute("INSERT INTO held VALUES (1, 'one')")
            // The catalog's reads (the tables' sizes among them) wait for this lock, as the dump's own LOCK would.
            try holder.begin()
            _ = try holder.execute("LOCK TABLE held IN ACCESS EXCLUSIVE MODE")
            defer { try? holder.rollback() }
            let started = Date()
            do {
                try DBBPostgresDump.dump(from: db, to: dumpURL, options: DBBPostgresDumpOptions(schema: "public"))
                return (nil, Date().timeIntervalSince(started))
            } catch {
                #expect(try Self.files(in: folderURL) == [])
                return (error, Date().timeIntervalSince(started))
            }
        }
        let failure = try #require(error as? DBBError, "\(String(describing: error))")
        #expect(failure.sqlState == "55P03", "\(failure)")
        #expect(seconds >= 29 && seconds < 60, "\(seconds) s")
        #expect(try Self.files(in: folder) == [])
    }

    @Test("dbb-backup dump postgres://: a refused connection, a wrong password, a missing schema, --strict")
    func backupToolRefusesBadInput() async throws {
        let folder = try TemporaryFolder()
        let configuration = try await TestPostgres.freshDatabase()
        try await TestPostgres.onQueue {
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            _ = try db.execute("CREATE TABLE shape (id bigint PRIMARY KEY, at point, n integer)")
            _ = try db.execute("INSERT INTO shape VALUES (1, '(1,2)', 3)")
        }
        let url = DBBPostgresDumpTests.url(of: configuration)
        let password = try #require(configuration.password)
        let output = folder.file("out.json.gz").path

        let port = try TestPostgres.freeLoopbackPort()
        let refused = try ToolProcess.run(
            "dbb-backup", ["dump", "postgres://\(configuration.username):\(password)@127.0.0.1:\(port)/x", output])
        #expect(refused.exitCode == 66, "\(refused.standardError)")
        #expect(refused.standardError.contains("connection refused"), "\(refused.standardError)")
        #expect(!refused.standardError.contains(password))

        let wrong = url.replacingOccurrences(of: ":\(password)@", with: ":wrong-\(password)@")
        let denied = try ToolProcess.run("dbb-backup", ["dump", wrong, output])
        #expect(denied.exitCode == 70, "\(denied.standardError)")
        #expect(denied.standardError.contains("28P01"), "\(denied.standardError)")
        #expect(!denied.standardError.contains(password))

        let missing = try ToolProcess.run("dbb-backup", ["dump", url, output, "--schema", "nowhere"])
        #expect(missing.exitCode == 64, "\(missing.standardError)")
        #expect(missing.standardError.contains("no schema named nowhere"), "\(missing.standardError)")

        let strict = try ToolProcess.run("dbb-backup", ["dump", url, output, "--strict"])
        #expect(strict.exitCode == 65, "\(strict.standardError)")
        #expect(strict.standardError.contains("point"), "\(strict.standardError)")
        #expect(try Self.files(in: folder) == [])

        let dumped = try ToolProcess.run("dbb-backup", ["dump", url, output])
        #expect(dumped.exitCode == 0, "\(dumped.standardError)")
        #expect(dumped.standardOutput.contains("note: column shape.at (point) as TEXT: no mapping"))
        #expect(dumped.standardOutput.contains("note: column shape.n (integer) as INTEGER"))
        #expect(
            dumped.standardOutput.contains("dumped 1 rows of 1 tables of schema public"), "\(dumped.standardOutput)")
        #expect(!dumped.standardOutput.contains(password))
        let inspected = try ToolProcess.run("dbb-backup", ["inspect", output])
        #expect(inspected.standardOutput.contains("dumped from PostgreSQL"), "\(inspected.standardOutput)")
        #expect(inspected.standardOutput.contains("note: column shape.at (point) as TEXT: no mapping"))
        let inspectedJSON = try ToolProcess.run("dbb-backup", ["inspect", "--json", output])
        #expect(inspectedJSON.standardOutput.contains("\"sourceType\""), "\(inspectedJSON.standardOutput)")
        let again = try ToolProcess.run("dbb-backup", ["dump", url, output])
        #expect(again.exitCode == 73)
        let restored = try ToolProcess.run("dbb-backup", ["restore", output, folder.file("out.sqlite").path])
        #expect(restored.exitCode == 0, "\(restored.standardError)")
        #expect(restored.standardOutput.contains("note: column shape.at (point) as TEXT"), "\(restored.standardOutput)")
        #expect(try Self.files(in: folder) == ["out.json.gz", "out.sqlite"])
    }
}
