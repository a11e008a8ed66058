import DBBMacros
import DBBObjects
import DBBQuery
import DBBSQL
import DBBTestSupport
import Foundation
import Synchronization
import Testing

/// A class whose whole-row reader is written by hand and counts its calls, to see when a load uses it.
class CountedNote: DBBTableObject {
    static let reads = Mutex(0)
    /// The properties the reader claims; a test sets a list that differs from the mapping.
    static let claimed = Mutex(["title", "pages", "note"])

    var title = ""
    var pages = 0
    var note: String?

    override class var persistenceMapping: DBBTableMapping {
        DBBTableMapping([
            "title": .init(get: { (object: CountedNote) -> String in object.title }, set: { $0.title = $1 }),
            "pages": .init(get: { (object: CountedNote) -> Int in object.pages }, set: { $0.pages = $1 }),
            "note": .init(get: { (object: CountedNote) -> String? in object.note }, set: { $0.note = $1 }),
        ])
    }

    // No guard on the class: a subclass inherits the reader, and is handed its own objects.
    override class var dbbRowReader: DBBRowReader? {
        DBBRowReader(CountedNote.self, properties: claimed.withLock { $0 }) { object, row, positions in
            guard let object = object as? CountedNote else {
                throw DBBRowReader.wrongClass(object, expected: CountedNote.self)
            }
            reads.withLock { $0 += 1 }
            if let value = try row.dbbValue(at: positions[0], as: object.title) { object.title = value }
            if let value = try row.dbbValue(at: positions[1], as: object.pages) { object.pages = value }
            if let value = try row.dbbValue(at: positions[2], as: object.note) { object.note = value }
        }
    }
}

/// A subclass that maps nothing more: its objects are read with the reader it inherits.
final class SpecialNote: CountedNote {}

/// A class whose property has an observer of its own (persisted, not tracked), which sees what a load has set
/// before it: the id, and the properties whose names come first.
@DBBTable
final class ObservedEntry: DBBTableObject {
    // Declared before `code`, which the closures (in column order, by name) set first.
    var title = "" {
        didSet { seen = "\(idNum) \(code) \(title)" }
    }
    var code = ""
    @Transient var seen = ""
}

/// How a load uses the whole-row reader that `@DBBTable` writes (`dbbRowReader`), and where it does not.
@Suite(.serialized) struct MacroRowReaderTests {
    typealias Friend = MacroModels.Friend
    typealias EveryKind = MacroModels.EveryKind

    private static func reads() -> Int { CountedNote.reads.withLock { $0 } }

    private static func notes(_ manager: DBBManager) throws -> [CountedNote] {
        for (title, pages, note) in [("A", 10, "first"), ("B", 20, nil), ("C", 30, "third")] {
            let object = CountedNote(dbManager: manager)
            (object.title, object.pages, object.note) = (title, pages, note)
            #expect(object.saveToDB())
        }
        return CountedNote.allInstances(manager: manager)
    }

    @Test func aWholeLoadMakesEachObjectWithTheReaderAndAPartOrSparseLoadDoesNot() throws {
        CountedNote.claimed.withLock { $0 = ["title", "pages", "note"] }
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("reader.sqlite"))
        try manager.addTableClasses([CountedNote.self])
        let before = Self.reads()
        let loaded = try Self.notes(manager).sorted { $0.title < $1.title }
        #expect(Self.reads() - before == 3)
        #expect(loaded.map(\.title) == ["A", "B", "C"] && loaded.map(\.pages) == [10, 20, 30])
        #expect(loaded.map(\.note) == ["first", nil, "third"])
        #expect(loaded.allSatisfy { $0.idNum > 0 && !$0.isDirty })

        // Part of the properties, or none: read through the mapping's closures.
        var options = DBBQueryOptions()
        options.propertyNames = ["title"]
        let partial = try CountedNote.fetch(options: options, manager: manager)
        let sparse = try CountedNote.fetch(ids: loaded.map(\.idNum), manager: manager, sparsePopulation: true)
        #expect(Self.reads() - before == 3)
        #expect(Set(partial.map(\.title)) == ["A", "B", "C"] && partial.allSatisfy { $0.pages == 0 })
        #expect(sparse.count == 3 && sparse.allSatisfy { $0.title.isEmpty })
    }

    @Test func aReaderWhosePropertiesAreNotTheMappedOnesIsNotUsed() throws {
        CountedNote.claimed.withLock { $0 = ["title", "pages"] }
        defer { CountedNote.claimed.withLock { $0 = ["title", "pages", "note"] } }
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("reader.sqlite"))
        try manager.addTableClasses([CountedNote.self])
        let before = Self.reads()
        let loaded = try Self.notes(manager).sorted { $0.title < $1.title }
        #expect(Self.reads() == before)
        #expect(loaded.map(\.note) == ["first", nil, "third"] && loaded.map(\.pages) == [10, 20, 30])
    }

    @Test func aSubclassInheritingTheReaderGetsObjectsOfItsOwnClass() throws {
        CountedNote.claimed.withLock { $0 = ["title", "pages", "note"] }
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("reader.sqlite"))
        try manager.addTableClasses([SpecialNote.self])
        let object = SpecialNote(dbManager: manager)
        (object.title, object.pages) = ("S", 5)
        #expect(object.saveToDB())
        let before = Self.reads()
        let loaded = SpecialNote.allInstances(manager: manager)
        #expect(Self.reads() - before == 1)
        #expect(loaded.count == 1 && loaded.allSatisfy { type(of: $0) == SpecialNote.self })
        #expect(loaded.first?.title == "S" && loaded.first?.pages == 5 && loaded.first?.note == nil)
    }

    @Test func anObserverSeesTheIdAndTheEarlierPropertiesAsTheClosuresSetThem() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("reader.sqlite"))
        try manager.addTableClasses([ObservedEntry.self])
        let object = ObservedEntry(dbManager: manager)
        (object.code, object.title) = ("C", "T")
        #expect(object.saveToDB())
        let loaded = try #require(ObservedEntry.allInstances(manager: manager).first)
        #expect(loaded.seen == "\(object.idNum) C T")
    }

    @Test func nullLeavesANonOptionalPropertyAndEmptiesAnOptionalOne() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("reader.sqlite"))
        try manager.addTableClasses([Friend.self, EveryKind.self])
        let object = EveryKind(dbManager: manager)
        object.int = 7
        object.text = "kept"
        object.optionalText = "gone"
        object.optionalInt = 3
        #expect(object.saveToDB())
        try manager.write { db in
            try db.execute("UPDATE EveryKind SET int = NULL, text = NULL, optionalText = NULL, optionalInt = NULL")
        }
        let loaded = try #require(EveryKind.allInstances(manager: manager).first)
        // A non-optional property keeps its declared value; an optional one becomes nil.
        #expect(loaded.int == 0 && loaded.text == "")
        #expect(loaded.optionalText == nil && loaded.optionalInt == nil)
        #expect(!loaded.isDirty)
    }

    @Test func aValueThatDoesNotConvertIsAnErrorNamingItsPropertyAndRow() throws {
        let folder = try TemporaryFolder()
        let manager = try DBBManager(databaseURL: folder.file("reader.sqlite"))
        try manager.addTableClasses([Friend.self, EveryKind.self])
        let object = EveryKind(dbManager: manager)
        object.int = 7
        #expect(object.saveToDB())
        try manager.write { db in try db.execute("UPDATE EveryKind SET int = 'seven'") }
        #expect {
            _ = try EveryKind.fetch(options: DBBQueryOptions(), manager: manager)
        } throws: { error in
            guard let error = error as? DBBError else { return false }
            let context = "loading \(EveryKind.self).int of the row with id \(object.idNum)"
            return error.resultCode == .mismatch && error.context == context
        }
        // The row is as it was.
        let stored = try manager.read { db in try db.fetchValues(String.self, "SELECT int FROM EveryKind") }
        #expect(stored == ["seven"])
    }
}
