import DBBBuilder
import Foundation
import Hummingbird
import Logging
import ServiceLifecycle

/// The library's JSON API on one manager: every change runs in a `write` closure (one transaction), every
/// list in a `read` closure (one snapshot, on a reader when the manager has readers).
struct LibraryRoutes: Sendable {
    let manager: DBBManager
    /// How often `/loans/live` sends a heartbeat comment: a write to a client that went away fails, which ends
    /// its stream and its observation.
    var heartbeat: Duration = .seconds(10)
    var logger = Logger(label: "library-server")

    /// The most items a page holds.
    static let maximumPageSize = 100

    func add(to router: Router<BasicRequestContext>) {
        router.get("health") { _, _ in HTTPResponse.Status.ok }
        router.get("books") { request, _ in try await listBooks(request) }
        router.post("books") { request, context in
            try await createBook(try await Self.decode(BookInput.self, request, context))
        }
        router.patch("books/:id") { request, context in
            try await updateBook(
                try context.parameters.require("id", as: Int64.self),
                try await Self.decode(BookInput.self, request, context))
        }
        router.delete("books/:id") { _, context in
            try await deleteBook(try context.parameters.require("id", as: Int64.self))
        }
        router.post("members") { request, context in
            try await createMember(try await Self.decode(MemberInput.self, request, context))
        }
        router.get("loans") { request, _ in try await searchLoans(request) }
        router.post("loans") { request, context in
            try await lend(try await Self.decode(LoanInput.self, request, context))
        }
        router.post("loans/:id/return") { _, context in
            try await giveBack(try context.parameters.require("id", as: Int64.self))
        }
        router.get("loans/live") { request, _ in liveLoans(request) }
    }

    // MARK: Books

    /// `GET /books?q=&offset=&limit=`: books by title, a page at a time.
    func listBooks(_ request: Request) async throws -> Page<BookDTO> {
        let (offset, limit) = try Self.paging(request)
        var options = DBBQueryOptions.options(sortColumns: ["title"])
        if let text = request.uri.queryParameters["q"] {
            options.addCondition("title LIKE ?", "%\(text)%")
        }
        var page = options
        page.offset = offset
        page.limit = limit
        let (pageOptions, allOptions) = (page, options)
        return try await manager.read {
            let books = try Book.fetch(options: pageOptions, manager: manager).map(BookDTO.init)
            let total = try Book.fetchCount(options: allOptions, manager: manager)
            return Page(items: books, total: total, offset: offset, limit: limit)
        }
    }

    /// `POST /books`: a new book; title, author and year are required.
    func createBook(_ input: BookInput) async throws -> EditedResponse<BookDTO> {
        guard let title = input.title, !title.isEmpty, let author = input.author, let year = input.year else {
            throw HTTPError(.badRequest, message: "a book needs a title, an author and a year")
        }
        try Self.refuseNUL(title, author)
        let book = try await manager.write {
            let book = Book(dbManager: manager)
            book.title = title
            book.author = author
            book.year = year
            try book.save()
            return BookDTO(book)
        }
        return EditedResponse(status: .created, response: book)
    }

    /// `PATCH /books/:id`: changes the fields given.
    func updateBook(_ id: Int64, _ input: BookInput) async throws -> BookDTO {
        if input.title?.isEmpty == true { throw HTTPError(.badRequest, message: "a book's title cannot be empty") }
        try Self.refuseNUL(input.title, input.author)
        return try await manager.write {
            let book = try Self.require(Book.fetchOne(id: id, manager: manager), "book \(id)")
            if let title = input.title { book.title = title }
            if let author = input.author { book.author = author }
            if let year = input.year { book.year = year }
            try book.save()
            return BookDTO(book)
        }
    }

    /// `DELETE /books/:id`: a book that is not lent, with its past loans.
    func deleteBook(_ id: Int64) async throws -> HTTPResponse.Status {
        try await manager.write {
            let book = try Self.require(Book.fetchOne(id: id, manager: manager), "book \(id)")
            var loans = DBBQueryOptions()
            loans.addCondition("book = ?", id)
            let history = try Loan.fetch(options: loans, manager: manager)
            if history.contains(where: { !$0.returned }) {
                throw HTTPError(.conflict, message: "book \(id) is lent; it can be deleted once it is returned")
            }
            try Loan.delete(history, manager: manager)
            try book.delete()
        }
        return .noContent
    }

    // MARK: Members

    /// `POST /members`: a new member.
    func createMember(_ input: MemberInput) async throws -> EditedResponse<MemberDTO> {
        guard !input.name.isEmpty else { throw HTTPError(.badRequest, message: "a member needs a name") }
        try Self.refuseNUL(input.name, input.email)
        let member = try await manager.write {
            let member = Member(dbManager: manager)
            member.name = input.name
            member.email = input.email
            try member.save()
            return MemberDTO(id: member.idNum, name: member.name, email: member.email)
        }
        return EditedResponse(status: .created, response: member)
    }

    // MARK: Loans

    /// `GET /loans?member=&title=&open=&offset=&limit=`: loans whose member's name is `member` and whose book's
    /// title contains `title` (conditions through the references), open ones only with `open=true`.
    func searchLoans(_ request: Request) async throws -> Page<LoanDTO> {
        let (offset, limit) = try Self.paging(request)
        var options = DBBQueryOptions.options(sortColumns: ["book.title"])
        let parameters = request.uri.queryParameters
        if let member = parameters["member"] { options.addCondition("member.name = ?", String(member)) }
        if let title = parameters["title"] { options.addCondition("book.title LIKE ?", "%\(title)%") }
        if parameters["open"] == "true" { options.addCondition("returned = 0") }
        var page = options
        page.offset = offset
        page.limit = limit
        let (pageOptions, allOptions) = (page, options)
        return try await manager.read {
            let loans = try Loan.fetch(options: pageOptions, manager: manager).map(LoanDTO.init)
            let total = try Loan.fetchCount(options: allOptions, manager: manager)
            return Page(items: loans, total: total, offset: offset, limit: limit)
        }
    }

    /// `POST /loans`: lends a book that is not lent already (checked in the same transaction as the insert).
    func lend(_ input: LoanInput) async throws -> EditedResponse<LoanDTO> {
        let days = input.days ?? 21
        guard (1...365).contains(days) else { throw HTTPError(.badRequest, message: "a loan lasts 1 to 365 days") }
        let loan = try await manager.write {
            let book = try Self.require(Book.fetchOne(id: input.bookID, manager: manager), "book \(input.bookID)")
            let member = try Self.require(
                Member.fetchOne(id: input.memberID, manager: manager), "member \(input.memberID)")
            var open = DBBQueryOptions.options(withConditions: ["returned = 0"])
            open.addCondition("book = ?", input.bookID)
            if try Loan.fetchCount(options: open, manager: manager) > 0 {
                throw HTTPError(.conflict, message: "book \(input.bookID) is lent already")
            }
            let loan = Loan(dbManager: manager)
            loan.book = book
            loan.member = member
            loan.due = Date(timeIntervalSinceNow: TimeInterval(days) * 86_400)
            try loan.save()
            return LoanDTO(loan)
        }
        return EditedResponse(status: .created, response: loan)
    }

    /// `POST /loans/:id/return`: the book is back.
    func giveBack(_ id: Int64) async throws -> LoanDTO {
        try await manager.write {
            let loan = try Self.require(Loan.fetchOne(id: id, manager: manager), "loan \(id)")
            loan.returned = true
            try loan.save()
            return LoanDTO(loan)
        }
    }

    /// `GET /loans/live?events=`: server-sent events, one `loans` event with the open loans at once and after
    /// every commit that changes them (`manager.observe`); with `events`, the stream ends after that many.
    ///
    /// The stream ends, and its observation with it, when the server shuts down gracefully (SIGINT, SIGTERM) and
    /// when the client goes away: a heartbeat comment (`: heartbeat`) every ``heartbeat`` finds a closed peer,
    /// whose write fails.
    func liveLoans(_ request: Request) -> Response {
        let stopAfter = request.uri.queryParameters.get("events", as: Int.self)
        let observation = manager.observe(
            Loan.self, options: .options(withConditions: ["returned = 0"], sortColumns: ["due"]))
        let (heartbeat, logger) = (self.heartbeat, self.logger)
        let headers: HTTPFields = [.contentType: "text/event-stream", .cacheControl: "no-cache"]
        return Response(
            status: .ok, headers: headers,
            body: ResponseBody { writer in
                // The observation and the heartbeat feed one stream, which this task alone writes: a failed write
                // (the client left) ends the task group, which cancels the observation's task, which ends it.
                let (events, feed) = AsyncStream<ByteBuffer>.makeStream(bufferingPolicy: .bufferingNewest(8))
                try await withGracefulShutdownHandler {
                    try await withThrowingTaskGroup(of: Void.self) { group in
                        group.addTask {
                            await Self.send(observation, stoppingAfter: stopAfter, to: feed, logger: logger)
                        }
                        group.addTask { await Self.beat(every: heartbeat, to: feed) }
                        for await event in events { try await writer.write(event) }
                        group.cancelAll()
                    }
                    try await writer.finish(nil)
                } onGracefulShutdown: {
                    // Ends the stream after the events already sent: the response ends cleanly.
                    feed.finish()
                }
            })
    }

    /// Sends each state of the open loans as a `loans` event, until the observation ends, `stopAfter` events were
    /// sent, or the task is cancelled; then finishes the feed.
    static func send(
        _ observation: DBBObservation<Loan>, stoppingAfter stopAfter: Int?,
        to feed: AsyncStream<ByteBuffer>.Continuation, logger: Logger
    ) async {
        defer { feed.finish() }
        let encoder = JSONEncoder()
        encoder.dateEncodingStrategy = .iso8601
        do {
            var sent = 0
            for try await loans in observation {
                var event = ByteBuffer(string: "event: loans\ndata: ")
                event.writeBytes(try encoder.encode(loans.map(LoanDTO.init)))
                event.writeString("\n\n")
                if case .terminated = feed.yield(event) { return }
                sent += 1
                if let stopAfter, sent >= stopAfter { return }
            }
        } catch {
            // The head is sent: the stream can only end. The log says why.
            logger.error("/loans/live ended: \(String(describing: error))")
        }
    }

    /// Sends a heartbeat comment every `interval` until the task is cancelled or the feed is finished.
    static func beat(every interval: Duration, to feed: AsyncStream<ByteBuffer>.Continuation) async {
        while true {
            do {
                try await Task.sleep(for: interval)
            } catch {
                return
            }
            if case .terminated = feed.yield(ByteBuffer(string: ": heartbeat\n\n")) { return }
        }
    }

    // MARK: Helpers

    /// The page a request asks for: `offset` (default 0) and `limit` (default 20, at most 100); a value that is not
    /// a whole number is refused as one out of bounds is.
    static func paging(_ request: Request) throws -> (offset: Int, limit: Int) {
        let parameters = request.uri.queryParameters
        func integer(_ name: String, default value: Int) throws -> Int {
            guard let text = parameters[Substring(name)] else { return value }
            guard let number = Int(String(text)) else {
                throw HTTPError(.badRequest, message: "\(name) must be a whole number, not '\(text)'")
            }
            return number
        }
        let offset = try integer("offset", default: 0)
        let limit = try integer("limit", default: 20)
        guard offset >= 0, (1...maximumPageSize).contains(limit) else {
            throw HTTPError(.badRequest, message: "offset must be 0 or more, limit 1 to \(maximumPageSize)")
        }
        return (offset, limit)
    }

    /// Refuses text holding the NUL character, which PostgreSQL cannot store, on either engine: the same 400 for
    /// the same request wherever the server keeps its data.
    static func refuseNUL(_ texts: String?...) throws {
        if texts.contains(where: { $0?.contains("\u{0}") == true }) {
            throw HTTPError(.badRequest, message: "text cannot hold the NUL character (\\u0000)")
        }
    }

    /// The body decoded as JSON, or a 400 that says what is wrong: not JSON, a missing field, a value of the wrong
    /// type, or a number that does not fit its field.
    static func decode<T: Decodable>(_ type: T.Type, _ request: Request, _ context: BasicRequestContext)
        async throws -> T
    {
        let body = try await request.body.collect(upTo: context.maxUploadSize)
        let data = Data(buffer: body)
        do {
            return try JSONDecoder().decode(type, from: data)
        } catch DecodingError.keyNotFound(let key, _) {
            throw HTTPError(.badRequest, message: "the field \(key.stringValue) is missing")
        } catch DecodingError.valueNotFound(_, let context), DecodingError.typeMismatch(_, let context) {
            throw HTTPError(.badRequest, message: "the field \(path(context)) has a value of the wrong type")
        } catch DecodingError.dataCorrupted(let context) {
            // Foundation reports a number too large for its field as data that is not JSON: tell them apart.
            if let object = try? JSONSerialization.jsonObject(with: data) {
                // Foundation does not say which field: the first whose number lies outside Int64.
                let tooLarge = (object as? [String: Any])?.sorted { $0.key < $1.key }.first { _, value in
                    guard let number = value as? NSNumber else { return false }
                    return !(-9.223_372_036_854_775_808e18..<9.223_372_036_854_775_808e18).contains(number.doubleValue)
                }?.key
                let field =
                    !context.codingPath.isEmpty
                    ? "the field \(path(context))" : tooLarge.map { "the field \($0)" } ?? "a number"
                throw HTTPError(
                    .badRequest, message: "\(field) does not fit: whole numbers go from -2^63 to 2^63 - 1")
            }
            throw HTTPError(.badRequest, message: "the body is not valid JSON")
        }
    }

    private static func path(_ context: DecodingError.Context) -> String {
        context.codingPath.map(\.stringValue).joined(separator: ".")
    }

    static func require<T>(_ value: T?, _ what: String) throws -> T {
        guard let value else { throw HTTPError(.notFound, message: "\(what) does not exist") }
        return value
    }
}
