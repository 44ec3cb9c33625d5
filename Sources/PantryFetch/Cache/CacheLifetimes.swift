import PantryWire
/// How long a cached answer counts as fresh, per request kind. Older answers are
/// still kept and served as stale when the upstream cannot be asked.
package struct CacheLifetimes: Sendable, Equatable {
    package var detail: Double = 7 * 86_400
    package var search: Double = 86_400
    package var byIngredients: Double = 86_400
    package var random: Double = 600
    package var autocomplete: Double = 7 * 86_400
    package var image: Double = 30 * 86_400

    package init() {}

    package func seconds(for kind: FetchRequest.Kind) -> Double {
        switch kind {
        case .detail: detail
        case .search: search
        case .byIngredients: byIngredients
        case .random: random
        case .autocomplete: autocomplete
        case .image: image
        // Answered by the catalog, never cached.
        case .featured, .liked, .feed: 0
        }
    }
}
