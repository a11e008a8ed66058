internal import DBBSQL

/// A class whose instances are stored as rows of a table. `DBBTableObject` conforms; the schema layer
/// needs only this much to describe references between classes.
public protocol DBBTableRepresentable: AnyObject, SendableMetatype {}

/// The kinds of property values DBBBuilder persists, and how each is laid out on disk.
///
/// Scalars (`bool`, `int`, `float`, `string`, `date`) are columns of the class's table; arrays, object
/// references and `binary` live in join tables (see ``DBBTableDescription``).
public enum DBBStorageType: CustomStringConvertible, Sendable {
    case bool
    case int
    case float
    case string
    case date
    case dbbObject(objectType: any DBBTableRepresentable.Type)
    case boolArray
    case intArray
    case floatArray
    case stringArray
    case dateArray
    case dbbObjectArray(objectType: any DBBTableRepresentable.Type)
    case binary

    /// The declared SQL type of a scalar column in the class's table (`nil` for joined types).
    public var columnSQLType: String? {
        switch self {
        case .bool: "Boolean"
        case .int: "Integer"
        case .float, .date: "Real"
        case .string: "Text"
        default: nil
        }
    }

    /// The declared SQL type of the value column of a join table (`nil` for scalars).
    public var joinSQLType: String? {
        switch self {
        case .boolArray: "Boolean"
        case .intArray, .dbbObject, .dbbObjectArray: "Integer"
        case .floatArray: "Real"
        case .stringArray: "Text"
        case .dateArray: "DateTimeStamp"
        case .binary: "BLOB"
        default: nil
        }
    }

    /// Whether values of this type live in a join table.
    public var isJoined: Bool { columnSQLType == nil }

    /// Whether the type is an array.
    public var isArray: Bool {
        switch self {
        case .boolArray, .intArray, .floatArray, .stringArray, .dateArray, .dbbObjectArray: true
        default: false
        }
    }

    /// The class a reference or reference array points to.
    public var objectType: (any DBBTableRepresentable.Type)? {
        switch self {
        case .dbbObject(let type), .dbbObjectArray(let type): type
        default: nil
        }
    }

    public var description: String {
        switch self {
        case .bool: "bool"
        case .int: "int"
        case .float: "float"
        case .string: "string"
        case .date: "date"
        case .dbbObject(let type): "dbbObject(\(type))"
        case .boolArray: "boolArray"
        case .intArray: "intArray"
        case .floatArray: "floatArray"
        case .stringArray: "stringArray"
        case .dateArray: "dateArray"
        case .dbbObjectArray(let type): "dbbObjectArray(\(type))"
        case .binary: "binary"
        }
    }
}

extension DBBStorageType: Equatable {
    public static func == (lhs: DBBStorageType, rhs: DBBStorageType) -> Bool {
        switch (lhs, rhs) {
        case (.dbbObject(let left), .dbbObject(let right)), (.dbbObjectArray(let left), .dbbObjectArray(let right)):
            ObjectIdentifier(left) == ObjectIdentifier(right)
        default:
            lhs.description == rhs.description
        }
    }
}
