import Foundation

/// What a client asks the fetch service for. On the wire it is a flat JSON object
/// with a `kind` field, e.g. `{"kind":"search","query":"pasta","diet":"vegan","number":10}`.
package enum FetchRequest: Sendable, Equatable, Hashable {
    /// Recipes that contain all of 1 to 5 ingredients, fewest missing first.
    case byIngredients(ingredients: [String], number: Int)
    case search(query: String, diet: String?, maxReadyTime: Int?, offset: Int, number: Int)
    /// `id` is provider-prefixed, e.g. "spoonacular:716429".
    case detail(id: String)
    /// Up to `count` distinct recipes; TheMealDB gives at most 10 (one upstream call each).
    case random(count: Int)
    case autocomplete(prefix: String, number: Int)
    case image(url: String)
    /// The day's featured recipe (`day` as YYYY-MM-DD, UTC): the same all day, from the catalog.
    case featured(day: String)
    /// Up to `number` complete catalog recipes (summaries) ranked by what they share with `ids`
    /// (the recipes a user saved and cooked): ingredients and diets. `day` orders equal ones, so
    /// the order holds all day (UTC) and moves the next; none of `ids` comes back.
    case liked(ids: [String], day: String, number: Int)
    /// One page of a browsing session that never shows a recipe twice: the catalog in the order
    /// `seed` shuffles it, `count` recipes from `offset`.
    case feed(seed: UInt64, offset: Int, count: Int)

    package enum Kind: String, Codable, Sendable, CaseIterable {
        case byIngredients, search, detail, random, autocomplete, image, featured, liked, feed
    }

    package var kind: Kind {
        switch self {
        case .byIngredients: .byIngredients
        case .search: .search
        case .detail: .detail
        case .random: .random
        case .autocomplete: .autocomplete
        case .image: .image
        case .featured: .featured
        case .liked: .liked
        case .feed: .feed
        }
    }

    /// The fields each kind may have besides `kind`, `client` and `deadlineMs`; any other is
    /// refused, as a command's and a query's are.
    static let fields: [Kind: Set<String>] = [
        .byIngredients: ["ingredients", "number"], .search: ["query", "diet", "maxReadyTime", "offset", "number"],
        .detail: ["id"], .random: ["count"], .autocomplete: ["prefix", "number"], .image: ["url"],
        .featured: ["day"], .liked: ["ids", "day", "number"], .feed: ["seed", "offset", "count"],
    ]

    /// A request as the fetch worker receives it: what is asked, who asks (`client`, the API's
    /// caller) and how many seconds they wait (`deadlineMs`), when they say.
    package struct Received: Sendable {
        package var request: FetchRequest
        package var client: String?
        package var deadline: Double?
    }

    /// Decodes a request from JSON, turning any decoding problem into `.badRequest`.
    package static func decode(json: Data) throws(FetchError) -> FetchRequest {
        try received(json: json).request
    }

    /// The request and what comes with it, from one reading of the fields and one typed decoding.
    package static func received(json: Data) throws(FetchError) -> Received {
        do {
            let request = try JSONDecoder().decode(FetchRequest.self, from: json)
            let object = try JSONSerialization.jsonObject(with: json) as? [String: Any] ?? [:]
            let allowed = fields[request.kind, default: []].union(["kind", "client", "deadlineMs"])
            if let unknown = object.keys.first(where: { !allowed.contains($0) }) {
                throw FetchError.badRequest(message: "unknown field '\(unknown.prefix(64))' for \(request.kind.rawValue)")
            }
            let deadline = (object["deadlineMs"] as? Int).flatMap { (1...600_000).contains($0) ? Double($0) / 1000 : nil }
            return Received(request: request, client: (object["client"] as? String).map { String($0.prefix(128)) },
                            deadline: deadline)
        } catch let error as FetchError {
            throw error
        } catch let error as DecodingError {
            throw .badRequest(message: "invalid request: \(describe(error))")
        } catch {
            throw .badRequest(message: "invalid request: \(error)")
        }
    }

    private static func describe(_ error: DecodingError) -> String {
        func path(_ context: DecodingError.Context) -> String {
            let keys = context.codingPath.map(\.stringValue).joined(separator: ".")
            return keys.isEmpty ? "" : " at \(keys)"
        }
        switch error {
        case .keyNotFound(let key, _): return "missing field \(key.stringValue)"
        case .typeMismatch(_, let context), .valueNotFound(_, let context), .dataCorrupted(let context):
            return context.debugDescription + path(context)
        @unknown default: return "\(error)"
        }
    }
}

extension FetchRequest: Codable {
    private enum CodingKeys: String, CodingKey {
        case kind, ingredients, number, query, diet, maxReadyTime, offset, id, count, prefix, url, day, seed, ids
    }

    package init(from decoder: any Decoder) throws {
        let c = try decoder.container(keyedBy: CodingKeys.self)
        switch try c.decode(Kind.self, forKey: .kind) {
        case .byIngredients:
            self = .byIngredients(
                ingredients: try c.decode([String].self, forKey: .ingredients),
                number: try c.decodeIfPresent(Int.self, forKey: .number) ?? 10)
        case .search:
            self = .search(
                query: try c.decode(String.self, forKey: .query),
                diet: try c.decodeIfPresent(String.self, forKey: .diet),
                maxReadyTime: try c.decodeIfPresent(Int.self, forKey: .maxReadyTime),
                offset: try c.decodeIfPresent(Int.self, forKey: .offset) ?? 0,
                number: try c.decodeIfPresent(Int.self, forKey: .number) ?? 10)
        case .detail:
            self = .detail(id: try c.decode(String.self, forKey: .id))
        case .random:
            self = .random(count: try c.decodeIfPresent(Int.self, forKey: .count) ?? 10)
        case .autocomplete:
            self = .autocomplete(
                prefix: try c.decode(String.self, forKey: .prefix),
                number: try c.decodeIfPresent(Int.self, forKey: .number) ?? 5)
        case .image:
            self = .image(url: try c.decode(String.self, forKey: .url))
        case .featured:
            self = .featured(day: try c.decode(String.self, forKey: .day))
        case .liked:
            self = .liked(ids: try c.decode([String].self, forKey: .ids), day: try c.decode(String.self, forKey: .day),
                          number: try c.decodeIfPresent(Int.self, forKey: .number) ?? 10)
        case .feed:
            self = .feed(
                seed: try c.decode(UInt64.self, forKey: .seed),
                offset: try c.decodeIfPresent(Int.self, forKey: .offset) ?? 0,
                count: try c.decodeIfPresent(Int.self, forKey: .count) ?? 10)
        }
    }

    package func encode(to encoder: any Encoder) throws {
        var c = encoder.container(keyedBy: CodingKeys.self)
        try c.encode(kind, forKey: .kind)
        switch self {
        case .byIngredients(let ingredients, let number):
            try c.encode(ingredients, forKey: .ingredients)
            try c.encode(number, forKey: .number)
        case .search(let query, let diet, let maxReadyTime, let offset, let number):
            try c.encode(query, forKey: .query)
            try c.encodeIfPresent(diet, forKey: .diet)
            try c.encodeIfPresent(maxReadyTime, forKey: .maxReadyTime)
            try c.encode(offset, forKey: .offset)
            try c.encode(number, forKey: .number)
        case .detail(let id):
            try c.encode(id, forKey: .id)
        case .random(let count):
            try c.encode(count, forKey: .count)
        case .autocomplete(let prefix, let number):
            try c.encode(prefix, forKey: .prefix)
            try c.encode(number, forKey: .number)
        case .image(let url):
            try c.encode(url, forKey: .url)
        case .featured(let day):
            try c.encode(day, forKey: .day)
        case .liked(let ids, let day, let number):
            try c.encode(ids, forKey: .ids)
            try c.encode(day, forKey: .day)
            try c.encode(number, forKey: .number)
        case .feed(let seed, let offset, let count):
            try c.encode(seed, forKey: .seed)
            try c.encode(offset, forKey: .offset)
            try c.encode(count, forKey: .count)
        }
    }
}
