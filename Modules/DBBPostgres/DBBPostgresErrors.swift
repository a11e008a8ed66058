internal import DBBSQL
internal import NIOCore
internal import NIOPosix
internal import PostgresNIO

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// Turns postgres-nio's and SwiftNIO's errors into `DBBError`s, without the password.
enum DBBPostgresErrors {
    /// The SQLSTATE of a statement refused because its connection was already closed (`08003`, connection does
    /// not exist): it was never sent, so the server did none of it.
    static let notSent = "08003"

    /// The SQLSTATE of a prepared statement whose table changed so that its result would change type (`0A000`,
    /// "cached plan must not change result type"): the server ran none of it.
    static let cachedPlanChanged = "0A000"

    /// The SQLSTATE of a connection for which no host of the configuration would do (`08001`, unable to establish
    /// a connection): each was down, or of another role than the one wanted.
    static let noHost = "08001"

    /// The SQLSTATE of a write whose commit was sent on a connection that then ended (`08007`, transaction
    /// resolution unknown): it may or may not have committed, and is not run again.
    static let outcomeUnknown = "08007"

    /// Whether the server refused a statement because it is, or became, a hot standby: `25006` (read-only SQL
    /// transaction) and the `0A000` or `55000` of an operation a server in recovery cannot run. The statement did
    /// nothing.
    static func refusedAsStandby(_ error: DBBError) -> Bool {
        switch error.sqlState {
        case "25006": true
        case "0A000", "55000": error.message.contains("recovery")
        default: false
        }
    }

    /// The engine's name, as error descriptions start: `PostgreSQL error (SQLSTATE 23505): …`.
    static let engine = "PostgreSQL"

    /// The `DBBError` for an error thrown while `context` ran `sql` on a connection made with `configuration`.
    static func map(
        _ error: any Error, sql: String?, context: String, configuration: DBBPostgresConfiguration
    ) -> DBBError {
        var mapped: DBBError
        if let error = error as? DBBError {
            mapped = error
        } else if let error = error as? PSQLError {
            mapped = psqlError(error, sql: sql, context: context, configuration: configuration)
        } else if case .server(let error) = error as? PostgresError {
            // A prepared statement's error, in postgres-nio's older form.
            let fields = error.fields
            mapped = serverError(
                sqlState: fields[.sqlState], message: fields[.message], constraint: fields[.constraintName],
                table: fields[.tableName], column: fields[.columnName], hint: fields[.hint], sql: sql,
                context: context, configuration: configuration)
        } else {
            mapped = .server(
                sqlState: nil, extendedCode: DBBError.ResultCode.ioError.rawValue,
                message: "\(configuration.host):\(configuration.port): \(String(describing: error))", sql: sql,
                context: context, engine: engine)
        }
        // The server and SwiftNIO never echo the password; this makes sure of it.
        if let password = configuration.password, !password.isEmpty {
            mapped.message = mapped.message.replacing(password, with: "***")
            mapped.context = mapped.context?.replacing(password, with: "***")
        }
        return mapped
    }

    /// The error the server reported: its SQLSTATE, its message with the constraint, table and column where it
    /// failed, and its hint. The server's detail is left out: it often quotes the values involved ("Key
    /// (email)=(…) already exists"), which may be private.
    private static func serverError(
        sqlState: String?, message: String?, constraint: String?, table: String?, column: String?, hint: String?,
        sql: String?, context: String, configuration: DBBPostgresConfiguration
    ) -> DBBError {
        var message = message ?? "the server reported an error"
        let names = [("constraint", constraint), ("table", table), ("column", column)]
            .compactMap { name, value in value.map { "\(name) \($0)" } }
        if !names.isEmpty { message += " (\(names.joined(separator: ", ")))" }
        if let hint { message += ". Hint: \(hint)" }
        var mapped = DBBError.server(
            sqlState: sqlState, extendedCode: extendedCode(forSQLState: sqlState), message: message, sql: sql,
            context: context, engine: engine)
        if sqlState == "28P01" || sqlState == "28000" {
            mapped.recoverySuggestion =
                "check the user name and password of \(configuration.redactedURL) and the server's pg_hba.conf"
        } else if sqlState == "3D000" {
            mapped.recoverySuggestion = "create the database, or connect to one that exists"
        } else if sqlState == "3F000" {
            mapped.recoverySuggestion =
                "create the schema (CREATE SCHEMA name), or name one that exists in the configuration's schema "
                + "(\(configuration.redactedURL))"
        }
        return mapped
    }

    private static func psqlError(
        _ error: PSQLError, sql: String?, context: String, configuration: DBBPostgresConfiguration
    ) -> DBBError {
        let server = "\(configuration.host):\(configuration.port)"
        func failure(_ code: DBBError.ResultCode, _ message: String, sqlState: String? = nil) -> DBBError {
            .server(
                sqlState: sqlState, extendedCode: code.rawValue, message: message, sql: sql, context: context,
                engine: engine)
        }
        let underlying = error.underlying.map { ": \(String(describing: $0))" } ?? ""
        switch error.code {
        case .server:
            let info = error.serverInfo
            return serverError(
                sqlState: info?[.sqlState], message: info?[.message], constraint: info?[.constraintName],
                table: info?[.tableName], column: info?[.columnName], hint: info?[.hint], sql: sql, context: context,
                configuration: configuration)
        case .connectionError:
            return failure(
                .cannotOpen, "could not connect to PostgreSQL: " + connectionFailure(error.underlying, configuration))
        case .sslUnsupported:
            return failure(
                .cannotOpen, "the PostgreSQL server at \(server) does not offer TLS, which the configuration requires")
        case .failedToAddSSLHandler:
            return failure(.cannotOpen, "could not start TLS with the PostgreSQL server at \(server)\(underlying)")
        case .receivedUnencryptedDataAfterSSLRequest:
            return failure(
                .cannotOpen, "the PostgreSQL server at \(server) sent unencrypted data after the TLS request")
        case .authMechanismRequiresPassword:
            return failure(
                .authorization, "the PostgreSQL server at \(server) asks for a password and the configuration has none")
        case .unsupportedAuthMechanism:
            return failure(
                .authorization,
                "the PostgreSQL server at \(server) asks for an authentication method DBBPostgres "
                    + "does not support\(underlying)")
        case .saslError:
            return failure(.authorization, "SCRAM authentication with \(server) failed\(underlying)")
        case .serverClosedConnection:
            return failure(.ioError, "the PostgreSQL server at \(server) closed the connection\(underlying)")
        case .clientClosedConnection:
            // postgres-nio fails so a statement it refused, the connection being closing or closed, and one in
            // flight when this side closed the connection. A manager closes a connection only on its lane's queue,
            // never under a statement, so there it means the statement was not sent.
            return failure(.misuse, "the connection to \(server) is closed", sqlState: notSent)
        case .uncleanShutdown:
            return failure(.ioError, "the connection to \(server) ended without a clean shutdown\(underlying)")
        case .queryCancelled:
            return failure(.interrupt, "the statement was cancelled")
        case .tooManyParameters:
            return failure(.range, "the statement has more than 65,535 parameters")
        default:
            return failure(.error, "PostgreSQL client error (\(error.code))\(underlying)")
        }
    }

    /// Why a connection could not be made, in plain words and without the networking library's types: "connection
    /// refused by 127.0.0.1:1: is the server running and listening there?".
    static func connectionFailure(_ underlying: (any Error)?, _ configuration: DBBPostgresConfiguration) -> String {
        let server = "\(configuration.host):\(configuration.port)"
        var failure = underlying
        if let connection = failure as? NIOConnectionError {
            if connection.connectionErrors.isEmpty, connection.dnsAError != nil || connection.dnsAAAAError != nil {
                return "the host name \(configuration.host) could not be resolved: check its spelling and the DNS"
            }
            // A host of several addresses fails once per address: the first says why.
            failure = connection.connectionErrors.first?.error
        }
        if let channel = failure as? ChannelError, case .connectTimeout(let timeout) = channel {
            let seconds = Double(timeout.nanoseconds) / 1_000_000_000
            let shown = seconds == seconds.rounded() ? "\(Int(seconds))" : "\(seconds)"
            return "\(server) did not answer within \(shown) seconds: is the host right, and does a "
                + "firewall let the connection through?"
        }
        if let io = failure as? IOError {
            switch io.errnoCode {
            case ECONNREFUSED:
                return "connection refused by \(server): is the server running and listening there?"
            case ETIMEDOUT:
                return "\(server) did not answer: is the host right, and does a firewall let the connection through?"
            case EHOSTUNREACH, ENETUNREACH:
                return "\(server) cannot be reached: there is no route to it"
            default:
                return "\(server): \(String(cString: strerror(io.errnoCode)))"
            }
        }
        return failure.map { "\(server): \(String(describing: $0))" } ?? server
    }

    /// The SQLite extended result code nearest a SQLSTATE, so the same `catch` patterns work on both backends.
    static func extendedCode(forSQLState sqlState: String?) -> Int32 {
        guard let sqlState else { return DBBError.ResultCode.error.rawValue }
        switch sqlState {
        case "23505": return DBBError.constraintUnique.rawValue
        case "23502": return DBBError.constraintNotNull.rawValue
        case "23503": return DBBError.constraintForeignKey.rawValue
        case "23514": return DBBError.constraintCheck.rawValue
        case "40001", "40P01", "55P03": return DBBError.busy.rawValue
        case "25006": return DBBError.readOnly.rawValue
        case "3D000": return DBBError.cannotOpen.rawValue
        case "42501": return DBBError.ResultCode.permission.rawValue
        case "53100": return DBBError.full.rawValue
        case "57014": return DBBError.ResultCode.interrupt.rawValue
        default: break
        }
        switch sqlState.prefix(2) {
        case "23": return DBBError.constraint.rawValue
        case "22": return DBBError.ResultCode.mismatch.rawValue
        case "28": return DBBError.ResultCode.authorization.rawValue
        case "08": return DBBError.ResultCode.ioError.rawValue
        case "57": return DBBError.ResultCode.abort.rawValue
        case "53": return DBBError.ResultCode.full.rawValue
        default: return DBBError.ResultCode.error.rawValue
        }
    }
}
