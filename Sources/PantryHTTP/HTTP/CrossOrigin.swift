import HTTPTypes
import Hummingbird

/// Cross-origin access for the web origins a deployment names (`PANTRY_CORS_ORIGINS`, comma-separated),
/// none by default: an app served from elsewhere may then call the API with a token. Preflights are
/// answered here, before the methods the API serves are checked.
struct CrossOrigin<Context: RequestContext>: RouterMiddleware {
    let origins: Set<String>

    static var allowedMethods: String { "GET, HEAD, POST, PUT, PATCH, DELETE" }
    static var allowedHeaders: String { "Authorization, Content-Type, Idempotency-Key" }

    func handle(_ request: Request, context: Context, next: (Request, Context) async throws -> Response) async throws -> Response {
        guard let origin = request.headers[.origin], origins.contains(origin) else { return try await next(request, context) }
        if request.method == .options, request.headers[.accessControlRequestMethod] != nil {
            return Response(status: .noContent, headers: [
                .accessControlAllowOrigin: origin, .accessControlAllowMethods: Self.allowedMethods,
                .accessControlAllowHeaders: Self.allowedHeaders, .accessControlMaxAge: "600", .vary: "Origin",
            ])
        }
        var response = try await next(request, context)
        response.headers[.accessControlAllowOrigin] = origin
        response.headers[.accessControlExposeHeaders] = "Location, Retry-After, Pantry-Origin"
        response.headers[.vary] = "Origin"
        return response
    }
}
