import Foundation
import Logging
import PantryWire

/// What a user saves and cooks, as "Featured today" and the suggestions rank recipes by: their
/// newest favourites and the recipes they are cooking, asked of the workers that keep them, then
/// ranked by the fetch worker's catalog (`FetchRequest.liked`).
struct LikedRecipes {
    let queries: WorkerQueries
    let recipes: RecipeSource

    private struct Answer<Result: Decodable>: Decodable { var result: Result }
    private struct Saved: Decodable { var recipeId: String }
    private struct Cooking: Decodable { var recipeId: String }

    /// Up to `number` complete recipes ranked by what they share with the user's saved and cooked
    /// ones, best first, none of those; empty when there is nothing to rank by (a new user,
    /// recipes the catalog does not hold) or the workers cannot say now: the caller then shows
    /// what it shows everyone, never an error.
    func ranked(for userId: String, day: String, number: Int, client: String?, logger: Logger) async -> [RecipeSummary] {
        do {
            let liked = try await ids(of: userId)
            guard !liked.isEmpty else { return [] }
            let response = try await recipes.fetch(.liked(ids: liked, day: day, number: number), client: client)
            guard case .summaries(let found) = response.payload else { return [] }
            return found
        } catch {
            logger.notice("recipes ranked by taste unavailable", metadata: ["reason": "\(error)"])
            return []
        }
    }

    /// The recipes the user saved (newest first), then those they started cooking; at most
    /// `FetchRequest.maxLiked`.
    private func ids(of userId: String) async throws -> [String] {
        // A second at most: a worker that is down leaves the screen as everyone sees it, soon.
        async let saved = queries.ask(QueryRequest(.favourites(.list), userId: userId, limit: FetchRequest.maxLiked),
                                      timeout: .seconds(1))
        async let cooking = queries.ask(QueryRequest(.carts(.cooking), userId: userId), timeout: .seconds(1))
        let decoder = JSONDecoder()
        let savedIds = try decoder.decode(Answer<[Saved]>.self, from: await saved).result.map(\.recipeId)
        let cookedIds = try decoder.decode(Answer<[Cooking]>.self, from: await cooking).result.map(\.recipeId)
        var seen = Set<String>()
        return Array((savedIds + cookedIds).filter { seen.insert($0).inserted }.prefix(FetchRequest.maxLiked))
    }
}
