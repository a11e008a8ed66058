package import DBBSQL

extension DBBCodingOptions {
    /// DBBBuilder's on-disk conventions: dates as seconds since 2001-01-01 00:00:00 UTC. The manager's
    /// connection uses them, and so does everything that turns property values into stored values.
    package static let objectLayout: DBBCodingOptions = {
        var options = DBBCodingOptions()
        options.dateStrategy = .secondsSinceReferenceDate
        return options
    }()
}
