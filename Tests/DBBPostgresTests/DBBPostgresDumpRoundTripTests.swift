import DBBBuilder
import DBBExport
import DBBPostgres
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// Round trips through a dump of PostgreSQL: an SQLite database restored into PostgreSQL and dumped back holds
/// the same rows (integers exact, doubles bit for bit, bytes exact), and objects the object layer wrote on
/// PostgreSQL read back equal from SQLite, and from PostgreSQL again.
@Suite(.postgres)
struct DBBPostgresDumpRoundTripTests {
    typealias Member = ServerModels.Member
    typealias Team = ServerModels.Team
    typealias Badge = ServerModels.Badge

    /// A value as bytes: what a column that does not keep its storage class (text, numbers and BLOBs mixed) keeps.
    static func bytes(_ value: DBBValue) -> Data? {
        switch value {
        case .null: nil
        case .integer(let number): Data(String(number).utf8)
        case .real(let number): Data(number.description.utf8)
        case .text(let text): Data(text.utf8)
        case .blob(let data): data
        }
    }

    /// Same storage class and same exact value: doubles bit for bit.
    static func identical(_ a: DBBValue, _ b: DBBValue) -> Bool {
        switch (a, b) {
        case (.real(let x), .real(let y)): x.bitPattern == y.bitPattern
        default: a == b
        }
    }

    /// Each table's rows, in rowid order (key order for a WITHOUT ROWID table), the rowid first.
    static func tables(of url: URL) throws -> [String: [[DBBValue]]] {
        let db = try DBBDatabase(path: url.path, mode: .readOnly)
        defer { try? db.close() }
        var result: [String: [[DBBValue]]] = [:]
        let names = try db.fetchValues(
            String.self,
            "SELECT name FROM sqlite_master WHERE type = 'table' AND name NOT LIKE 'sqlite_%' AND sql NOT LIKE 'CREATE VIRTUAL%'"
        )
        for name in names {
            let sql = try db.fetchValue(String.self, "SELECT sql FROM sqlite_master WHERE name = ?", name) ?? ""
            let rowid = !sql.uppercased().contains("WITHOUT ROWID")
            var rows: [[DBBValue]] = []
            try db.forEachRow(
                "SELECT \(rowid ? "_rowid_, " : "")* FROM \(DBBDatabase.quoteIdentifier(name))"
                    + (rowid ? " ORDER BY _rowid_" : "")
            ) { row in
                rows.append((0..<row.count).map { row.value(at: $0) })
            }
            result[name] = rows
        }
        return result
    }

    /// The columns whose values differ in storage class between two files, as `table.column`; records an issue
    /// for any other difference.
    static func compare(_ original: URL, _ copy: URL, fixture: String) throws -> Set<String> {
        let before = try tables(of: original)
        let after = try tables(of: copy)
        #expect(Set(before.keys) == Set(after.keys), "\(fixture): the tables differ")
        let db = try DBBDatabase(path: original.path, mode: .readOnly)
        defer { try? db.close() }
        var lossy: Set<String> = []
        for (table, rows) in before {
            let copied = after[table] ?? []
            #expect(rows.count == copied.count, "\(fixture): \(table) has \(copied.count) rows, not \(rows.count)")
            let columns = try db.fetchValues(
                String.self, "SELECT name FROM pragma_table_info(?) ORDER BY cid", table)
            for (row, copiedRow) in zip(rows, copied) {
                #expect(row.count == copiedRow.count, "\(fixture): \(table) has other columns")
                for (index, (value, copiedValue)) in zip(row, copiedRow).enumerated()
                where !identical(value, copiedValue) {
                    let offset = row.count - columns.count
                    let column = index < offset ? "rowid" : columns[index - offset]
                    // A column whose storage classes are mixed keeps its values' bytes, not their classes.
                    if bytes(value) == bytes(copiedValue) {
                        lossy.insert("\(table).\(column)")
                    } else {
                        Issue.record("\(fixture): \(table).\(column): \(value) became \(copiedValue)")
                        return lossy
                    }
                }
            }
        }
        return lossy
    }

    /// The DBBBuilder-layout database the restore tests use.
    static let builderLayout = DBBPostgresRestoreTests.builderLayout

    @Test(
        "SQLite → PostgreSQL → dump → SQLite ends with the same rows, exact",
        arguments: [
            "chinook.sqlite", "northwind.sqlite", "sakila.sqlite", "mbtiles_plain_2.sqlite", "builder", "mixed",
        ])
    func fixtureRoundTripsExactly(name: String) async throws {
        let folder = try TemporaryFolder()
        let original: URL
        if name == "builder" || name == "mixed" {
            original = folder.file("\(name).sqlite")
            let db = try DBBDatabase(path: original.path)
            if name == "builder" {
                try db.executeStatements(Self.builderLayout)
            } else {
                // Columns whose values mix storage classes, text with NUL among them.
                try db.executeStatements(DBBPostgresRestoreSpeculationTests.misleading)
                try db.execute("INSERT INTO note VALUES (?, NULL)", "with \u{0} inside")
            }
            try db.close()
        } else {
            original = try copyOfFixture(name, into: folder)
        }
        let firstDump = folder.file("first.json.gz")
        try DBBExport.dump(databaseAt: original, to: firstDump)
        let secondDump = folder.file("second.json.gz")
        let configuration = try await TestPostgres.freshDatabase()
        let (plan, report) = try await TestPostgres.onQueue { () -> (DBBPostgresRestorePlan, DBBDumpReport) in
            let db = try DBBPostgresConnection.connect(configuration)
            defer { try? db.close() }
            let restored = try DBBPostgresRestore.restore(
                dumpAt: firstDump, into: db, options: DBBPostgresRestoreOptions(schema: "trip"))
            let report = try DBBPostgresDump.dump(
                from: db, to: secondDump, options: DBBPostgresDumpOptions(schema: "trip"))
            return (restored.plan, report)
        }
        let copy = folder.file("copy.sqlite")
        try DBBExport.restore(dumpAt: secondDump, to: copy)
        // The restored file holds exactly what the dump holds: the dump wrote each value as SQLite stores it.
        let difference = try DBBExport.compare(dumpAt: secondDump, withDatabaseAt: copy)
        #expect(difference == nil, "\(name): \(String(describing: difference))")
        let lossy = try Self.compare(original, copy, fixture: name)
        // The only differences are the columns the restore's plan noted as not keeping their storage class.
        let noted = Set(
            plan.tables.flatMap { table in
                table.columns.filter { !$0.keepsStorageClass }.map { "\(table.name).\($0.name)" }
            })
        #expect(lossy.isSubset(of: noted), "\(name): \(lossy.subtracting(noted).sorted()) differ without a note")
        #expect(lossy == Self.expectedLossy[name, default: []], "\(name): \(lossy.sorted())")
        // `verify --data-only` of the first dump against the copy: identical but for those columns.
        let dataDifference = try DBBExport.compare(dumpAt: firstDump, withDatabaseAt: copy, dataOnly: true)
        if lossy.isEmpty {
            #expect(dataDifference == nil, "\(name): \(String(describing: dataDifference))")
        } else {
            let column = dataDifference.map { "\($0.table ?? "").\($0.column ?? "")" }
            #expect(column.map(lossy.contains) == true, "\(name): \(String(describing: dataDifference))")
        }
        // The source's header values and what PostgreSQL did not create come back from the restore's metadata.
        let originalHeader = try DBBExport.inspect(dumpAt: firstDump).header
        #expect(report.header.userVersion == originalHeader.userVersion)
        #expect(report.header.applicationID == originalHeader.applicationID)
        #expect(!report.tables.contains { $0.name.hasPrefix("dbb_sqlite_metadata") })
        let views = try DBBExport.inspect(dumpAt: firstDump).schema.filter { $0.type == "view" }.map(\.name)
        #expect(
            Set(views).isSubset(of: Set(report.header.sourceObjects.filter { $0.type == "SQLite view" }.map(\.name))))
    }

    /// The columns whose values come back with another storage class: the restore into PostgreSQL notes each one
    /// ("the storage class is not kept") because its values mix text, numbers and BLOBs.
    static let expectedLossy: [String: Set<String>] = [
        // Text with NUL (PostgreSQL's text cannot hold it) and text mixed with BLOBs: bytea, each value its bytes.
        "mixed": ["note.body", "note.extra"]
    ]

    @Test("objects written by the object layer on PostgreSQL read back equal from SQLite, and from PostgreSQL again")
    func objectsRoundTripThroughSQLite() async throws {
        let folder = try TemporaryFolder()
        let source = try await TestPostgres.freshDatabase()
        let dumpURL = folder.file("objects.json.gz")
        let expected = try await TestPostgres.onQueue { () -> [String] in
            let manager = try DBBManager(postgres: source)
            try manager.addTableClasses(ServerModels.all)
            let ada = Member(dbManager: manager)
            ada.name = "Ada"
            ada.age = 36
            ada.score = 0.1
            ada.active = true
            ada.joined = Date(timeIntervalSinceReferenceDate: 786_000_000.123456)
            ada.tags = ["math", "engines", ""]
            ada.photo = Data([0, 1, 2, 255])
            let grace = Member(dbManager: manager)
            grace.name = "Grace"
            grace.age = -7
            grace.score = -1.7976931348623157e308
            grace.nickname = "amazing ✓"
            grace.mentor = ada
            let team = Team(dbManager: manager)
            team.title = "Analytical"
            team.budget = 1.1
            team.members = [grace, ada]
            team.lead = ada
            team.ratings = [.leastNonzeroMagnitude, 0.3, 1e300]
            let badge = Badge(dbManager: manager)
            badge.label = "first"
            badge.level = .max
            try Member.save([ada, grace], manager: manager)
            try team.save()
            try badge.save()
            let described = try Self.describe(manager)
            let connection = try DBBPostgresConnection.connect(source)
            defer { try? connection.close() }
            try DBBPostgresDump.dump(from: connection, to: dumpURL, options: DBBPostgresDumpOptions(schema: "public"))
            try manager.close()
            return described
        }
        #expect(expected.count == 4)
        // SQLite: the library's classes open the file and find every object.
        let sqlite = folder.file("objects.sqlite")
        try DBBExport.restore(dumpAt: dumpURL, to: sqlite)
        let fromSQLite = try synchronously { () -> [String] in
            let manager = try DBBManager(databaseURL: sqlite)
            defer { try? manager.close() }
            try manager.addTableClasses(ServerModels.all)
            return try Self.describe(manager)
        }
        #expect(fromSQLite == expected)
        #expect(try DBBExport.compare(dumpAt: dumpURL, withDatabaseAt: sqlite) == nil)
        // And back: the SQLite file dumped and restored into PostgreSQL.
        let back = folder.file("back.json.gz")
        try DBBExport.dump(databaseAt: sqlite, to: back)
        let target = try await TestPostgres.freshDatabase()
        let fromPostgres = try await TestPostgres.onQueue { () -> [String] in
            let connection = try DBBPostgresConnection.connect(target)
            try DBBPostgresRestore.restore(
                dumpAt: back, into: connection, options: DBBPostgresRestoreOptions(schema: "public"))
            try connection.close()
            let manager = try DBBManager(postgres: target)
            defer { try? manager.close() }
            try manager.addTableClasses(ServerModels.all)
            return try Self.describe(manager)
        }
        #expect(fromPostgres == expected)
    }

    /// Every object of the models, every property written out exactly (doubles by their bits).
    static func describe(_ manager: DBBManager) throws -> [String] {
        func time(_ date: Date?) -> String {
            date.map { String($0.timeIntervalSinceReferenceDate.bitPattern, radix: 16) } ?? "nil"
        }
        func bits(_ number: Double) -> String { String(number.bitPattern, radix: 16) }
        let members = try Member.fetchAll(manager: manager).sorted { $0.idNum < $1.idNum }.map { member in
            "member \(member.idNum) \(time(member.createdTime)) \(time(member.modifiedTime)) \(member.name) "
                + "\(member.age) \(bits(member.score)) \(member.active) \(time(member.joined)) "
                + "\(member.nickname ?? "nil") \(member.tags) \(member.photo.map { [UInt8]($0) } ?? []) "
                + "\(member.mentor?.idNum ?? 0)"
        }
        let teams = try Team.fetchAll(manager: manager).sorted { $0.idNum < $1.idNum }.map { team in
            "team \(team.idNum) \(time(team.createdTime)) \(time(team.modifiedTime)) \(team.title) "
                + "\(team.budget.bitPattern) \(team.members.map(\.idNum)) \(team.lead?.idNum ?? 0) "
                + "\(team.ratings.map(bits))"
        }
        let badges = try Badge.fetchAll(manager: manager).map { "badge \($0.idNum) \($0.label) \($0.level)" }
        return members + teams + badges
    }
}
