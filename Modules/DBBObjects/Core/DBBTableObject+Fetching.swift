public import DBBQuery
internal import DBBSQL
public import DBBSchema

extension DBBTableObject {
    static func fetch(_ request: DBBFetchRequest, manager: DBBManager) throws -> [DBBTableObject] {
        let map = try manager.map(for: self)
        return try manager.perform(
            DBBFetchWork(request: request, distinct: nil, map: map, manager: manager), isWrite: false)
    }

    /// The ids of every instance, ascending.
    ///
    /// - Throws: `DBBError` when the class is not registered.
    public static func fetchAllIDs(manager: DBBManager) throws -> [Int64] {
        let map = try manager.map(for: self)
        return try manager.perform(DBBIDsWork(sql: map.allIDsSQL, arguments: []), isWrite: false)
    }
}

extension DBBTableRepresentable where Self: DBBTableObject {
    /// Every instance of the class, fully populated, in id order.
    ///
    /// ```swift
    /// let people: [Person] = try Person.fetchAll(manager: manager)
    /// ```
    ///
    /// - Parameter manager: the manager to read through.
    /// - Returns: the instances.
    /// - Throws: `DBBError` when the class is not registered or a row does not fit the mapping.
    public static func fetchAll(manager: DBBManager) throws -> [Self] {
        let map = try manager.map(for: self)
        return map.typed(try fetch(map.allRowsRequest, manager: manager))
    }

    /// The instance with an id, or `nil` when there is none.
    ///
    /// - Parameters:
    ///   - id: the id.
    ///   - manager: the manager to read through.
    ///   - sparsePopulation: load only id and timestamps. Default: `false`.
    /// - Throws: `DBBError` when the class is not registered or the row does not fit the mapping.
    public static func fetchOne(id: Int64, manager: DBBManager, sparsePopulation: Bool = false) throws -> Self? {
        let map = try manager.map(for: self)
        return try fetch(map.rowsRequest(ids: [id], sparse: sparsePopulation), manager: manager).first as? Self
    }

    /// The instances with these ids, in the order of the ids; missing ids are skipped.
    ///
    /// - Throws: `DBBError` when the class is not registered or a row does not fit the mapping.
    public static func fetch(ids: [Int64], manager: DBBManager, sparsePopulation: Bool = false) throws -> [Self] {
        let map = try manager.map(for: self)
        let objects = try fetch(map.rowsRequest(ids: ids, sparse: sparsePopulation), manager: manager)
        return DBBRegisteredClass.ordered(map.typed(objects) as [Self], by: ids)
    }
}

extension DBBTableObject {
    /// Builds the fetch a set of query options asks for; a distinct fetch first selects one id per
    /// distinct combination of the loaded properties, a grouped fetch one id per group.
    static func request(
        for options: DBBQueryOptions, map: DBBRegisteredClass, sparse: Bool, manager: DBBManager
    ) throws -> (request: DBBFetchRequest, distinct: DBBQueryPlan?) {
        let plan = try DBBQueryPlan(
            options: options, names: map.queryNames, schema: DBBManagerQuerySchema(manager: manager))
        var request = DBBFetchRequest()
        request.tail = plan.whereSQL + plan.orderSQL + plan.limitSQL
        request.arguments = plan.arguments
        request.properties = plan.properties
        request.joinProperties = plan.joinProperties
        request.sparse = sparse
        request.isAll = plan.whereSQL.isEmpty && plan.limitSQL.isEmpty
        return (request, plan.distinctColumns == nil && plan.groupColumns == nil ? nil : plan)
    }
}

extension DBBTableObject {
    /// The work that counts what a fetch with these options returns, with one `SELECT count(*)`.
    static func countWork(_ options: DBBQueryOptions, manager: DBBManager) throws -> DBBCountWork {
        let map = try manager.map(for: self)
        let plan = try DBBQueryPlan(
            options: options, names: map.queryNames, schema: DBBManagerQuerySchema(manager: manager))
        return DBBCountWork(sql: plan.countSQL, arguments: plan.arguments, map: map)
    }
}

extension DBBTableRepresentable where Self: DBBTableObject {
    /// The objects that match query options.
    ///
    /// ```swift
    /// let options = DBBQueryOptions.options(withConditions: ["budget > 1000", "tags = 'urgent'"], sortColumns: ["name"])
    /// let projects = try Project.fetch(options: options, manager: manager)
    /// ```
    ///
    /// - Parameters:
    ///   - options: conditions, sorting, properties to load, distinctness, paging.
    ///   - manager: the manager to read through.
    ///   - sparsePopulation: load only id and timestamps. Default: `false`.
    /// - Throws: `DBBError` when the options are invalid (an unknown property, a syntax error in a
    ///   condition, a wrong number of bound values) or the class is not registered.
    public static func fetch(options: DBBQueryOptions, manager: DBBManager, sparsePopulation: Bool = false) throws
        -> [Self]
    {
        do {
            let map = try manager.map(for: self)
            let (request, distinct) = try request(for: options, map: map, sparse: sparsePopulation, manager: manager)
            return map.typed(
                try manager.perform(
                    DBBFetchWork(request: request, distinct: distinct, map: map, manager: manager), isWrite: false))
        } catch {
            throw manager.record(error)
        }
    }

    /// The number of objects that match query options, counted by one `SELECT count(*)` (no object is
    /// built). With `distinct`, distinct combinations of the chosen properties are counted; `limit` and
    /// `offset` apply as they do to a fetch.
    ///
    /// ```swift
    /// let adults = try Person.fetchCount(options: .options(withConditions: ["age >= 18"]), manager: manager)
    /// ```
    ///
    /// - Parameters:
    ///   - options: the conditions to match. Default: every object.
    ///   - manager: the manager to read through.
    /// - Returns: the number of matching objects.
    /// - Throws: `DBBError` as ``DBBTableObject/fetch(options:manager:sparsePopulation:)-2rueh``.
    public static func fetchCount(options: DBBQueryOptions = DBBQueryOptions(), manager: DBBManager) throws -> Int {
        do {
            return try manager.perform(try countWork(options, manager: manager), isWrite: false)
        } catch {
            throw manager.record(error)
        }
    }
}
