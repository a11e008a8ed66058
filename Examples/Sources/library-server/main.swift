import Foundation
import LibraryServer

// Runs until SIGINT or SIGTERM, then shuts down gracefully: the HTTP server first (live streams end), then the
// database. A server that cannot start (a port in use, a database it cannot open) says why and exits with 1.
var configuration: LibraryConfiguration?
do {
    let read = try LibraryConfiguration()
    configuration = read
    let app = try buildApplication(read)
    try await app.runService()
} catch {
    let message =
        configuration.map { failureMessage(error, configuration: $0) } ?? String(describing: error)
    FileHandle.standardError.write(Data("library-server: \(message)\n".utf8))
    exit(1)
}
