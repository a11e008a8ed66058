internal import DBBSQL
public import DBBSchema

/// What a query plan needs to know beyond the fetched class's own table: the classes its references
/// point to, and the properties key paths name. The object layer provides it from its registered classes.
public protocol DBBQuerySchema {
    /// The class a property of a table refers to.
    ///
    /// - Parameters:
    ///   - property: a property name of the table's class.
    ///   - table: the table.
    /// - Returns: the referenced class's table, or `nil` when the property is not an object reference or
    ///   an array of them.
    /// - Throws: `DBBError` when the referenced class cannot be described (it is not registered).
    func reference(_ property: String, of table: DBBTableDescription) throws -> DBBQueryReference?

    /// The property names a key path leads through, from the table's class: `["lead", "lastName"]` for
    /// `\Project.lead?.lastName`.
    ///
    /// - Parameters:
    ///   - keyPath: the key path.
    ///   - table: the table of the key path's root class.
    /// - Returns: the names, or `nil` when the key path is not a mapped property (or a mapped property
    ///   reached through mapped references).
    /// - Throws: `DBBError` when a class on the way cannot be described.
    func propertyPath(for keyPath: AnyKeyPath, of table: DBBTableDescription) throws -> [String]?
}

/// The class an object reference (or an array of references) points to.
public struct DBBQueryReference: Sendable {
    /// The referenced class's table.
    public var table: DBBTableDescription
    /// Whether the property is an array of references (a condition then matches when any element does).
    public var isArray: Bool

    /// Describes a reference.
    ///
    /// - Parameters:
    ///   - table: the referenced class's table.
    ///   - isArray: whether the property is an array of references.
    public init(table: DBBTableDescription, isArray: Bool) {
        self.table = table
        self.isArray = isArray
    }
}

extension DBBQueryNames {
    private var q: (String) -> String { table.dialect.identifier }

    private static func isWord(_ token: DBBConditionTokenizer.Token) -> Bool {
        // Two ASCII bytes first (or one alone) make an ASCII first character (CR LF is no letter either): its
        // bytes decide, without the Unicode look-ups of `Character`, which other first characters need.
        var bytes = token.text.utf8.makeIterator()
        guard let first = bytes.next() else { return false }
        if first < 0x80 && (bytes.next() ?? 0) < 0x80 {
            return first.isASCIILetterOrUnderscore
        }
        guard let character = token.text.first else { return false }
        return character.isLetter || character == "_"
    }

    /// The indices of the first words of `a.b` paths (not preceded by a dot) in a token list.
    private static func pathHeads(_ tokens: [DBBConditionTokenizer.Token]) -> [Int] {
        tokens.indices.filter { index in
            index + 2 < tokens.count && isWord(tokens[index]) && tokens[index + 1].text == "."
                && isWord(tokens[index + 2]) && (index == 0 || tokens[index - 1].text != ".")
        }
    }

    /// Whether a name is one of the table's own properties or columns.
    func namesOwnColumn(_ name: String) -> Bool {
        columns[name] != nil || joins[name] != nil || column(named: name) != nil
    }

    /// Translates a condition that names properties through a reference (`lead.lastName = ?`,
    /// `meetings.purpose = ?`): the condition, with that prefix removed, selects referenced objects, and
    /// the objects that refer to one of them match (any element of an array; no row more than once).
    /// Returns `nil` when the condition names no property through a reference.
    func translateThroughReference(_ condition: String, tokens: [DBBConditionTokenizer.Token]) throws -> (
        sql: String, placeholders: Int
    )? {
        guard let schema else { return nil }
        var references: [String: DBBQueryReference] = [:]
        for index in Self.pathHeads(tokens) where references[tokens[index].text] == nil {
            if let reference = try schema.reference(tokens[index].text, of: table) {
                references[tokens[index].text] = reference
            }
        }
        guard let (head, reference) = references.first.map({ ($0.key, $0.value) }) else { return nil }
        guard references.count == 1 else {
            throw DBBError.misuse(
                "a condition can reach through one reference; '\(condition)' names "
                    + references.keys.sorted().joined(separator: " and "),
                recovery: "write one condition per reference",
                context: "building a condition")
        }
        let target = DBBQueryNames(table: reference.table, schema: schema)
        var inner = ""
        var others: Set<String> = []
        var index = 0
        while index < tokens.count {
            let token = tokens[index]
            if token.text == head && Self.pathHeads([token] + tokens[(index + 1)...].prefix(2)) == [0]
                && (index == 0 || tokens[index - 1].text != ".")
            {
                let property = tokens[index + 2].text
                guard target.namesOwnColumn(property) else {
                    throw DBBError.misuse(
                        "\(head).\(property): \(property) is not a mapped property of \(reference.table.tableName)",
                        recovery: "name a property (or column) of the referenced class's mapping",
                        context: "building a condition")
                }
                index += 2
                continue
            }
            if let name = token.identifier, namesOwnColumn(name) { others.insert(name) }
            inner += token.text
            index += 1
        }
        // Inside the sub-select the other names would mean the referenced table's columns.
        guard others.isEmpty else {
            throw DBBError.misuse(
                "the condition '\(condition)' names properties through \(head) and also "
                    + others.sorted().joined(separator: ", ") + "; write each as its own condition",
                context: "building a condition")
        }
        let translated = try target.translateCondition(inner)
        let ids =
            "SELECT \(q(reference.table.idColumn)) FROM \(q(reference.table.tableName)) WHERE \(translated.sql)"
        return (try ownerCondition(head, referencedIDs: ids), translated.placeholders)
    }

    init(table: DBBTableDescription, schema: (any DBBQuerySchema)?) {
        self.init(DBBQueryTableNames(table: table), schema: schema)
    }

    /// `<fk> IN (<ids>)`, or `<id> IN (SELECT <owner> FROM <join table> WHERE <value> IN (<ids>))`.
    private func ownerCondition(_ property: String, referencedIDs ids: String) throws -> String {
        if let column = table.columns.first(where: { $0.propertyName == property }) {
            return "\(q(column.name)) IN (\(ids))"
        }
        guard let join = joins[property] else {
            throw DBBError.library(
                .internal, message: "reference \(property) has no column", context: "building a condition")
        }
        return "\(q(table.idColumn)) IN (SELECT \(q(join.ownerColumn)) FROM \(q(join.tableName)) WHERE "
            + "\(q(join.columnName)) IN (\(ids)))"
    }

    /// The value to sort by for a path through references (`lead.lastName`): a sub-select of the referenced
    /// row's column, NULL when there is no referenced object.
    func referenceSortExpression(_ name: String) throws -> String {
        try referenceSortExpression(name.split(separator: ".").map(String.init), outer: q(table.tableName), depth: 0)
    }

    private func referenceSortExpression(_ path: [String], outer: String, depth: Int) throws -> String {
        let name = path.joined(separator: ".")
        guard path.count > 1, let reference = try schema?.reference(path[0], of: table) else {
            throw DBBError.misuse(
                "\(name) is not a mapped property of \(table.tableName), nor a property of a referenced object",
                recovery: "sort by reference.property, where reference is an object reference of the class",
                context: "reading sorting")
        }
        guard !reference.isArray else {
            throw DBBError.misuse(
                "cannot sort by \(name): \(path[0]) is an array of references", context: "reading sorting")
        }
        let alias = "r\(depth)"
        let target = DBBQueryNames(table: reference.table, schema: schema)
        let rest = Array(path.dropFirst())
        let value: String
        if rest.count == 1 {
            guard let column = target.column(named: rest[0]) else {
                throw DBBError.misuse(
                    "cannot sort by \(name): \(rest[0]) is not a column property of \(reference.table.tableName)",
                    context: "reading sorting")
            }
            value = "\(alias).\(q(column))"
        } else {
            value = try target.referenceSortExpression(rest, outer: alias, depth: depth + 1)
        }
        let referencedID: String
        if let column = table.columns.first(where: { $0.propertyName == path[0] }) {
            referencedID = "\(outer).\(q(column.name))"
        } else if let join = joins[path[0]] {
            let j = "j\(depth)"
            referencedID =
                "(SELECT \(j).\(q(join.columnName)) FROM \(q(join.tableName)) AS \(j) WHERE \(j).\(q(join.ownerColumn)) "
                + "= \(outer).\(q(table.idColumn)) ORDER BY \(j).\(q("id")) LIMIT 1)"
        } else {
            throw DBBError.library(.internal, message: "reference \(path[0]) has no column", context: "reading sorting")
        }
        return "(SELECT \(value) FROM \(q(reference.table.tableName)) AS \(alias) WHERE "
            + "\(alias).\(q(reference.table.idColumn)) = \(referencedID))"
    }

    // MARK: Typed conditions

    /// Adds typed conditions to a WHERE clause: all of them must hold, together with the string conditions.
    func addTypedConditions(
        _ expressions: [DBBConditionExpression], to whereSQL: inout String, joinedWithOr: Bool,
        arguments: inout [DBBValue]
    ) throws {
        guard !expressions.isEmpty else { return }
        let typed = try expressions.map { "(\(try translate($0, arguments: &arguments)))" }
        if whereSQL.isEmpty {
            whereSQL = " WHERE " + typed.joined(separator: " AND ")
        } else {
            let strings = String(whereSQL.dropFirst(" WHERE ".count))
            whereSQL = " WHERE " + ([joinedWithOr ? "(\(strings))" : strings] + typed).joined(separator: " AND ")
        }
    }

    private func translate(_ expression: DBBConditionExpression, arguments: inout [DBBValue]) throws -> String {
        switch expression {
        case .comparison(let keyPath, let comparison, let value):
            let path = try propertyPath(keyPath.keyPath)
            arguments.append(try value.get())
            return try translateCondition("\(path) \(comparison) ?").sql
        case .list(let keyPath, let values):
            let path = try propertyPath(keyPath.keyPath)
            // `x IN ()` is valid in SQLite and matches nothing.
            arguments += try values.map { try $0.get() }
            return try translateCondition("\(path) IN (\(values.map { _ in "?" }.joined(separator: ", ")))").sql
        case .null(let keyPath):
            let path = try propertyPath(keyPath.keyPath)
            if !path.contains("."), let reference = try schema?.reference(path, of: table), !reference.isArray {
                // No referenced object: a NULL foreign key, or no join row.
                if let column = table.columns.first(where: { $0.propertyName == path }) {
                    return "\(q(column.name)) IS NULL"
                }
                if let join = joins[path] {
                    return "\(q(table.idColumn)) NOT IN (SELECT \(q(join.ownerColumn)) FROM \(q(join.tableName)) "
                        + "WHERE \(q(join.columnName)) IS NOT NULL)"
                }
            }
            return try translateCondition("\(path) IS NULL").sql
        case .through(let keyPath, let inner):
            // The referenced classes along the path, then the inner condition selects the last one's ids, and
            // each reference, from the inside out, selects its owners.
            let path = try propertyPath(keyPath.keyPath).split(separator: ".").map(String.init)
            var owners = [self]
            for name in path {
                guard let reference = try owners[owners.count - 1].schema?.reference(name, of: owners.last!.table)
                else {
                    throw DBBError.misuse(
                        "key path \(keyPath.keyPath) is not an object reference or an array of them",
                        recovery: "use any(_:where:) with a reference or an array of references",
                        context: "building a condition")
                }
                owners.append(DBBQueryNames(table: reference.table, schema: schema))
            }
            var sql = try owners[owners.count - 1].translate(inner, arguments: &arguments)
            for index in path.indices.reversed() {
                let referenced = owners[index + 1].table
                sql = try owners[index].ownerCondition(
                    path[index],
                    referencedIDs: "SELECT \(q(referenced.idColumn)) FROM \(q(referenced.tableName)) WHERE \(sql)")
            }
            return sql
        case .and(let left, let right):
            let lhs = try translate(left, arguments: &arguments)
            return "(\(lhs)) AND (\(try translate(right, arguments: &arguments)))"
        case .or(let left, let right):
            let lhs = try translate(left, arguments: &arguments)
            return "(\(lhs)) OR (\(try translate(right, arguments: &arguments)))"
        case .not(let inner):
            return "NOT (\(try translate(inner, arguments: &arguments)))"
        }
    }

    /// The dotted property path a key path names (`lead.lastName`).
    private func propertyPath(_ keyPath: AnyKeyPath) throws -> String {
        guard let schema else {
            throw DBBError.misuse(
                "typed conditions need the classes' mappings to resolve key paths",
                recovery: "fetch through a DBBManager (Class.fetch(options:manager:))",
                context: "building a condition")
        }
        guard let path = try schema.propertyPath(for: keyPath, of: table), !path.isEmpty else {
            throw DBBError.misuse(
                "key path \(keyPath) is not a mapped property of \(table.tableName)",
                recovery: "filter on mapped properties of the fetched class, or of the objects its mapped references "
                    + "lead to; name a property that a superclass maps through the superclass (\\Animal.name)",
                context: "building a condition")
        }
        return path.joined(separator: ".")
    }
}
