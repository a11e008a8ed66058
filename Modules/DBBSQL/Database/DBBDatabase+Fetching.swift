extension DBBDatabase {
    /// A lazy cursor over the rows of a query.
    ///
    /// - Throws: ``DBBError`` for a syntax error or an argument that cannot be bound.
    public func fetchCursor(_ sql: String, _ arguments: (any DBBBindable)?...) throws -> DBBCursor {
        try prepare(sql).cursor(arguments: DBBArguments(arguments))
    }

    /// A lazy cursor over the rows of a query with positional or named arguments.
    ///
    /// - Throws: ``DBBError`` for a syntax error or an argument that cannot be bound.
    public func fetchCursor(_ sql: String, arguments: DBBArguments) throws -> DBBCursor {
        try prepare(sql).cursor(arguments: arguments)
    }

    /// Calls a closure with each row of a query; the fastest way to read many rows.
    ///
    /// - Throws: what preparing, stepping or the closure throws.
    public func forEachRow(_ sql: String, arguments: DBBArguments = .none, _ body: (DBBRow) throws -> Void) throws {
        try fetchCursor(sql, arguments: arguments).forEach(body)
    }

    /// Every row of a query as a dictionary from column name to value (DBSQLite's `fetchDictionary`).
    ///
    /// - Throws: ``DBBError`` for a syntax error or a failure while reading.
    public func fetchDictionary(_ sql: String, _ arguments: (any DBBBindable)?...) throws -> [[String: DBBValue]] {
        try fetchDictionary(sql, arguments: DBBArguments(arguments))
    }

    /// Every row of a query as a dictionary, with positional or named arguments.
    ///
    /// - Throws: ``DBBError`` for a syntax error or a failure while reading.
    public func fetchDictionary(_ sql: String, arguments: DBBArguments) throws -> [[String: DBBValue]] {
        try fetchCursor(sql, arguments: arguments).map(\.dictionary)
    }

    /// Every row of a query decoded into a `Decodable` type (DBSQLite's `fetchObject`).
    ///
    /// ```swift
    /// struct Artist: Decodable {
    ///     var id: Int64
    ///     var name: String
    ///     enum CodingKeys: String, CodingKey { case id = "ArtistId", name = "Name" }
    /// }
    /// let artists = try db.fetchAll(Artist.self, "SELECT * FROM Artist")
    /// ```
    ///
    /// - Throws: ``DBBError`` for a syntax error, or (mismatch) naming the column that does not decode.
    public func fetchAll<T: Decodable>(_ type: T.Type, _ sql: String, _ arguments: (any DBBBindable)?...) throws -> [T]
    {
        try fetchAll(type, sql, arguments: DBBArguments(arguments))
    }

    /// Every row of a query decoded into a `Decodable` type, with positional or named arguments.
    ///
    /// - Throws: ``DBBError`` as ``fetchAll(_:_:_:)``.
    public func fetchAll<T: Decodable>(_ type: T.Type, _ sql: String, arguments: DBBArguments) throws -> [T] {
        try fetchCursor(sql, arguments: arguments).map { try $0.decode(type) }
    }

    /// The first row of a query decoded into a `Decodable` type, or `nil` when there is none.
    ///
    /// - Throws: ``DBBError`` as ``fetchAll(_:_:_:)``.
    public func fetchOne<T: Decodable>(_ type: T.Type, _ sql: String, _ arguments: (any DBBBindable)?...) throws -> T? {
        try fetchOne(type, sql, arguments: DBBArguments(arguments))
    }

    /// The first row of a query decoded into a `Decodable` type, with positional or named arguments.
    ///
    /// - Throws: ``DBBError`` as ``fetchAll(_:_:_:)``.
    public func fetchOne<T: Decodable>(_ type: T.Type, _ sql: String, arguments: DBBArguments) throws -> T? {
        let cursor = try fetchCursor(sql, arguments: arguments)
        return try cursor.next()?.decode(type)
    }

    /// The first column of the first row (a scalar query), or `nil` when there is no row or it is NULL.
    ///
    /// ```swift
    /// let count = try db.fetchValue(Int.self, "SELECT count(*) FROM Track") ?? 0
    /// ```
    ///
    /// - Throws: ``DBBError`` for a syntax error or a value that does not convert to `T`.
    public func fetchValue<T: DBBColumnReadable>(_ type: T.Type, _ sql: String, _ arguments: (any DBBBindable)?...)
        throws -> T?
    {
        try fetchValue(type, sql, arguments: DBBArguments(arguments))
    }

    /// A scalar query with positional or named arguments.
    ///
    /// - Throws: ``DBBError`` as ``fetchValue(_:_:_:)``.
    public func fetchValue<T: DBBColumnReadable>(_ type: T.Type, _ sql: String, arguments: DBBArguments) throws -> T? {
        let cursor = try fetchCursor(sql, arguments: arguments)
        guard let row = try cursor.next(), !row.isNull(at: 0) else { return nil }
        return try row[0] as T
    }

    /// The first column of every row.
    ///
    /// - Throws: ``DBBError`` for a syntax error or a value that does not convert to `T`.
    public func fetchValues<T: DBBColumnReadable>(_ type: T.Type, _ sql: String, _ arguments: (any DBBBindable)?...)
        throws -> [T]
    {
        try fetchValues(type, sql, arguments: DBBArguments(arguments))
    }

    /// The first column of every row, with positional or named arguments.
    ///
    /// - Throws: ``DBBError`` as ``fetchValues(_:_:_:)``.
    public func fetchValues<T: DBBColumnReadable>(_ type: T.Type, _ sql: String, arguments: DBBArguments) throws -> [T]
    {
        try fetchCursor(sql, arguments: arguments).map { try $0[0] as T }
    }
}
