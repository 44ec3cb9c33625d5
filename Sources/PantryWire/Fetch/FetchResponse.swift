import Foundation

/// The data a request produced; which case depends on the request's kind.
package enum FetchPayload: Sendable, Equatable {
    /// byIngredients
    case summaries([RecipeSummary])
    /// search
    case searchPage(SearchPage)
    /// detail
    case recipe(Recipe)
    /// random
    case recipes([Recipe])
    /// autocomplete: ingredient names
    case suggestions([String])
    /// image
    case image(ImageData)
}

extension FetchPayload: Codable {
    private enum CodingKeys: String, CodingKey {
        case type, summaries, searchPage, recipe, recipes, suggestions, image
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let type = try c.decode(String.self, forKey: .type)
        switch type {
        case "summaries": self = .summaries(try c.decode([RecipeSummary].self, forKey: .summaries))
        case "searchPage": self = .searchPage(try c.decode(SearchPage.self, forKey: .searchPage))
        case "recipe": self = .recipe(try c.decode(Recipe.self, forKey: .recipe))
        case "recipes": self = .recipes(try c.decode([Recipe].self, forKey: .recipes))
        case "suggestions": self = .suggestions(try c.decode([String].self, forKey: .suggestions))
        case "image": self = .image(try c.decode(ImageData.self, forKey: .image))
        default:
            throw DecodingError.dataCorruptedError(forKey: .type, in: c, debugDescription: "unknown payload type \(type)")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .summaries(let value): try c.encode("summaries", forKey: .type); try c.encode(value, forKey: .summaries)
        case .searchPage(let value): try c.encode("searchPage", forKey: .type); try c.encode(value, forKey: .searchPage)
        case .recipe(let value): try c.encode("recipe", forKey: .type); try c.encode(value, forKey: .recipe)
        case .recipes(let value): try c.encode("recipes", forKey: .type); try c.encode(value, forKey: .recipes)
        case .suggestions(let value): try c.encode("suggestions", forKey: .type); try c.encode(value, forKey: .suggestions)
        case .image(let value): try c.encode("image", forKey: .type); try c.encode(value, forKey: .image)
        }
    }
}

package struct FetchResponse: Codable, Sendable, Equatable {
    package enum Origin: String, Codable, Sendable {
        /// Fetched just now.
        case upstream
        /// Answered by the embedded catalog, the deployment's own recipes (no upstream involved).
        case catalog
        /// From the cache, within its lifetime.
        case cache
        /// From the cache past its lifetime, because the upstream could not be asked.
        case staleCache
        /// The upstream could not be asked and nothing was cached for this request: answered from
        /// the catalog and the recipes already fetched, so a spent quota or an outage is never a dead end.
        case fallback
    }

    package var payload: FetchPayload
    package var origin: Origin
    /// Age of the data: 0 when fetched now, else seconds since it was fetched.
    package var ageSeconds: Int
    /// "spoonacular", "mealdb", "catalog" or "images".
    package var provider: String
    /// For a `staleCache` or `fallback` answer: seconds until the upstream can be asked again (the
    /// quota's reset, a rate limit's end); nil when that is not known (an outage).
    package var upstreamRetryAfterSeconds: Int?

    package init(payload: FetchPayload, origin: Origin, ageSeconds: Int, provider: String, upstreamRetryAfterSeconds: Int? = nil) {
        self.payload = payload
        self.origin = origin
        self.ageSeconds = ageSeconds
        self.provider = provider
        self.upstreamRetryAfterSeconds = upstreamRetryAfterSeconds
    }
}

/// Why a request got no data. On the wire: `{"error":"quotaExhausted","retryAfterSeconds":3600}`.
package enum FetchError: Error, Sendable, Equatable, Hashable {
    /// The daily quota is spent and nothing is cached.
    case quotaExhausted(retryAfterSeconds: Int)
    /// Too many upstream calls for now (the rate limit or the upstream's 429) and nothing is cached.
    case rateLimited(retryAfterSeconds: Int)
    /// This client caused its share of upstream calls for now, and nothing is cached.
    case budgetExhausted(retryAfterSeconds: Int)
    /// Every client together caused the share of upstream calls allowed for now (this one perhaps
    /// none of them), and nothing is cached.
    case overallBudgetExhausted(retryAfterSeconds: Int)
    /// The upstream failed, timed out, answered nonsense or is not configured, and nothing is cached.
    case upstreamUnavailable(reason: String)
    case badRequest(message: String)
    case notFound
}

extension FetchError: Codable, CustomStringConvertible {
    private enum CodingKeys: String, CodingKey { case error, retryAfterSeconds, reason, message }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        let error = try c.decode(String.self, forKey: .error)
        switch error {
        case "quotaExhausted": self = .quotaExhausted(retryAfterSeconds: try c.decode(Int.self, forKey: .retryAfterSeconds))
        case "rateLimited": self = .rateLimited(retryAfterSeconds: try c.decode(Int.self, forKey: .retryAfterSeconds))
        case "budgetExhausted": self = .budgetExhausted(retryAfterSeconds: try c.decode(Int.self, forKey: .retryAfterSeconds))
        case "overallBudgetExhausted":
            self = .overallBudgetExhausted(retryAfterSeconds: try c.decode(Int.self, forKey: .retryAfterSeconds))
        case "upstreamUnavailable": self = .upstreamUnavailable(reason: try c.decode(String.self, forKey: .reason))
        case "badRequest": self = .badRequest(message: try c.decode(String.self, forKey: .message))
        case "notFound": self = .notFound
        default: throw DecodingError.dataCorruptedError(forKey: .error, in: c, debugDescription: "unknown error \(error)")
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .quotaExhausted(let seconds):
            try c.encode("quotaExhausted", forKey: .error)
            try c.encode(seconds, forKey: .retryAfterSeconds)
        case .rateLimited(let seconds):
            try c.encode("rateLimited", forKey: .error)
            try c.encode(seconds, forKey: .retryAfterSeconds)
        case .budgetExhausted(let seconds):
            try c.encode("budgetExhausted", forKey: .error)
            try c.encode(seconds, forKey: .retryAfterSeconds)
        case .overallBudgetExhausted(let seconds):
            try c.encode("overallBudgetExhausted", forKey: .error)
            try c.encode(seconds, forKey: .retryAfterSeconds)
        case .upstreamUnavailable(let reason):
            try c.encode("upstreamUnavailable", forKey: .error)
            try c.encode(reason, forKey: .reason)
        case .badRequest(let message):
            try c.encode("badRequest", forKey: .error)
            try c.encode(message, forKey: .message)
        case .notFound:
            try c.encode("notFound", forKey: .error)
        }
    }

    /// When the upstream can be asked again, for the errors that know it.
    package var retryAfterSeconds: Int? {
        switch self {
        case .quotaExhausted(let seconds), .rateLimited(let seconds), .budgetExhausted(let seconds),
             .overallBudgetExhausted(let seconds): seconds
        case .upstreamUnavailable, .badRequest, .notFound: nil
        }
    }

    package var description: String {
        switch self {
        case .quotaExhausted(let seconds): "upstream quota exhausted; retry in \(seconds) s"
        case .rateLimited(let seconds): "too many upstream calls for now; retry in \(seconds) s"
        case .budgetExhausted(let seconds): "this client's share of upstream calls is spent; retry in \(seconds) s"
        case .overallBudgetExhausted(let seconds): "every client's share of upstream calls together is spent; retry in \(seconds) s"
        case .upstreamUnavailable(let reason): "upstream unavailable: \(reason)"
        case .badRequest(let message): "bad request: \(message)"
        case .notFound: "not found"
        }
    }
}

/// The answer to one request. On the wire: `{"ok":true,"response":{...}}` or `{"ok":false,"error":{...}}`.
package enum FetchResult: Sendable, Equatable {
    case success(FetchResponse)
    case failure(FetchError)

    package func get() throws(FetchError) -> FetchResponse {
        switch self {
        case .success(let response): return response
        case .failure(let error): throw error
        }
    }
}

extension FetchResult: Codable {
    private enum CodingKeys: String, CodingKey { case ok, response, error }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        if try c.decode(Bool.self, forKey: .ok) {
            self = .success(try c.decode(FetchResponse.self, forKey: .response))
        } else {
            self = .failure(try c.decode(FetchError.self, forKey: .error))
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        switch self {
        case .success(let response):
            try c.encode(true, forKey: .ok)
            try c.encode(response, forKey: .response)
        case .failure(let error):
            try c.encode(false, forKey: .ok)
            try c.encode(error, forKey: .error)
        }
    }
}
