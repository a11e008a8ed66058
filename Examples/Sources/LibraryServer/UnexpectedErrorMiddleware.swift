import Hummingbird
import Logging

/// Answers an error no route expected (a database that failed, a bug) with a 500 whose body says so, and logs it
/// with the request, so that no 500 goes out empty and unexplained. The errors routes throw on purpose
/// (`HTTPError`: a 400, a 404, a 409) pass through as they are.
struct UnexpectedErrorMiddleware<Context: RequestContext>: RouterMiddleware {
    func handle(
        _ request: Request, context: Context, next: (Request, Context) async throws -> Response
    ) async throws -> Response {
        do {
            return try await next(request, context)
        } catch let error as any HTTPResponseError {
            throw error
        } catch {
            // The error's text stays in the log: it may name tables, columns or files the client need not see.
            context.logger.error(
                "\(request.method) \(request.uri.path) failed: \(String(describing: error))",
                metadata: ["error.type": "\(type(of: error))"])
            throw HTTPError(
                .internalServerError,
                message: "the server failed to answer this request; its log says why")
        }
    }
}
