internal import DBBSQL

/// Runs a schema entry of a dump, after SQLite's own parser has shown that its SQL is exactly what the
/// entry says it is.
///
/// A dump is the only SQL a restore runs, and a dump may be crafted. So each entry's SQL must be one
/// statement that creates one object of the entry's own type and name in the main schema: a `table`
/// entry one `CREATE TABLE` (or `CREATE VIRTUAL TABLE`), an `index` entry one `CREATE INDEX`, and so on.
/// Nothing temporary (a `TEMP` trigger would run on the restored rows of a main table), no `ATTACH`,
/// `PRAGMA` or transaction control, no statement that writes rows (`CREATE TABLE … AS SELECT`). The
/// authorizer sees what the parser found, whatever the spelling, comments or quoting.
enum SchemaStatement {
    /// The authorizer action that creates each schema type.
    private static let creations: [String: [DBBAuthorizerAction]] = [
        "table": [.createTable, .createVirtualTable],
        "index": [.createIndex],
        "view": [.createView],
        "trigger": [.createTrigger],
    ]

    /// Actions a schema statement may never contain.
    private static let forbidden: Set<DBBAuthorizerAction> = [
        .createTempTable, .createTempIndex, .createTempView, .createTempTrigger, .attach, .detach, .pragma,
        .transaction,
    ]

    /// Actions that write rows: allowed on SQLite's schema table (every CREATE writes it) and inside a
    /// trigger's body (which runs only when rows change later), nowhere else.
    private static let rowWrites: Set<DBBAuthorizerAction> = [.insert, .update, .delete]

    /// Checks a schema entry's SQL with SQLite's parser and runs it.
    ///
    /// - Throws: ``DBBExportError`` (malformed) naming the entry when its SQL is not one creation of its
    ///   own type and name in the main schema; `DBBError` (with the entry in its context) when SQLite
    ///   rejects it.
    static func run(_ object: DBBSchemaObject, in db: DBBDatabase) throws {
        guard let sql = object.sql else { return }
        func refuse(_ why: String) -> DBBExportError {
            DBBExportError(.malformed, "the SQL of \(object.type) \(object.name) \(why)", table: object.tableName)
        }
        guard let allowed = creations[object.type] else {
            throw refuse("is of an unknown schema type")
        }
        // A C string ends at NUL: text after one would silently not be run, nor match sqlite_master.
        guard !sql.utf8.contains(0) else { throw refuse("holds a NUL character") }
        var created: [DBBAuthorizerRequest] = []
        var refused: DBBAuthorizerRequest?
        let statement: DBBStatement
        do {
            statement = try db.prepare(sql) { request in
                if Self.forbidden.contains(request.action) {
                    refused = refused ?? request
                    return .deny
                }
                // Only a view selects when it is created; a table that does is CREATE TABLE … AS SELECT.
                if request.action == .select, request.trigger == nil, object.type != "view" {
                    refused = refused ?? request
                    return .deny
                }
                if Self.rowWrites.contains(request.action), request.trigger == nil,
                    !["sqlite_master", "sqlite_schema"].contains(request.first?.lowercased() ?? "")
                {
                    refused = refused ?? request  // CREATE TABLE … AS SELECT writes rows
                    return .deny
                }
                // SQLite's own objects come along with a table: automatic indexes for its PRIMARY KEY and UNIQUE
                // constraints, sqlite_sequence for AUTOINCREMENT. (No statement may name an object sqlite_….)
                let isInternal = request.first?.lowercased().hasPrefix("sqlite_") == true
                if !isInternal, Self.creations.values.contains(where: { $0.contains(request.action) }) {
                    created.append(request)
                }
                return .allow
            }
        } catch var error as DBBError {
            if let refused {
                throw refuse(
                    "is not a plain CREATE of a main-schema \(object.type) (SQLite found \(describe(refused)))")
            }
            if error.message.contains("more than one statement") {
                throw refuse("holds more than one statement")
            }
            error.context = "re-creating \(object.type) \(object.name)"
            throw error
        }
        guard created.count == 1, let creation = created.first else {
            throw refuse(
                created.isEmpty ? "is not a CREATE statement" : "creates \(created.count) objects, not one")
        }
        guard allowed.contains(creation.action) else {
            throw refuse("creates something else (SQLite found \(describe(creation)))")
        }
        guard creation.first == object.name else {
            throw refuse("creates an object named \(creation.first ?? "?"), not \(object.name)")
        }
        if creation.database != nil && creation.database?.lowercased() != "main" {
            throw refuse("creates its object in schema \(creation.database ?? "?"), not main")
        }
        if object.type == "index" || object.type == "trigger",
            creation.second?.lowercased() != object.tableName.lowercased()
        {
            throw refuse("belongs to table \(creation.second ?? "?"), not \(object.tableName)")
        }
        do {
            try statement.execute()
        } catch var error as DBBError {
            error.context = "re-creating \(object.type) \(object.name)"
            throw error
        }
    }

    private static func describe(_ request: DBBAuthorizerRequest) -> String {
        let names: [DBBAuthorizerAction: String] = [
            .createTable: "CREATE TABLE", .createTempTable: "CREATE TEMP TABLE", .createIndex: "CREATE INDEX",
            .createTempIndex: "CREATE INDEX on a temporary table", .createView: "CREATE VIEW",
            .createTempView: "CREATE TEMP VIEW", .createTrigger: "CREATE TRIGGER",
            .createTempTrigger: "CREATE TEMP TRIGGER", .createVirtualTable: "CREATE VIRTUAL TABLE",
            .attach: "ATTACH", .detach: "DETACH", .pragma: "PRAGMA", .transaction: "a transaction statement",
            .insert: "an INSERT", .update: "an UPDATE", .delete: "a DELETE", .select: "a SELECT",
        ]
        let name = names[request.action] ?? "action \(request.action.rawValue)"
        return request.first.map { "\(name) \($0)" } ?? name
    }
}
