package import Foundation

/// A Swift value that can be bound to a statement parameter.
///
/// The library makes `String`, every integer type, `Bool`, `Float`, `Double`, `Date`, `Data`, `URL`,
/// ``DBBValue``, optionals of them, and arrays and string-keyed dictionaries of JSON values (stored as JSON
/// text; their elements are checked when they are bound) conform.
/// Conform your own types by returning the ``DBBValue`` that stores them.
public protocol DBBBindable {
    /// The SQLite value that stores `self`.
    ///
    /// - Parameter options: the connection's date strategy and JSON options.
    /// - Throws: ``DBBError`` with ``DBBError/ResultCode/mismatch`` when the value cannot be stored
    ///   (a `UInt64` above `Int64.max`, an array that is not valid JSON).
    func dbbValue(options: DBBCodingOptions) throws -> DBBValue

    /// Binds `self` to a parameter of a statement.
    ///
    /// You rarely call or implement this: the default implementation binds ``dbbValue(options:)``, and the
    /// library's own types bind natively, without building a ``DBBValue`` first.
    ///
    /// - Parameters:
    ///   - statement: the statement.
    ///   - index: the 1-based parameter index.
    ///   - options: the connection's date strategy and JSON options.
    /// - Throws: ``DBBError`` when the value cannot be stored or SQLite refuses the bind.
    func bind(to statement: DBBStatement, at index: Int32, options: DBBCodingOptions) throws
}

extension DBBBindable {
    public func bind(to statement: DBBStatement, at index: Int32, options: DBBCodingOptions) throws {
        try statement.bind(dbbValue(options: options), at: index)
    }
}

extension Optional: DBBBindable where Wrapped: DBBBindable {
    public func dbbValue(options: DBBCodingOptions) throws -> DBBValue {
        switch self {
        case .none: .null
        case .some(let wrapped): try wrapped.dbbValue(options: options)
        }
    }

    public func bind(to statement: DBBStatement, at index: Int32, options: DBBCodingOptions) throws {
        switch self {
        case .none: try statement.bindNull(at: index)
        case .some(let wrapped): try wrapped.bind(to: statement, at: index, options: options)
        }
    }
}

extension Array: DBBBindable {
    /// An array of JSON values (strings, numbers, booleans, `NSNull`, arrays, string-keyed dictionaries) is
    /// stored as JSON text, written with ``DBBCodingOptions/jsonWritingOptions``. Its elements are checked when
    /// it is bound, as a dictionary's values are, so a mixed `[Any]` (`["x", 1, true]`, or what
    /// `JSONSerialization` returns) binds as DBSQLite bound an `NSArray`.
    ///
    /// - Throws: ``DBBError`` (mismatch) when an element is not a JSON value (a `Date`, a `Data`).
    public func dbbValue(options: DBBCodingOptions) throws -> DBBValue {
        try DBBJSON.text(from: self, options: options)
    }
}

extension Dictionary: DBBBindable where Key == String {
    /// A dictionary of JSON values is stored as JSON text, written with
    /// ``DBBCodingOptions/jsonWritingOptions``.
    ///
    /// - Throws: ``DBBError`` (mismatch) when a value is not a JSON value.
    public func dbbValue(options: DBBCodingOptions) throws -> DBBValue {
        try DBBJSON.text(from: self, options: options)
    }
}

/// JSON text conversion shared by the array and dictionary bindings and the row readers.
enum DBBJSON {
    static func text(from object: Any, options: DBBCodingOptions) throws -> DBBValue {
        guard JSONSerialization.isValidJSONObject(object) else {
            let elements: [Any] = (object as? [Any]) ?? (object as? [String: Any]).map { Array($0.values) } ?? []
            let offending = elements.first { !JSONSerialization.isValidJSONObject([$0]) }
            throw DBBError.library(
                .mismatch,
                message: "the value holds elements that are not JSON values"
                    + (offending.map { " (one is a \(type(of: $0)))" } ?? ""),
                context: "binding a JSON array or dictionary")
        }
        do {
            let data = try JSONSerialization.data(withJSONObject: object, options: options.jsonWritingOptions)
            return .text(String(decoding: data, as: UTF8.self))
        } catch {
            throw DBBError.library(.mismatch, message: "JSON serialization failed: \(error)", context: "binding JSON")
        }
    }

    static func object(from value: DBBValue, options: DBBCodingOptions) throws -> Any? {
        guard let data = value.dataValue else {
            if value.isNull { return nil }
            throw DBBError.library(
                .mismatch, message: "a \(value.storageClass) value is not JSON text", context: "reading JSON")
        }
        do {
            return try JSONSerialization.jsonObject(with: data, options: options.jsonReadingOptions)
        } catch {
            throw DBBError.library(
                .mismatch, message: "the column does not hold valid JSON: \(error)", context: "reading JSON")
        }
    }
}

/// Date text formats shared by binding and reading.
package enum DBBDateFormatting {
    package static func iso8601String(from date: Date) -> String {
        date.formatted(
            .iso8601.year().month().day().time(includingFractionalSeconds: true).timeZone(separator: .omitted))
    }

    /// Parses ISO 8601 (with or without fractional seconds) and SQLite's own `YYYY-MM-DD HH:MM:SS[.SSS]` (UTC).
    package static func date(from text: String) -> Date? {
        let normalized =
            text.count >= 19 && text.dropFirst(10).first == " "
            ? text.replacingCharacters(
                in: text.index(text.startIndex, offsetBy: 10)..<text.index(text.startIndex, offsetBy: 11), with: "T")
            : text
        let withZone = normalized.hasSuffix("Z") || endsWithZoneOffset(normalized) ? normalized : normalized + "Z"
        if let date = try? Date(withZone, strategy: fractionalStyle) { return date }
        if let date = try? Date(withZone, strategy: plainStyle) { return date }
        if text.count == 10, let date = try? Date(text + "T00:00:00Z", strategy: plainStyle) { return date }
        return nil
    }

    private static let fractionalStyle: Date.ISO8601FormatStyle = .iso8601.year().month().day().time(
        includingFractionalSeconds: true)
    private static let plainStyle: Date.ISO8601FormatStyle = .iso8601

    /// Whether the text ends with a zone offset, `+hh:mm` or `+hhmm` (or `-`): the regular expression
    /// `[+-]\d\d:?\d\d$`, where `\d` is any decimal digit.
    private static func endsWithZoneOffset(_ text: String) -> Bool {
        let scalars = Array(text.unicodeScalars.suffix(6))
        func isDigit(_ scalar: Unicode.Scalar) -> Bool { scalar.properties.numericType == .decimal }
        func isSign(_ scalar: Unicode.Scalar) -> Bool { scalar == "+" || scalar == "-" }
        let count = scalars.count
        guard count >= 5, isDigit(scalars[count - 1]), isDigit(scalars[count - 2]) else { return false }
        if isDigit(scalars[count - 3]), isDigit(scalars[count - 4]), isSign(scalars[count - 5]) { return true }
        return count == 6 && scalars[count - 3] == ":" && isDigit(scalars[count - 4]) && isDigit(scalars[count - 5])
            && isSign(scalars[count - 6])
    }
}
