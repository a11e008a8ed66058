import DBBExport
import Foundation
import Testing

/// Pick and choose: a target that imports only `DBBExport` backs up and restores a database written by
/// someone else, with nothing else of the package in sight.
@Suite struct ExportAloneTests {
    /// The Chinook fixture of the repository (`Tests/Fixtures`), found from this file's path since this target
    /// has no test support.
    static let chinook = URL(fileURLWithPath: #filePath)
        .deletingLastPathComponent().deletingLastPathComponent().appendingPathComponent("Fixtures/chinook.sqlite")

    @Test func dumpVerifyRestoreAndCompareChinook() throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dbb-export-alone-\(UUID())")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        defer { try? FileManager.default.removeItem(at: folder) }
        let dump = folder.appendingPathComponent("chinook.json.gz")
        let copy = folder.appendingPathComponent("copy.sqlite")

        let written = try DBBExport.dump(databaseAt: Self.chinook, to: dump)
        let tracks = written.tables.first { $0.name == "Track" }
        #expect(tracks?.rowCount == 3503)
        #expect(written.tables.count == 11)

        let verified = try DBBExport.verify(dumpAt: dump)
        #expect(verified.tables.map(\.rowCount) == written.tables.map(\.rowCount))
        try DBBExport.restore(dumpAt: dump, to: copy)
        #expect(try DBBExport.compare(dumpAt: dump, withDatabaseAt: copy) == nil)
        #expect(try DBBExport.compare(dumpAt: dump, withDatabaseAt: Self.chinook) == nil)
        #expect(throws: DBBExportError.self) { try DBBExport.restore(dumpAt: dump, to: copy) }
    }
}
