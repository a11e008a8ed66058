// The JSON forms of the header and the schema objects (see Docs/DumpFormat.md).

extension DBBDumpHeader {
    var jsonValue: JSONValue {
        var members: [(key: String, value: JSONValue)] = [
            ("sqliteVersion", .string(sqliteVersion)),
            ("userVersion", .integer(Int64(userVersion))),
            ("applicationId", .integer(Int64(applicationID))),
            ("pageSize", .integer(Int64(pageSize))),
            ("encoding", .string(encoding)),
            ("autoVacuum", .integer(Int64(autoVacuum))),
            ("created", .string(created)),
            ("partial", .bool(isPartial)),
            ("totalRows", .integer(Int64(totalRows))),
            (
                "tables",
                .array(
                    tables.map { .object([("name", .string($0.name)), ("rowCount", .integer(Int64($0.rowCount)))]) })
            ),
        ]
        // Only a dump of a damaged source has the member, so older readers see every other dump as before.
        if !damage.isEmpty { members.append(("damage", .array(damage.map { .string($0) }))) }
        // Likewise only a dump of another engine has these.
        if let source {
            var described: [(key: String, value: JSONValue)] = [
                ("engine", .string(source.engine)), ("version", .string(source.version)),
                ("database", .string(source.database)),
            ]
            if let schema = source.schema { described.append(("schema", .string(schema))) }
            members.append(("source", .object(described)))
        }
        if !conversions.isEmpty {
            members.append(
                (
                    "conversions",
                    .array(
                        conversions.map {
                            .object([
                                ("table", .string($0.table)), ("column", .string($0.column)),
                                ("sourceType", .string($0.sourceType)), ("storedAs", .string($0.storedAs)),
                                ("note", .string($0.note)),
                            ])
                        })
                ))
        }
        if !sourceObjects.isEmpty {
            members.append(
                (
                    "sourceObjects",
                    .array(
                        sourceObjects.map {
                            .object([("type", .string($0.type)), ("name", .string($0.name)), ("sql", .string($0.sql))])
                        })
                ))
        }
        return .object(members)
    }

    /// Reads a header; `error` builds the error for a member of the wrong shape.
    init(json: JSONValue, formatVersion: Int, error: (String) -> DBBExportError) throws {
        guard case .object = json else { throw error("the header must be an object") }
        func member<T>(_ key: String, _ extract: (JSONValue) -> T?, default value: T? = nil) throws -> T {
            guard let found = json[key] else {
                if let value { return value }
                throw error("the header has no \"\(key)\"")
            }
            guard let result = extract(found) else { throw error("the header's \"\(key)\" has the wrong type") }
            return result
        }
        let int: (JSONValue) -> Int64? = { if case .integer(let value) = $0 { value } else { nil } }
        let string: (JSONValue) -> String? = { if case .string(let value) = $0 { value } else { nil } }
        let int32: (JSONValue) -> Int32? = { int($0).flatMap { Int32(exactly: $0) } }
        self.formatVersion = formatVersion
        sqliteVersion = try member("sqliteVersion", string, default: "")
        userVersion = try member("userVersion", int32, default: 0)
        applicationID = try member("applicationId", int32, default: 0)
        pageSize = Int(try member("pageSize", int, default: 4096))
        encoding = try member("encoding", string, default: "UTF-8")
        autoVacuum = Int(try member("autoVacuum", int, default: 0))
        created = try member("created", string, default: "")
        isPartial = try member("partial", { if case .bool(let value) = $0 { value } else { nil } }, default: false)
        let list: [JSONValue] = try member(
            "tables", { if case .array(let value) = $0 { value } else { nil } }, default: [])
        tables = try list.enumerated().map { index, entry in
            guard let name = entry["name"].flatMap(string), let count = entry["rowCount"].flatMap(int), count >= 0
            else {
                throw error("entry \(index + 1) of the header's \"tables\" needs a \"name\" and a \"rowCount\"")
            }
            return DBBDumpTable(name: name, rowCount: Int(count))
        }
        let notes: [JSONValue] = try member(
            "damage", { if case .array(let value) = $0 { value } else { nil } }, default: [])
        damage = try notes.map { note in
            guard let text = string(note) else { throw error("the header's \"damage\" must be an array of strings") }
            return text
        }
        if let described = json["source"] {
            guard let engine = described["engine"].flatMap(string), let version = described["version"].flatMap(string),
                let database = described["database"].flatMap(string)
            else {
                throw error("the header's \"source\" needs string members \"engine\", \"version\" and \"database\"")
            }
            source = DBBDumpSource(
                engine: engine, version: version, database: database, schema: described["schema"].flatMap(string))
        }
        let conversionList: [JSONValue] = try member(
            "conversions", { if case .array(let value) = $0 { value } else { nil } }, default: [])
        conversions = try conversionList.map { entry in
            guard let table = entry["table"].flatMap(string), let column = entry["column"].flatMap(string),
                let sourceType = entry["sourceType"].flatMap(string), let storedAs = entry["storedAs"].flatMap(string),
                let note = entry["note"].flatMap(string)
            else {
                throw error(
                    "an entry of the header's \"conversions\" needs string members \"table\", \"column\", "
                        + "\"sourceType\", \"storedAs\" and \"note\"")
            }
            return DBBDumpConversion(
                table: table, column: column, sourceType: sourceType, storedAs: storedAs, note: note)
        }
        let objectList: [JSONValue] = try member(
            "sourceObjects", { if case .array(let value) = $0 { value } else { nil } }, default: [])
        sourceObjects = try objectList.map { entry in
            guard let type = entry["type"].flatMap(string), let name = entry["name"].flatMap(string),
                let sql = entry["sql"].flatMap(string)
            else {
                throw error(
                    "an entry of the header's \"sourceObjects\" needs string members \"type\", \"name\" and \"sql\"")
            }
            return DBBDumpSourceObject(type: type, name: name, sql: sql)
        }
        var total = 0
        for table in tables {
            // No dump holds more rows than a 64-bit count: a crafted header must not overflow the sum.
            let (sum, overflow) = total.addingReportingOverflow(table.rowCount)
            guard !overflow else { throw error("the header's row counts add up to more than \(Int.max)") }
            total = sum
        }
        guard [512, 1024, 2048, 4096, 8192, 16384, 32768, 65536].contains(pageSize) else {
            throw error("the header's page size \(pageSize) is not one SQLite supports")
        }
        guard ["UTF-8", "UTF-16le", "UTF-16be"].contains(encoding) else {
            throw error("the header's encoding \"\(encoding)\" is not one SQLite supports")
        }
        guard (0...2).contains(autoVacuum) else {
            throw error("the header's autoVacuum \(autoVacuum) is not 0, 1 or 2")
        }
    }
}

extension DBBSchemaObject {
    var jsonValue: JSONValue {
        .object([
            ("type", .string(type)),
            ("name", .string(name)),
            ("tbl_name", .string(tableName)),
            ("sql", sql.map { .string($0) } ?? .null),
        ])
    }

    /// Reads a schema object; `error` builds the error for a member of the wrong shape.
    init(json: JSONValue, error: (String) -> DBBExportError) throws {
        guard case .string(let type) = json["type"] ?? .null, case .string(let name) = json["name"] ?? .null,
            case .string(let tableName) = json["tbl_name"] ?? .null
        else {
            throw error("a schema object needs string members \"type\", \"name\" and \"tbl_name\"")
        }
        guard ["table", "index", "view", "trigger"].contains(type) else {
            throw error("schema object \(name) has an unknown type \"\(type)\"")
        }
        switch json["sql"] ?? .null {
        case .null: sql = nil
        case .string(let text): sql = text
        default: throw error("schema object \(name) has an \"sql\" that is neither a string nor null")
        }
        if sql == nil && type != "index" {
            throw error("schema object \(name) has no SQL text")
        }
        self.type = type
        self.name = name
        self.tableName = tableName
    }
}
