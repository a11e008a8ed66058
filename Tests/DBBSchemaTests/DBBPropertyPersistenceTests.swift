import DBBSQL
import DBBSchema
import Foundation
import Testing

// Unsupported value types are rejected at compile time: the initializers of `DBBPropertyPersistence`
// exist only for `DBBPersistableValue` scalars, arrays of them, and `DBBTableRepresentable` classes, and
// unavailable overloads for `[Data]` and for any other type name what is supported. So `.init(\Model.url)`
// (a `URL`) or `.init(\Model.blobs)` (a `[Data]`) do not compile; such code cannot be a test here. What can
// be tested is the shape that makes them fail to compile: see `arraysOfDataHaveNoArrayStorage`.

@Suite struct DBBPropertyPersistenceTests {
    /// Every supported property type and the storage type DESIGN §2 says it maps to.
    static let inferred: [(name: String, property: DBBPropertyPersistence, expected: DBBStorageType)] = [
        ("flag", .init(\Everything.flag), .bool),
        ("int", .init(\Everything.int), .int),
        ("int8", .init(\Everything.int8), .int),
        ("int16", .init(\Everything.int16), .int),
        ("int32", .init(\Everything.int32), .int),
        ("int64", .init(\Everything.int64), .int),
        ("uint", .init(\Everything.uint), .int),
        ("uint8", .init(\Everything.uint8), .int),
        ("uint16", .init(\Everything.uint16), .int),
        ("uint32", .init(\Everything.uint32), .int),
        ("uint64", .init(\Everything.uint64), .int),
        ("float", .init(\Everything.float), .float),
        ("double", .init(\Everything.double), .float),
        ("text", .init(\Everything.text), .string),
        ("date", .init(\Everything.date), .date),
        ("data", .init(\Everything.data), .binary),
        ("optionalFlag", .init(\Everything.optionalFlag), .bool),
        ("optionalInt", .init(\Everything.optionalInt), .int),
        ("optionalUInt8", .init(\Everything.optionalUInt8), .int),
        ("optionalFloat", .init(\Everything.optionalFloat), .float),
        ("optionalDouble", .init(\Everything.optionalDouble), .float),
        ("optionalText", .init(\Everything.optionalText), .string),
        ("optionalDate", .init(\Everything.optionalDate), .date),
        ("optionalData", .init(\Everything.optionalData), .binary),
        ("flags", .init(\Everything.flags), .boolArray),
        ("ints", .init(\Everything.ints), .intArray),
        ("int8s", .init(\Everything.int8s), .intArray),
        ("uint64s", .init(\Everything.uint64s), .intArray),
        ("floats", .init(\Everything.floats), .floatArray),
        ("doubles", .init(\Everything.doubles), .floatArray),
        ("texts", .init(\Everything.texts), .stringArray),
        ("dates", .init(\Everything.dates), .dateArray),
        ("optionalTexts", .init(\Everything.optionalTexts), .stringArray),
        ("optionalDates", .init(\Everything.optionalDates), .dateArray),
        ("owner", .init(\Everything.owner), .dbbObject(objectType: Owner.self)),
        ("optionalOwner", .init(\Everything.optionalOwner), .dbbObject(objectType: Owner.self)),
        ("owners", .init(\Everything.owners), .dbbObjectArray(objectType: Owner.self)),
        ("optionalOwners", .init(\Everything.optionalOwners), .dbbObjectArray(objectType: Owner.self)),
    ]

    @Test func inferredStorageTypes() {
        for entry in Self.inferred {
            #expect(entry.property.storageType == entry.expected, "\(entry.name)")
            #expect(entry.property.columnName == nil, "\(entry.name)")
            #expect(!entry.property.isForeignKeyColumn, "\(entry.name)")
        }
    }

    @Test func everySupportedTypeGetsAColumnOrAJoinTable() throws {
        let properties = Dictionary(uniqueKeysWithValues: Self.inferred.map { ($0.name, $0.property) })
        let table = try DBBTableDescription(tableName: "Everything", properties: properties)
        let placed = table.columns.map(\.propertyName) + table.joinTables.map(\.propertyName)
        // Nothing silently dropped, nothing placed twice.
        #expect(placed.sorted() == properties.keys.sorted())
        for column in table.columns {
            #expect(column.sqlType == properties[column.propertyName]?.storageType.columnSQLType)
        }
        for join in table.joinTables {
            #expect(join.sqlType == properties[join.propertyName]?.storageType.joinSQLType)
            #expect(join.tableName == "Everything_\(join.propertyName)")
        }
        #expect(table.columns.count == 22)  // 15 scalar types and 7 optional scalars; Data is not a column
        #expect(table.joinTables.count == 16)  // 2 Data, 10 arrays of scalars, 4 references
    }

    @Test func customColumnName() throws {
        let property = DBBPropertyPersistence(\Project.name, columnName: "itemName")
        #expect(property.columnName == "itemName")
        #expect(property.storageType == .string)
        let table = try DBBTableDescription(tableName: "Project", properties: ["name": property])
        #expect(table.columns.map(\.name) == ["itemName"])
        #expect(table.columns.map(\.propertyName) == ["name"])
    }

    @Test func foreignKeyReferenceIsAnIntegerColumn() throws {
        let property = DBBPropertyPersistence(\Everything.owner, columnName: "OwnerId", foreignKey: true)
        #expect(property.isForeignKeyColumn)
        #expect(property.storageType == .dbbObject(objectType: Owner.self))
        let table = try DBBTableDescription(tableName: "Everything", properties: ["owner": property])
        #expect(table.joinTables.isEmpty)
        #expect(table.columns.map { "\($0.name) \($0.sqlType)" } == ["OwnerId Integer"])
    }

    @Test func explicitTypeThatMatchesIsAccepted() throws {
        let properties: [String: DBBPropertyPersistence] = [
            "double": .init(\Everything.double, type: .float),
            "uint16": .init(\Everything.uint16, type: .int),
            "date": .init(\Everything.date, type: .date),
            "data": .init(\Everything.data, type: .binary),
            "texts": .init(\Everything.texts, type: .stringArray),
            "owner": .init(\Everything.owner, type: .dbbObject(objectType: Owner.self)),
            "owners": .init(\Everything.owners, type: .dbbObjectArray(objectType: Owner.self)),
        ]
        let table = try DBBTableDescription(tableName: "Everything", properties: properties)
        #expect(table.columns.map(\.propertyName) == ["date", "double", "uint16"])
        #expect(table.joinTables.map(\.propertyName) == ["data", "owner", "owners", "texts"])
    }

    static let mismatches: [(property: DBBPropertyPersistence, message: String)] = [
        (.init(\Everything.int, type: .string), "property x is declared as string but its type maps to int"),
        (.init(\Everything.date, type: .float), "property x is declared as float but its type maps to date"),
        (
            .init(\Everything.flags, type: .intArray),
            "property x is declared as intArray but its type maps to boolArray"
        ),
        (
            .init(\Everything.optionalText, type: .stringArray),
            "property x is declared as stringArray but its type maps to string"
        ),
        (
            .init(\Everything.owner, type: .dbbObject(objectType: Person.self)),
            "property x is declared as dbbObject(Person) but its type maps to dbbObject(Owner)"
        ),
        (
            .init(\Everything.owners, type: .dbbObject(objectType: Owner.self)),
            "property x is declared as dbbObject(Owner) but its type maps to dbbObjectArray(Owner)"
        ),
    ]

    @Test func explicitTypeThatDiffersIsAnErrorAtRegistration() {
        for entry in Self.mismatches {
            let error = #expect(throws: DBBError.self) {
                try DBBTableDescription(
                    tableName: "Everything", properties: ["x": entry.property, "text": .init(\Everything.text)])
            }
            #expect(error?.resultCode == .mismatch)
            #expect(error?.message == entry.message)
            #expect(error?.context == "registering Everything")
        }
    }

    @Test func arraysOfDataHaveNoArrayStorage() {
        // Every scalar but `Data` has an array storage type; `[Data]` meets an unavailable initializer.
        let elementTypes: [any DBBPersistableValue.Type] = [
            Bool.self, Int.self, Int8.self, Int16.self, Int32.self, Int64.self, UInt.self, UInt8.self, UInt16.self,
            UInt32.self, UInt64.self, Float.self, Double.self, String.self, Date.self,
        ]
        for type in elementTypes { #expect(type.dbbArrayStorageType.isArray, "\(type)") }
        #expect(!Data.dbbArrayStorageType.isArray)
        #expect(!((URL.self as Any.Type) is any DBBPersistableValue.Type))
    }

    @Test func scalarAccessorsReadAndWriteTheProperty() throws {
        var options = DBBCodingOptions()
        options.dateStrategy = .secondsSinceReferenceDate
        let object = Everything()
        object.uint8 = 200
        object.optionalText = "hi"
        object.date = Date(timeIntervalSinceReferenceDate: 86_400.5)
        guard case .scalar(let uint8) = DBBPropertyPersistence(\Everything.uint8).accessor,
            case .scalar(let text) = DBBPropertyPersistence(\Everything.optionalText).accessor,
            case .scalar(let date) = DBBPropertyPersistence(\Everything.date).accessor
        else {
            Issue.record("scalar properties must have scalar accessors")
            return
        }
        #expect(try uint8.get(object, options) == .integer(200))
        #expect(try text.get(object, options) == .text("hi"))
        #expect(try date.get(object, options) == .real(86_400.5))

        try uint8.setStored(object, .integer(7))
        #expect(object.uint8 == 7)
        #expect(throws: DBBError.self) { try uint8.setStored(object, .integer(256)) }
        #expect(object.uint8 == 7)
        try text.setStored(object, .null)
        #expect(object.optionalText == nil)
        #expect(try text.get(object, options) == .null)
        try date.setStored(object, .real(-1))
        #expect(object.date == Date(timeIntervalSinceReferenceDate: -1))
    }

    @Test func arrayAndReferenceAccessors() throws {
        let object = Everything()
        guard case .values(let ints) = DBBPropertyPersistence(\Everything.ints).accessor,
            case .object(let owner) = DBBPropertyPersistence(\Everything.optionalOwner).accessor,
            case .objects(let owners) = DBBPropertyPersistence(\Everything.owners).accessor
        else {
            Issue.record("accessor kinds do not match the property kinds")
            return
        }
        try ints.set(object, [.integer(3), .integer(1), .integer(2)])
        #expect(object.ints == [3, 1, 2])
        #expect(try ints.get(object, DBBCodingOptions()) == [.integer(3), .integer(1), .integer(2)])

        let first = Owner()
        try owner.set(object, first)
        #expect(object.optionalOwner === first)
        #expect(throws: DBBError.self) { try owner.set(object, Person()) }
        #expect(object.optionalOwner === first)
        try owner.set(object, nil)
        #expect(object.optionalOwner == nil)

        let second = Owner()
        try owners.set(object, [second, first])
        #expect(owners.get(object).map(ObjectIdentifier.init) == [ObjectIdentifier(second), ObjectIdentifier(first)])
    }

    @Test func directClosuresMapLikeTheKeyPath() throws {
        let plain = DBBPropertyPersistence(\Everything.uint16, get: { $0.uint16 }, set: { $0.uint16 = $1 })
        let optional = DBBPropertyPersistence(
            \Everything.optionalDate, columnName: "when", get: { $0.optionalDate }, set: { $0.optionalDate = $1 })
        #expect(plain.storageType == .int && plain.columnName == nil)
        #expect(optional.storageType == .date && optional.columnName == "when")
        let table = try DBBTableDescription(
            tableName: "Everything", properties: ["uint16": plain, "optionalDate": optional])
        #expect(table.columns.map { "\($0.name) \($0.sqlType)" } == ["when Real", "uint16 Integer"])

        guard case .scalar(let number) = plain.accessor, case .scalar(let date) = optional.accessor else {
            Issue.record("closure mappings must have scalar accessors")
            return
        }
        var options = DBBCodingOptions()
        options.dateStrategy = .secondsSinceReferenceDate
        let object = Everything()
        object.uint16 = 65_535
        #expect(try number.get(object, options) == .integer(65_535))
        try number.setStored(object, .integer(12))
        #expect(object.uint16 == 12)
        #expect(throws: DBBError.self) { try number.setStored(object, .integer(-1)) }
        #expect(object.uint16 == 12)
        try number.setAny(object, 40)
        #expect(object.uint16 == 40)
        #expect(try date.get(object, options) == .null)
        try date.setStored(object, .real(5.5))
        #expect(object.optionalDate == Date(timeIntervalSinceReferenceDate: 5.5))
        try date.setStored(object, .null)
        #expect(object.optionalDate == nil)

        let wrong = DBBPropertyPersistence(\Everything.text, type: .int, get: { $0.text }, set: { $0.text = $1 })
        #expect(throws: DBBError.self) { try DBBTableDescription(tableName: "Everything", properties: ["text": wrong]) }
    }
}

/// A class whose stored property is reached through an accessor, since a subclass could override it.
class OpenOwner: DBBTableRepresentable {
    var name = ""
}

@Suite struct DBBPropertyPersistenceKeyTests {
    @Test func aKeyPathNamesAStoredPropertyOfAFinalClass() {
        #expect(DBBPropertyPersistence(\Everything.text).keyPathPropertyName == "text")
        #expect(DBBPropertyPersistence(\Everything.optionalDate).keyPathPropertyName == "optionalDate")
        #expect(DBBPropertyPersistence(\Everything.owners).keyPathPropertyName == "owners")
        // Through an accessor the run time knows no name: the key is taken as it is.
        #expect(DBBPropertyPersistence(\OpenOwner.name).keyPathPropertyName == nil)
    }

    @Test func aKeyThatIsNotItsKeyPathsPropertyIsRefused() throws {
        let good: [String: DBBPropertyPersistence] = ["text": .init(\Everything.text, columnName: "titel")]
        try DBBPropertyPersistence.checkKeys(good, tableName: "Everything")
        try DBBPropertyPersistence.checkKeys(["anything": .init(\OpenOwner.name)], tableName: "OpenOwner")
        let error = #expect(throws: DBBError.self) {
            try DBBPropertyPersistence.checkKeys(["titel": .init(\Everything.text)], tableName: "Everything")
        }
        #expect(error?.kind == .misuse)
        #expect(error?.message == "mapping key titel does not name its key path's property, text")
        #expect(error?.recoverySuggestion == #"use "text" as the key; for a column of another name, pass columnName:"#)
    }
}
