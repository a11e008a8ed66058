internal import DBBSQL
public import Foundation

/// The application's default manager, set once.
private final class DBBDefaultManager: @unchecked Sendable {
    // @unchecked: `manager` is guarded by `lock`.
    static let shared = DBBDefaultManager()
    let lock = NSLock()
    var manager: DBBManager?
}

extension DBBManager {
    /// The application's default manager (DBBuilder's default `DBManager`), for code that does not pass a
    /// manager around. The application sets it once, at launch, with ``setDefault(_:)``.
    ///
    /// ```swift
    /// try DBBManager.setDefault(try DBBManager.createDatabaseInDocumentsFolder(named: "app.sqlite"))
    /// let people = try Person.fetchAll(manager: try DBBManager.default)
    /// ```
    ///
    /// - Throws: `DBBError` (misuse) when no default manager was set.
    public static var `default`: DBBManager {
        get throws {
            let holder = DBBDefaultManager.shared
            guard let manager = holder.lock.withLock({ holder.manager }) else {
                throw DBBError.misuse(
                    "no default manager was set", recovery: "call DBBManager.setDefault(_:) once, at launch",
                    context: "reading DBBManager.default")
            }
            return manager
        }
    }

    /// Sets the application's default manager; it can be set only once, so every part of the application
    /// sees the same one.
    ///
    /// - Parameter manager: the manager to use as the default.
    /// - Throws: `DBBError` (misuse) when a default manager was set already.
    public static func setDefault(_ manager: DBBManager) throws {
        let holder = DBBDefaultManager.shared
        let wasSet = holder.lock.withLock {
            guard holder.manager == nil else { return true }
            holder.manager = manager
            return false
        }
        if wasSet {
            throw DBBError.misuse(
                "the default manager was set already", recovery: "set DBBManager.default once, at launch",
                context: "setting DBBManager.default")
        }
    }
}

// MARK: Locations

extension DBBManager {
    /// The folder an application keeps its data in, by the XDG Base Directory convention that Linux
    /// applications follow (the role of the Documents folder on Apple platforms): `$XDG_DATA_HOME` when
    /// it is set to an absolute path, else `~/.local/share`.
    ///
    /// - Returns: the folder's URL (it may not exist yet).
    /// - Throws: `DBBError` (misuse) when neither `$XDG_DATA_HOME` nor `$HOME` is set to an absolute path.
    public static func dataFolder() throws -> URL {
        try dataFolder(environment: ProcessInfo.processInfo.environment)
    }

    /// ``dataFolder()`` for a given environment.
    package static func dataFolder(environment: [String: String]) throws -> URL {
        if let dataHome = environment["XDG_DATA_HOME"], dataHome.hasPrefix("/") {
            return URL(fileURLWithPath: dataHome, isDirectory: true)
        }
        guard let home = environment["HOME"], home.hasPrefix("/") else {
            throw DBBError.misuse(
                "neither XDG_DATA_HOME nor HOME is set to an absolute path",
                recovery: "set XDG_DATA_HOME, or open the database with DBBManager(databaseURL:)",
                context: "finding the data folder")
        }
        return URL(fileURLWithPath: home, isDirectory: true).appendingPathComponent(".local/share", isDirectory: true)
    }

    /// Opens (or creates) a database file in the application's data folder (``dataFolder()``), creating
    /// the folder when it is missing: DBBBuilder's "database in the Documents folder".
    ///
    /// ```swift
    /// let manager = try DBBManager.createDatabaseInDocumentsFolder(named: "projects.sqlite", subfolder: "MyApp")
    /// // ~/.local/share/MyApp/projects.sqlite
    /// ```
    ///
    /// - Parameters:
    ///   - name: the file's name, without slashes.
    ///   - subfolder: a folder inside the data folder, usually the application's name. Optional.
    /// - Returns: a manager of that file.
    /// - Throws: `DBBError` (misuse) for a name that is empty or holds a slash, or (cannot open) when the
    ///   folder cannot be created or the file opened.
    public static func createDatabaseInDocumentsFolder(named name: String, subfolder: String? = nil) throws
        -> DBBManager
    {
        try DBBManager(databaseURL: try databaseURLInDocumentsFolder(named: name, subfolder: subfolder, create: true))
    }

    /// The URL of a database file in the application's data folder, as
    /// ``createDatabaseInDocumentsFolder(named:subfolder:)`` uses it; nothing is created.
    ///
    /// - Parameters:
    ///   - name: the file's name, without slashes.
    ///   - subfolder: a folder inside the data folder. Optional.
    /// - Returns: the file's URL.
    /// - Throws: `DBBError` (misuse) for a name that is empty or holds a slash, or when there is no data folder.
    public static func databaseURLInDocumentsFolder(named name: String, subfolder: String? = nil) throws -> URL {
        try databaseURLInDocumentsFolder(named: name, subfolder: subfolder, create: false)
    }

    private static func databaseURLInDocumentsFolder(named name: String, subfolder: String?, create: Bool) throws
        -> URL
    {
        for part in [name, subfolder ?? "x"] where part.isEmpty || part.contains("/") || part == "." || part == ".." {
            throw DBBError.misuse(
                "'\(part)' is not a file or folder name", recovery: "pass a name without slashes",
                context: "naming a database in the data folder")
        }
        var folder = try dataFolder()
        if let subfolder { folder.appendPathComponent(subfolder, isDirectory: true) }
        if create {
            do {
                try FileManager.default.createDirectory(at: folder, withIntermediateDirectories: true)
            } catch {
                throw DBBError(
                    .cannotOpen, message: "cannot create the folder \(folder.path): \(error.localizedDescription)",
                    context: "creating the data folder")
            }
        }
        return folder.appendingPathComponent(name, isDirectory: false)
    }

    /// DBBBuilder's `dbMgr.database`, for its `dbMgr.database.lastErrorMessage()`: what the last failed call of
    /// the manager recorded, as ``errorMessage()``.
    public var database: DBBManagerErrors { DBBManagerErrors(manager: self) }

    /// A manager of a private in-memory database, DBBBuilder's `inMemoryDatabaseManager()`: the same as
    /// ``inMemory()``, which throws, without a `try`.
    ///
    /// Opening an in-memory database fails only when SQLite cannot allocate memory for it; the process then
    /// stops with SQLite's message, as it would on any other allocation that fails.
    ///
    /// - Returns: a new manager with every feature of a file manager.
    public static func inMemoryDatabaseManager() -> DBBManager {
        do {
            return try inMemory()
        } catch {
            fatalError("SQLite could not open an in-memory database: \(error)")
        }
    }

    /// DBBBuilder's `createDatabaseInDocumentsFolder(named:tableClasses:)`: opens (or creates) a database file in
    /// the application's data folder (``dataFolder()``, the Linux counterpart of the Documents folder) and
    /// registers the classes.
    ///
    /// ```swift
    /// let manager = try DBBManager.createDatabaseInDocumentsFolder(named: "app.sqlite", tableClasses: [Note.self])
    /// // ~/.local/share/app.sqlite
    /// ```
    ///
    /// - Parameters:
    ///   - name: the file's name, without slashes.
    ///   - tableClasses: the classes to register (``addTableClasses(_:)``).
    /// - Returns: the manager, its classes registered.
    /// - Throws: what ``createDatabaseInDocumentsFolder(named:subfolder:)`` and ``addTableClasses(_:)`` throw.
    public static func createDatabaseInDocumentsFolder(named name: String, tableClasses: [DBBTableObject.Type])
        throws -> DBBManager
    {
        let manager = try createDatabaseInDocumentsFolder(named: name)
        try manager.addTableClasses(tableClasses)
        return manager
    }

    /// DBBBuilder's `createDatabaseInAppSupportFolder(named:subFolders:with:)`: opens (or creates) a database file
    /// in a folder inside the application's data folder (``dataFolder()``, where the XDG convention keeps what
    /// Application Support holds on Apple platforms), creating the folders, and registers the classes.
    ///
    /// ```swift
    /// let manager = try DBBManager.createDatabaseInAppSupportFolder(
    ///     named: "app.sqlite", subFolders: "MyApp/Databases", with: [Note.self])
    /// // ~/.local/share/MyApp/Databases/app.sqlite
    /// ```
    ///
    /// - Parameters:
    ///   - name: the file's name, without slashes.
    ///   - subFolders: folders inside the data folder, separated by slashes (`MyApp/Databases`); `nil` for the
    ///     data folder itself.
    ///   - tableClasses: the classes to register (``addTableClasses(_:)``).
    /// - Returns: the manager, its classes registered.
    /// - Throws: `DBBError` (misuse) for a name that is empty or holds a slash, or a folder named `..`, `.` or
    ///   nothing; (cannot open) when a folder cannot be created or the file opened; what
    ///   ``addTableClasses(_:)`` throws.
    public static func createDatabaseInAppSupportFolder(
        named name: String, subFolders: String?, with tableClasses: [DBBTableObject.Type]
    ) throws -> DBBManager {
        let folders = subFolders.map { $0.split(separator: "/", omittingEmptySubsequences: false).map(String.init) }
        var url = try databaseURLInDocumentsFolder(named: name, subfolder: nil, create: false)
        if let folders {
            for folder in folders where folder.isEmpty || folder == "." || folder == ".." {
                throw DBBError.misuse(
                    "'\(subFolders ?? "")' holds a folder name that is empty, '.' or '..'",
                    recovery: "name each folder, as in \"MyApp/Databases\"",
                    context: "naming a database in the data folder")
            }
            url = url.deletingLastPathComponent()
            for folder in folders { url.appendPathComponent(folder, isDirectory: true) }
            do {
                try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
            } catch {
                throw DBBError(
                    .cannotOpen, message: "cannot create the folder \(url.path): \(error.localizedDescription)",
                    context: "creating the data folder")
            }
            url.appendPathComponent(name, isDirectory: false)
        }
        let manager = try DBBManager(databaseURL: url)
        try manager.addTableClasses(tableClasses)
        return manager
    }
}

/// What DBBBuilder's `dbMgr.database` gave for error messages: `dbMgr.database.lastErrorMessage()`.
public struct DBBManagerErrors: Sendable {
    let manager: DBBManager

    /// The message of the manager's last failure, whichever thread recorded it; empty when none failed. The
    /// same as ``DBBManager/errorMessage()``.
    ///
    /// - Returns: the message.
    public func lastErrorMessage() -> String { manager.errorMessage() }
}
