internal import DBBQuery
internal import DBBSQL
internal import DBBSchema

/// Resolves, for query plans, the references between a manager's registered classes and the properties
/// key paths name: conditions and sorting through references (`lead.lastName`) and typed conditions.
struct DBBManagerQuerySchema: DBBQuerySchema {
    let manager: DBBManager

    private func map(of table: DBBTableDescription) -> DBBRegisteredClass? {
        manager.allMaps.first { $0.tableName == table.tableName }
    }

    /// The map of the class a reference property points to, and whether the property is an array.
    private func target(of property: String, in map: DBBRegisteredClass) throws -> (
        map: DBBRegisteredClass, isArray: Bool
    )? {
        guard let mapped = map.propertiesByName[property], let target = mapped.target else { return nil }
        let isArray = if case .objects = mapped.accessor { true } else { false }
        guard let targetMap = manager.mapIfRegistered(target) else {
            throw DBBError.misuse(
                "\(map.tableName).\(property) refers to a class that is not registered with this manager",
                recovery: "register the referenced class with addTableClasses",
                context: "building a query for \(map.tableName)")
        }
        return (targetMap, isArray)
    }

    func reference(_ property: String, of table: DBBTableDescription) throws -> DBBQueryReference? {
        guard let map = map(of: table), let target = try target(of: property, in: map) else { return nil }
        return DBBQueryReference(table: target.map.description, isArray: target.isArray)
    }

    func propertyPath(for keyPath: AnyKeyPath, of table: DBBTableDescription) throws -> [String]? {
        guard let map = map(of: table) else { return nil }
        if let direct = map.keyPaths.first(where: { $0.value == keyPath }) { return [direct.key] }
        // Every class has these; a subclass's own key path to them (`\Team.idNum`) has an accessor of its own.
        if keyPath == \DBBTableObject.idNum { return ["idNum"] }
        if keyPath == \DBBTableObject.createdTime { return ["createdTime"] }
        if keyPath == \DBBTableObject.modifiedTime { return ["modifiedTime"] }
        // A key path of another class (not the fetched one, nor one of its superclasses) names nothing here.
        let root = type(of: keyPath).rootType
        let isOwn = { (type: Any.Type) in ObjectIdentifier(type) == ObjectIdentifier(root) }
        guard isOwn(map.type) || map.keyPaths.values.contains(where: { isOwn(Swift.type(of: $0).rootType) }),
            let components = DBBPropertyPersistence.describedComponents(of: keyPath)
        else { return nil }
        return try resolve(components, in: map)
    }

    /// Matches a key path's components, as the run time describes them, with the mapping's key paths one
    /// reference at a time: `\Project.lead?.lastName` is `lead`'s components, `?.`, then `lastName`'s
    /// components in the referenced class. (Key paths through an optional cannot be built by
    /// `appending(path:)`, so they cannot be compared with `==`; their descriptions name each component —
    /// by name, or by accessor for a property that subclasses may override.)
    private func resolve(_ components: String, in map: DBBRegisteredClass) throws -> [String]? {
        for name in map.propertyNames.sorted() {
            // An entry made of closures alone (the macro's) has no key path; its key is its property's name.
            guard let own = map.keyPaths[name].map(DBBPropertyPersistence.describedComponents(of:)) ?? name else {
                continue
            }
            if components == own { return [name] }
            for separator in [".", "?."] where components.hasPrefix(own + separator) {
                guard let target = try target(of: name, in: map) else { continue }
                let rest = String(components.dropFirst(own.count + separator.count))
                if let path = try resolve(rest, in: target.map) { return [name] + path }
            }
        }
        return nil
    }
}
