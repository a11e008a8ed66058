internal import DBBSQL
public import Foundation

/// Where a PostgreSQL server is and how to log in to it.
///
/// ```swift
/// let configuration = DBBPostgresConfiguration(
///     host: "127.0.0.1", username: "app", password: secret, database: "app", tls: .require)
/// let same = try DBBPostgresConfiguration(url: "postgres://app:secret@127.0.0.1:5432/app?sslmode=require")
/// print(configuration)  // postgres://app:***@127.0.0.1:5432/app?sslmode=require
/// ```
///
/// The password is never printed: ``description``, ``redactedURL``, `debugDescription` and `dump` show it as
/// `***`, and the errors of DBBPostgres never include it, even for a URL that does not parse. Without a password,
/// connecting takes one from `PGPASSWORD` or `~/.pgpass` as libpq does (``resolvingPassword(environment:)``).
public struct DBBPostgresConfiguration: Sendable, Hashable, CustomStringConvertible, CustomDebugStringConvertible,
    CustomReflectable
{
    /// Whether the connection is encrypted, and how the server is trusted.
    ///
    /// - ``disable``: plain TCP.
    /// - ``prefer``: TLS when the server offers it, without verifying its certificate (as libpq's
    ///   `sslmode=prefer`); plain TCP otherwise. It protects against eavesdropping only.
    /// - ``require``: TLS, and the server's certificate must chain to a trusted root and name the host
    ///   (libpq's `sslmode=verify-full`); ``require(trustRootFile:)`` trusts the roots of a PEM file instead of
    ///   the system's.
    public struct TLS: Sendable, Hashable, CustomStringConvertible {
        /// The three modes.
        public enum Mode: String, Sendable, Hashable {
            /// No TLS.
            case disable
            /// TLS when the server offers it, unverified.
            case prefer
            /// TLS with a verified certificate.
            case require
        }

        /// The mode.
        public var mode: Mode
        /// A PEM file of root certificates to trust instead of the system's, for ``Mode/require``.
        public var trustRootFile: String?
        /// The `sslmode` of the URL this setting was read from (`require`, `verify-ca`, …), which ``description``
        /// echoes while it still names ``mode``. Not compared.
        var sslModeAsWritten: String?

        /// Whether two settings have the same mode and trust roots.
        public static func == (lhs: TLS, rhs: TLS) -> Bool {
            lhs.mode == rhs.mode && lhs.trustRootFile == rhs.trustRootFile
        }

        /// Hashes the mode and the trust roots.
        public func hash(into hasher: inout Hasher) {
            hasher.combine(mode)
            hasher.combine(trustRootFile)
        }

        /// The mode an `sslmode` of a connection URL stands for, or `nil` for one libpq does not have.
        static func mode(sslmode: String) -> Mode? {
            switch sslmode {
            case "disable": .disable
            case "allow", "prefer": .prefer
            case "require", "verify-ca", "verify-full": .require
            default: nil
            }
        }

        /// Creates a TLS setting.
        ///
        /// - Parameters:
        ///   - mode: the mode.
        ///   - trustRootFile: a PEM file of trusted roots (only for ``Mode/require``), or `nil` for the system's.
        public init(mode: Mode, trustRootFile: String? = nil) {
            self.mode = mode
            self.trustRootFile = trustRootFile
        }

        /// Plain TCP, no encryption.
        public static let disable = TLS(mode: .disable)
        /// TLS when the server offers it, without certificate verification.
        public static let prefer = TLS(mode: .prefer)
        /// TLS with the server's certificate verified against the system's trusted roots and the host name.
        public static let require = TLS(mode: .require)

        /// TLS with the server's certificate verified against the roots of a PEM file, such as a test CA.
        ///
        /// - Parameter trustRootFile: the path of a PEM file of root certificates.
        /// - Returns: a ``Mode/require`` setting that trusts those roots only.
        public static func require(trustRootFile: String) -> TLS {
            TLS(mode: .require, trustRootFile: trustRootFile)
        }

        /// The `sslmode` of a connection URL: the one the URL it was read from gave (`sslmode=require` stays
        /// `require`), else `disable`, `prefer` or `verify-full`.
        public var description: String {
            if let sslModeAsWritten, Self.mode(sslmode: sslModeAsWritten) == mode { return sslModeAsWritten }
            return switch mode {
            case .disable: "disable"
            case .prefer: "prefer"
            case .require: "verify-full"
            }
        }
    }

    /// The servers to try, in order: one for a single server, several for a cluster (a primary and its hot
    /// standbys). A connection takes the first host of the role it wants (``targetSessionAttributes``); a
    /// manager's writer looks for the primary among them and its readers for hot standbys, and both find the new
    /// primary after a failover. Never empty.
    public var hosts: [Host]
    /// The first server's host name or IP address.
    public var host: String {
        get { hosts[0].name }
        set { hosts[0].name = newValue }
    }
    /// The first server's TCP port. Default: 5432.
    public var port: Int {
        get { hosts[0].port }
        set { hosts[0].port = newValue }
    }
    /// The role to log in as.
    public var username: String
    /// The role's password, or `nil` when the server asks for none. Never printed.
    public var password: String?
    /// The database to open, or `nil` for the one named like the role.
    public var database: String?
    /// Whether and how the connection is encrypted.
    public var tls: TLS
    /// How long establishing the connection (TCP, TLS, login) may take, in seconds. Default: 10.
    public var connectTimeout: Double
    /// Whether a manager prepares the statements it sends more than once, once per connection, so that the
    /// server parses and plans each once. Default: `true`. Turn it off behind a pooler in transaction mode (such
    /// as pgbouncer before 1.21), which may run the next statement on another server connection, where the
    /// statement was never prepared. In a URL: `prepared_statements=off`.
    public var preparedStatements = true
    /// The schema every connection works in: a manager creates, finds and migrates its tables there, and SQL of
    /// your own names its tables without a schema. Set at login as the `search_path`, as libpq's
    /// `options=-csearch_path=NAME` sets it. `nil`: the server's `search_path` (by default `"$user", public`:
    /// the schema named like the role when there is one, else `public`).
    ///
    /// A schema a `dbb-backup restore --schema NAME` put the tables in is opened with `schema: "NAME"`, or the URL
    /// `postgres://app@db/app?options=-csearch_path%3DNAME`. The schema must exist: a manager's first table in a
    /// missing schema fails with SQLSTATE `3F000`.
    public var schema: String?
    /// Which server of ``hosts`` a connection made with ``DBBPostgresConnection/connect(_:logger:)`` accepts.
    /// Default: ``TargetSessionAttributes/any``, the first that answers. A manager chooses for itself when
    /// ``hosts`` lists several: its writer wants ``TargetSessionAttributes/readWrite``, its readers
    /// ``TargetSessionAttributes/preferStandby``. In a URL: `target_session_attrs=read-write`.
    public var targetSessionAttributes = TargetSessionAttributes.any
    /// How far behind the primary, in seconds, a hot standby may be for a manager's reader to read there; a
    /// read on a standby further behind runs on the primary. Default: 10. In a URL: `max_standby_lag=10`.
    public var maxStandbyLag: Double = 10
    /// How long, in seconds, a manager's read on a hot standby waits for the standby to replay the manager's last
    /// commit before it runs on the primary instead. Default: 2. In a URL: `read_your_writes_timeout=2`.
    public var readYourWritesTimeout: Double = 2
    /// How long, in seconds, a manager looks for a primary after its writer's server ended or became a standby,
    /// before the work fails. Default: 30. In a URL: `failover_timeout=30`.
    public var failoverTimeout: Double = 30
    /// What sits between the library and the servers. Default: ``Pooler/none``. In a URL: `pooler=transaction`.
    /// Behind ``Pooler/transaction``, no statement is prepared, whatever ``preparedStatements`` says.
    public var pooler = Pooler.none
    /// The servers a manager listens on for the commits its observations wait for, when they are not
    /// ``hosts``: behind a pooler in transaction mode, which cannot carry `LISTEN`, the servers themselves.
    /// `nil`: ``hosts``. In a URL: `listen_hosts=10.0.0.1:5432,10.0.0.2:5432`.
    public var listenHosts: [Host]?

    /// Creates a configuration.
    ///
    /// - Parameters:
    ///   - host: the server's host name or IP address.
    ///   - port: the server's TCP port. Default: 5432.
    ///   - username: the role to log in as.
    ///   - password: the role's password, or `nil`.
    ///   - database: the database to open, or `nil` for the one named like the role.
    ///   - tls: whether and how the connection is encrypted.
    ///   - connectTimeout: how long establishing the connection may take, in seconds. Default: 10.
    ///   - schema: the schema every connection works in, or `nil` for the server's `search_path`.
    public init(
        host: String, port: Int = 5432, username: String, password: String?, database: String?, tls: TLS,
        connectTimeout: Double = 10, schema: String? = nil
    ) {
        self.hosts = [Host(host, port: port)]
        self.username = username
        self.password = password
        self.database = database
        self.tls = tls
        self.connectTimeout = connectTimeout
        self.schema = schema
    }

    /// Creates a configuration of several servers, a primary and its hot standbys, tried in order.
    ///
    /// ```swift
    /// let cluster = DBBPostgresConfiguration(
    ///     hosts: [.init("10.0.0.1"), .init("10.0.0.2"), .init("10.0.0.3")], username: "app", password: secret,
    ///     database: "app", tls: .require)
    /// let manager = try DBBManager(postgres: cluster, readers: 4)  // writes on the primary, reads on standbys
    /// ```
    ///
    /// - Parameters:
    ///   - hosts: the servers, at least one.
    ///   - username: the role to log in as.
    ///   - password: the role's password, or `nil`.
    ///   - database: the database to open, or `nil` for the one named like the role.
    ///   - tls: whether and how the connections are encrypted; the same for every host.
    ///   - targetSessionAttributes: which server a connection accepts.
    ///   - connectTimeout: how long establishing one connection may take, in seconds. Default: 10.
    ///   - schema: the schema every connection works in, or `nil` for the server's `search_path`.
    public init(
        hosts: [Host], username: String, password: String?, database: String?, tls: TLS,
        targetSessionAttributes: TargetSessionAttributes = .any, connectTimeout: Double = 10, schema: String? = nil
    ) {
        let first = hosts.first ?? Host("localhost")
        self.init(
            host: first.name, port: first.port, username: username, password: password, database: database, tls: tls,
            connectTimeout: connectTimeout, schema: schema)
        if hosts.count > 1 { self.hosts = hosts }
        self.targetSessionAttributes = targetSessionAttributes
    }

    /// Creates a configuration from a connection URL, or returns `nil` when the URL is not one.
    ///
    /// See the throwing `init(url:)` for the accepted form.
    ///
    /// - Parameter url: a `postgres://` or `postgresql://` URL.
    public init?(url: URL) {
        guard let parsed = try? DBBPostgresConfiguration(url: url.absoluteString) else { return nil }
        self = parsed
    }

    /// Creates a configuration from a connection URL.
    ///
    /// The form is `postgres://user:password@host:port/database?sslmode=MODE&sslrootcert=FILE`
    /// (`postgresql://` works too). The user and password may be percent-encoded; the port defaults to 5432 and
    /// the database to none. `sslmode` is `disable`; `allow` or `prefer` (TLS when offered, unverified); or
    /// `require`, `verify-ca` or `verify-full`, which all verify the certificate and the host name (stricter
    /// than libpq's `require`). Without `sslmode`, TLS is ``TLS/prefer``. `sslrootcert` names a PEM file of
    /// trusted roots. `prepared_statements=off` sets ``preparedStatements`` to `false`. The ``schema`` is given
    /// as libpq gives it, `options=-csearch_path%3DNAME` (or `-c search_path=NAME`), or as `schema=NAME`;
    /// `options` may set nothing else.
    ///
    /// - Parameter url: the URL text.
    /// - Throws: `DBBError` of kind `DBBError.Kind.misuse` naming what is wrong; its message
    ///   shows the URL with the password redacted.
    public init(url: String) throws {
        func invalid(_ problem: String) -> DBBError {
            .misuse(
                "invalid PostgreSQL URL \(Self.redactingUserInformation(url)): \(problem)",
                recovery: "write it as postgres://user:password@host:port/database?sslmode=disable|prefer|require")
        }
        // URLComponents reads one host: a list (`a:5432,b:5433`) is read here, and the rest with its first host.
        let hostList: (hosts: [Host], singleHostURL: String)?
        do {
            hostList = try Self.hostList(in: url)
        } catch {
            throw invalid(error.text)
        }
        guard let components = URLComponents(string: hostList?.singleHostURL ?? url) else {
            throw invalid(Self.whyNotAURL(url))
        }
        guard let scheme = components.scheme?.lowercased(), scheme == "postgres" || scheme == "postgresql" else {
            throw invalid("the scheme must be postgres:// or postgresql://")
        }
        guard let host = components.host, !host.isEmpty else { throw invalid("it names no host") }
        guard let username = components.user, !username.isEmpty else { throw invalid("it names no user") }
        var path = components.path
        if path.hasPrefix("/") { path.removeFirst() }
        let database = path.isEmpty ? nil : (path.removingPercentEncoding ?? path)
        var tls = TLS.prefer
        var preparedStatements = true
        var schema: String?
        var cluster = DBBPostgresConfiguration(
            host: "localhost", username: "-", password: nil, database: nil, tls: .disable)
        for item in components.queryItems ?? [] {
            if try cluster.readClusterSetting(item.name, item.value ?? "", invalid) { continue }
            switch item.name {
            case "sslmode":
                guard let mode = TLS.mode(sslmode: item.value ?? "") else {
                    throw invalid(
                        "unknown sslmode '\(item.value ?? "")' (disable, allow, prefer, require, verify-ca or "
                            + "verify-full)")
                }
                tls.mode = mode
                tls.sslModeAsWritten = item.value
            case "sslrootcert":
                tls.trustRootFile = item.value
            case "prepared_statements":
                switch item.value ?? "" {
                case "on", "true": preparedStatements = true
                case "off", "false": preparedStatements = false
                default: throw invalid("prepared_statements is on or off, not '\(item.value ?? "")'")
                }
            case "options", "schema":
                guard
                    let named = item.name == "schema" ? item.value ?? "" : Self.searchPath(inOptions: item.value ?? "")
                else {
                    throw invalid(
                        "options '\(item.value ?? "")' set something other than the search path, which DBBPostgres "
                            + "does not send: write options=-csearch_path%3DNAME")
                }
                guard !named.isEmpty, !named.contains(","), !named.contains("\0"), named.utf8.count <= 63 else {
                    throw invalid(
                        "the schema '\(named)' is not one schema name (1 to 63 bytes, no comma): "
                            + "write options=-csearch_path%3DNAME or schema=NAME")
                }
                if let schema, schema != named { throw invalid("it names two schemas, \(schema) and \(named)") }
                schema = named
            default:
                continue
            }
        }
        if tls.trustRootFile != nil && tls.mode != .require {
            throw invalid("sslrootcert needs sslmode=require, verify-ca or verify-full")
        }
        var hostName = host
        if hostName.hasPrefix("["), hostName.hasSuffix("]") { hostName = String(hostName.dropFirst().dropLast()) }
        if let port = components.port, !(1...65_535).contains(port) {
            throw invalid("the port \(port) is not between 1 and 65535")
        }
        self.init(
            host: hostName, port: components.port ?? 5432, username: username, password: components.password,
            database: database, tls: tls, schema: schema)
        if let hostList { hosts = hostList.hosts }
        targetSessionAttributes = cluster.targetSessionAttributes
        maxStandbyLag = cluster.maxStandbyLag
        readYourWritesTimeout = cluster.readYourWritesTimeout
        failoverTimeout = cluster.failoverTimeout
        listenHosts = cluster.listenHosts
        pooler = cluster.pooler
        self.preparedStatements = preparedStatements && cluster.preparedStatements
    }

    /// Reads one of the URL's settings of clusters and poolers into this configuration; `false` for another
    /// setting.
    private mutating func readClusterSetting(
        _ name: String, _ value: String, _ invalid: (String) -> DBBError
    ) throws -> Bool {
        func seconds() throws -> Double {
            guard let seconds = Double(value), seconds >= 0, seconds.isFinite else {
                throw invalid("\(name) is a number of seconds, not '\(value)'")
            }
            return seconds
        }
        switch name {
        case "target_session_attrs":
            guard let target = TargetSessionAttributes(rawValue: value) else {
                throw invalid(
                    "unknown target_session_attrs '\(value)' ("
                        + TargetSessionAttributes.allCases.map(\.rawValue).joined(separator: ", ") + ")")
            }
            targetSessionAttributes = target
        case "max_standby_lag": maxStandbyLag = try seconds()
        case "read_your_writes_timeout": readYourWritesTimeout = try seconds()
        case "failover_timeout": failoverTimeout = try seconds()
        case "pooler":
            guard let pooler = Pooler(rawValue: value) else {
                throw invalid("pooler is none, session or transaction, not '\(value)'")
            }
            self.pooler = pooler
        case "listen_hosts":
            do {
                listenHosts = try Self.hosts(in: Substring(value))
            } catch {
                throw invalid("listen_hosts: \(error.text)")
            }
        default:
            return false
        }
        return true
    }

    /// The configuration as a connection URL with the password shown as `***`:
    /// `postgres://app:***@127.0.0.1:5432/app?sslmode=disable`, with `&options=-csearch_path%3DNAME` for a
    /// ``schema``, which `psql` reads too.
    public var redactedURL: String {
        var text = "postgres://" + Self.encode(username)
        if password != nil { text += ":***" }
        text += "@" + hosts.map(\.description).joined(separator: ",")
        if let database { text += "/" + Self.encode(database) }
        text += "?sslmode=\(tls)"
        if let trustRootFile = tls.trustRootFile { text += "&sslrootcert=\(trustRootFile)" }
        if let schema {
            var allowed = CharacterSet.urlQueryAllowed
            allowed.remove(charactersIn: "&=+#")
            text +=
                "&options=-csearch_path%3D" + (schema.addingPercentEncoding(withAllowedCharacters: allowed) ?? schema)
        }
        if !preparedStatements { text += "&prepared_statements=off" }
        if targetSessionAttributes != .any { text += "&target_session_attrs=\(targetSessionAttributes)" }
        if pooler != .none { text += "&pooler=\(pooler.rawValue)" }
        if let listenHosts { text += "&listen_hosts=" + listenHosts.map(\.description).joined(separator: ",") }
        let defaults = DBBPostgresConfiguration(host: "-", username: "-", password: nil, database: nil, tls: .disable)
        for (name, value, standard) in [
            ("max_standby_lag", maxStandbyLag, defaults.maxStandbyLag),
            ("read_your_writes_timeout", readYourWritesTimeout, defaults.readYourWritesTimeout),
            ("failover_timeout", failoverTimeout, defaults.failoverTimeout),
        ] where value != standard {
            text += "&\(name)=\(value == value.rounded() ? String(Int(value)) : String(value))"
        }
        return text
    }

    /// The ``redactedURL``.
    public var description: String { redactedURL }

    /// The ``redactedURL``.
    public var debugDescription: String { "DBBPostgresConfiguration(\(redactedURL))" }

    /// A mirror that shows the password as `***`, for `dump` and debuggers.
    public var customMirror: Mirror {
        Mirror(
            self,
            children: [
                "hosts": hosts.map(\.description), "username": username, "password": password.map { _ in "***" } as Any,
                "database": database as Any, "tls": tls, "connectTimeout": connectTimeout, "schema": schema as Any,
                "preparedStatements": preparedStatements, "targetSessionAttributes": targetSessionAttributes,
                "pooler": pooler, "listenHosts": listenHosts?.map(\.description) as Any,
            ])
    }

    /// The schema of libpq's `options` parameter: `-csearch_path=NAME`, `-c search_path=NAME` or
    /// `--search_path=NAME`; `nil` for other options, which DBBPostgres does not send.
    private static func searchPath(inOptions options: String) -> String? {
        let trimmed = options.trimmingCharacters(in: .whitespaces)
        for prefix in ["-csearch_path=", "-c search_path=", "--search_path=", "--search-path="]
        where trimmed.hasPrefix(prefix) {
            var name = String(trimmed.dropFirst(prefix.count))
            if name.count >= 2, name.hasPrefix("\""), name.hasSuffix("\"") {
                name = String(name.dropFirst().dropLast()).replacingOccurrences(of: "\"\"", with: "\"")
            }
            return name
        }
        return nil
    }

    /// Why the text of a URL did not parse, as precisely as can be said: a port that is not a number, or else
    /// that it is not a URL.
    private static func whyNotAURL(_ url: String) -> String {
        guard let schemeEnd = url.range(of: "://") else { return "it is not a URL" }
        let authority = url[schemeEnd.upperBound...].prefix { $0 != "/" && $0 != "?" && $0 != "#" }
        let hostAndPort = authority.split(separator: "@", omittingEmptySubsequences: false).last ?? authority
        // An IPv6 address is written in brackets, its port after them.
        let afterHost = hostAndPort.hasPrefix("[") ? hostAndPort.drop { $0 != "]" }.dropFirst() : hostAndPort
        if let colon = afterHost.firstIndex(of: ":") {
            let port = afterHost[afterHost.index(after: colon)...]
            if !port.allSatisfy({ $0.isASCII && $0.isNumber }) || port.isEmpty {
                return "the port '\(port)' is not a number"
            }
        }
        return "it is not a URL"
    }

    /// The text of a URL with its password shown as `***`, for the message about a URL that did not parse: what
    /// lies between the first `:` of the user information and the last `@` before the query, even when it holds
    /// characters no URL may (a space), and every other `user:password@` (``DBBRedaction``).
    private static func redactingUserInformation(_ url: String) -> String {
        let beforeQuery = url[..<(url.firstIndex(of: "?") ?? url.endIndex)]
        var text = url
        if let at = beforeQuery.lastIndex(of: "@") {
            let userStart = url.range(of: "//").map { $0.upperBound < at ? $0.upperBound : url.startIndex }
            if let colon = url[(userStart ?? url.startIndex)..<at].firstIndex(of: ":") {
                text = String(url[...colon]) + "***" + String(url[at...])
            }
        }
        return DBBRedaction.redactingPasswords(in: text)
    }

    private static func encode(_ component: String) -> String {
        var allowed = CharacterSet.urlUserAllowed
        allowed.remove(charactersIn: ":@/?#[]")
        return component.addingPercentEncoding(withAllowedCharacters: allowed) ?? component
    }
}
