import PantryWire
/// How long a cached answer counts as fresh, per request kind. Older answers are
/// still kept and served as stale when the upstream cannot be asked.
public struct CacheLifetimes: Sendable, Equatable {
    public var detail: Double = 7 * 86_400
    public var search: Double = 86_400
    public var byIngredients: Double = 86_400
    public var random: Double = 600
    public var autocomplete: Double = 7 * 86_400
    public var image: Double = 30 * 86_400

    public init() {}

    public func seconds(for kind: FetchRequest.Kind) -> Double {
        switch kind {
        case .detail: detail
        case .search: search
        case .byIngredients: byIngredients
        case .random: random
        case .autocomplete: autocomplete
        case .image: image
        // Answered by the catalog, never cached.
        case .featured, .feed: 0
        }
    }
}
