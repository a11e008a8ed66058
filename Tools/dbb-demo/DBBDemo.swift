// dbb-demo: a tour of DBBBuilder on a database it creates. Run: swift run dbb-demo [--help]
import ArgumentParser
import Foundation

@main
struct DBBDemo: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "dbb-demo",
        abstract: "A tour of DBBBuilder on a small database of people, companies, projects and meetings.",
        discussion: """
            With no options it creates the database in a new temporary folder, saves objects with references \
            and arrays, queries them with conditions and sorting, updates and deletes some, then dumps the \
            database with DBBExport and restores the dump into a second file, and removes the folder \
            unless --keep is given. Each step names the source file and line of its code.
            """)

    @Option(name: .long, help: "Create the database at this path (it must not exist yet) and keep it.")
    var database: String?

    @Flag(name: .long, help: "Keep the temporary folder (the database, the dump and its restored copy).")
    var keep = false

    @Flag(name: .long, help: "Tour DBBSQL, the SQLite layer, on plain tables instead.")
    var sql = false

    func validate() throws {
        if let database, FileManager.default.fileExists(atPath: URL(fileURLWithPath: database).path) {
            throw ValidationError("\(database) exists already; name a new file, so the demo overwrites nothing")
        }
    }

    mutating func run() async throws {
        let folder = FileManager.default.temporaryDirectory.appendingPathComponent("dbb-demo-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
        let databaseURL = database.map { URL(fileURLWithPath: $0) } ?? folder.appendingPathComponent("demo.sqlite")
        do {
            if sql {
                try runSQLTour(databaseAt: databaseURL)
            } else {
                try await runObjectTour(databaseAt: databaseURL, backupFolder: folder)
            }
        } catch {
            try? FileManager.default.removeItem(at: folder)
            throw error
        }
        print("")
        if keep {
            print("kept the database: \(databaseURL.path)")
            if !sql { print("kept the dump and its restored copy in \(folder.path)") }
            print("look inside with: sqlite3 \(databaseURL.path) .tables")
        } else {
            try FileManager.default.removeItem(at: folder)
            if let database {
                print("done; the database is at \(database)")
            } else {
                print("done; removed the database and its folder (run with --keep to keep them)")
            }
        }
    }
}
