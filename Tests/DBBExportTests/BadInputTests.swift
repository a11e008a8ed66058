import DBBExport
import DBBSQL
import Foundation
import Testing

/// Damaged and foreign input: a clear error naming where, no crash, and the target never written.
@Suite("Bad input")
struct BadInputTests {
    /// A dump as another program could write it, from the format description.
    static func handMade(
        rows: String = "[1,\"a\"],[2,\"b\"]", rowCount: Int = 2, version: Int = 1, extra: String = ""
    ) -> String {
        """
        {"format":"dbb-dump","version":\(version),\(extra)
         "header":{"sqliteVersion":"3.40.1","userVersion":7,"applicationId":0,"pageSize":4096,"encoding":"UTF-8",
                   "autoVacuum":0,"created":"2026-01-01T00:00:00Z","tables":[{"name":"t","rowCount":\(rowCount)}]},
         "schema":[{"type":"table","name":"t","tbl_name":"t","sql":"CREATE TABLE t (id INTEGER PRIMARY KEY, v)"}],
         "tables":[{"name":"t","columns":["id","v"],"rowid":false,"rowCount":\(rowCount),"rows":[\(rows)]}]}
        """
    }

    static func write(_ text: String, to url: URL) throws {
        try gzip(Data(text.utf8)).write(to: url)
    }

    /// Restores and verifies a bad dump: both must throw the same kind of error, and the restore must
    /// leave the folder as it was (an existing target unchanged, no temporary file).
    static func expectFailure(
        _ dump: URL, in folder: TemporaryFolder, kind: DBBExportError.Kind,
        sourceLocation: SourceLocation = #_sourceLocation
    ) throws -> DBBExportError? {
        let target = folder.file("target.sqlite")
        let before = Data("existing target".utf8)
        try before.write(to: target)
        let contents = try folder.contents()
        var found: DBBExportError?
        do {
            try DBBExport.restore(dumpAt: dump, to: target, options: DBBRestoreOptions(replaceExisting: true))
            Issue.record("the restore did not fail", sourceLocation: sourceLocation)
        } catch let error as DBBExportError {
            #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
            found = error
        }
        #expect(try Data(contentsOf: target) == before, sourceLocation: sourceLocation)
        #expect(try folder.contents() == contents, sourceLocation: sourceLocation)
        do {
            _ = try DBBExport.verify(dumpAt: dump)
            Issue.record("verify did not fail", sourceLocation: sourceLocation)
        } catch let error as DBBExportError {
            #expect(error.kind == kind, "\(error)", sourceLocation: sourceLocation)
        }
        return found
    }

    /// A real dump to damage.
    static func chinookDump(in folder: TemporaryFolder) throws -> Data {
        let dump = folder.file("good.json.gz")
        try DBBExport.dump(databaseAt: try copyOfFixture("chinook.sqlite", into: folder), to: dump)
        let data = try Data(contentsOf: dump)
        try FileManager.default.removeItem(at: dump)
        try FileManager.default.removeItem(at: folder.file("chinook.sqlite"))
        return data
    }

    @Test("a hand-made dump with unknown members, escapes and any spacing restores")
    func handMadeDump() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("hand.json.gz")
        let rows =
            #"[1, "caf\u00e9 \ud83d\ude00 \/"] , [2,{"blob":"AAEC"}],[3 ,-1.5E+2],[4,{"real":"-inf"}],[5,{"text":"/w=="}]"#
        try Self.write(Self.handMade(rows: rows, rowCount: 5, extra: #""future":{"a":[1,{"b":null}]},"#), to: dump)
        let target = folder.file("hand.sqlite")
        let report = try DBBExport.restore(dumpAt: dump, to: target)
        #expect(report.totalRows == 5)
        let db = try DBBDatabase(path: target.path, mode: .readOnly)
        let values = try db.fetchCursor("SELECT v FROM t WHERE id < 5 ORDER BY id").map { $0.value(at: 0) }
        #expect(try db.fetchValue(String.self, "SELECT typeof(v) || hex(v) FROM t WHERE id = 5") == "textFF")
        #expect(values == [.text("café 😀 /"), .blob(Data([0, 1, 2])), .real(-150), .real(-.infinity)])
        #expect(try db.userVersion() == 7)
    }

    @Test("a truncated file is reported as truncated")
    func truncated() throws {
        let folder = try TemporaryFolder()
        let good = try Self.chinookDump(in: folder)
        let dump = folder.file("cut.json.gz")
        try good.prefix(good.count / 2).write(to: dump)
        let error = try Self.expectFailure(dump, in: folder, kind: .truncated)
        #expect(error?.compressedOffset == Int64(good.count / 2))
        // Cut inside the trailer: the JSON is complete, the CRC is not.
        try good.dropLast(3).write(to: dump)
        _ = try Self.expectFailure(dump, in: folder, kind: .truncated)
        try Data().write(to: dump)
        _ = try Self.expectFailure(dump, in: folder, kind: .truncated)
    }

    @Test("damaged gzip data, CRC and length are caught")
    func corruptGzip() throws {
        let folder = try TemporaryFolder()
        let good = try Self.chinookDump(in: folder)
        let dump = folder.file("bad.json.gz")
        var damaged = good
        damaged[good.count / 2] ^= 0x55
        try damaged.write(to: dump)
        let middle = try Self.expectFailure(dump, in: folder, kind: .corruptCompression)
        #expect(middle?.compressedOffset != nil)
        damaged = good
        damaged[good.count - 6] ^= 0x01  // the CRC-32
        try damaged.write(to: dump)
        #expect(try Self.expectFailure(dump, in: folder, kind: .corruptCompression)?.message.contains("CRC") == true)
        damaged = good
        damaged[good.count - 2] ^= 0x01  // the length
        try damaged.write(to: dump)
        #expect(try Self.expectFailure(dump, in: folder, kind: .corruptCompression)?.message.contains("length") == true)
        try (good + Data("garbage".utf8)).write(to: dump)
        _ = try Self.expectFailure(dump, in: folder, kind: .corruptCompression)
        try Data(Self.handMade().utf8).write(to: dump)  // plain JSON, not compressed
        _ = try Self.expectFailure(dump, in: folder, kind: .corruptCompression)
    }

    @Test("a dump split into several gzip members reads as one")
    func multipleMembers() throws {
        let folder = try TemporaryFolder()
        let text = Data(Self.handMade().utf8)
        let dump = folder.file("members.json.gz")
        try (try gzip(text.prefix(100)) + (try gzip(text.dropFirst(100)))).write(to: dump)
        #expect(try DBBExport.verify(dumpAt: dump).totalRows == 2)
    }

    @Test("JSON that is not a dump is rejected as such")
    func notADump() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("other.json.gz")
        for text in [#"{"a":1}"#, "[1,2,3]", "hello", #"{"format":"something-else","version":1}"#, "\"dbb-dump\""] {
            try Self.write(text, to: dump)
            _ = try Self.expectFailure(dump, in: folder, kind: .notADump)
        }
    }

    @Test("a dump of a newer format version is refused")
    func newerVersion() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("v2.json.gz")
        try Self.write(Self.handMade(version: 2), to: dump)
        let error = try Self.expectFailure(dump, in: folder, kind: .unsupportedVersion)
        #expect(error?.message.contains("version 2") == true)
    }

    @Test(
        "values and rows of the wrong shape name the table, the row and the byte offset",
        arguments: [
            (#"[1,"a"],[2,true]"#, 2),
            (#"[1,"a"],[2]"#, 2),
            (#"[1,"a"],[2,"b",3]"#, 2),
            (#"[1,"a"],[2,[3]]"#, 2),
            (#"[1,"a"],[2,{"blob":"***"}]"#, 2),
            (#"[1,"a"],[2,{"real":"big"}]"#, 2),
            (#"[1,"a"],[2,{"date":"x"}]"#, 2),
            (#"[1,"a"],[2,9223372036854775808]"#, 2),
            (#"[1,"a"],[2,01]"#, 2),
            (#"[1,"a"],[2,"\ud800"]"#, 2),
            ("[1,\"a\"],[2,\"tab\tinside\"]", 2),
            (#"[1,"a"] [2,"b"]"#, 1),
        ])
    func wrongShape(rows: String, row: Int) throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("shape.json.gz")
        try Self.write(Self.handMade(rows: rows), to: dump)
        let error = try Self.expectFailure(dump, in: folder, kind: .malformed)
        #expect(error?.table == "t")
        #expect(error?.row == row)
        #expect((error?.byteOffset ?? 0) > 400)
        #expect(error?.description.contains("table t, row \(row)") == true)
    }

    @Test("row counts, sections and the header must agree")
    func inconsistentStructure() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("count.json.gz")
        try Self.write(Self.handMade(rows: #"[1,"a"]"#, rowCount: 2), to: dump)
        #expect(try Self.expectFailure(dump, in: folder, kind: .malformed)?.table == "t")
        var text = Self.handMade().replacingOccurrences(
            of: #""tables":[{"name":"t","columns""#, with: #""tables":[{"name":"u","columns""#)
        try Self.write(text, to: dump)
        #expect(try Self.expectFailure(dump, in: folder, kind: .malformed)?.table == "u")
        text = Self.handMade().replacingOccurrences(of: #","rowCount":2,"rows""#, with: #","rows""#)
        try Self.write(text, to: dump)
        _ = try Self.expectFailure(dump, in: folder, kind: .malformed)
        text = String(repeating: "[", count: 10_000)
        try Self.write(Self.handMade(extra: #""deep":\#(text),"#), to: dump)
        _ = try Self.expectFailure(dump, in: folder, kind: .malformed)
    }

    @Test("an existing target is refused unless replacing is asked for, and kept on failure")
    func existingTarget() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("ok.json.gz")
        try Self.write(Self.handMade(), to: dump)
        let target = folder.file("target.sqlite")
        try Data("keep me".utf8).write(to: target)
        #expect {
            try DBBExport.restore(dumpAt: dump, to: target)
        } throws: { ($0 as? DBBExportError)?.kind == .targetExists }
        #expect(try Data(contentsOf: target) == Data("keep me".utf8))
        #expect {
            try DBBExport.dump(databaseAt: target, to: dump)
        } throws: { ($0 as? DBBExportError)?.kind == .targetExists }
        try DBBExport.restore(
            dumpAt: dump, to: target, options: DBBRestoreOptions(replaceExisting: true, checkIntegrity: true))
        let db = try DBBDatabase(path: target.path, mode: .readOnly)
        #expect(try db.fetchValue(Int.self, "SELECT count(*) FROM t") == 2)
        #expect(try folder.contents() == ["ok.json.gz", "target.sqlite"])
    }

    @Test("a schema statement SQLite rejects fails the restore with SQLite's error, leaving no file")
    func rejectedSchema() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("schema.json.gz")
        let text = Self.handMade().replacingOccurrences(
            of: "CREATE TABLE t (id INTEGER PRIMARY KEY, v)",
            with: "CREATE TABLE t (id INTEGER PRIMARY KEY, v) NONSENSE")
        try Self.write(text, to: dump)
        let target = folder.file("new.sqlite")
        #expect {
            try DBBExport.restore(dumpAt: dump, to: target)
        } throws: { error in
            (error as? DBBError)?.context?.contains("table t") == true
        }
        #expect(try folder.contents() == ["schema.json.gz"])
    }

    @Test("a missing dump or database is an I/O error")
    func missingFiles() throws {
        let folder = try TemporaryFolder()
        #expect(throws: DBBExportError.self) { try DBBExport.verify(dumpAt: folder.file("none.json.gz")) }
        #expect(throws: DBBExportError.self) {
            try DBBExport.dump(databaseAt: folder.file("none.sqlite"), to: folder.file("x.json.gz"))
        }
        #expect(try folder.contents() == [])
    }

    @Test("the SQL comparison used by these tests does see differences")
    func comparisonCanFail() throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture("chinook.sqlite", into: folder)
        let copy = folder.file("copy.sqlite")
        try FileManager.default.copyItem(at: original, to: copy)
        #expect(try SQLComparison.differences(original: original, restored: copy) == [])
        let db = try DBBDatabase(path: copy.path)
        try db.execute("UPDATE Invoice SET Total = 2 WHERE InvoiceId = 1")  // REAL → INTEGER, same table size
        try db.close()
        #expect(try SQLComparison.differences(original: original, restored: copy).count == 2)
    }

    @Test("a row SQLite rejects fails the restore naming the table and row, and stops the parsing thread")
    func rejectedRow() throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("rows.json.gz")
        // Enough rows that the parsing thread is still busy when the duplicate key stops the restore.
        let rows = (1...20_000).map { "[\($0 == 15_000 ? 3 : $0),\"v\"]" }.joined(separator: ",")
        try Self.write(Self.handMade(rows: rows, rowCount: 20_000), to: dump)
        #expect {
            try DBBExport.restore(dumpAt: dump, to: folder.file("new.sqlite"))
        } throws: { error in
            guard let error = error as? DBBError else { return false }
            return error.resultCode == .constraint && error.context?.contains("row 15000 of table t") == true
        }
        #expect(try folder.contents() == ["rows.json.gz"])
        // verify loads the rows under the same constraints, so it refuses what restore refuses.
        #expect {
            try DBBExport.verify(dumpAt: dump)
        } throws: { error in
            guard let error = error as? DBBError else { return false }
            return error.resultCode == .constraint && error.context?.contains("row 15000 of table t") == true
        }
    }

    @Test(
        "schema SQL must be exactly one CREATE statement, so a crafted dump cannot run other SQL",
        arguments: [
            "CREATE TABLE t (id INTEGER PRIMARY KEY, v); ATTACH DATABASE 'attached.sqlite' AS x",
            "ATTACH DATABASE 'attached.sqlite' AS x",
        ])
    func craftedSchema(sql: String) throws {
        let folder = try TemporaryFolder()
        let dump = folder.file("crafted.json.gz")
        let text = Self.handMade().replacingOccurrences(of: "CREATE TABLE t (id INTEGER PRIMARY KEY, v)", with: sql)
        try Self.write(text, to: dump)
        #expect(throws: (any Error).self) {
            try DBBExport.restore(dumpAt: dump, to: folder.file("new.sqlite"))
        }
        #expect(try folder.contents() == ["crafted.json.gz"])
        #expect(!FileManager.default.fileExists(atPath: "attached.sqlite"))
    }

    @Test("a target that is the input file itself is refused, even with replacing asked for")
    func targetIsInput() throws {
        let folder = try TemporaryFolder()
        let original = try copyOfFixture("chinook.sqlite", into: folder)
        let before = try Data(contentsOf: original)
        let replace = DBBDumpOptions(replaceExisting: true)
        #expect(throws: DBBExportError.self) {
            try DBBExport.dump(databaseAt: original, to: original, options: replace)
        }
        #expect(try Data(contentsOf: original) == before)
        let dump = folder.file("c.json.gz")
        try DBBExport.dump(databaseAt: original, to: dump)
        let dumpBytes = try Data(contentsOf: dump)
        #expect(throws: DBBExportError.self) {
            try DBBExport.restore(dumpAt: dump, to: dump, options: DBBRestoreOptions(replaceExisting: true))
        }
        #expect(try Data(contentsOf: dump) == dumpBytes)
        #expect(try folder.contents() == ["c.json.gz", "chinook.sqlite"])
    }
}
