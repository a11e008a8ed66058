internal import DBBSQL
public import DBBSchema
internal import Foundation

extension DBBTableObject {
    /// Creates an instance with property values taken from a dictionary keyed by property name
    /// (DBBuilder's `initWithDictionary:manager:`). Unknown keys are ignored; references take objects.
    ///
    /// - Throws: `DBBError` (mismatch) naming the property when a value has the wrong type, or
    ///   (misuse) when the class is not registered.
    public convenience init(dictionary: [String: Any], manager: DBBManager) throws {
        self.init(dbManager: manager)
        try populate(from: dictionary)
    }

    func populate(from dictionary: [String: Any]) throws {
        let manager = dbManager
        let map = try manager.map(for: type(of: self))
        for (key, value) in dictionary {
            do {
                try map.setAny(key, value, on: self)
            } catch var error as DBBError {
                error.message = "property \(key): \(error.message)"
                throw manager.record(error)
            }
        }
    }
}

extension DBBRegisteredClass {
    func setAny(_ property: String, _ value: Any, on object: DBBTableObject) throws {
        switch propertiesByName[property]?.accessor {
        case .scalar(let accessor): try accessor.setAny(object, value)
        case .values(let accessor): try accessor.setAny(object, value)
        case .object(let accessor): try accessor.set(object, value is NSNull ? nil : value as AnyObject)
        case .objects(let accessor):
            guard let array = value as? [Any] else { throw wrongType(value, [AnyObject].self) }
            try accessor.set(object, array.map { $0 as AnyObject })
        case nil:
            if property == "idNum", let id = value as? Int64 { object.idNum = id }
        }
    }

    private func wrongType(_ value: Any, _ expected: Any.Type) -> DBBError {
        DBBError.library(
            .mismatch, message: "a \(Swift.type(of: value)) is not a \(expected)", context: "assigning a property")
    }
}

extension DBBTableRepresentable where Self: DBBTableObject {
    /// Creates an instance from a dictionary and saves it (DBBuilder's `savedInstanceWithValues:manager:`).
    ///
    /// - Returns: the saved instance, with its id.
    /// - Throws: what `init(dictionary:manager:)` and `save()` throw.
    public static func savedInstance(values: [String: Any], manager: DBBManager) throws -> Self {
        let object = self.init(dbManager: manager)
        try object.populate(from: values)
        try object.save()
        return object
    }
}
