import DBBObjects
import DBBSQL
import DBBTestSupport
import Foundation
import Testing

/// The application's own code that the library runs: a `Codable` value whose encoding refuses a value, and
/// whose decoding refuses a stored one, each with an error of its own.
struct UserErrorSeal: DBBCodableValue, Equatable {
    /// Thrown by `encode(to:)` for a negative code.
    struct Unsealable: Error, Equatable { let code: Int }
    /// Thrown by `init(from:)` for a stored negative code.
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

/// A class with a value of the application's own code.
final class UserErrorParcel: DBBTableObject {
    var label = ""
    var seal = UserErrorSeal(code: 0)

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            ["label": .init(\UserErrorParcel.label), "seal": .init(\UserErrorParcel.seal)], for: self)
    }
}

/// A user's error stays the user's: thrown in a `write` or `read` closure it reaches the caller as it is; thrown
/// by the application's code that an operation runs (a value's encoding or decoding) it is the `underlyingError`
/// of the `DBBError`, unchanged.
@Suite("The application's errors") struct DBBUserErrorTests {
    struct Refused: Error, Equatable { let reason: String }

    static func manager(_ folder: TemporaryFolder) throws -> DBBManager {
        let manager = try DBBManager(databaseURL: folder.file("parcels.sqlite"), readers: 2)
        try manager.addTableClasses([UserErrorParcel.self])
        return manager
    }

    static func parcel(_ label: String, code: Int = 1, manager: DBBManager) -> UserErrorParcel {
        let parcel = UserErrorParcel(dbManager: manager)
        parcel.label = label
        parcel.seal = UserErrorSeal(code: code)
        return parcel
    }

    @Test func writeAndReadClosuresLetTheirErrorsThroughAsTheyAre() throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder)
        let parcel = Self.parcel("kept out", manager: manager)
        let refused = try #require(
            #expect(throws: Refused.self) {
                try manager.write {
                    try parcel.save()
                    throw Refused(reason: "write")
                }
            })
        #expect(refused == Refused(reason: "write"))
        #expect(parcel.idNum == 0)
        #expect(
            try #require(
                #expect(throws: Refused.self) {
                    try manager.write { db in
                        try db.execute("DELETE FROM UserErrorParcel")
                        throw Refused(reason: "write db")
                    }
                }) == Refused(reason: "write db"))
        #expect(
            try #require(
                #expect(throws: Refused.self) {
                    try manager.read {
                        _ = try UserErrorParcel.fetchAll(manager: manager)
                        throw Refused(reason: "read")
                    }
                }) == Refused(reason: "read"))
        #expect(
            try #require(
                #expect(throws: Refused.self) {
                    try manager.read { _ in throw Refused(reason: "read db") }
                }) == Refused(reason: "read db"))
        #expect(try UserErrorParcel.fetchCount(manager: manager) == 0)
    }

    @Test func asyncWriteAndReadClosuresLetTheirErrorsThroughAsTheyAre() async throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder)
        let write = try await #require(
            #expect(throws: Refused.self) {
                try await manager.write {
                    try Self.parcel("kept out", manager: manager).save()
                    throw Refused(reason: "async write")
                }
            })
        #expect(write == Refused(reason: "async write"))
        let writeDB = try await #require(
            #expect(throws: Refused.self) {
                try await manager.write { db in
                    try db.execute("DELETE FROM UserErrorParcel")
                    throw Refused(reason: "async write db")
                }
            })
        #expect(writeDB == Refused(reason: "async write db"))
        let read = try await #require(
            #expect(throws: Refused.self) {
                try await manager.read { () throws -> Int in throw Refused(reason: "async read") }
            })
        #expect(read == Refused(reason: "async read"))
        #expect(try await UserErrorParcel.fetchCount(manager: manager) == 0)
    }

    @Test func aValuesOwnEncodingErrorIsTheUnderlyingErrorAndNothingIsSaved() async throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder)
        let good = Self.parcel("good", manager: manager)
        let bad = Self.parcel("bad", code: -7, manager: manager)
        let error = try #require(
            #expect(throws: DBBError.self) { try UserErrorParcel.save([good, bad], manager: manager) })
        #expect(error.underlyingError as? UserErrorSeal.Unsealable == UserErrorSeal.Unsealable(code: -7))
        #expect(error.kind == .library)
        #expect(error.message.contains("Unsealable(code: -7)"), "\(error.message)")
        #expect(good.idNum == 0 && bad.idNum == 0)
        // From inside a write closure, and from the async form, the same error.
        let inWrite = try #require(#expect(throws: DBBError.self) { try manager.write { try bad.save() } })
        #expect(inWrite.underlyingError as? UserErrorSeal.Unsealable == UserErrorSeal.Unsealable(code: -7))
        let asynchronous = try await #require(#expect(throws: DBBError.self) { try await bad.save() })
        #expect(asynchronous.underlyingError as? UserErrorSeal.Unsealable == UserErrorSeal.Unsealable(code: -7))
        #expect(try await UserErrorParcel.fetchCount(manager: manager) == 0)
    }

    @Test func aValuesOwnDecodingErrorIsTheUnderlyingErrorOfAFetchAndOfAnObservation() async throws {
        let folder = try TemporaryFolder()
        let manager = try Self.manager(folder)
        try await Self.parcel("fine", manager: manager).save()
        try await manager.write { db in
            try db.execute(#"UPDATE UserErrorParcel SET seal = '{"code":-3}'"#)
        }
        let error = try #require(#expect(throws: DBBError.self) { _ = try UserErrorParcel.fetchAll(manager: manager) })
        #expect(error.underlyingError as? UserErrorSeal.Unreadable == UserErrorSeal.Unreadable(code: -3))
        #expect(error.code == DBBError.Code(rawValue: DBBError.ResultCode.mismatch.rawValue))
        let observed = try await #require(
            #expect(throws: DBBError.self) {
                for try await _ in manager.observe(UserErrorParcel.self) {}
            })
        #expect(observed.underlyingError as? UserErrorSeal.Unreadable == UserErrorSeal.Unreadable(code: -3))

        // The forms that hand the error to a closure hand the same.
        let (handedOver, hand) = AsyncStream<DBBError>.makeStream()
        let handle = manager.observe(UserErrorParcel.self, onError: { hand.yield($0) }, onChange: { _ in })
        UserErrorParcel.getInstancesFromQueue(withOptions: DBBQueryOptions(), manager: manager) { _, error in
            if let error { hand.yield(error) }
        }
        var errors: [DBBError] = []
        for await error in handedOver {
            errors.append(error)
            if errors.count == 2 { break }
        }
        handle.cancel()
        #expect(
            errors.map { $0.underlyingError as? UserErrorSeal.Unreadable }
                == [UserErrorSeal.Unreadable(code: -3), UserErrorSeal.Unreadable(code: -3)])
    }
}
