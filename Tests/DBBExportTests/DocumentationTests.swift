import DBBExport
import DBBSQL
import Foundation
import Testing

/// Keeps Docs/DumpFormat.md true: its examples are restored and checked.
@Suite("Docs/DumpFormat.md")
struct DocumentationTests {
    static let document: String = {
        let url = repositoryRoot.appendingPathComponent("Docs/DumpFormat.md")
        return (try? String(contentsOf: url, encoding: .utf8)) ?? ""
    }()

    /// The rows of the value table in §6: storage class and the examples in backticks.
    static func valueExamples() -> [(storageClass: String, examples: [String])] {
        let lines = document.components(separatedBy: "\n")
        guard let header = lines.firstIndex(of: "| storage class | JSON | examples |") else { return [] }
        var result: [(String, [String])] = []
        for line in lines[(header + 2)...] {
            guard line.hasPrefix("|") else { break }
            let cells = line.split(separator: "|").map { $0.trimmingCharacters(in: .whitespaces) }
            let examples = cells.last!.components(separatedBy: "`").enumerated().filter { $0.offset % 2 == 1 }
                .map(\.element)
            result.append((cells[0], examples))
        }
        return result
    }

    @Test("every value example of §6 restores in the storage class it documents")
    func valueTable() throws {
        let table = Self.valueExamples()
        #expect(table.count == 7)
        var rows: [String] = []
        var expected: [String] = []
        for (storageClass, examples) in table {
            for example in examples {
                rows.append("[\(rows.count + 1),\(example)]")
                let sqlClass = storageClass.split(separator: " ")[0].trimmingCharacters(in: .punctuationCharacters)
                // SQLite stores NaN as NULL.
                expected.append(example == #"{"real":"nan"}"# ? "null" : sqlClass.lowercased())
            }
        }
        #expect(rows.count >= 15)
        let folder = try TemporaryFolder()
        let dump = folder.file("doc.json.gz")
        try BadInputTests.write(
            BadInputTests.handMade(rows: rows.joined(separator: ",\n"), rowCount: rows.count), to: dump)
        let target = folder.file("doc.sqlite")
        try DBBExport.restore(dumpAt: dump, to: target)
        let db = try DBBDatabase(path: target.path, mode: .readOnly)
        #expect(try db.fetchValues(String.self, "SELECT typeof(v) FROM t ORDER BY id") == expected)
        #expect(
            try db.fetchValue(String.self, "SELECT hex(v) FROM t WHERE v = CAST(x'61ff62c3' AS TEXT)") == "61FF62C3")
        #expect(
            try db.fetchValue(Double.self, "SELECT v FROM t WHERE typeof(v) = 'real' AND v < 1e-300 AND v > 0")
                == .leastNonzeroMagnitude)
    }

    @Test("the example table section of §5 is a valid section")
    func tableSection() throws {
        let start = try #require(Self.document.range(of: "{\"name\":\"PlaylistTrack\""))
        let end = try #require(Self.document.range(of: "]}", range: start.upperBound..<Self.document.endIndex))
        var section = String(Self.document[start.lowerBound..<end.upperBound])
        section = section.replacingOccurrences(of: "\"rowCount\":8715", with: "\"rowCount\":2")
        let text = """
            {"format":"dbb-dump","version":1,
            "header":{"tables":[{"name":"PlaylistTrack","rowCount":2}]},
            "schema":[{"type":"table","name":"PlaylistTrack","tbl_name":"PlaylistTrack",
              "sql":"CREATE TABLE PlaylistTrack (PlaylistId INTEGER, TrackId INTEGER, PRIMARY KEY (PlaylistId, TrackId))"}],
            "tables":[\(section)]}
            """
        let folder = try TemporaryFolder()
        let dump = folder.file("section.json.gz")
        try BadInputTests.write(text, to: dump)
        let target = folder.file("section.sqlite")
        try DBBExport.restore(dumpAt: dump, to: target)
        let db = try DBBDatabase(path: target.path, mode: .readOnly)
        #expect(try db.fetchValues(Int64.self, "SELECT rowid FROM PlaylistTrack ORDER BY rowid") == [1, 2])
        #expect(try db.fetchValues(Int64.self, "SELECT TrackId FROM PlaylistTrack ORDER BY rowid") == [3402, 3389])
    }
}
