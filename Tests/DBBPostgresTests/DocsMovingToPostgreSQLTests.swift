import DBBBuilder
import DBBPostgres
import DBBTestSupport
import Foundation
import Testing

/// The guide's "From SQLite to PostgreSQL in five commands", run as written: a DBBBuilder database on SQLite,
/// dumped, restored and compared with `dbb-backup` (the password in `PGPASSWORD`, not in the URL), then opened
/// with `DBBManager(postgres:)` and the URL alone.
@Suite(.postgres)
struct DocsMovingToPostgreSQLTests {
    @DBBTable
    final class Board: DBBTableObject {
        @Indexed var name = ""
        var cards: [Card] = []
    }

    @DBBTable
    final class Card: DBBTableObject {
        var title = ""
        var done = false
        var due: Date?
        var labels: [String] = []
    }

    static let title = "## From SQLite to PostgreSQL in five commands"

    /// The section of the guide, up to the next section.
    static func section() throws -> String {
        let guide = try String(
            contentsOf: repositoryRoot.appendingPathComponent("Docs/MovingToPostgreSQL.md"), encoding: .utf8)
        let start = try #require(guide.range(of: title))
        let rest = guide[start.upperBound...]
        return String(rest[..<(rest.range(of: "\n## ")?.lowerBound ?? rest.endIndex)])
    }

    func openTheBoard(url: String) throws -> (boards: Int, cards: Int) {
        let manager = try DBBManager(postgres: try DBBPostgresConfiguration(url: url))
        defer { try? manager.close() }
        try manager.addTableClasses([Board.self, Card.self])
        return (try Board.fetchCount(manager: manager), try Card.fetchCount(manager: manager))
    }

    @Test func theSectionShowsOnlyCodeThatIsHere() throws {
        #expect(
            DocSnippets.missingBlocks(
                markdown: try Self.section(), source: try String(contentsOfFile: #filePath, encoding: .utf8)) == [])
        #expect(!DocSnippets.swiftBlocks(in: try Self.section()).isEmpty)
    }

    @Test func theFiveCommandsMoveTheData() async throws {
        let folder = try TemporaryFolder()
        // The application's SQLite database.
        let sqlite = try DBBManager(databaseURL: folder.file("board.sqlite"))
        try sqlite.addTableClasses([Board.self, Card.self])
        let board = Board(dbManager: sqlite)
        board.name = "Launch"
        for (index, title) in ["Write", "Test", "Ship"].enumerated() {
            let card = Card(dbManager: sqlite)
            card.title = title
            card.done = index == 0
            card.due = index == 2 ? Date(timeIntervalSinceReferenceDate: 800_000_000.25) : nil
            card.labels = index == 1 ? ["qa", "urgent"] : []
            board.cards.append(card)
        }
        try await board.save()
        try sqlite.close()

        let configuration = try await TestPostgres.freshDatabase()
        let password = try #require(configuration.password)
        let guideURL = "postgres://app@127.0.0.1:5432/app"
        let url =
            "postgres://\(configuration.username)@\(configuration.host):\(configuration.port)/"
            + (configuration.database ?? "")
        let tool = try #require(ToolProcess.executable("dbb-backup"))
        let commands = try #require(DocSnippets.blocks("sh", in: try Self.section()).first)
        var ran: [String] = []
        for line in commands {
            let command = String(line.prefix { $0 != "#" }).trimmingCharacters(in: .whitespaces)
            guard command.hasPrefix(".build/debug/dbb-backup ") else { continue }
            let arguments = command.split(separator: " ").dropFirst().map {
                $0 == guideURL ? url : String($0)
            }
            let run = try ToolProcess.run(
                executable: tool, arguments, in: folder.url, environment: ["PGPASSWORD": password])
            #expect(run.exitCode == 0, "\(command): \(run.standardError)")
            #expect(!run.standardOutput.contains(password) && !run.standardError.contains(password))
            ran.append(arguments[0])
            if arguments[0] == "restore" {
                #expect(run.standardOutput.contains("into schema public of postgres://"), "\(run.standardOutput)")
                #expect(run.standardOutput.contains("finds them there"), "\(run.standardOutput)")
            }
        }
        #expect(ran == ["dump", "restore", "verify"])

        // The fifth: a manager opened with the URL finds the objects, as they were (this process has no
        // PGPASSWORD: its URL carries the password).
        let withPassword =
            "postgres://\(configuration.username):\(password)@\(configuration.host):\(configuration.port)/"
            + (configuration.database ?? "") + "?sslmode=disable"
        let counts = try await TestPostgres.onQueue { try openTheBoard(url: withPassword) }
        #expect(counts.boards == 1)
        #expect(counts.cards == 3)
        let loaded = try await TestPostgres.onQueue {
            let manager = try DBBManager(postgres: try DBBPostgresConfiguration(url: withPassword))
            defer { try? manager.close() }
            try manager.addTableClasses([Board.self, Card.self])
            let boards = try Board.fetchAll(manager: manager)
            return boards.map { board in
                [board.name]
                    + board.cards.map {
                        "\($0.title) \($0.done) \($0.due?.timeIntervalSinceReferenceDate ?? -1) \($0.labels)"
                    }
            }
        }
        #expect(
            loaded == [
                ["Launch", "Write true -1.0 []", "Test false -1.0 [\"qa\", \"urgent\"]", "Ship false 800000000.25 []"]
            ])
    }
}
