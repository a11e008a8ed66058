package import DBBSQL

extension DBBExport {
    /// An empty private database holding a dump's ordinary tables, indexes, views and triggers, so that the
    /// other modules of the package (a restore into another database engine) can read the schema with SQLite's
    /// own PRAGMAs rather than parse its SQL again.
    ///
    /// Each statement is checked as a restore checks it (``SchemaStatement``), so a crafted dump is refused here
    /// as a restore refuses it, and runs nothing but plain creations. Virtual tables (whose module may be
    /// missing) and SQLite's own tables are left out; the shadow tables of virtual tables are ordinary tables
    /// and are kept. A view or trigger that SQLite rejects for what it refers to (a virtual table left out)
    /// is left out too, once its statement has passed the check.
    ///
    /// - Parameter schema: the dump's schema objects.
    /// - Returns: the database, in memory.
    /// - Throws: ``DBBExportError`` (malformed) for a schema entry that is not one plain creation; `DBBError`
    ///   when SQLite rejects one.
    package static func schemaDatabase(for schema: [DBBSchemaObject]) throws -> DBBDatabase {
        let db = try DBBDatabase.inMemory()
        let tables = Set(
            schema.filter { $0.type == "table" && !$0.isVirtualTable && !$0.name.lowercased().hasPrefix("sqlite_") }
                .map { $0.name.lowercased() })
        for object in schema where tables.contains(object.name.lowercased()) && object.type == "table" {
            try SchemaStatement.run(object, in: db)
        }
        for object in schema where object.type == "index" && tables.contains(object.tableName.lowercased()) {
            try SchemaStatement.run(object, in: db)
        }
        for type in ["view", "trigger"] {
            for object in schema where object.type == type {
                do {
                    try SchemaStatement.run(object, in: db)
                } catch is DBBError {
                    continue  // it refers to an object left out here
                }
            }
        }
        return db
    }
}
