public import DBBQuery
public import DBBSQL
public import DBBSchema
internal import Foundation

extension DBBManager {
    /// Observes a query: an asynchronous sequence of its current results, the first at once, then one
    /// after each committed transaction that changed a table the query reads — the class's table, its join
    /// tables, and the tables of the classes its objects reference (which a fetch loads too).
    ///
    /// ```swift
    /// let adults = DBBQueryOptions.options(withConditions: ["age >= 18"], sortColumns: ["lastName"])
    /// for try await people in manager.observe(Person.self, options: adults) {
    ///     print(people.map(\.lastName))
    /// }
    /// ```
    ///
    /// Every commit through this manager counts: saves and deletes, `write` closures, and SQL of your own
    /// on ``queue`` (a single statement outside a transaction commits by itself). Changes other processes
    /// or other managers of the file make are not seen. On a manager of a server (`DBBPostgres`), commits
    /// of every client of the database are seen, this process's and others', as the server reports them
    /// (triggers that registration puts on the tables, and `LISTEN`/`NOTIFY`). Values coalesce: when commits come faster than the
    /// loop takes values, the loop gets the latest state, never an older one after a newer one. Each value
    /// is fetched in a snapshot that begins between two transactions of the writer, so it never shows half
    /// a transaction; the first value therefore waits for a write transaction in progress to end. With
    /// readers, the fetches run on a reader. Tables named only in SQL text of a condition (a subquery) are
    /// not watched.
    ///
    /// - Parameters:
    ///   - type: the class to fetch.
    ///   - options: the query. Default: every object, in id order.
    /// - Returns: the observation; iterate it to start it.
    public func observe<Object: DBBTableObject & DBBTableRepresentable>(
        _ type: Object.Type, options: DBBQueryOptions = DBBQueryOptions()
    ) -> DBBObservation<Object> {
        DBBObservation(manager: self, options: options)
    }

    /// Observes a query from code outside `async` functions: calls `onChange` with its current results at
    /// once, then after each committed transaction that changed a table it reads, as
    /// ``observe(_:options:)`` does. The closures run on a background thread, one call at a time.
    ///
    /// ```swift
    /// let handle = manager.observe(Person.self) { people in
    ///     DispatchQueue.main.async { show(people.count) }
    /// }
    /// // … later
    /// handle.cancel()
    /// ```
    ///
    /// - Parameters:
    ///   - type: the class to fetch.
    ///   - options: the query. Default: every object, in id order.
    ///   - onError: called once if a fetch fails; the observation then ends. Default: nothing (the reason
    ///     is also in ``errorMessage()``).
    ///   - onChange: receives each state of the results, as fresh objects.
    /// - Returns: the observation's handle: values stop when it is cancelled or released.
    public func observe<Object: DBBTableObject & DBBTableRepresentable>(
        _ type: Object.Type, options: DBBQueryOptions = DBBQueryOptions(),
        onError: @escaping @Sendable (DBBError) -> Void = { _ in },
        onChange: @escaping @Sendable (sending [Object]) -> Void
    ) -> DBBObservationHandle {
        let observation = observe(type, options: options)
        let task = Task.detached {
            do {
                var iterator = observation.makeAsyncIterator()
                while let objects = try await iterator.next() { onChange(objects) }
            } catch {
                onError(self.record(error))
            }
        }
        return DBBObservationHandle(task: task)
    }

    /// The number of observations of this manager that are running: iterations of ``observe(_:options:)`` that
    /// have started and not ended, and handles of ``observe(_:options:onError:onChange:)`` not cancelled. Each
    /// holds a little memory and is told of every commit to its tables, so a number that only grows shows
    /// observations nobody ends (a server's live endpoint whose clients left, say).
    ///
    /// An observation ends when its loop ends, when the task iterating it is cancelled (at once, even while
    /// it waits for a commit), when its iterator is released, and when the manager closes.
    public var activeObservationCount: Int { observers.count }

    /// The names of the tables a fetch of a class reads: its table, its join tables, and those of every class its
    /// objects reference, transitively.
    func tablesRead(by map: DBBRegisteredClass) -> Set<String> {
        var tables: Set<String> = []
        var visited: Set<ObjectIdentifier> = []
        var stack = [map]
        while let map = stack.popLast() {
            guard visited.insert(ObjectIdentifier(map.type)).inserted else { continue }
            tables.insert(map.tableName)
            for table in map.joins.compactMap(\.joinTable) { tables.insert(table.description.tableName) }
            stack += (map.foreignKeys + map.joins).compactMap(\.target).compactMap(mapIfRegistered)
        }
        return tables
    }

    /// Fetches an observed query in a snapshot that begins on the writer, between two of its transactions:
    /// the state's change flag is cleared there, so a commit the snapshot misses sets it again.
    func fetchObserved<Object: DBBTableObject & DBBTableRepresentable>(
        _ type: Object.Type, options: DBBQueryOptions, state: DBBObservationState
    ) async throws -> sending [Object] {
        do {
            let map = try self.map(for: type)
            let (request, distinct) = try Object.request(for: options, map: map, sparse: false, manager: self)
            let registry = observers
            let objects = try await store.performObserved(
                DBBFetchWork(request: request, distinct: distinct, map: map, manager: self),
                tables: tablesRead(by: map), onChange: { tables in registry.changed(tables) },
                snapshotBegins: { state.snapshotBegins() })
            return map.typed(objects, as: Object.self)
        } catch {
            throw record(error)
        }
    }
}
