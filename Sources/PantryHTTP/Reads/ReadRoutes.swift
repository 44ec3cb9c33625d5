import Foundation
import Hummingbird
import Logging
import PantryWire

/// The read side: a user's lists and a recipe's experiences, answered by the projection workers,
/// the leaderboard, answered from the API's own memory, and a recipe's counted ingredients,
/// answered by the log. Every route takes `?after=POSITION`
/// (read-your-writes). The leaderboard and experiences are public; a user's own lists and rank
/// need the user's token.
struct ReadRoutes {
    let queries: WorkerQueries
    let feed: any FeedPort
    let leaderboard: LeaderboardReadModel
    let recipes: RecipeSource
    let liked: LikedRecipes
    let counted: CountedIngredientsRead
    /// A member's grocery list and cart are their household's.
    let households: HouseholdDirectory

    func register(public open: RouterGroup<APIRequestContext>, authenticated routes: RouterGroup<APIRequestContext>) {
        open.get("v1/leaderboard") { request, _ in
            try await standings(.top(limit: try QueryParameter.int("limit", in: request, range: 1...100) ?? 10), request)
        }
        open.get("v1/leaderboard/around/:userId") { request, context in
            try await standings(.around(try PathParameter.value("userId", in: context),
                                        radius: try QueryParameter.int("radius", in: request, range: 0...25) ?? 3), request)
        }
        open.get("v1/recipes/:recipeId/experiences") { request, context in
            try await ask(.experiences(.list), request) {
                $0.recipeId = try PathParameter.value("recipeId", in: context)
                $0.limit = try QueryParameter.int("limit", in: request, range: 1...200)
                // The worker's own key of its order: it checks the text (422 `invalid_query`).
                $0.cursor = try QueryParameter.string("cursor", in: request, maxLength: 64)
            }
        }
        routes.get("v1/leaderboard/me") { request, context in
            try await standings(.entry(try context.requireSession().userId), request)
        }
        routes.get("v1/leaderboard/around-me") { request, context in
            try await standings(.around(try context.requireSession().userId,
                                        radius: try QueryParameter.int("radius", in: request, range: 0...25) ?? 3), request)
        }
        routes.get("v1/me/favourites") { request, context in
            let text = try QueryParameter.string("q", in: request)
            return try await ask(.favourites(text == nil ? .list : .search), request) {
                $0.userId = try context.requireSession().userId
                $0.text = text
                try Self.page(request, into: &$0)
            }
        }
        routes.get("v1/me/favourite-suggestion") { request, context in
            let userId = try context.requireSession().userId
            var query = QueryRequest(.favourites(.suggestion))
            query.userId = userId
            query.after = try ReadYourWrites.position(in: request)
            let answer = try JSONDecoder().decode(SuggestionAnswer.self, from: try await queries.ask(query))
            guard var suggestion = answer.result else { return JSONResponse.make(answer) }
            suggestion.recipes = try await suggestedRecipes(suggestion, userId: userId, client: context.upstreamSpender,
                                                            logger: context.logger)
            return JSONResponse.make(SuggestionAnswer(position: answer.position, result: suggestion))
        }
        routes.get("v1/me/groceries") { request, context in
            let userId = try context.requireSession().userId
            // Waited for first: a join or a leave just made decides whose list this is.
            try await feed.readyToRead(after: try ReadYourWrites.position(in: request))
            return try await ask(.groceries(.list), request) {
                $0.userId = households.listOwner(of: userId)
                try Self.page(request, into: &$0)
            }
        }
        routes.get("v1/me/owned-ingredients/:recipeId") { request, context in
            try await counted.answer(userId: try context.requireSession().userId,
                                     recipeId: try PathParameter.value("recipeId", in: context),
                                     after: try ReadYourWrites.position(in: request))
        }
        routes.get("v1/me/cooking") { request, context in
            let userId = try context.requireSession().userId
            return try await ask(.carts(.cooking), request) { $0.userId = userId }
        }
        routes.get("v1/me/cart") { request, context in
            let userId = try context.requireSession().userId
            try await feed.readyToRead(after: try ReadYourWrites.position(in: request))
            return try await ask(.carts(.cart), request) {
                $0.userId = households.listOwner(of: userId)
                try Self.page(request, into: &$0)
            }
        }
    }

    /// `?limit=` (1-200) and `?cursor=` (the `next` of the page before) of a person's list.
    static func page(_ request: Request, into query: inout QueryRequest) throws {
        query.limit = try QueryParameter.int("limit", in: request, range: 1...200)
        query.offset = try QueryParameter.int("cursor", in: request, range: 0...100_000)
    }

    private func standings(_ question: LeaderboardReadModel.Question, _ request: Request) async throws -> Response {
        try await feed.readyToRead(after: try ReadYourWrites.position(in: request))
        return try await leaderboard.answer(question)
    }

    private func ask(_ question: WorkerQuery, _ request: Request,
                     _ fill: (inout QueryRequest) throws -> Void) async throws -> Response {
        var query = QueryRequest(question)
        try fill(&query)
        query.after = try ReadYourWrites.position(in: request)
        return try await queries.answer(query)
    }

    /// Recipes for the suggested keyword that the user has not saved, so the screen needs no second
    /// call: first those most like what the user saves and cooks (`LikedRecipes`), then the
    /// others that state their time and servings, then the rest (search orders by title alone, so
    /// the suggestion was the first ten titles with the word). The suggestion stands without them
    /// if recipes cannot be had now.
    private func suggestedRecipes(_ suggestion: SuggestionAnswer.Suggestion, userId: String, client: String?,
                                  logger: Logger) async throws -> [RecipeSummary] {
        do {
            async let found = recipes.fetch(.search(query: suggestion.keyword, diet: nil, maxReadyTime: nil, offset: 0,
                                                    number: 30 + suggestion.basedOn.count), client: client)
            async let alike = liked.ranked(for: userId, day: FetchRequest.utcDay.string(from: Date()), number: 100,
                                           client: client, logger: logger)
            guard case .searchPage(let page) = try await found.payload else { return [] }
            let unsaved = page.results.filter { !suggestion.basedOn.contains($0.id) }
            var likeness: [String: Int] = [:]
            for (rank, recipe) in await alike.enumerated() where likeness[recipe.id] == nil { likeness[recipe.id] = rank }
            let complete = { (recipe: RecipeSummary) in recipe.readyInMinutes != nil && recipe.servings != nil }
            let liked = unsaved.filter { likeness[$0.id] != nil }.sorted { likeness[$0.id]! < likeness[$1.id]! }
            let others = unsaved.filter { likeness[$0.id] == nil }
            return Array((liked + others.filter(complete) + others.filter { !complete($0) }).prefix(10))
        } catch let problem as Problem {
            logger.notice("suggestion without recipes", metadata: ["reason": "\(problem.code)"])
            return []
        }
    }
}

/// The favourites worker's suggestion, with the recipes the API adds.
struct SuggestionAnswer: Codable {
    struct Suggestion: Codable {
        var keyword: String
        var basedOn: [String]
        var recipes: [RecipeSummary]?
    }

    var position: Int64
    var result: Suggestion?

    private enum CodingKeys: String, CodingKey { case position, result }

    init(position: Int64, result: Suggestion?) { self.position = position; self.result = result }

    init(from decoder: any Decoder) throws {
        let container = try decoder.container(keyedBy: CodingKeys.self)
        position = try container.decode(Int64.self, forKey: .position)
        result = try container.decodeIfPresent(Suggestion.self, forKey: .result)
    }

    // `result` is null, not absent, when there is nothing to suggest, as the worker sends it.
    func encode(to encoder: any Encoder) throws {
        var container = encoder.container(keyedBy: CodingKeys.self)
        try container.encode(position, forKey: .position)
        try container.encode(result, forKey: .result)
    }
}
