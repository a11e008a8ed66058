import Foundation

extension String {
    /// The string as an SQL string literal: quoted, with single quotes doubled.
    ///
    /// `"Bud's".dbb_SQLEscaped()` is `'Bud''s'`. Prefer bound values
    /// (``DBBQueryOptions/addCondition(_:_:)``), which need no escaping.
    public func dbb_SQLEscaped() -> String {
        "'" + replacingOccurrences(of: "'", with: "''") + "'"
    }
}

extension Date {
    /// The date as it is stored (seconds since 2001-01-01 00:00:00 UTC), as text for a condition:
    /// `"startDate > \(cutoff.dbb_dateComparisonString())"`.
    public func dbb_dateComparisonString() -> String {
        String(timeIntervalSinceReferenceDate)
    }

    /// The date as it is stored: seconds since 2001-01-01 00:00:00 UTC.
    public func dbb_timeIntervalForDate() -> TimeInterval {
        timeIntervalSinceReferenceDate
    }

    /// The date a stored number of seconds since 2001-01-01 00:00:00 UTC stands for.
    public static func dbb_dateFromTimeInterval(_ interval: TimeInterval) -> Date {
        Date(timeIntervalSinceReferenceDate: interval)
    }
}
