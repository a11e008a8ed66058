/// A lazy, forward-only sequence of rows.
///
/// Each call to ``next()`` steps the statement once; nothing is read ahead. The row it returns is
/// valid until the following call.
///
/// ```swift
/// let cursor = try db.fetchCursor("SELECT * FROM Artist ORDER BY Name")
/// while let row = try cursor.next() {
///     print(try row["Name"] as String)
/// }
/// ```
public final class DBBCursor {
    let statement: DBBStatement
    // Held strongly so that a cursor (and the rows that keep it alive) never outlives its connection.
    @usableFromInline let database: DBBDatabase
    // Unchecked: read for every step; a cursor is used by one thread at a time and no access to it is held across
    // a call.
    @exclusivity(unchecked) private var finished = false
    @exclusivity(unchecked) private var started = false

    init(statement: DBBStatement) {
        self.statement = statement
        self.database = statement.database
        statement.isInUse = true
        database.activeCursorCount += 1
    }

    deinit { finish() }

    /// The column names of the rows.
    public var columnNames: [String] { statement.columnNames }

    /// Steps to the next row.
    ///
    /// - Returns: the row, or `nil` when there are no more.
    /// - Throws: ``DBBError`` when SQLite fails while stepping.
    @inline(__always)
    public func next() throws -> DBBRow? {
        try advance() ? DBBRow(cursor: self, statement: statement) : nil
    }

    /// Steps to the next row without making a row value: a row is a view onto the statement's current row, so
    /// one value made after the first step reads every later row (the columns can change only at the first
    /// step, where SQLite re-prepares a statement whose schema changed). Each row made retains the cursor.
    ///
    /// - Returns: whether there is a row.
    /// - Throws: ``DBBError`` when SQLite fails while stepping.
    @inline(__always)
    private func advance() throws -> Bool {
        if finished { return false }
        do {
            if try statement.step() {
                if !started {
                    started = true
                    statement.refreshColumnsIfReprepared()
                }
                return true
            }
        } catch {
            finish()
            throw error
        }
        finish()
        return false
    }

    /// Calls a closure with each remaining row.
    ///
    /// - Throws: what stepping or the closure throws.
    public func forEach(_ body: (DBBRow) throws -> Void) throws {
        guard let row = try next() else { return }
        repeat { try body(row) } while try advance()
    }

    /// Transforms each remaining row into a value.
    ///
    /// - Throws: what stepping or the transform throws.
    public func map<T>(_ transform: (DBBRow) throws -> T) throws -> [T] {
        var result: [T] = []
        guard let row = try next() else { return result }
        repeat { result.append(try transform(row)) } while try advance()
        return result
    }

    private func finish() {
        guard !finished else { return }
        finished = true
        statement.reset()
        statement.isInUse = false
        database.activeCursorCount -= 1
    }
}

@available(*, unavailable, message: "a cursor steps a statement of one connection")
extension DBBCursor: Sendable {}
