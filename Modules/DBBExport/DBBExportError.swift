internal import DBBSQL
internal import Foundation

#if canImport(Glibc)
    internal import Glibc
#elseif canImport(Darwin)
    internal import Darwin
#endif

/// The error DBBExport throws for a problem with a dump file, a target file, or the data itself.
///
/// Problems SQLite reports (a schema statement that fails, a full disk) are thrown as `DBBError`;
/// everything about the dump and the files around it is a `DBBExportError`, which says what is wrong
/// and where it was found: the byte offset in the JSON text (or in the compressed file, for gzip
/// damage), the table, the row number and the column.
///
/// ```swift
/// do {
///     try DBBExport.restore(dumpAt: dumpURL, to: targetURL)
/// } catch let error as DBBExportError where error.kind == .truncated {
///     print("the dump is incomplete:", error)
/// }
/// ```
public struct DBBExportError: Error, Sendable, Equatable, CustomStringConvertible {
    /// What kind of problem was found.
    public enum Kind: String, Sendable, Hashable, CaseIterable {
        /// The file ends before the gzip stream or the JSON document does.
        case truncated
        /// The gzip stream is damaged: a bad header, bad deflate data, or a CRC or length check that fails.
        case corruptCompression
        /// The JSON is valid or not, but it is not a DBBExport dump.
        case notADump
        /// The dump was written by a newer format version than this library reads.
        case unsupportedVersion
        /// The dump has the right format name but a part of it has the wrong shape or an impossible value.
        case malformed
        /// The target file exists and replacing it was not asked for.
        case targetExists
        /// A file could not be opened, read, written or renamed.
        case io
        /// An input file, the database or the dump to read, does not exist or cannot be reached (a folder on
        /// its path denies search permission).
        case missingInput
        /// A table or other name given in the options does not exist in the database.
        case unknownTable
        /// A string or BLOB is longer than the options allow (``DBBExport/defaultMaximumValueLength`` unless
        /// they say otherwise): in a dump being read, or in a database being dumped.
        case valueTooLong
    }

    /// What kind of problem was found.
    public var kind: Kind
    /// A human-readable explanation. Passwords in it (`user:password@`) are shown as `***`.
    public var message: String
    /// The file involved, if any, as it was given (``description`` shows a password in it as `***`).
    public var path: String?
    /// The offset in the uncompressed JSON text where the problem was found (0-based), if known.
    public var byteOffset: Int64?
    /// The offset in the compressed file where the problem was found (0-based), for gzip damage.
    public var compressedOffset: Int64?
    /// The table being read or written, if any.
    public var table: String?
    /// The 1-based row number within ``table``, if the problem is in a row.
    public var row: Int?
    /// The column, if the problem is in one value.
    public var column: String?

    /// Creates an error.
    ///
    /// - Parameters:
    ///   - kind: what kind of problem was found.
    ///   - message: a human-readable explanation.
    ///   - path: the file involved.
    ///   - byteOffset: the offset in the JSON text.
    ///   - compressedOffset: the offset in the compressed file.
    ///   - table: the table involved.
    ///   - row: the 1-based row number in the table.
    ///   - column: the column involved.
    public init(
        _ kind: Kind, _ message: String, path: String? = nil, byteOffset: Int64? = nil,
        compressedOffset: Int64? = nil, table: String? = nil, row: Int? = nil, column: String? = nil
    ) {
        self.kind = kind
        self.message = DBBRedaction.redactingPasswords(in: message)
        self.path = path
        self.byteOffset = byteOffset
        self.compressedOffset = compressedOffset
        self.table = table
        self.row = row
        self.column = column
    }

    /// A one-line description: the message, then where it was found, with any password shown as `***`.
    public var description: String {
        var places: [String] = []
        if let table { places.append("table \(table)") }
        if let row { places.append("row \(row)") }
        if let column { places.append("column \(column)") }
        if let byteOffset { places.append("JSON byte offset \(byteOffset)") }
        if let compressedOffset { places.append("compressed byte offset \(compressedOffset)") }
        if let path { places.append("file \(path)") }
        return DBBRedaction.redactingPasswords(
            in: places.isEmpty ? message : "\(message) (\(places.joined(separator: ", ")))")
    }

    /// Throws ``Kind/missingInput`` when an input file does not exist, or cannot be reached: a folder on
    /// its path denies search permission, which `stat` reports as such rather than as a missing file.
    ///
    /// - Parameters:
    ///   - path: the input file.
    ///   - name: what the file is, for the message: "the dump file", "the database file".
    static func requireExists(_ path: String, _ name: String) throws {
        var status = stat()
        guard stat(path, &status) != 0 else { return }
        let reason = errno
        guard reason != ENOENT && reason != ENOTDIR else {
            throw DBBExportError(.missingInput, "\(name) does not exist", path: path)
        }
        let why = String(cString: strerror(reason))
        let hint = reason == EACCES ? " (a folder on its path denies search permission)" : ""
        throw DBBExportError(.missingInput, "\(name) cannot be reached: \(why)\(hint)", path: path)
    }

    /// Whether the gzip stream is damaged or cut short (not the JSON inside it).
    var isCompressionDamage: Bool {
        kind == .corruptCompression || (kind == .truncated && compressedOffset != nil)
    }

    /// The same error with the table and row filled in where they are still missing.
    func locating(table: String?, row: Int?) -> DBBExportError {
        var copy = self
        if copy.table == nil { copy.table = table }
        if copy.row == nil { copy.row = row }
        return copy
    }
}
