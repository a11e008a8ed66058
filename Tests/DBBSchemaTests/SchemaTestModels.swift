import DBBSchema
import Foundation

// Small classes for the schema layer's tests. DBBSchema needs only `DBBTableRepresentable`, so these are
// plain classes, not `DBBTableObject` subclasses.

final class Owner: DBBTableRepresentable {
    var name = ""
}

/// One property of every type DESIGN §2 lists, optional and not, and arrays of each.
final class Everything: DBBTableRepresentable {
    var flag = false
    var int = 0
    var int8: Int8 = 0
    var int16: Int16 = 0
    var int32: Int32 = 0
    var int64: Int64 = 0
    var uint: UInt = 0
    var uint8: UInt8 = 0
    var uint16: UInt16 = 0
    var uint32: UInt32 = 0
    var uint64: UInt64 = 0
    var float: Float = 0
    var double: Double = 0
    var text = ""
    var date = Date(timeIntervalSinceReferenceDate: 0)
    var data = Data()

    var optionalFlag: Bool?
    var optionalInt: Int?
    var optionalUInt8: UInt8?
    var optionalFloat: Float?
    var optionalDouble: Double?
    var optionalText: String?
    var optionalDate: Date?
    var optionalData: Data?

    var flags: [Bool] = []
    var ints: [Int] = []
    var int8s: [Int8] = []
    var uint64s: [UInt64] = []
    var floats: [Float] = []
    var doubles: [Double] = []
    var texts: [String] = []
    var dates: [Date] = []
    var optionalTexts: [String]?
    var optionalDates: [Date]?

    var owner = Owner()
    var optionalOwner: Owner?
    var owners: [Owner] = []
    var optionalOwners: [Owner]?
}

/// The README's `Project`, for DDL tests.
final class Project: DBBTableRepresentable {
    var name = ""
    var code = ""
    var startDate: Date?
    var budget: Float = 0
    var meetings: [Meeting] = []
    var tags: [String] = []
    var subProject: Project?
    var projectLead: Person?

    static let mapping: [String: DBBPropertyPersistence] = [
        "name": .init(\Project.name, columnName: "itemName"),
        "code": .init(\Project.code),
        "startDate": .init(\Project.startDate),
        "budget": .init(\Project.budget),
        "meetings": .init(\Project.meetings),
        "tags": .init(\Project.tags),
        "subProject": .init(\Project.subProject),
        "projectLead": .init(\Project.projectLead),
    ]
}

final class Meeting: DBBTableRepresentable {
    var purpose = ""
}

final class Person: DBBTableRepresentable {
    var firstName = ""
    var lastName = ""
    var age = 0
    var isMember = false
    var photo: Data?
    var nicknames: [String] = []
    var visits: [Date] = []
    var scores: [Double] = []
    var answers: [Bool] = []

    static let mapping: [String: DBBPropertyPersistence] = [
        "firstName": .init(\Person.firstName),
        "lastName": .init(\Person.lastName),
        "age": .init(\Person.age),
        "isMember": .init(\Person.isMember),
        "photo": .init(\Person.photo),
        "nicknames": .init(\Person.nicknames),
        "visits": .init(\Person.visits),
        "scores": .init(\Person.scores),
        "answers": .init(\Person.answers),
    ]
}
