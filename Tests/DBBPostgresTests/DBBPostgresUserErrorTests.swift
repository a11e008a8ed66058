import DBBBuilder
import DBBPostgres
import Foundation
import Synchronization
import Testing

/// A `Codable` value whose encoding and decoding refuse negative codes with errors of their own.
struct ServerSeal: DBBCodableValue, Equatable {
    struct Unsealable: Error, Equatable { let code: Int }
    struct Unreadable: Error, Equatable { let code: Int }

    var code = 0

    init(code: Int) { self.code = code }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        code = try container.decode(Int.self, forKey: .code)
        if code < 0 { throw Unreadable(code: code) }
    }

    func encode(to encoder: any Encoder) throws {
        if code < 0 { throw Unsealable(code: code) }
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(code, forKey: .code)
    }

    private enum CodingKeys: String, CodingKey { case code }
}

@DBBTable
final class ServerParcel: DBBTableObject {
    var label = ""
    var seal = ServerSeal(code: 0)
}

/// A user's error stays the user's on PostgreSQL as on SQLite: a `write` or `read` closure's error reaches the
/// caller as it is, sync and async; a value's own encoding or decoding error is the `DBBError`'s
/// `underlyingError`.
@Suite(.postgres)
struct DBBPostgresUserErrorTests {
    struct Refused: Error, Equatable { let reason: String }

    static func manager(_ engine: String) async throws -> DBBManager {
        let manager: DBBManager
        if engine == "sqlite" {
            manager = try DBBManager.inMemory()
        } else {
            let configuration = try await TestPostgres.freshDatabase()
            manager = try await TestPostgres.onQueue { try DBBManager(postgres: configuration, readers: 1) }
        }
        try synchronously { try manager.addTableClasses([ServerParcel.self]) }
        return manager
    }

    static func parcel(_ label: String, code: Int = 1, manager: DBBManager) -> ServerParcel {
        let parcel = ServerParcel(dbManager: manager)
        parcel.label = label
        parcel.seal = ServerSeal(code: code)
        return parcel
    }

    @Test(arguments: ["postgres", "sqlite"])
    func closuresLetTheirErrorsThroughAsTheyAre(engine: String) async throws {
        let manager = try await Self.manager(engine)
        defer { try? synchronously { try manager.close() } }
        try synchronously {
            let parcel = Self.parcel("kept out", manager: manager)
            let write = try #require(
                #expect(throws: Refused.self) {
                    try manager.write {
                        try parcel.save()
                        throw Refused(reason: "write")
                    }
                })
            #expect(write == Refused(reason: "write"))
            #expect(parcel.idNum == 0)
            let read = try #require(
                #expect(throws: Refused.self) {
                    try manager.read {
                        _ = try ServerParcel.fetchAll(manager: manager)
                        throw Refused(reason: "read")
                    }
                })
            #expect(read == Refused(reason: "read"))
        }
        let asyncWrite = try await #require(
            #expect(throws: Refused.self) {
                try await manager.write {
                    try Self.parcel("kept out", manager: manager).save()
                    throw Refused(reason: "async write")
                }
            })
        #expect(asyncWrite == Refused(reason: "async write"))
        let asyncRead = try await #require(
            #expect(throws: Refused.self) {
                try await manager.read { () throws -> Int in throw Refused(reason: "async read") }
            })
        #expect(asyncRead == Refused(reason: "async read"))
        #expect(try await ServerParcel.fetchCount(manager: manager) == 0)
    }

    @Test(arguments: ["postgres", "sqlite"])
    func aValuesOwnErrorsAreTheUnderlyingErrors(engine: String) async throws {
        let manager = try await Self.manager(engine)
        defer { try? synchronously { try manager.close() } }
        let bad = Self.parcel("bad", code: -7, manager: manager)
        let saving = try #require(#expect(throws: DBBError.self) { try synchronously { try bad.save() } })
        #expect(saving.underlyingError as? ServerSeal.Unsealable == ServerSeal.Unsealable(code: -7))
        #expect(saving.kind == .library && saving.engine == nil, "\(saving)")
        let inWrite = try #require(
            #expect(throws: DBBError.self) { try synchronously { try manager.write { try bad.save() } } })
        #expect(inWrite.underlyingError as? ServerSeal.Unsealable == ServerSeal.Unsealable(code: -7))
        let asynchronous = try await #require(#expect(throws: DBBError.self) { try await bad.save() })
        #expect(asynchronous.underlyingError as? ServerSeal.Unsealable == ServerSeal.Unsealable(code: -7))
        #expect(bad.idNum == 0)

        try await Self.parcel("fine", manager: manager).save()
        try synchronously {
            if engine == "sqlite" {
                try manager.write { db in try db.execute(#"UPDATE ServerParcel SET seal = '{"code":-3}'"#) }
            } else {
                try manager.write {
                    _ = try manager.postgresConnection().execute(#"UPDATE "ServerParcel" SET "seal" = '{"code":-3}'"#)
                }
            }
        }
        let fetching = try await #require(
            #expect(throws: DBBError.self) { _ = try await ServerParcel.fetchAll(manager: manager) })
        #expect(fetching.underlyingError as? ServerSeal.Unreadable == ServerSeal.Unreadable(code: -3))
        let observing = try await #require(
            #expect(throws: DBBError.self) { for try await _ in manager.observe(ServerParcel.self) {} })
        #expect(observing.underlyingError as? ServerSeal.Unreadable == ServerSeal.Unreadable(code: -3))
    }
}
