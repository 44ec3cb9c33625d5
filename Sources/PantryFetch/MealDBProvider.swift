import Foundation
import PantryWire

/// TheMealDB. Its free API has no multi-ingredient filter, no paging and one meal per
/// random call, so those are composed here from several calls.
struct MealDBProvider: RecipeProvider {
    let name = "mealdb"
    let isLocal = false
    let baseURL: String
    let gate: UpstreamGate

    func fetch(_ request: FetchRequest) async throws(ProviderError) -> FetchPayload {
        switch request {
        case .byIngredients(let ingredients, let number):
            // filter.php takes one ingredient: a meal's rank is how many of the lists it is in
            // (TheMealDB's summaries carry no ingredients, so nothing is counted as missing).
            var meals: [String: (meal: MealDBFormat.FilteredMeal, used: Int)] = [:]
            for ingredient in ingredients {
                let envelope: MealDBFormat.Envelope<MealDBFormat.FilteredMeal> = try await get(
                    "filter.php", [("i", ingredient.replacingOccurrences(of: " ", with: "_"))])
                for meal in envelope.meals ?? [] { meals[meal.idMeal, default: (meal, 0)].used += 1 }
            }
            let ranked = meals.values.map { MealDBFormat.summary($0.meal, used: $0.used) }.sorted(by: CatalogSearch.bestForCooking)
            return .summaries(Array(ranked.prefix(number)))
        case .search(let query, let diet, let maxReadyTime, let offset, let number):
            let envelope: MealDBFormat.Envelope<MealDBFormat.Meal> = try await get("search.php", [("s", query)])
            // TheMealDB has no ready times, so a time limit matches nothing.
            let recipes = (envelope.meals ?? []).map(MealDBFormat.recipe)
                .filter { recipe in diet.map(recipe.diets.contains) ?? true }
                .filter { _ in maxReadyTime == nil }
            let page = recipes.dropFirst(offset).prefix(number)
            return .searchPage(SearchPage(
                offset: offset, totalResults: recipes.count,
                results: page.map { RecipeSummary(id: $0.id, title: $0.title, image: $0.image) }))
        case .detail(let id):
            guard let (_, local) = FetchRequest.splitID(id) else { throw .notFound }
            let envelope: MealDBFormat.Envelope<MealDBFormat.Meal> = try await get("lookup.php", [("i", local)])
            guard let meal = envelope.meals?.first else { throw .notFound }
            return .recipe(MealDBFormat.recipe(meal))
        case .random(let count):
            // One meal per call: more than 10 would take seconds under the rate limit.
            var recipes: [Recipe] = []
            for _ in 0..<min(count, 10) {
                let envelope: MealDBFormat.Envelope<MealDBFormat.Meal> = try await get("random.php", [])
                if let meal = envelope.meals?.first, !recipes.contains(where: { $0.id == MealDBFormat.recipeID(meal.idMeal) }) {
                    recipes.append(MealDBFormat.recipe(meal))
                }
            }
            return .recipes(recipes)
        case .autocomplete(let prefix, let number):
            let envelope: MealDBFormat.Envelope<MealDBFormat.ListedIngredient> = try await get("list.php", [("i", "list")])
            let names = (envelope.meals ?? []).compactMap { nonEmpty($0.strIngredient)?.lowercased() }
            return .suggestions(IngredientMatching.autocomplete(prefix: prefix, in: names, limit: number))
        case .image:
            throw .rejected("images are not fetched through a recipe provider")
        case .featured, .feed:
            throw .rejected("the featured recipe and the browsing feed come from the catalog")
        }
    }

    private func get<T: Decodable>(_ file: String, _ query: [(String, String)]) async throws(ProviderError) -> T {
        let response = try await gate.get(upstreamURL(baseURL, "/" + file, query), logPath: file)
        do {
            return try JSONDecoder().decode(T.self, from: response.body)
        } catch {
            throw .unavailable("mealdb sent malformed JSON for \(file)")
        }
    }
}
