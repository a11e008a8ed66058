import DBBMacros
import DBBObjects
import DBBQuery
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// Enums with raw values and `Codable` values as properties of macro classes.
@Suite struct MacroEnumAndCodableTests {
    enum Status: String, DBBPersistableValue, CaseIterable {
        case open
        case onLoan = "on loan"
        case lost
    }

    enum Priority: Int, DBBPersistableValue, Comparable {
        case low = 1
        case normal = 5
        case high = 9
        static func < (lhs: Priority, rhs: Priority) -> Bool { lhs.rawValue < rhs.rawValue }
    }

    struct Address: DBBCodableValue, Equatable {
        var street = ""
        var city = ""
        var floor: Int?
    }

    @DBBTable
    final class Parcel: DBBTableObject {
        @Indexed var status: Status = .open
        var priority = Priority.normal
        var previous: Status?
        var history: [Status] = []
        var priorities: [Priority]?
        var address = Address()
        var billing: Address?
        var stops: [Address] = []
    }

    private static func manager(_ folder: TemporaryFolder) throws -> DBBManager {
        let manager = try DBBManager(databaseURL: folder.file("enums.sqlite"))
        try manager.addTableClasses([Parcel.self])
        return manager
    }

    @Test func enumsAndCodableValuesSaveLoadAndStoreTheirRawValuesAndJSON() throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder)
        let parcel = Parcel(dbManager: manager)
        parcel.status = .onLoan
        parcel.priority = .high
        parcel.previous = .lost
        parcel.history = [.open, .onLoan, .open]
        parcel.priorities = [.low, .high]
        parcel.address = Address(street: "1 Main St", city: "Springfield", floor: 3)
        parcel.billing = nil
        parcel.stops = [Address(street: "a", city: "b"), Address(street: "c", city: "d", floor: 0)]
        try parcel.save()

        let loaded = try #require(try Parcel.fetchOne(id: parcel.idNum, manager: manager))
        #expect(loaded !== parcel)
        #expect(loaded.status == .onLoan)
        #expect(loaded.priority == .high)
        #expect(loaded.previous == .lost)
        #expect(loaded.history == [.open, .onLoan, .open])
        #expect(loaded.priorities == [.low, .high])
        #expect(loaded.address == Address(street: "1 Main St", city: "Springfield", floor: 3))
        #expect(loaded.billing == nil)
        #expect(loaded.stops == [Address(street: "a", city: "b"), Address(street: "c", city: "d", floor: 0)])

        // On disk: the raw values in columns of the raw type, the JSON (keys sorted) as text.
        let db = try DBBDatabase(path: folder.file("enums.sqlite").path)
        let row = try #require(
            try db.fetchCursor("SELECT status, typeof(priority), priority, previous, address, billing FROM Parcel")
                .map { $0.values }.first)
        #expect(row[0] == .text("on loan"))
        #expect(row[1] == .text("integer"))
        #expect(row[2] == .integer(9))
        #expect(row[3] == .text("lost"))
        #expect(row[4] == .text(#"{"city":"Springfield","floor":3,"street":"1 Main St"}"#))
        #expect(row[5] == .null)
        let columns = try db.fetchCursor("SELECT name, type FROM pragma_table_info('Parcel')").map {
            try ($0[0] as String, $0[1] as String)
        }
        #expect(columns.contains { $0 == ("status", "TEXT") || $0 == ("status", "Text") })
        #expect(columns.contains { $0 == ("priority", "INTEGER") || $0 == ("priority", "Integer") })
        #expect(
            try db.fetchValues(String.self, "SELECT history FROM Parcel_history ORDER BY id") == [
                "open", "on loan", "open",
            ])
        #expect(
            try db.fetchValue(
                Int.self, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND sql LIKE '%status%'") == 1)
        try db.close()
    }

    @Test func conditionsAndTypedFiltersCompareRawValues() throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder)
        for (status, priority) in [(Status.open, Priority.low), (.onLoan, .high), (.lost, .normal), (.onLoan, .low)] {
            let parcel = Parcel(dbManager: manager)
            parcel.status = status
            parcel.priority = priority
            try parcel.save()
        }
        var typed = DBBQueryOptions()
        typed.filter(\Parcel.status == .onLoan && \Parcel.priority > .low)
        #expect(try Parcel.fetch(options: typed, manager: manager).map(\.idNum) == [2])
        var listed = DBBQueryOptions()
        listed.filter(.in(\Parcel.status, [.open, .lost]))
        #expect(try Parcel.fetch(options: listed, manager: manager).map(\.idNum).sorted() == [1, 3])
        var bound = DBBQueryOptions()
        bound.addCondition("status = ?", Status.onLoan)
        #expect(try Parcel.fetchCount(options: bound, manager: manager) == 2)
        var address = DBBQueryOptions()
        address.filter(\Parcel.address == Address())
        #expect(try Parcel.fetchCount(options: address, manager: manager) == 4)
    }

    @Test func aStoredValueNoCaseHasIsAnErrorNamingTheClassPropertyAndValue() throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder)
        let parcel = Parcel(dbManager: manager)
        try parcel.save()
        try manager.write { db in try db.execute("UPDATE Parcel SET status = 'stolen' WHERE id = ?", parcel.idNum) }
        let error = #expect(throws: DBBError.self) { try Parcel.fetchOne(id: parcel.idNum, manager: manager) }
        #expect(error?.message.contains(#""stolen" is not a case of Status"#) == true, "\(String(describing: error))")
        #expect(error?.context?.contains("Parcel.status") == true, "\(String(describing: error))")
        // An optional property is no different: an unknown value is an error, never a silent nil.
        try manager.write { db in
            try db.execute("UPDATE Parcel SET status = 'open', previous = 'gone' WHERE id = ?", parcel.idNum)
        }
        let optional = #expect(throws: DBBError.self) { try Parcel.fetchOne(id: parcel.idNum, manager: manager) }
        #expect(optional?.context?.contains("Parcel.previous") == true, "\(String(describing: optional))")
        try manager.write { db in
            try db.execute("UPDATE Parcel SET previous = NULL, address = 'not json' WHERE id = ?", parcel.idNum)
        }
        let json = #expect(throws: DBBError.self) { try Parcel.fetchOne(id: parcel.idNum, manager: manager) }
        #expect(json?.message.contains("not the JSON of a Address") == true, "\(String(describing: json))")
        #expect(json?.context?.contains("Parcel.address") == true, "\(String(describing: json))")
    }

    @Test func aDictionaryGivesEnumsByRawValueAndCodableValuesByJSON() throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder)
        let parcel = try Parcel(
            dictionary: ["status": "lost", "priority": 9, "address": #"{"street":"x","city":"y"}"#], manager: manager)
        #expect(parcel.status == .lost)
        #expect(parcel.priority == .high)
        #expect(parcel.address == Address(street: "x", city: "y"))
        #expect(throws: DBBError.self) { try Parcel(dictionary: ["status": "stolen"], manager: manager) }
    }
}
