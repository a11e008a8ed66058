internal import Foundation

/// Where a dump is read from: a file, or an open handle (standard input, a pipe) read once from where it is.
enum DumpSource {
    case file(String)
    case handle(FileHandle)

    /// The file, for error messages; `nil` for a handle.
    var path: String? {
        if case .file(let path) = self { path } else { nil }
    }

    /// Starts decompressing the dump.
    ///
    /// - Throws: ``DBBExportError`` (missingInput) when the file does not exist, (io) when it cannot be read.
    func openGzip() throws -> GzipFileReader {
        switch self {
        case .file(let path):
            try DBBExportError.requireExists(path, "the dump file")
            return try GzipFileReader(path: path)
        case .handle(let handle):
            return try GzipFileReader(handle: handle)
        }
    }
}
