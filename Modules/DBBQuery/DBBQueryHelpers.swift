public import Foundation

extension String {
    /// The string as an SQL string literal: quoted, with single quotes doubled.
    ///
    /// `"Bud's".dbb_SQLEscaped()` is `'Bud''s'`. Prefer bound values
    /// (``DBBQueryOptions/addCondition(_:_:)``), which need no escaping.
    ///
    /// Quotes are found among the string's Unicode scalars, so a quote followed by a combining mark
    /// (`"O'\u{301}Brien"`) is doubled too. An SQL literal cannot hold a NUL character, so text holding
    /// one becomes an expression that concatenates the pieces with `char(0)`:
    /// `"a\0b".dbb_SQLEscaped()` is `('a'||char(0)||'b')`.
    ///
    /// - Returns: SQL text that evaluates to exactly this string.
    public func dbb_SQLEscaped() -> String {
        var pieces: [String] = []
        var literal = String.UnicodeScalarView()
        literal.append("'")
        for scalar in unicodeScalars {
            switch scalar {
            case "'":
                literal.append(contentsOf: "''".unicodeScalars)
            case "\0":
                literal.append("'")
                pieces.append(String(literal))
                pieces.append("char(0)")
                literal = String.UnicodeScalarView()
                literal.append("'")
            default:
                literal.append(scalar)
            }
        }
        literal.append("'")
        if pieces.isEmpty { return String(literal) }
        pieces.append(String(literal))
        return "(" + pieces.joined(separator: "||") + ")"
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
