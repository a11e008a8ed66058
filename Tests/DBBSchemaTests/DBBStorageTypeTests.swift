import DBBSchema
import Testing

@Suite struct DBBStorageTypeTests {
    /// Each case with the SQL type DESIGN §3 gives it: scalars are columns of the class's table, the rest
    /// are value columns of join tables.
    static let layout: [(type: DBBStorageType, column: String?, join: String?)] = [
        (.bool, "Boolean", nil),
        (.int, "Integer", nil),
        (.float, "Real", nil),
        (.string, "Text", nil),
        (.date, "Real", nil),
        (.dbbObject(objectType: Owner.self), nil, "Integer"),
        (.boolArray, nil, "Boolean"),
        (.intArray, nil, "Integer"),
        (.floatArray, nil, "Real"),
        (.stringArray, nil, "Text"),
        (.dateArray, nil, "DateTimeStamp"),
        (.dbbObjectArray(objectType: Owner.self), nil, "Integer"),
        (.binary, nil, "BLOB"),
    ]

    @Test func thirteenDistinctCases() {
        let names = Set(Self.layout.map(\.type.description))
        #expect(names.count == 13)
        #expect(
            names == [
                "bool", "int", "float", "string", "date", "dbbObject(Owner)", "boolArray", "intArray", "floatArray",
                "stringArray", "dateArray", "dbbObjectArray(Owner)", "binary",
            ])
    }

    @Test func sqlTypes() {
        for entry in Self.layout {
            #expect(entry.type.columnSQLType == entry.column, "\(entry.type)")
            #expect(entry.type.joinSQLType == entry.join, "\(entry.type)")
            #expect(entry.type.isJoined == (entry.column == nil), "\(entry.type)")
        }
    }

    @Test func arraysAndReferences() {
        let arrays = Self.layout.filter(\.type.isArray).map(\.type.description)
        #expect(
            arrays == ["boolArray", "intArray", "floatArray", "stringArray", "dateArray", "dbbObjectArray(Owner)"])
        #expect(DBBStorageType.dbbObject(objectType: Owner.self).objectType == Owner.self)
        #expect(DBBStorageType.dbbObjectArray(objectType: Person.self).objectType == Person.self)
        #expect(DBBStorageType.int.objectType == nil)
        #expect(DBBStorageType.binary.objectType == nil)
    }

    @Test func equalityComparesReferencedClasses() {
        #expect(DBBStorageType.dbbObject(objectType: Owner.self) == .dbbObject(objectType: Owner.self))
        #expect(DBBStorageType.dbbObject(objectType: Owner.self) != .dbbObject(objectType: Person.self))
        #expect(DBBStorageType.dbbObject(objectType: Owner.self) != .dbbObjectArray(objectType: Owner.self))
        #expect(DBBStorageType.float != .date)
        #expect(DBBStorageType.stringArray == .stringArray)
    }
}
