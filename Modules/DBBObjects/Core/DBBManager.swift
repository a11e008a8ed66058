public import DBBSQL
public import DBBSchema
public import Foundation
internal import Logging
internal import Synchronization

/// Owns one database file (or an in-memory database), the classes registered with it, and the serial
/// queue every object operation runs on — so a manager may be used from any thread or task. A manager
/// opened with readers (``init(databaseURL:mode:readers:)``) runs its fetches on a pool of reader
/// connections instead, in parallel with each other and with the writer.
///
/// ```swift
/// let manager = try DBBManager(databaseURL: URL(fileURLWithPath: "/tmp/projects.sqlite"))
/// try manager.addTableClasses([Person.self, Project.self, Meeting.self])
/// ```
public final class DBBManager: @unchecked Sendable {
    // @unchecked: locks guard the registry and `lastError`; connections and scope slots are used on their queues.

    /// Where the manager's object work runs: SQLite's store, or another engine's (``DBBObjectStore``).
    package let store: any DBBObjectStore
    /// The database file, or `nil` for an in-memory manager and a manager of a database server.
    public let databaseURL: URL?
    /// Whether the manager writes to its file, or only reads it (``Mode/readOnly``). Set by the initializer.
    public private(set) var mode: Mode = .readWrite

    private let lock = NSLock()
    private let registration = NSRecursiveLock()
    private var pending: [ObjectIdentifier: PendingMapping] = [:]
    private var maps: [ObjectIdentifier: DBBRegisteredClass] = [:]
    private var lastError: DBBError?
    private var warnings: [String] = []
    /// How many classes are having their initializer run for registration right now. Outside registration it
    /// is 0, and ``addPersistenceMapping(_:for:indexer:)`` (run by every object a fetch creates) returns
    /// after one atomic load, without taking the lock.
    private let registeringCount = Atomic<Int>(0)
    /// The observations that wait for commits, and the writer's commit observer once one was installed.
    let observers = DBBObserverRegistry()
    /// What the manager reports of its operations and transactions (spans, metrics); `nil` when nothing, so an
    /// operation costs one check (``setInstrumentation(_:)``).
    let instruments = Mutex<DBBManagerInstruments?>(nil)
    /// Whether `instruments` holds anything: an operation of a manager that reports nothing reads this flag
    /// and takes no lock.
    let reportsOperations = Atomic<Bool>(false)
    /// Where registration and migration warnings are logged, when the manager logs (``setInstrumentation(_:)``).
    let warningLogger = Mutex<Logger?>(nil)

    private struct PendingMapping {
        var tableName: String
        var properties: [String: DBBPropertyPersistence] = [:]
        var indexers: [DBBIndexer] = []
    }

    /// Opens (or creates) a database file, as a serial manager: one connection, on which every operation
    /// waits its turn. File databases use WAL journaling with `synchronous = NORMAL`.
    ///
    /// - Parameter databaseURL: a file URL (not a directory).
    /// - Throws: `DBBError` when the file cannot be opened or is not an SQLite database.
    public convenience init(databaseURL: URL) throws {
        try self.init(databaseURL: databaseURL, mode: .readWrite, readers: 0)
    }

    /// Opens a database file with a pool of reader connections beside the writer: saves, deletes and
    /// `write` closures are serialized on the writer, while fetches, counts and `read` closures run on
    /// the readers, in parallel with each other and with a write in progress, each in a snapshot of its
    /// own — a fetch never sees half of a saved object graph, and never waits for a long save.
    ///
    /// ```swift
    /// let manager = try DBBManager(databaseURL: url, readers: 4)
    /// try manager.addTableClasses([Person.self, Project.self])
    /// async let people = Person.fetchAll(manager: manager)      // on a reader
    /// try await Project.save(newProjects, manager: manager)      // on the writer, meanwhile
    /// ```
    ///
    /// A fetch after a save returns sees it (the save has committed when it returns). Inside
    /// ``write(_:)-6ujxo`` fetches stay on the writer, so they see the transaction's own rows. SQL of your
    /// own through ``queue`` runs on the writer; ``pool`` reaches the readers.
    ///
    /// `readers: 0` opens the serial manager of ``init(databaseURL:)``, which stays the default: one
    /// connection, as in DBBBuilder, and every statement on ``queue`` (where a trace hook sees it). With
    /// ``Mode/readOnly`` the readers read in parallel too (on a file in rollback-journal mode, a writer of
    /// another process waits for their reads to end). An in-memory database belongs to one connection: use
    /// ``inMemory()``, which is serial.
    ///
    /// Related SQLite documentation: https://www.sqlite.org/wal.html
    ///
    /// - Parameters:
    ///   - databaseURL: a file URL (not a directory). A read-only file must exist.
    ///   - mode: ``Mode/readWrite`` (the default) or ``Mode/readOnly``.
    ///   - readers: the number of reader connections; 0 for a serial manager. Four suit most servers;
    ///     more than the number of cores rarely helps.
    /// - Throws: `DBBError` when the file cannot be opened or is not an SQLite database, or (misuse) for a
    ///   negative `readers`.
    public convenience init(databaseURL: URL, mode: Mode = .readWrite, readers: Int) throws {
        guard readers >= 0 else {
            throw DBBError.misuse(
                "a manager cannot have \(readers) readers", recovery: "pass 0 for a serial manager, or more",
                context: "opening \(databaseURL.path)")
        }
        let store = try DBBSQLiteObjectStore(databaseURL: databaseURL, readOnly: mode == .readOnly, readers: readers)
        try self.init(store: store, databaseURL: databaseURL, mode: mode)
    }

    /// A manager whose object work runs on a store: SQLite's, or another engine's (`DBBManager(postgres:)` in
    /// `DBBPostgres`).
    ///
    /// - Parameters:
    ///   - store: the store, which the manager owns from then on.
    ///   - databaseURL: the database file, if the store has one.
    ///   - mode: whether the manager writes.
    /// - Throws: `DBBError` when the `DBVersion` table cannot be created.
    package init(store: any DBBObjectStore, databaseURL: URL? = nil, mode: Mode = .readWrite) throws {
        self.store = store
        self.databaseURL = databaseURL
        self.mode = mode
        if mode == .readWrite { try addTableClasses([DBVersion.self]) }
        try reportToBootstrappedSystems()
    }

    /// A manager of a private in-memory database, with every feature of a file manager.
    ///
    /// - Throws: `DBBError` if SQLite cannot allocate the database.
    public static func inMemory() throws -> DBBManager {
        try DBBManager(store: try DBBSQLiteObjectStore(inMemory: try DBBDatabase.inMemory()))
    }

    /// Closes the connection (with readers, the readers once their reads in progress end, then the writer): a
    /// file database's write-ahead log is checkpointed into the file and removed. Operations after closing
    /// fail with a `DBBError` (misuse) saying the database is closed, and observations end.
    ///
    /// A manager also closes its connection when it is released; call this when objects may outlive it (their
    /// `dbManager` keeps it alive), or to leave the file tidy at a known point.
    ///
    /// - Throws: `DBBError` when SQLite cannot close the connection.
    public func close() throws {
        observers.finishAll()
        do {
            try store.close()
        } catch {
            throw record(error)
        }
    }

    // MARK: Registry

    func map(for type: DBBTableObject.Type) throws -> DBBRegisteredClass {
        lock.lock()
        defer { lock.unlock() }
        guard let map = maps[ObjectIdentifier(type)] else {
            let error = DBBError.misuse(
                "\(type) is not registered with this manager",
                recovery: "call addTableClasses([\(type).self]) before using the class",
                context: "looking up \(type)")
            lastError = error
            throw error
        }
        return map
    }

    func mapIfRegistered(_ type: ObjectIdentifier) -> DBBRegisteredClass? {
        lock.lock()
        defer { lock.unlock() }
        return maps[type]
    }

    var allMaps: [DBBRegisteredClass] {
        lock.lock()
        defer { lock.unlock() }
        return Array(maps.values)
    }

    /// Records the persistence mapping of a class; call it from `required init(dbManager:)`.
    ///
    /// The mapping is built only once per class and manager: the arguments are evaluated while the class
    /// is being registered and ignored afterwards, so creating objects (as every fetch does) costs one
    /// atomic load. Each class in a chain (`Animal → Mammal → Pet`) calls it from its own init, and the leaf
    /// class's table gets the properties of the whole chain.
    ///
    /// A class may instead declare its mapping once, as a class property
    /// (``DBBTableObject/persistenceMapping``, which the `@DBBTable` macro writes); then its initializer
    /// need not call this at all.
    ///
    /// - Parameters:
    ///   - contents: the mapping, keyed by property name.
    ///   - tableObject: the object being initialized (pass `self`).
    ///   - indexer: the columns to index. Optional.
    public func addPersistenceMapping(
        _ contents: @autoclosure () -> [String: DBBPropertyPersistence], for tableObject: DBBTableObject,
        indexer: @autoclosure () -> DBBIndexer? = nil
    ) {
        // Creating an object outside registration (every fetch) ends here.
        guard registeringCount.load(ordering: .acquiring) > 0 else { return }
        addPending(ObjectIdentifier(type(of: tableObject)), contents(), indexer())
    }

    /// Records the persistence mapping of the class being registered whose table is `table`; DBBBuilder's
    /// form of ``addPersistenceMapping(_:for:indexer:)``, called from `required init(dbManager:)` with
    /// `forTableNamed: shortName`. Like it, it evaluates its arguments only while the class is registered.
    ///
    /// - Parameters:
    ///   - contents: the mapping, keyed by property name.
    ///   - table: the table of the class being initialized (`shortName`).
    ///   - indexer: the columns to index. Optional.
    public func addPersistenceMapContents(
        _ contents: @autoclosure () -> [String: DBBPropertyPersistence], forTableNamed table: String,
        indexer: @autoclosure () -> DBBIndexer? = nil
    ) {
        guard registeringCount.load(ordering: .acquiring) > 0,
            let key = lock.withLock({ pending.first(where: { $0.value.tableName == table })?.key })
        else { return }
        addPending(key, contents(), indexer())
    }

    private func addPending(
        _ key: ObjectIdentifier, _ contents: @autoclosure () -> [String: DBBPropertyPersistence],
        _ indexer: @autoclosure () -> DBBIndexer?
    ) {
        guard lock.withLock({ maps[key] == nil && pending[key] != nil }) else { return }
        // The caller's expressions run outside the lock: they may use the manager themselves.
        let properties = contents()
        let newIndexer = indexer()
        lock.withLock {
            guard maps[key] == nil, var mapping = pending[key] else { return }
            mapping.properties.merge(properties, uniquingKeysWith: { _, subclass in subclass })
            if let newIndexer { mapping.indexers.append(newIndexer) }
            pending[key] = mapping
        }
    }

    /// Registers classes: builds each one's mapping (its class-level `persistenceMapping` and what its
    /// initializer registers, each read once, here), then creates its missing table, join tables and
    /// indexes, and adds columns for new properties. Nothing is ever dropped.
    ///
    /// - Parameter tableClasses: the classes this manager persists.
    /// - Throws: `DBBError` when a mapping is invalid (a key that does not name its key path's property,
    ///   a declared type that differs from the property's, an index on an unknown property), when an existing column's type conflicts with the
    ///   mapping, or when SQLite refuses the DDL. A class that fails is not registered; nothing of it is
    ///   written (its DDL runs in one transaction, which takes the write lock before it reads the schema,
    ///   so two processes registering classes on one new file wait for each other instead of failing).
    public func addTableClasses(_ tableClasses: [DBBTableObject.Type]) throws {
        // One registration at a time: two threads registering one class would share its pending mapping.
        registration.lock()
        defer { registration.unlock() }
        for tableClass in tableClasses {
            let key = ObjectIdentifier(tableClass)
            if mapIfRegistered(key) != nil { continue }
            // The initializer runs once, here, to collect what it maps with `addPersistenceMapping` and sets
            // in `attributesDictionary`; the class-level mapping is read once, and takes precedence.
            lock.withLock { pending[key] = PendingMapping(tableName: tableClass.tableName) }
            registeringCount.add(1, ordering: .sequentiallyConsistent)
            let prototype = tableClass.init(dbManager: self)
            registeringCount.subtract(1, ordering: .sequentiallyConsistent)
            let collected =
                lock.withLock { pending.removeValue(forKey: key) } ?? PendingMapping(tableName: tableClass.tableName)
            let declared = tableClass.persistenceMapping
            let properties = collected.properties.merging(
                declared.properties, uniquingKeysWith: { _, declared in declared })
            do {
                try DBBPropertyPersistence.checkKeys(properties, tableName: tableClass.tableName)
                let map = try DBBRegisteredClass(
                    type: tableClass, properties: properties,
                    attributes: (prototype.attributesDictionary ?? [:])
                        .merging(declared.attributes, uniquingKeysWith: { _, declared in declared }),
                    indexers: collected.indexers + declared.indexers, prototype: prototype, dialect: store.dialect)
                // Inside a `write` closure (a data migration), the schema joins its transaction.
                let found = try perform(
                    DBBSchemaWork(map: map, checkOnly: mode == .readOnly), isWrite: mode == .readWrite,
                    reported: false)
                lock.withLock { maps[key] = map }
                for warning in found { warn(warning) }
            } catch {
                throw record(error)
            }
        }
    }

    /// Forgets registered classes (those a rolled-back migration registered).
    func unregister(_ keys: Set<ObjectIdentifier>) {
        lock.withLock { for key in keys { maps[key] = nil } }
    }

    // MARK: Errors

    /// What registration and migrations found suspicious but did not refuse, in order: a new property beside an
    /// unmapped column or join table that holds data (a rename without its migration?), an edited migration.
    /// Each is also logged as a warning when the manager logs (`setInstrumentation(_:)`).
    public var registrationWarnings: [String] { lock.withLock { warnings } }

    /// Records a warning for ``registrationWarnings`` and logs it.
    func warn(_ message: String) {
        lock.withLock { warnings.append(message) }
        warningLogger.withLock { $0 }?.warning("\(message)")
    }

    /// Remembers a failure for ``errorMessage()`` and returns it as a `DBBError`: an error of the application's own
    /// code stays reachable, unchanged, as its `underlyingError`.
    @discardableResult
    func record(_ error: any Error) -> DBBError {
        let dbbError = DBBError.wrapping(error, context: "running an operation")
        lock.withLock { lastError = dbbError }
        return dbbError
    }

    /// The message of the most recent failure of an operation through this manager, followed by what to do
    /// when it was a misuse (empty when none failed).
    ///
    /// It is the manager's, not the caller's: a manager used from several threads or tasks at once reports the
    /// failure that was recorded last, which may be another thread's; a success does not clear it. Code that
    /// shares a manager between threads should use the throwing forms, whose errors belong to their caller; the
    /// Bool- and optional-returning names and this message are DBBBuilder's single-threaded API.
    public func errorMessage() -> String {
        lock.withLock {
            guard let lastError else { return "" }
            return lastError.recoverySuggestion.map { "\(lastError.message); \($0)" } ?? lastError.message
        }
    }

    /// The most recent failure of an operation through this manager, whichever thread or task it ran on (see
    /// ``errorMessage()``).
    public var lastFailure: DBBError? { lock.withLock { lastError } }
}
