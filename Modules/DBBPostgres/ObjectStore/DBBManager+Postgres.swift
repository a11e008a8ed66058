public import DBBObjects
internal import DBBSQL

extension DBBManager {
    /// Opens a manager whose classes are saved and fetched on a PostgreSQL server: the same classes, queries and
    /// calls as on SQLite, written in PostgreSQL's SQL.
    ///
    /// ```swift
    /// let manager = try DBBManager(
    ///     postgres: .init(
    ///         host: "127.0.0.1", port: 5432, username: "app", password: secret, database: "app", tls: .disable),
    ///     readers: 4)
    /// try manager.addTableClasses([Person.self, Project.self])
    /// try Person.save(people, manager: manager)
    /// let found = try Person.fetch(options: .options(withConditions: ["age > 30"]), manager: manager)
    /// ```
    ///
    /// Saves and deletes run in one transaction on the writer connection, one at a time; fetches and counts run
    /// in a `REPEATABLE READ` read-only snapshot on a reader connection (on the writer when `readers` is 0), so a
    /// fetch never sees half of a saved graph. The synchronous calls wait on a serial queue of the connection
    /// they use, as they do on SQLite, and the `async` forms suspend until it is done. `manager.write { }` runs
    /// its object calls in one transaction on the writer, `manager.read { }` in one snapshot on a reader, and
    /// `manager.observe` sees the commits of every client of the database.
    ///
    /// - Parameters:
    ///   - configuration: the server, the role, the database and TLS.
    ///   - readers: the number of reader connections beside the writer; 0 reads on the writer.
    /// - Throws: `DBBError` when a connection cannot be made (a refused port, a wrong password, a database that
    ///   does not exist: the message says which, without the password), or when the `DBVersion` table cannot be
    ///   created.
    public convenience init(postgres configuration: DBBPostgresConfiguration, readers: Int = 0) throws {
        guard readers >= 0 else {
            throw DBBError.misuse(
                "a manager cannot have \(readers) readers", recovery: "pass 0 to read on the writer, or more",
                context: "connecting to \(configuration)")
        }
        try self.init(store: try DBBPostgresObjectStore(configuration: configuration, readers: readers))
    }

    /// The server, role and database of a manager opened with ``init(postgres:readers:)``; `nil` for a manager of
    /// an SQLite file. Its `description` has no password.
    public var postgresConfiguration: DBBPostgresConfiguration? {
        (store as? DBBPostgresObjectStore)?.configuration
    }

    /// The connection of the `manager.write { }` or `manager.read { }` closure the caller is in, for SQL of its
    /// own in that closure's transaction, beside the object calls.
    ///
    /// ```swift
    /// try manager.write {
    ///     try invoice.save()
    ///     _ = try manager.postgresConnection().execute(
    ///         "UPDATE \"Customer\" SET \"balance\" = \"balance\" + $1 WHERE \"id\" = $2",
    ///         [.double(invoice.total), .integer(invoice.customerID)])
    /// }
    /// ```
    ///
    /// - Returns: the connection; use it only inside the closure.
    /// - Throws: `DBBError` (misuse) outside such a closure, or on a manager of an SQLite file.
    public func postgresConnection() throws -> DBBPostgresConnection {
        guard let store = store as? DBBPostgresObjectStore else {
            throw DBBError.misuse(
                "this manager is not a PostgreSQL manager", recovery: "use manager.write { db in … } for SQL on SQLite",
                context: "asking for the PostgreSQL connection")
        }
        guard let connection = store.scopedConnection else {
            throw DBBError.misuse(
                "the PostgreSQL connection is lent only inside manager.write { } and manager.read { }",
                recovery: "call it inside the closure, whose transaction its statements join",
                context: "asking for the PostgreSQL connection")
        }
        return connection
    }
}
