/// Facts about the DBBBuilder package itself.
public enum DBBPackage {
    /// The package's version (semantic versioning), the one place it is written: the tools' `--version`
    /// print it, and a program can log it beside ``DBBDatabase/sqliteVersion``.
    public static let version = "1.0.0"
}
