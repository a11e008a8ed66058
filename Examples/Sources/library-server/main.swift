import LibraryServer

// Runs until SIGINT or SIGTERM, then shuts down gracefully: the HTTP server first (live streams end), then the
// database.
let app = try buildApplication(try LibraryConfiguration())
try await app.runService()
