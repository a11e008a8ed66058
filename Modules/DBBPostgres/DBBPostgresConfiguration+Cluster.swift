internal import Foundation

extension DBBPostgresConfiguration {
    /// One server of a configuration's list of hosts: a host name or IP address and a TCP port.
    public struct Host: Sendable, Hashable, CustomStringConvertible {
        /// The server's host name or IP address.
        public var name: String
        /// The server's TCP port.
        public var port: Int

        /// Creates a host.
        ///
        /// - Parameters:
        ///   - name: the host name or IP address.
        ///   - port: the TCP port. Default: 5432.
        public init(_ name: String, port: Int = 5432) {
            self.name = name
            self.port = port
        }

        /// `name:port`, with an IPv6 address in brackets: `10.0.0.1:5432`, `[::1]:5432`.
        public var description: String { (name.contains(":") ? "[\(name)]" : name) + ":\(port)" }
    }

    /// Which server of the list a connection accepts, as libpq's `target_session_attrs`: each host is tried in
    /// order until one has the wanted role.
    ///
    /// Related PostgreSQL documentation: https://www.postgresql.org/docs/current/libpq-connect.html
    public enum TargetSessionAttributes: String, Sendable, Hashable, CaseIterable, CustomStringConvertible {
        /// The first server that accepts the login.
        case any
        /// A server whose sessions may write (`transaction_read_only` is `off`): a primary.
        case readWrite = "read-write"
        /// A server whose sessions are read-only: a hot standby, or a primary set read-only.
        case readOnly = "read-only"
        /// A server that is not in recovery: the primary.
        case primary
        /// A server in recovery: a hot standby.
        case standby
        /// A hot standby when one of the hosts is one, else any server.
        case preferStandby = "prefer-standby"

        /// The name libpq gives it: `read-write`, `prefer-standby`, ….
        public var description: String { rawValue }

        /// Whether a server with this role is accepted.
        func accepts(inRecovery: Bool, readOnly: Bool) -> Bool {
            switch self {
            case .any, .preferStandby: true
            case .readWrite: !readOnly
            case .readOnly: readOnly
            case .primary: !inRecovery
            case .standby: inRecovery
            }
        }
    }

    /// What sits between the library and the servers, which decides what session state the library may rely on.
    ///
    /// Behind a pooler in **transaction** mode (pgbouncer's `pool_mode = transaction`), each transaction may run on
    /// another server connection: a manager then prepares no named statements, keeps nothing in the session
    /// between transactions, and listens for changes on a direct connection to the servers
    /// (``DBBPostgresConfiguration/listenHosts``). In **session** mode a client keeps its server connection, and
    /// everything works as with no pooler.
    public enum Pooler: String, Sendable, Hashable, CaseIterable {
        /// The library talks to the servers directly.
        case none
        /// A pooler that gives each client connection one server connection for its lifetime.
        case session
        /// A pooler that gives each transaction a server connection of the pool.
        case transaction
    }

    /// The configuration for connecting to one host of the list, with the other settings unchanged.
    func pinned(to host: Host) -> DBBPostgresConfiguration {
        var pinned = self
        pinned.hosts = [host]
        return pinned
    }

    /// Whether a manager treats the servers as a cluster: more than one host, so that its writer looks for the
    /// primary and its readers for hot standbys.
    var isCluster: Bool { hosts.count > 1 }

    /// The hosts of the authority of a URL whose host part lists several (`a:5432,b:5433`), in order, or `nil`
    /// for a URL with one host, which `URLComponents` reads. The URL with the first host alone comes with them.
    ///
    /// - Throws: the problem with an entry, for the caller's "invalid PostgreSQL URL" error.
    static func hostList(in url: String) throws(HostListProblem) -> (hosts: [Host], singleHostURL: String)? {
        guard let schemeEnd = url.range(of: "://") else { return nil }
        let rest = url[schemeEnd.upperBound...]
        let authorityEnd = rest.firstIndex { $0 == "/" || $0 == "?" || $0 == "#" } ?? rest.endIndex
        let authority = rest[..<authorityEnd]
        let hostStart = authority.lastIndex(of: "@").map { authority.index(after: $0) } ?? authority.startIndex
        let hostPart = authority[hostStart...]
        guard hostPart.contains(",") else { return nil }
        let hosts = try Self.hosts(in: hostPart)
        let first = hostPart.prefix { $0 != "," }
        let singleHostURL = String(url[..<hostPart.startIndex]) + first + String(url[hostPart.endIndex...])
        return (hosts, singleHostURL)
    }

    /// The hosts of a comma-separated list, `a:5432,[::1]:5433,c` (the port defaults to 5432).
    static func hosts(in list: Substring) throws(HostListProblem) -> [Host] {
        var hosts: [Host] = []
        for entry in list.split(separator: ",", omittingEmptySubsequences: false) {
            guard !entry.isEmpty else { throw HostListProblem("the host list has an empty entry") }
            var name = Substring(entry)
            var port = 5432
            if name.hasPrefix("[") {
                guard let close = name.firstIndex(of: "]") else {
                    throw HostListProblem("the host '\(entry)' opens a bracket it does not close")
                }
                let after = name[name.index(after: close)...]
                name = name[name.index(after: name.startIndex)..<close]
                if !after.isEmpty {
                    guard after.hasPrefix(":") else { throw HostListProblem("the host '\(entry)' is not host:port") }
                    port = try Self.port(after.dropFirst(), of: entry)
                }
            } else if let colon = name.firstIndex(of: ":") {
                port = try Self.port(name[name.index(after: colon)...], of: entry)
                name = name[..<colon]
            }
            guard !name.isEmpty else { throw HostListProblem("the host list has an entry without a host") }
            hosts.append(Host(String(name.removingPercentEncoding ?? String(name)), port: port))
        }
        return hosts
    }

    /// Whether connections prepare named statements: not behind a pooler in transaction mode, whatever
    /// ``preparedStatements`` says.
    var preparesStatements: Bool { preparedStatements && pooler != .transaction }

    private static func port(_ text: Substring, of entry: Substring) throws(HostListProblem) -> Int {
        guard !text.isEmpty, text.allSatisfy({ $0.isASCII && $0.isNumber }), let port = Int(text) else {
            throw HostListProblem("the port '\(text)' of '\(entry)' is not a number")
        }
        guard (1...65_535).contains(port) else {
            throw HostListProblem("the port \(port) of '\(entry)' is not between 1 and 65535")
        }
        return port
    }

    /// Why a URL's host list did not parse.
    struct HostListProblem: Error {
        let text: String
        init(_ text: String) { self.text = text }
    }
}
