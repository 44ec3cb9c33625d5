import PantryWire
/// The cache and coalescing key of a validated request: equal for requests that must
/// get the same answer, whatever order or case the client used.
enum CanonicalKey {
    static func of(_ request: FetchRequest, provider: String) -> String {
        let body: String
        switch request {
        case .byIngredients(let ingredients, let number):
            body = "byIngredients|i=\(ingredients.map { $0.lowercased() }.sorted().joined(separator: ","))|n=\(number)"
        case .search(let query, let diet, let maxReadyTime, let offset, let number):
            body = "search|q=\(query.lowercased())|diet=\(diet ?? "")|max=\(maxReadyTime.map(String.init) ?? "")|o=\(offset)|n=\(number)"
        case .detail(let id):
            body = "detail|\(id)"
        case .random(let count):
            body = "random|n=\(count)"
        case .autocomplete(let prefix, let number):
            body = "autocomplete|p=\(prefix.lowercased())|n=\(number)"
        case .image(let url):
            body = "image|\(url)"
        case .featured(let day):
            body = "featured|\(day)"
        case .liked(let ids, let day, let number):
            body = "liked|ids=\(ids.sorted().joined(separator: ","))|d=\(day)|n=\(number)"
        case .feed(let seed, let offset, let count):
            body = "feed|s=\(seed)|o=\(offset)|n=\(count)"
        }
        return "\(provider)/\(body)"
    }
}
