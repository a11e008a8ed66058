import DBBExport
import Foundation
import Testing

/// With `import DBBExport` alone, its errors are caught by type and told apart by kind and code: the module
/// re-exports what its throwing API exposes (`DBBError`, `DBBDatabase`), and nothing else is imported here.
@Suite struct ExportAloneErrorTests {
    /// What a caller does with the errors: a branch per kind or code, naming every type.
    static func outcome(_ body: () throws -> Void) -> String {
        do {
            try body()
            return "no error"
        } catch let error as DBBExportError {
            switch error.kind {
            case .targetExists: return "target exists"
            case .missingInput: return "missing input"
            case .corruptCompression: return "damaged gzip"
            default: return "export error \(error.kind)"
            }
        } catch let error as DBBError {
            switch error.resultCode {
            case .notADatabase: return "not a database"
            case .constraint: return "constraint"
            default: return "SQLite error \(error.extendedCode)"
            }
        } catch {
            return "other error"
        }
    }

    @Test func errorsAreCaughtByTypeAndKind() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dbb-export-errors-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let database = folder.appendingPathComponent("app.sqlite")
        let dump = folder.appendingPathComponent("app.json.gz")
        let notes = folder.appendingPathComponent("notes.txt")
        try Data(String(repeating: "plain notes, not a database\n", count: 50).utf8).write(to: notes)

        let db = try DBBDatabase(path: database.path)
        try db.execute("CREATE TABLE t (id INTEGER PRIMARY KEY, name TEXT UNIQUE)")
        try db.execute("INSERT INTO t (name) VALUES ('a')")
        #expect(Self.outcome { try db.execute("INSERT INTO t (name) VALUES ('a')") } == "constraint")
        #expect(Self.outcome { try DBBExport.dump(db, to: dump) } == "no error")
        try db.close()

        #expect(Self.outcome { try DBBExport.dump(databaseAt: notes, to: dump) } == "target exists")
        #expect(
            Self.outcome {
                try DBBExport.dump(
                    databaseAt: notes, to: folder.appendingPathComponent("notes.json.gz"))
            } == "not a database")
        #expect(
            Self.outcome { _ = try DBBExport.verify(dumpAt: folder.appendingPathComponent("nope.gz")) }
                == "missing input")
        var damaged = try Data(contentsOf: dump)
        damaged[damaged.count - 8] ^= 0x01  // the gzip trailer's CRC-32
        try damaged.write(to: dump)
        #expect(Self.outcome { _ = try DBBExport.verify(dumpAt: dump) } == "damaged gzip")
    }
}
