import Foundation
import HTTPTypes
import Hummingbird
import PantryWire

/// Finding recipes: by the ingredients at home, by keyword, by id, at random, and ingredient
/// names as the user types. Each answer says where it came from (`origin`) and how old it is.
struct RecipeRoutes {
    let recipes: RecipeSource
    let liked: LikedRecipes

    func register(on routes: RouterGroup<APIRequestContext>) {
        routes.get("v1/recipes/by-ingredients") { request, context in
            guard let list = try QueryParameter.string("ingredients", in: request, maxLength: 400) else {
                throw Problem(.invalidQuery, detail: "'ingredients' (1-5, comma-separated) is required")
            }
            let ingredients = list.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return try await answer(.byIngredients(
                ingredients: ingredients, number: try QueryParameter.int("number", in: request, range: 1...100) ?? 10), context)
        }
        routes.get("v1/recipes/search") { request, context in
            guard let query = try QueryParameter.string("query", in: request, maxLength: 100) else {
                throw Problem(.invalidQuery, detail: "'query' is required")
            }
            let sections = try QueryParameter.string("sections", in: request, maxLength: 32)
            guard sections == nil || sections == "readyTime" else {
                throw Problem(.invalidQuery, detail: "'sections' can only be readyTime")
            }
            let search = FetchRequest.search(
                query: query, diet: try QueryParameter.string("diet", in: request, maxLength: 64),
                maxReadyTime: try QueryParameter.int("maxReadyTime", in: request, range: 1...1440),
                offset: try QueryParameter.int("offset", in: request, range: 0...900) ?? 0,
                number: try QueryParameter.int("number", in: request, range: 1...100) ?? 10)
            guard sections != nil else { return try await answer(search, context) }
            let response = try await recipes.fetch(search, client: context.upstreamSpender)
            guard case .searchPage(let page) = response.payload else { throw Self.wrongPayload }
            return JSONResponse.make(Extended(response, sections: ReadyTimeSection.group(page.results)))
        }
        // Seed 004's featured meal: the same recipe all day (UTC), from the catalog, so it costs no
        // quota. For a signed-in cook who saves or cooks, the recipe most like those that day.
        routes.get("v1/recipes/featured") { request, context in
            let day = try QueryParameter.string("day", in: request, maxLength: 10)
                ?? FetchRequest.utcDay.string(from: Date())
            if let userId = context.session?.userId,
               let best = await liked.ranked(for: userId, day: day, number: 1, client: context.upstreamSpender,
                                             logger: context.logger).first {
                return try await answer(.detail(id: best.id), context)
            }
            return try await answer(.featured(day: day), context)
        }
        // Seed 004's "load more": pages of the catalog in an order drawn for this session; the
        // cursor of each page asks for the next, and no recipe comes twice.
        routes.get("v1/recipes/feed") { request, context in
            let count = try QueryParameter.int("count", in: request, range: 1...100) ?? 10
            let position = try QueryParameter.string("cursor", in: request, maxLength: 64).map(FeedCursor.init(text:))
                ?? FeedCursor(seed: UInt64.random(in: .min ... .max), offset: 0)
            let response = try await recipes.fetch(.feed(seed: position.seed, offset: position.offset, count: count),
                                                   client: context.upstreamSpender)
            guard case .recipes(let page) = response.payload else { throw Self.wrongPayload }
            let next = page.count < count ? nil : FeedCursor(seed: position.seed, offset: position.offset + page.count)
            return JSONResponse.make(Extended(response, cursor: next?.text))
        }
        routes.get("v1/recipes/random") { request, context in
            try await answer(.random(count: try QueryParameter.int("count", in: request, range: 1...100) ?? 1), context)
        }
        routes.get("v1/recipes/:recipeId") { _, context in
            try await answer(.detail(id: try PathParameter.value("recipeId", in: context)), context)
        }
        // The picture the catalog's recipes point to (`/v1/recipes/{id}/image`): drawn, never fetched.
        routes.get("v1/recipes/:recipeId/image") { _, context in
            let response = try await recipes.fetch(.detail(id: try PathParameter.value("recipeId", in: context)),
                                                   client: context.upstreamSpender)
            guard case .recipe(let recipe) = response.payload else { throw Self.wrongPayload }
            let svg = RecipePicture.svg(title: recipe.title, ingredients: recipe.ingredients.map(\.name))
            return Response(status: .ok, headers: [
                .contentType: "image/svg+xml; charset=utf-8", .cacheControl: "public, max-age=86400",
                .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'",
            ], body: ResponseBody(byteBuffer: ByteBuffer(string: svg)))
        }
        routes.get("v1/ingredients/autocomplete") { request, context in
            guard let prefix = try QueryParameter.string("prefix", in: request, maxLength: 64) else {
                throw Problem(.invalidQuery, detail: "'prefix' is required")
            }
            return try await answer(.autocomplete(
                prefix: prefix, number: try QueryParameter.int("number", in: request, range: 1...25) ?? 10), context)
        }
        // The image bytes themselves, so the apps can show cached pictures when the quota is spent.
        routes.get("v1/images") { request, context in
            guard let url = try QueryParameter.string("url", in: request, maxLength: 2048) else {
                throw Problem(.invalidQuery, detail: "'url' is required")
            }
            let response = try await recipes.fetch(.image(url: url), client: context.upstreamSpender)
            guard case .image(let image) = response.payload else { throw Self.wrongPayload }
            return Response(status: .ok, headers: [.contentType: image.contentType, .age: String(response.ageSeconds),
                                                   Self.originHeader: response.origin.rawValue],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: image.bytes)))
        }
    }

    static let originHeader = HTTPField.Name("Pantry-Origin")!
    static let wrongPayload = Problem(.internalError, detail: "the fetch worker answered with a payload of another kind")

    /// The caller's address goes with the request: the upstream calls one client may cause are
    /// limited. The worker's answer is passed on as it wrote it, or as it wrote it a moment ago
    /// when it said the same bytes would stay true (`RecipeReplyCache`).
    private func answer(_ request: FetchRequest, _ context: APIRequestContext) async throws -> Response {
        let body = try await recipes.fetchAsIs(request, client: context.upstreamSpender)
        return Response(status: .ok, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: body))
    }
}

/// A recipe answer with what the route adds beside the fetch worker's fields.
struct Extended: Encodable {
    var response: FetchResponse
    var sections: [ReadyTimeSection]?
    var cursor: String?

    init(_ response: FetchResponse, sections: [ReadyTimeSection]? = nil, cursor: String? = nil) {
        self.response = response; self.sections = sections; self.cursor = cursor
    }

    private enum CodingKeys: String, CodingKey { case sections, cursor }

    func encode(to encoder: any Encoder) throws {
        try response.encode(to: encoder)
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encodeIfPresent(sections, forKey: .sections)
        try container.encodeIfPresent(cursor, forKey: .cursor)
    }
}

/// Seed 002's sections of a search: by how long a recipe takes.
struct ReadyTimeSection: Encodable, Equatable {
    var title: String
    /// Inclusive bounds in minutes; nil where open (and both nil for recipes that give no time).
    var minMinutes: Int?
    var maxMinutes: Int?
    var results: [RecipeSummary]

    private static let bounds: [(title: String, min: Int?, max: Int?)] = [
        ("Under 15 minutes", nil, 14), ("15 to 30 minutes", 15, 30), ("30 minutes to an hour", 31, 60), ("Over an hour", 61, nil),
    ]

    /// The four sections always, in order (a screen keeps its layout), then one for recipes
    /// without a time if there are any; each keeps the search's order.
    static func group(_ results: [RecipeSummary]) -> [ReadyTimeSection] {
        var sections = bounds.map { bound in
            ReadyTimeSection(title: bound.title, minMinutes: bound.min, maxMinutes: bound.max, results: results.filter { summary in
                guard let minutes = summary.readyInMinutes else { return false }
                return minutes >= (bound.min ?? .min) && minutes <= (bound.max ?? .max)
            })
        }
        let untimed = results.filter { $0.readyInMinutes == nil }
        if !untimed.isEmpty { sections.append(ReadyTimeSection(title: "Time not given", results: untimed)) }
        return sections
    }
}

/// Where a browsing session is: the order's seed and how far it has read, as an opaque token.
struct FeedCursor: Equatable {
    var seed: UInt64
    var offset: Int

    init(seed: UInt64, offset: Int) { self.seed = seed; self.offset = offset }

    init(text: String) throws {
        let parts = text.split(separator: ".", omittingEmptySubsequences: false)
        guard parts.count == 2, let seed = UInt64(parts[0], radix: 36), let offset = Int(parts[1], radix: 36),
              (0...100_000).contains(offset) else {
            throw Problem(.invalidQuery, detail: "'cursor' is not one this API gave")
        }
        self.init(seed: seed, offset: offset)
    }

    var text: String { String(seed, radix: 36) + "." + String(offset, radix: 36) }
}
