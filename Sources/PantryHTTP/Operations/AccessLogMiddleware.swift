import HTTPTypes
import Hummingbird
import Logging

/// Outermost middleware: turns every error into a problem document, then writes one access-log
/// line and records metrics per request. It logs the route pattern, never the path, headers or
/// body, so no password, token or user text reaches a log. Every response, a problem document
/// too, leaves with `X-Content-Type-Options: nosniff` and `Referrer-Policy: same-origin`.
struct AccessLogMiddleware: RouterMiddleware {
    typealias Context = APIRequestContext

    let accessLog: AccessLog
    let routes: RouteMethods
    private static let allow = "GET, HEAD, POST, PUT, PATCH, DELETE"
    // Made once: a name is checked each time it is made from a string, on every response.
    private static let noSniffing = HTTPField(name: HTTPField.Name("X-Content-Type-Options")!, value: "nosniff")
    private static let sameOriginReferrer = HTTPField(name: HTTPField.Name("Referrer-Policy")!, value: "same-origin")

    /// Compared, not hashed into a set: a method is a string, and this runs for every request.
    private static func isServed(_ method: HTTPRequest.Method) -> Bool {
        switch method {
        case .get, .head, .post, .put, .patch, .delete: true
        default: false
        }
    }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        let start = ContinuousClock.now
        var response: Response
        do {
            guard Self.isServed(request.method) else {
                // TRACE would echo a request's headers (tokens included) back to a script.
                throw Problem(.methodNotAllowed, detail: "\(request.method.rawValue) is not served here",
                              headers: [.allow: routes.allowed(on: request.uri.path) ?? Self.allow])
            }
            response = try await next(request, context)
        } catch {
            var problem = Problem.from(error)
            // No route for this method, but the path has others: the method is what is wrong.
            if let unmatched = error as? HTTPError, unmatched.status == .notFound, let allowed = routes.allowed(on: request.uri.path) {
                problem = Problem(.methodNotAllowed,
                                  detail: "\(request.method.rawValue) is not served on this path", headers: [.allow: allowed])
            }
            if problem.status == .internalServerError {
                context.logger.error("request failed", metadata: ["error": "\(String(reflecting: type(of: error)))"])
            }
            response = problem.response
        }
        // No route sets these two, so they are appended, not searched for first.
        response.headers.append(Self.noSniffing)
        response.headers.append(Self.sameOriginReferrer)
        let elapsed = ContinuousClock.now - start
        let route = context.endpointPath ?? "unmatched"
        let nanoseconds = elapsed.components.seconds * 1_000_000_000 + elapsed.components.attoseconds / 1_000_000_000
        accessLog.record(method: request.method.rawValue, route: route, status: response.status.code, nanoseconds: nanoseconds)
        APIMetrics.request(method: request.method.rawValue, route: route, status: response.status.code, nanoseconds: nanoseconds)
        return response
    }
}
