import DBBObjects
import Foundation
import Testing

/// A class for a table that another program wrote.
final class Note: DBBTableObject {
    var title = ""
    var tags: [String] = []

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(["title": .init(\Note.title), "tags": .init(\Note.tags)], for: self)
    }
}

/// Read-only managers: a file is opened, mapped and read without a byte of it changing.
@Suite struct DBBManagerReadOnlyTests {
    /// The bytes of every file in a folder, by name.
    static func snapshot(_ folder: TemporaryFolder) throws -> [String: Data] {
        var files: [String: Data] = [:]
        for name in try FileManager.default.contentsOfDirectory(atPath: folder.url.path) {
            files[name] = try Data(contentsOf: folder.file(name))
        }
        return files
    }

    /// A file in rollback-journal mode, as other programs write them, with no DBVersion table.
    static func someoneElsesFile(_ folder: TemporaryFolder) throws -> URL {
        let url = folder.file("notes.sqlite")
        let db = try DBBDatabase(url: url)
        try db.executeStatements(
            """
            CREATE TABLE Note (id INTEGER PRIMARY KEY, createdTime REAL, modifiedTime REAL, title TEXT);
            CREATE TABLE Note_tags (id INTEGER PRIMARY KEY, Note_ID INTEGER, tags TEXT);
            INSERT INTO Note (id, title) VALUES (1, 'first'), (2, 'second');
            INSERT INTO Note_tags (Note_ID, tags) VALUES (2, 'a'), (2, 'b');
            """)
        try db.close()
        return url
    }

    @Test func aFileIsMappedAndReadWithoutChangingAByte() throws {
        let folder = try TemporaryFolder()
        let url = try Self.someoneElsesFile(folder)
        let before = try Self.snapshot(folder)
        #expect(before.keys.sorted() == ["notes.sqlite"])

        let reader = try DBBManager(databaseURL: url, mode: .readOnly)
        #expect(reader.mode == .readOnly)
        try reader.addTableClasses([Note.self])
        let notes = try Note.fetchAll(manager: reader)
        #expect(notes.map(\.title) == ["first", "second"])
        #expect(notes.map(\.tags) == [[], ["a", "b"]])
        #expect(try Note.fetchCount(manager: reader) == 2)
        #expect(try reader.queue.inDatabase { db in try db.tableNames() } == ["Note", "Note_tags"])
        try reader.close()

        #expect(try Self.snapshot(folder) == before)  // no DBVersion, no index, no WAL, no -wal or -shm
    }

    @Test func everyWriteIsRefusedWithAClearError() throws {
        let folder = try TemporaryFolder()
        let url = try Self.someoneElsesFile(folder)
        let before = try Self.snapshot(folder)
        let reader = try DBBManager(databaseURL: url, mode: .readOnly)
        try reader.addTableClasses([Note.self])
        let note = try #require(try Note.fetchOne(id: 2, manager: reader))
        note.title = "changed"

        let save = #expect(throws: DBBError.self) { try note.save() }
        #expect(save?.kind == .misuse)
        #expect(save?.message == "this manager was opened read-only; saving objects would change the file")
        #expect(note.saveToDB() == false)
        #expect(reader.errorMessage().hasPrefix("this manager was opened read-only"))
        #expect(throws: DBBError.self) { try note.delete() }
        #expect(throws: DBBError.self) { try Note.deleteAll(manager: reader) }
        #expect(throws: DBBError.self) { try Note.save([Note(dbManager: reader)], manager: reader) }
        #expect(throws: DBBError.self) { try reader.setDatabaseVersion(2) }
        #expect(throws: DBBError.self) { try reader.dropIndex("anything") }
        #expect(throws: DBBError.self) { try reader.vacuum() }
        // SQL of one's own meets SQLite's read-only connection.
        let sql = #expect(throws: DBBError.self) {
            try reader.queue.inDatabase { db in try db.execute("DELETE FROM Note") }
        }
        #expect(sql.map(DBBError.readOnly.matches) == true)
        #expect(note.idNum == 2)
        try reader.close()
        #expect(try Self.snapshot(folder) == before)
    }

    @Test func aClassWithoutItsTableIsRefusedAndNothingIsCreated() throws {
        let folder = try TemporaryFolder()
        let url = try Self.someoneElsesFile(folder)
        let before = try Self.snapshot(folder)
        let reader = try DBBManager(databaseURL: url, mode: .readOnly)
        let error = #expect(throws: DBBError.self) { try reader.addTableClasses([Person.self]) }
        #expect(error?.kind == .misuse)
        #expect(error?.message == "the file has no table Person, and a read-only manager does not create it")
        #expect(throws: DBBError.self) { try Person.fetchAll(manager: reader) }  // not registered
        try reader.close()
        #expect(try Self.snapshot(folder) == before)
    }

    @Test func aDBBBuilderFileInWALModeIsReadAsItIs() throws {
        let folder = try TemporaryFolder()
        let url = folder.file("people.sqlite")
        do {
            let writer = try DBBManager(databaseURL: url)
            try writer.addTableClasses(Models.all)
            let people = ["Ann", "Bo"].map { name -> Person in
                let person = Person(dbManager: writer)
                person.firstName = name
                person.nicknames = [name.lowercased()]
                return person
            }
            try Person.save(people, manager: writer)
            try writer.setDatabaseVersion(3)
            try writer.close()
        }
        let before = try Self.snapshot(folder)
        #expect(before.keys.sorted() == ["people.sqlite"])

        let reader = try DBBManager(databaseURL: url, mode: .readOnly)
        try reader.addTableClasses(Models.all)
        #expect(try Person.fetchAll(manager: reader).map(\.nicknames) == [["ann"], ["bo"]])
        #expect(try reader.databaseVersion() == 3)
        #expect(try reader.queue.inDatabase { db in try db.journalMode() } == .wal)
        try reader.close()
        #expect(try Self.snapshot(folder) == before)  // the -wal and -shm files SQLite used are gone
    }
}

extension DBBManagerReadOnlyTests {
    @Test func aMissingFileIsAnErrorAndIsNotCreated() throws {
        let folder = try TemporaryFolder()
        let error = #expect(throws: DBBError.self) {
            _ = try DBBManager(databaseURL: folder.file("missing.sqlite"), mode: .readOnly)
        }
        #expect(error?.resultCode == .cannotOpen)
        #expect(try Self.snapshot(folder).isEmpty)
    }
}
