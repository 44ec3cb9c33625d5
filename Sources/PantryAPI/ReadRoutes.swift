import Hummingbird
import PantryBus

/// The read side: a user's lists, the leaderboard and a recipe's experiences, answered by the
/// projection workers. Every route takes `?after=POSITION` (read-your-writes). The leaderboard and
/// experiences are public; a user's own lists and rank need the user's token.
struct ReadRoutes {
    let queries: WorkerQueries

    func register(public open: RouterGroup<APIRequestContext>, authenticated routes: RouterGroup<APIRequestContext>) {
        open.get("v1/leaderboard") { request, _ in
            try await ask("leaderboard", "top", request) { $0.limit = try QueryParameter.int("limit", in: request, range: 1...100) }
        }
        open.get("v1/leaderboard/around/:userId") { request, context in
            try await ask("leaderboard", "around", request) {
                $0.userId = try PathParameter.value("userId", in: context)
                $0.radius = try QueryParameter.int("radius", in: request, range: 0...25)
            }
        }
        open.get("v1/recipes/:recipeId/experiences") { request, context in
            try await ask("experiences", "list", request) {
                $0.recipeId = try PathParameter.value("recipeId", in: context)
                $0.limit = try QueryParameter.int("limit", in: request, range: 1...200)
            }
        }
        routes.get("v1/leaderboard/me") { request, context in
            try await ask("leaderboard", "entry", request) { $0.userId = try context.requireSession().userId }
        }
        routes.get("v1/leaderboard/around-me") { request, context in
            try await ask("leaderboard", "around", request) {
                $0.userId = try context.requireSession().userId
                $0.radius = try QueryParameter.int("radius", in: request, range: 0...25)
            }
        }
        routes.get("v1/me/favourites") { request, context in
            let text = try QueryParameter.string("q", in: request)
            return try await ask("favourites", text == nil ? "list" : "search", request) {
                $0.userId = try context.requireSession().userId
                $0.text = text
            }
        }
        routes.get("v1/me/favourite-suggestion") { request, context in
            try await ask("favourites", "suggestion", request) { $0.userId = try context.requireSession().userId }
        }
        routes.get("v1/me/groceries") { request, context in
            try await ask("groceries", "list", request) { $0.userId = try context.requireSession().userId }
        }
        routes.get("v1/me/cart") { request, context in
            try await ask("carts", "cart", request) { $0.userId = try context.requireSession().userId }
        }
    }

    private func ask(_ worker: String, _ name: String, _ request: Request,
                     _ fill: (inout QueryRequest) throws -> Void) async throws -> Response {
        var query = QueryRequest(query: name)
        try fill(&query)
        query.after = try ReadYourWrites.position(in: request)
        return try await queries.answer(worker, query)
    }
}
