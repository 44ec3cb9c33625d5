import PantryWire
/// A source of recipes. Each provider answers the request kinds it can in Pantry's model.
protocol RecipeProvider: Sendable {
    /// The id prefix and cache namespace: "spoonacular", "mealdb", "catalog".
    var name: String { get }
    /// Answers without the network (so without cache, quota or coalescing).
    var isLocal: Bool { get }
    func fetch(_ request: FetchRequest) async throws(ProviderError) -> FetchPayload
}

/// How a provider call failed; the service turns it into a `FetchError` or a stale answer.
enum ProviderError: Error, Equatable {
    case notFound
    case rejected(String)
    case quotaExhausted(retryAfter: Double)
    /// Too many calls for now (our rate limit, the concurrency cap, or the upstream's 429).
    case rateLimited(retryAfter: Double)
    case unavailable(String)
}
