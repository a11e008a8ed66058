import DBBPostgres
import Foundation
import Hummingbird
import HummingbirdTesting
import LibraryServer
import Testing

/// A folder of its own for each test's database, removed afterwards.
final class TemporaryFolder {
    let url: URL

    init() throws {
        url = FileManager.default.temporaryDirectory.appendingPathComponent("library-\(UUID().uuidString)")
        try FileManager.default.createDirectory(at: url, withIntermediateDirectories: true)
    }

    deinit { try? FileManager.default.removeItem(at: url) }
}

private func configuration(_ folder: TemporaryFolder, readers: Int) throws -> LibraryConfiguration {
    try LibraryConfiguration(environment: [
        "LIBRARY_DATABASE": folder.url.appendingPathComponent("library.sqlite").path, "LIBRARY_READERS": "\(readers)",
    ])
}

/// The PostgreSQL database the tests may also run on: `LIBRARY_TEST_POSTGRES_URL` (for example
/// `postgres://app@127.0.0.1:5432/app?sslmode=disable`, the password in `PGPASSWORD`); without it they run on
/// SQLite alone.
let testPostgresURL = ProcessInfo.processInfo.environment["LIBRARY_TEST_POSTGRES_URL"].flatMap { $0.isEmpty ? nil : $0 }

/// The engines the tests run on.
let engines = ["sqlite"] + (testPostgresURL == nil ? [] : ["postgres"])

/// A configuration on `engine`: SQLite in `folder`, or a new, empty schema of the PostgreSQL test database; with
/// `extra` variables on top.
func testConfiguration(
    _ folder: TemporaryFolder, readers: Int, engine: String, extra: [String: String] = [:]
) async throws -> LibraryConfiguration {
    var environment = [
        "LIBRARY_DATABASE": folder.url.appendingPathComponent("library.sqlite").path, "LIBRARY_READERS": "\(readers)",
    ]
    if engine == "postgres", let url = testPostgresURL {
        let schema = "library_" + UUID().uuidString.replacingOccurrences(of: "-", with: "").lowercased()
        let admin = try await DBBPostgresConnection.connect(try DBBPostgresConfiguration(url: url))
        try await admin.execute("CREATE SCHEMA \(schema)")
        try await admin.close()
        environment["LIBRARY_POSTGRES_URL"] = url + (url.contains("?") ? "&" : "?") + "schema=\(schema)"
    }
    return try LibraryConfiguration(environment: environment.merging(extra) { _, new in new })
}

private func json(_ value: some Encodable) throws -> ByteBuffer {
    ByteBuffer(data: try JSONEncoder().encode(value))
}

private func decode<T: Decodable>(_ type: T.Type, _ response: TestResponse) throws -> T {
    let decoder = JSONDecoder()
    decoder.dateDecodingStrategy = .iso8601
    return try decoder.decode(type, from: Data(buffer: response.body))
}

/// Set once, read from any task.
final class Flag: @unchecked Sendable {
    // @unchecked: guarded by `lock`.
    private let lock = NSLock()
    private var value = false

    func set() { lock.withLock { value = true } }
    var isSet: Bool { lock.withLock { value } }
}

@Suite struct LibraryServerTests {
    @Test(
        "books and loans: create, search through references with paging, update, lend, return, delete",
        arguments: [0, 2])
    func api(readers: Int) async throws {
        let folder = try TemporaryFolder()
        let app = try buildApplication(try configuration(folder, readers: readers))
        try await app.test(.router) { client in
            let ann = try await client.execute(
                uri: "/members", method: .post, body: try json(MemberInput(name: "Ann", email: "ann@example.org"))
            ) { response in
                #expect(response.status == .created)
                return try decode(MemberDTO.self, response)
            }
            let bo = try await client.execute(
                uri: "/members", method: .post, body: try json(MemberInput(name: "Bo", email: "bo@example.org"))
            ) { try decode(MemberDTO.self, $0) }
            var books: [BookDTO] = []
            for (title, year) in [("Swift in Depth", 2019), ("SQLite Internals", 2023), ("Dune", 1965), ("Emma", 1815)]
            {
                let book = try await client.execute(
                    uri: "/books", method: .post,
                    body: try json(BookInput(title: title, author: "A. Writer", year: year))
                ) { response in
                    #expect(response.status == .created)
                    return try decode(BookDTO.self, response)
                }
                books.append(book)
            }
            #expect(Set(books.map(\.id)).count == 4)

            // Paging by title.
            let page = try await client.execute(uri: "/books?offset=1&limit=2", method: .get) {
                try decode(Page<BookDTO>.self, $0)
            }
            #expect(page.items.map(\.title) == ["Emma", "SQLite Internals"])
            #expect(page.total == 4)
            let search = try await client.execute(uri: "/books?q=Swift", method: .get) {
                try decode(Page<BookDTO>.self, $0)
            }
            #expect(search.items.map(\.title) == ["Swift in Depth"])

            // Lending: a book lent once only, in one transaction with the check.
            for (book, member) in [(books[0], ann), (books[1], ann), (books[2], bo)] {
                try await client.execute(
                    uri: "/loans", method: .post, body: try json(LoanInput(bookID: book.id, memberID: member.id))
                ) { #expect($0.status == .created) }
            }
            try await client.execute(
                uri: "/loans", method: .post, body: try json(LoanInput(bookID: books[0].id, memberID: bo.id))
            ) { #expect($0.status == .conflict) }
            try await client.execute(
                uri: "/loans", method: .post, body: try json(LoanInput(bookID: 999, memberID: bo.id))
            ) { #expect($0.status == .notFound) }

            // Conditions through the references: the member's name, the book's title.
            let annsLoans = try await client.execute(uri: "/loans?member=Ann", method: .get) {
                try decode(Page<LoanDTO>.self, $0)
            }
            #expect(annsLoans.items.map(\.title) == ["SQLite Internals", "Swift in Depth"])
            #expect(annsLoans.items.allSatisfy { $0.member == "Ann" && !$0.returned && $0.due != nil })
            let annsSQL = try await client.execute(uri: "/loans?member=Ann&title=SQL", method: .get) {
                try decode(Page<LoanDTO>.self, $0)
            }
            #expect(annsSQL.items.map(\.title) == ["SQLite Internals"])
            let secondPage = try await client.execute(uri: "/loans?offset=2&limit=2", method: .get) {
                try decode(Page<LoanDTO>.self, $0)
            }
            #expect(secondPage.total == 3 && secondPage.items.map(\.title) == ["Swift in Depth"])

            // Update, return, delete.
            let renamed = try await client.execute(
                uri: "/books/\(books[0].id)", method: .patch,
                body: try json(BookInput(title: "Swift in Depth, 2nd ed."))
            ) { try decode(BookDTO.self, $0) }
            #expect(renamed.title == "Swift in Depth, 2nd ed." && renamed.year == 2019)
            try await client.execute(uri: "/books/\(books[0].id)", method: .delete) { #expect($0.status == .conflict) }
            let loan = annsLoans.items.first { $0.bookID == books[0].id }
            let returned = try await client.execute(uri: "/loans/\(loan?.id ?? 0)/return", method: .post) {
                try decode(LoanDTO.self, $0)
            }
            #expect(returned.returned)
            try await client.execute(uri: "/books/\(books[0].id)", method: .delete) { #expect($0.status == .noContent) }
            let open = try await client.execute(uri: "/loans?open=true", method: .get) {
                try decode(Page<LoanDTO>.self, $0)
            }
            #expect(open.items.map(\.title) == ["Dune", "SQLite Internals"])
            let left = try await client.execute(uri: "/books", method: .get) { try decode(Page<BookDTO>.self, $0) }
            #expect(left.total == 3)

            // Bad input changes nothing.
            try await client.execute(uri: "/books", method: .post, body: ByteBuffer(string: "{\"title\": ")) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/books", method: .post, body: try json(BookInput(title: "No author"))) {
                #expect($0.status == .badRequest)
            }
            try await client.execute(uri: "/books?limit=1000", method: .get) { #expect($0.status == .badRequest) }
            let after = try await client.execute(uri: "/books", method: .get) { try decode(Page<BookDTO>.self, $0) }
            #expect(after.total == 3)
        }
    }

    @Test(
        "bad input is a 400 that says what is wrong, the same on every engine, and changes nothing",
        arguments: engines)
    func badInput(engine: String) async throws {
        let folder = try TemporaryFolder()
        let app = try buildApplication(try await testConfiguration(folder, readers: 0, engine: engine))
        try await app.test(.router) { client in
            let cases: [(method: HTTPRequest.Method, uri: String, body: String?, says: String)] = [
                (.get, "/books?limit=abc", nil, "limit must be a whole number, not 'abc'"),
                (.get, "/books?offset=1.5", nil, "offset must be a whole number, not '1.5'"),
                (.get, "/loans?limit=", nil, "limit must be a whole number"),
                (.get, "/books?limit=0", nil, "limit 1 to 100"),
                (.post, "/books", #"{"title": "Nul\u0000", "author": "A", "year": 2000}"#, "NUL"),
                (.post, "/members", #"{"name": "N\u0000", "email": "n@example.org"}"#, "NUL"),
                (.post, "/books", #"{"title": "No year", "author": "A"}"#, "a title, an author and a year"),
                (.post, "/books", #"{"title": "Big", "author": "A", "year": 1e30}"#, "the field year does not fit"),
                (
                    .post, "/books", #"{"title": "Big", "author": "A", "year": 99999999999999999999}"#,
                    "the field year does not fit"
                ),
                (.post, "/books", #"{"title": "Big", "author": "A", "year": "1999"}"#, "the field year has a value"),
                (.post, "/members", #"{"name": "N"}"#, "the field email is missing"),
                (.post, "/books", #"{"title": "#, "not valid JSON"),
            ]
            for (method, uri, body, says) in cases {
                try await client.execute(uri: uri, method: method, body: body.map { ByteBuffer(string: $0) }) {
                    response in
                    #expect(response.status == .badRequest, "\(uri) \(body ?? "")")
                    #expect(
                        String(buffer: response.body).contains(says),
                        "\(uri) \(body ?? ""): \(String(buffer: response.body))")
                }
            }
            let books = try await client.execute(uri: "/books", method: .get) { try decode(Page<BookDTO>.self, $0) }
            #expect(books.total == 0)
        }
    }

    @Test(
        "the live endpoint sends the open loans at once, then after each commit that changes them",
        arguments: engines)
    func live(engine: String) async throws {
        let folder = try TemporaryFolder()
        let app = try buildApplication(try await testConfiguration(folder, readers: 2, engine: engine))
        try await app.test(.router) { client in
            let member = try await client.execute(
                uri: "/members", method: .post, body: try json(MemberInput(name: "Cy", email: "cy@example.org"))
            ) { try decode(MemberDTO.self, $0) }
            // The books first: a new book changes a table the observation reads (a loan's book) too.
            var books: [BookDTO] = []
            for index in 0..<50 {
                let book = try await client.execute(
                    uri: "/books", method: .post,
                    body: try json(BookInput(title: "Book \(index)", author: "B", year: 2000))
                ) { try decode(BookDTO.self, $0) }
                books.append(book)
            }
            let finished = Flag()
            let stream = Task {
                defer { finished.set() }
                return try await client.execute(uri: "/loans/live?events=2", method: .get) { response in
                    (response.headers[.contentType], String(buffer: response.body))
                }
            }
            // Lends until the stream has seen a commit after its first event (which may itself come after a loan).
            var lent = 0
            while !finished.isSet && lent < books.count {
                try await Task.sleep(for: .milliseconds(100))
                try await client.execute(
                    uri: "/loans", method: .post, body: try json(LoanInput(bookID: books[lent].id, memberID: member.id))
                ) { #expect($0.status == .created) }
                lent += 1
            }
            let (contentType, body) = try await stream.value
            #expect(contentType == "text/event-stream")
            // Heartbeats are comments (": heartbeat"), which event-stream clients skip.
            let events = body.components(separatedBy: "\n\n").filter { !$0.isEmpty && !$0.hasPrefix(":") }
            #expect(events.count == 2)
            #expect(events.allSatisfy { $0.hasPrefix("event: loans\ndata: ") })
            let counts = try events.map { event in
                let data = Data(event.dropFirst("event: loans\ndata: ".count).utf8)
                let decoder = JSONDecoder()
                decoder.dateDecodingStrategy = .iso8601
                return try decoder.decode([LoanDTO].self, from: data).count
            }
            #expect(counts[1] > counts[0])
            #expect(counts[1] <= lent)
        }
    }
}
