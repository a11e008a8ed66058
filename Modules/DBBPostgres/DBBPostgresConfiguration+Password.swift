public import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

extension DBBPostgresConfiguration {
    /// The configuration with its password found as libpq finds it, when it has none: the `PGPASSWORD`
    /// environment variable, else the first matching line of the password file (`PGPASSFILE`, else
    /// `~/.pgpass`). A configuration that has a password is returned as it is.
    ///
    /// Connecting does this, so a password need not be on a command line or in a URL:
    ///
    /// ```sh
    /// export PGPASSWORD=secret                  # or a line in ~/.pgpass, mode 0600:
    /// echo '127.0.0.1:5432:app:app:secret' >> ~/.pgpass && chmod 600 ~/.pgpass
    /// dbb-backup restore app.json.gz postgres://app@127.0.0.1:5432/app
    /// ```
    ///
    /// A line of the password file is `host:port:database:username:password`; each of the first four fields
    /// may be `*`, which matches anything, and `\:` and `\\` stand for `:` and `\`. Lines starting with `#` are
    /// comments. As libpq does, the host field is compared with the configuration's host as written
    /// (`localhost` does not match `127.0.0.1`), and the file is ignored when others than its owner may read or
    /// write it (its mode must be 0600 or stricter).
    ///
    /// - Parameter environment: the variables to read `PGPASSWORD`, `PGPASSFILE` and `HOME` from. Default: this
    ///   process's.
    /// - Returns: the configuration, with the password found, or with none when none was found.
    public func resolvingPassword(
        environment: [String: String] = ProcessInfo.processInfo.environment
    ) -> DBBPostgresConfiguration {
        guard password == nil else { return self }
        var resolved = self
        if let fromEnvironment = environment["PGPASSWORD"], !fromEnvironment.isEmpty {
            resolved.password = fromEnvironment
            return resolved
        }
        let file: String
        if let named = environment["PGPASSFILE"], !named.isEmpty {
            file = named
        } else if let home = environment["HOME"], !home.isEmpty {
            file = (home as NSString).appendingPathComponent(".pgpass")
        } else {
            return self
        }
        resolved.password = Self.password(inPasswordFile: file, for: self)
        return resolved
    }

    /// The password of the first line of a password file that matches a configuration, or `nil`.
    static func password(inPasswordFile path: String, for configuration: DBBPostgresConfiguration) -> String? {
        var status = stat()
        guard stat(path, &status) == 0, (status.st_mode & S_IFMT) == S_IFREG,
            status.st_mode & (S_IRWXG | S_IRWXO) == 0,
            let text = try? String(contentsOfFile: path, encoding: .utf8)
        else { return nil }
        let database = configuration.database ?? configuration.username
        for line in text.split(whereSeparator: \.isNewline) where !line.hasPrefix("#") {
            let fields = passwordFileFields(line)
            guard fields.count == 5 else { continue }
            func matches(_ field: String, _ values: Set<String>) -> Bool { field == "*" || values.contains(field) }
            if matches(fields[0], [configuration.host]), matches(fields[1], [String(configuration.port)]),
                matches(fields[2], [database]), matches(fields[3], [configuration.username])
            {
                return fields[4]
            }
        }
        return nil
    }

    /// The fields of a password file's line: split at `:`, with `\:` and `\\` standing for `:` and `\`.
    private static func passwordFileFields(_ line: Substring) -> [String] {
        var fields: [String] = []
        var field = ""
        var escaped = false
        for character in line {
            if escaped {
                field.append(character)
                escaped = false
            } else if character == "\\" {
                escaped = true
            } else if character == ":" && fields.count < 4 {
                fields.append(field)
                field = ""
            } else {
                field.append(character)
            }
        }
        fields.append(field)
        return fields
    }
}
