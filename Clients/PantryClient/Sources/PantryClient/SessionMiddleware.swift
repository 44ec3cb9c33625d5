import Foundation
import HTTPTypes
import OpenAPIRuntime

/// Puts the session's bearer token on every request that needs one, refreshing it first when it
/// is about to expire; after a 401 it gets a token once more (a newer one, or a refresh) and sends
/// the request again, once.
struct SessionMiddleware: ClientMiddleware {
    let keeper: SessionKeeper

    /// Operations the contract marks public (`security: []`): no token, even when signed in, so
    /// that an ended token never fails a page anyone may read. `featuredRecipe` takes one if any.
    static let publicOperations: Set<String> = [
        "health", "ready", "metrics", "register", "logIn", "requestPasswordReset", "resetPassword", "listExperiences",
        "leaderboardTop", "leaderboardAroundUser", "recipesByIngredients", "searchRecipes", "recipeFeed", "randomRecipes",
        "recipeDetail", "recipePicture", "autocompleteIngredients", "image",
    ]
    static let optionalOperations: Set<String> = ["featuredRecipe"]

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?) {
        if Self.publicOperations.contains(operationID) { return try await next(request, body, baseURL) }
        guard let token = try await keeper.token() else {
            if Self.optionalOperations.contains(operationID) { return try await next(request, body, baseURL) }
            throw PantryError.signedOut
        }
        let answer = try await next(Self.authorized(request, token), body, baseURL)
        guard answer.0.status == .unauthorized, let renewed = try await keeper.recover(from: token) else { return answer }
        return try await next(Self.authorized(request, renewed), body, baseURL)
    }

    static func authorized(_ request: HTTPRequest, _ token: String) -> HTTPRequest {
        var request = request
        request.headerFields[.authorization] = "Bearer \(token)"
        return request
    }
}

/// One given token on every request: the refresh's, which must name the token it ends.
struct BearerMiddleware: ClientMiddleware {
    let token: String

    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?) {
        try await next(SessionMiddleware.authorized(request, token), body, baseURL)
    }
}

/// Turns a refusal into `PantryError.problem`, thrown from the generated call: the hand-written
/// layer then deals only in the contract's success answers. Outermost, so it sees the answer
/// after the retries and the session's second try.
struct ProblemMiddleware: ClientMiddleware {
    func intercept(_ request: HTTPRequest, body: HTTPBody?, baseURL: URL, operationID: String,
                   next: @Sendable (HTTPRequest, HTTPBody?, URL) async throws -> (HTTPResponse, HTTPBody?))
        async throws -> (HTTPResponse, HTTPBody?) {
        let (response, responseBody) = try await next(request, body, baseURL)
        guard response.status.code >= 400 else { return (response, responseBody) }
        throw await Self.problem(response, responseBody)
    }

    static func problem(_ response: HTTPResponse, _ body: HTTPBody?) async -> PantryError {
        // A problem document is small; anything longer is not one.
        guard let body, let data = try? await Data(collecting: body, upTo: 64 * 1024),
              var problem = try? JSONDecoder().decode(Problem.self, from: data) else {
            return .unexpectedAnswer(status: response.status.code)
        }
        problem.retryAfterSeconds = response.headerFields[.retryAfter].flatMap { Int($0) }
        return .problem(problem)
    }
}
