import DBBObjects
import Foundation

enum Models {
    static let all: [DBBTableObject.Type] = [Person.self, Company.self, Project.self, Meeting.self, Sample.self]
}

final class Person: DBBTableObject {
    var firstName = ""
    var lastName = ""
    var age = 0
    var email: String?
    var birthday: Date?
    var spouse: Person?
    var nicknames: [String] = []
    var photo: Data?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            Person.mapping(), for: self, indexer: DBBIndexer(columnsToIndex: ["lastName", "firstName"]))
    }

    static func mapping() -> [String: DBBPropertyPersistence] {
        [
            "firstName": .init(\Person.firstName),
            "lastName": .init(\Person.lastName),
            "age": .init(\Person.age),
            "email": .init(\Person.email, columnName: "emailAddress"),
            "birthday": .init(\Person.birthday),
            "spouse": .init(\Person.spouse),
            "nicknames": .init(\Person.nicknames),
            "photo": .init(\Person.photo),
        ]
    }
}

final class Company: DBBTableObject {
    var name = ""
    var employees: [Person] = []
    var owner: Person?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        attributesDictionary = ["name": ColumnAttribute.unique, "employees": ColumnAttribute.cascadingDeletion]
        dbManager.addPersistenceMapping(
            [
                "name": .init(\Company.name),
                "employees": .init(\Company.employees),
                "owner": .init(\Company.owner),
            ], for: self)
    }
}

final class Project: DBBTableObject {
    var name = ""
    var code = ""
    var startDate: Date?
    var budget: Float = 0
    var meetings: [Meeting] = []
    var tags: [String] = []
    var subProject: Project?
    var projectLead: Person?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "name": .init(\Project.name, columnName: "itemName"),
                "code": .init(\Project.code),
                "startDate": .init(\Project.startDate),
                "budget": .init(\Project.budget),
                "meetings": .init(\Project.meetings),
                "tags": .init(\Project.tags),
                "subProject": .init(\Project.subProject),
                "projectLead": .init(\Project.projectLead),
            ], for: self, indexer: DBBIndexer(columnsToIndex: ["name"]))
    }
}

final class Meeting: DBBTableObject {
    var purpose = ""
    var startTime: Date?
    var participants: [Person] = []
    var project: Project?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "purpose": .init(\Meeting.purpose),
                "startTime": .init(\Meeting.startTime),
                "participants": .init(\Meeting.participants),
                "project": .init(\Meeting.project),
            ], for: self)
    }
}

/// One property of every supported type.
final class Sample: DBBTableObject {
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
    var optionalInt: Int?
    var optionalText: String?
    var optionalDate: Date?
    var flags: [Bool] = []
    var ints: [Int] = []
    var doubles: [Double] = []
    var floats: [Float] = []
    var texts: [String] = []
    var dates: [Date] = []
    var optionalTexts: [String]?

    required init(dbManager: DBBManager) {
        super.init(dbManager: dbManager)
        dbManager.addPersistenceMapping(
            [
                "flag": .init(\Sample.flag), "int": .init(\Sample.int), "int8": .init(\Sample.int8),
                "int16": .init(\Sample.int16), "int32": .init(\Sample.int32), "int64": .init(\Sample.int64),
                "uint": .init(\Sample.uint), "uint8": .init(\Sample.uint8), "uint16": .init(\Sample.uint16),
                "uint32": .init(\Sample.uint32), "uint64": .init(\Sample.uint64), "float": .init(\Sample.float),
                "double": .init(\Sample.double, type: .float), "text": .init(\Sample.text), "date": .init(\Sample.date),
                "data": .init(\Sample.data), "optionalInt": .init(\Sample.optionalInt),
                "optionalText": .init(\Sample.optionalText), "optionalDate": .init(\Sample.optionalDate),
                "flags": .init(\Sample.flags), "ints": .init(\Sample.ints), "doubles": .init(\Sample.doubles),
                "floats": .init(\Sample.floats), "texts": .init(\Sample.texts), "dates": .init(\Sample.dates),
                "optionalTexts": .init(\Sample.optionalTexts),
            ], for: self)
    }
}
