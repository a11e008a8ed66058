/// The statements of the `DBVersion` table, where a manager keeps the database's version in one row (the
/// layout of DBBBuilder on Apple platforms: `version`, with the row's `createdTime` and `modifiedTime`).
package enum DBBVersionStatements {
    /// The stored version, or NULL when none was set.
    package static let selectVersion = "SELECT MAX(version) FROM DBVersion"
    /// The first version: arguments `createdTime`, `modifiedTime`, `version`.
    package static let insertVersion = "INSERT INTO DBVersion (createdTime, modifiedTime, version) VALUES (?, ?, ?)"
    /// A later version: arguments `version`, `modifiedTime`.
    package static let updateVersion = "UPDATE DBVersion SET version = ?, modifiedTime = ?"
}
