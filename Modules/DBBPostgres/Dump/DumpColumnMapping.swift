internal import DBBExport
internal import DBBSQL
internal import Foundation

/// How one PostgreSQL column is written in a dump: the expression that reads it, the SQLite type it is declared
/// with, how each value read becomes a dump value, and the conversion the header names when it is not exact.
///
/// | PostgreSQL | dump value | SQLite type | exact |
/// | --- | --- | --- | --- |
/// | `bigint` (identity too) | INTEGER | `bigint` (`INTEGER PRIMARY KEY` for a one-column key) | yes |
/// | `double precision` | REAL, bit for bit (NaN as NULL and -0.0 as 0.0, as SQLite stores them) | `double precision` | yes |
/// | `text` | TEXT | `text` | yes |
/// | `bytea` | BLOB | `BLOB` | yes |
/// | `boolean` | INTEGER 0 or 1 | `BOOLEAN` | yes (the library's own booleans) |
/// | `numeric` | INTEGER when whole and 64-bit, REAL when a double's shortest text is its value, else the nearest REAL (noted, refused by `strict`) | `numeric` as declared | yes within a double |
/// | `integer`, `smallint` | INTEGER | as declared | values yes; a restore into PostgreSQL makes them `bigint` |
/// | `real` | REAL, widened exactly | `real` | values yes; back as `double precision` |
/// | `varchar(n)`, `char(n)`, `name`, `"char"`, `citext` | TEXT (`char(n)` with its padding) | as declared when its affinity is TEXT, else `TEXT` | values yes |
/// | `uuid` | TEXT, lower-case with hyphens | `TEXT` | as text |
/// | `json`, `jsonb` | TEXT: `json` as written, `jsonb` as PostgreSQL prints it | `TEXT` | as text |
/// | `date`, `timestamp`, `timestamptz`, `time`, `timetz` | TEXT, ISO 8601 as PostgreSQL prints it with `DateStyle` ISO and the time zone UTC (`2024-05-01 12:30:00+00`) | `TEXT` | as text |
/// | `interval` | TEXT, ISO 8601 (`P1DT2H`) | `TEXT` | as text |
/// | arrays | TEXT, a JSON array (`array_to_json`) | `TEXT` | as text |
/// | enums | TEXT, the label | `TEXT` | as text |
/// | domains | as their base type | as their base type | as the base type |
/// | anything else | TEXT, PostgreSQL's text form | `TEXT` | no mapping: refused by `strict` |
struct DumpColumnMapping {
    /// How a value read becomes a dump value.
    enum Form {
        /// As read: integers (booleans as 0 or 1), doubles, text, bytes.
        case asRead
        /// A `numeric` read as its text; `fixedScale` when its type fixes the digits after the point (trailing
        /// zeros are then the type's, not the value's).
        case numeric(fixedScale: Bool)
    }

    /// The column's name.
    var name: String
    /// The column's type as PostgreSQL spells it (`format_type`).
    var sourceType: String
    /// The expression of the `SELECT` that reads it.
    var select: String
    /// The type the SQLite schema declares.
    var declaredType: String
    /// The storage class the values are written in (for the conversion's note).
    var storedAs: String
    var form: Form
    /// What the header says of the conversion, or `nil` when the type maps exactly.
    var conversion: String?
    /// Whether the type has no mapping of its own (it is written as its text), which `strict` refuses.
    var isUnmapped = false
    /// Whether the SQLite column's affinity makes whole reals integers (INTEGER or NUMERIC), so the dump writes
    /// them as SQLite will store them.
    var integerAffinity = false
    /// Whether the SQLite column's affinity makes integers reals (REAL).
    var realAffinity = false

    /// What a column of a PostgreSQL type becomes.
    ///
    /// - Parameters:
    ///   - name: the column.
    ///   - formatted: the type as `format_type` spells it, a domain's own name for a domain.
    ///   - base: the type's (or the domain's base type's) `typname`.
    ///   - baseFormatted: the base type as `format_type` spells it, with the domain's modifier.
    ///   - kind: the base type's `typtype` (`b` base, `e` enum, `c` composite, `r` range, `m` multirange, …).
    ///   - category: the base type's `typcategory` (`A` for arrays).
    ///   - isDomain: whether the column's type is a domain.
    init(
        name: String, formatted: String, base: String, baseFormatted: String, kind: String, category: String,
        isDomain: Bool
    ) {
        self.name = name
        sourceType = formatted
        let column = DBBDatabase.quoteIdentifier(name)
        select = column
        form = .asRead
        let domainNote = isDomain ? "domain over \(baseFormatted): " : ""
        func text(_ note: String, declared: String = "TEXT") {
            select = column + "::text"
            declaredType = declared
            storedAs = "TEXT"
            conversion = domainNote + note
        }
        declaredType = baseFormatted
        storedAs = "INTEGER"
        conversion = isDomain ? "domain over \(baseFormatted), written as its base type" : nil
        switch (category, kind, base) {
        case ("A", _, _):
            select = "array_to_json(\(column))::text"
            declaredType = "TEXT"
            storedAs = "TEXT"
            conversion = domainNote + "array written as JSON text (array_to_json); its lower bounds are not kept"
        case (_, "e", _):
            text("enum written as its label")
        case (_, _, "int8"):
            declaredType = "bigint"
        case (_, _, "int4"), (_, _, "int2"):
            conversion =
                domainNote + "written as a 64-bit INTEGER, the value exact; a restore into PostgreSQL makes it bigint"
        case (_, _, "bool"):
            declaredType = "BOOLEAN"
            conversion = isDomain ? conversion : nil
        case (_, _, "float8"):
            declaredType = "double precision"
            storedAs = "REAL"
        case (_, _, "float4"):
            declaredType = "real"
            storedAs = "REAL"
            conversion =
                domainNote + "widened to a double, exactly; a restore into PostgreSQL makes it double precision"
        case (_, _, "numeric"):
            select = column + "::text"
            storedAs = "INTEGER or REAL"
            form = .numeric(fixedScale: baseFormatted.contains("("))
            conversion =
                domainNote + "whole values within 64 bits as INTEGER, others as REAL when a double's shortest text "
                + "is the value; any other value as the nearest REAL, which loses digits (refused with strict)"
        case (_, _, "text"):
            declaredType = "text"
            storedAs = "TEXT"
        case (_, _, "bytea"):
            declaredType = "BLOB"
            storedAs = "BLOB"
        case (_, _, "varchar"), (_, _, "bpchar"):
            declaredType = baseFormatted
            storedAs = "TEXT"
            conversion = domainNote + "written as TEXT"
            if base == "bpchar" { conversion! += ", with the padding PostgreSQL stores" }
        case (_, _, "name"), (_, _, "char"), (_, _, "citext"):
            text("written as TEXT")
        case (_, _, "uuid"):
            text("written as TEXT, lower-case with hyphens")
        case (_, _, "json"):
            text("written as TEXT, as it was written")
        case (_, _, "jsonb"):
            text("written as TEXT, as PostgreSQL prints jsonb")
        case (_, _, "date"), (_, _, "timestamp"), (_, _, "timestamptz"), (_, _, "time"), (_, _, "timetz"):
            text("written as ISO 8601 TEXT as PostgreSQL prints it (DateStyle ISO, time zone UTC)")
        case (_, _, "interval"):
            text("written as ISO 8601 TEXT (IntervalStyle iso_8601, for example P1DT2H)")
        default:
            text("no mapping: written as PostgreSQL's text form of the value")
            isUnmapped = true
        }
        (integerAffinity, realAffinity) = Self.affinities(of: declaredType)
        // A row is read as one record, whose fields have their columns' types: a domain's is its own.
        if isDomain && select == column { select = column + "::" + baseFormatted }
    }

    /// Whether SQLite's affinity for a declared type makes whole reals integers (INTEGER, NUMERIC), and whether it
    /// makes integers reals (REAL), by SQLite's rules as the restore's planner reads them.
    private static func affinities(of declaredType: String) -> (integer: Bool, real: Bool) {
        let type = RestorePlanner.affinityType(declaredType)
        return (type == "bigint" || type == "numeric", type == "double precision")
    }

    /// The column with the type a restore of an SQLite dump declared (kept in its metadata table), so that a
    /// database that came from SQLite goes back with its columns' declared types.
    func declaring(_ original: String) -> DumpColumnMapping {
        var mapping = self
        mapping.declaredType = original
        (mapping.integerAffinity, mapping.realAffinity) = Self.affinities(of: original)
        return mapping
    }

    /// What turns a value read into a dump value, without the column's strings: copied for each value read.
    struct ValueRules {
        var form: Form
        var integerAffinity: Bool
        var realAffinity: Bool

        /// Whether text read is written as it is (``ValueRules/dumpValue(_:strict:)`` returns it unchanged): always in a
        /// column of TEXT or BLOB affinity; in one of INTEGER, REAL or NUMERIC affinity unless it is spelt with
        /// nothing but the characters of a number's text (digits, `.`, `-`, `+`, `e`), which may make it a number.
        func writesAsRead(text utf8: UnsafeRawBufferPointer) -> Bool {
            guard case .asRead = form else { return false }
            if !integerAffinity && !realAffinity { return true }
            return utf8.contains { byte in
                !((byte >= UInt8(ascii: "0") && byte <= UInt8(ascii: "9")) || byte == UInt8(ascii: ".")
                    || byte == UInt8(ascii: "-") || byte == UInt8(ascii: "+") || byte == UInt8(ascii: "e"))
            }
        }
    }

    /// The rules of ``ValueRules/dumpValue(_:strict:)``.
    var rules: ValueRules {
        ValueRules(form: form, integerAffinity: integerAffinity, realAffinity: realAffinity)
    }

}

extension DumpColumnMapping.ValueRules {
    /// The dump value of a value read with the column's `select`.
    ///
    /// - Parameter strict: whether a `numeric` that no double holds exactly is refused.
    /// - Returns: the value, or `nil` when `strict` refuses it.
    func dumpValue(_ value: DBBValue, strict: Bool) -> DBBValue? {
        var result = value
        if case .numeric(let fixedScale) = form, case .text(let text) = value {
            guard let number = Self.numericValue(text, fixedScale: fixedScale, strict: strict) else { return nil }
            result = number
        }
        // Written as SQLite stores it in the column, so a restore holds exactly the dump's values.
        switch result {
        case .real(let number) where number.isNaN:
            return .null
        case .real(let number) where integerAffinity:
            if number.rounded() == number, number >= -9.223_372_036_854_775_808e18,
                number < 9.223_372_036_854_775_808e18
            {
                return .integer(Int64(number))
            }
        case .integer(let number) where realAffinity:
            return .real(Double(number))
        case .text(let text) where integerAffinity || realAffinity:
            // Numbers a restore into PostgreSQL kept as their text in a text column (a column that mixed them with
            // text) go back to being numbers, as SQLite's affinity makes them: written so here, in the spellings
            // that restore writes.
            if let integer = Int64(text), String(integer) == text {
                return realAffinity ? .real(Double(integer)) : .integer(integer)
            }
            if let number = Double(text), number.isFinite, number.description == text {
                return integerAffinity && number.rounded() == number && abs(number) < 9.2e18
                    ? .integer(Int64(number)) : .real(number)
            }
        case .real(let number) where realAffinity && number == 0:
            // SQLite keeps a whole real of a REAL column as an integer on disk: -0.0 reads back as 0.0.
            return .real(0)
        default:
            break
        }
        return result
    }

    /// A `numeric`'s text as a dump value: an integer when it is whole and fits in 64 bits, a real when a double's
    /// shortest text is the value (as a restore into PostgreSQL writes a real into a `numeric`), else the nearest
    /// double, or `nil` with `strict`. `NaN` is NULL, as SQLite stores it; the infinities are reals.
    static func numericValue(_ text: String, fixedScale: Bool, strict: Bool) -> DBBValue? {
        switch text {
        case "NaN": return .null
        case "Infinity": return .real(.infinity)
        case "-Infinity": return .real(-.infinity)
        default: break
        }
        var digits = text
        if fixedScale, digits.contains(".") {
            // The type's scale pads the fraction with zeros: 14.50 in numeric(10,2) is the value 14.5.
            while digits.hasSuffix("0") { digits.removeLast() }
            if digits.hasSuffix(".") { digits.removeLast() }
        }
        if let integer = Int64(digits) { return .integer(integer) }
        guard let number = Double(digits) else { return strict ? nil : .text(text) }
        if number.isFinite, RestoreValues.numericText(number) == digits { return .real(number) }
        return strict ? nil : .real(number)
    }
}
