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
                for meal in try await filtered(by: ingredient) { meals[meal.idMeal, default: (meal, 0)].used += 1 }
            }
            let ranked = meals.values.map { MealDBFormat.summary($0.meal, used: $0.used) }.sorted(by: CatalogSearch.bestForCooking)
            return .summaries(Array(ranked.prefix(number)))
        case .search(let query, let diet, _, let offset, let number):
            let envelope: MealDBFormat.Envelope<MealDBFormat.Meal> = try await get("search.php", [("s", query)])
            // TheMealDB has no ready times: a time limit cannot be checked, and leaves every meal
            // (it left none, so any search with one found nothing).
            let recipes = (envelope.meals ?? []).map(MealDBFormat.recipe)
                .filter { recipe in diet.map(recipe.diets.contains) ?? true }
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
            return .recipes(try await random(min(count, Self.randomLimit)))
        case .autocomplete(let prefix, let number):
            let envelope: MealDBFormat.Envelope<MealDBFormat.ListedIngredient> = try await get("list.php", [("i", "list")])
            let names = (envelope.meals ?? []).compactMap { nonEmpty($0.strIngredient)?.lowercased() }
            return .suggestions(IngredientMatching.autocomplete(prefix: prefix, in: names, limit: number))
        case .image:
            throw .rejected("images are not fetched through a recipe provider")
        case .featured, .liked, .feed:
            throw .rejected("the featured recipe and the browsing feed come from the catalog")
        }
    }

    /// One meal per call: more than 10 would take seconds under the rate limit.
    static let randomLimit = 10

    /// `count` distinct meals, drawn at once rather than one after the other (ten draws one by
    /// one took 19.7 s); a meal drawn twice is drawn again, up to three rounds (the answers
    /// were short by the repeats).
    private func random(_ count: Int) async throws(ProviderError) -> [Recipe] {
        var recipes: [Recipe] = []
        for _ in 0..<3 where recipes.count < count {
            let drawn = await withTaskGroup(of: Result<Recipe?, ProviderError>.self) { group in
                for _ in 0..<(count - recipes.count) {
                    group.addTask {
                        do throws(ProviderError) {
                            let envelope: MealDBFormat.Envelope<MealDBFormat.Meal> = try await get("random.php", [])
                            return .success(envelope.meals?.first.map(MealDBFormat.recipe))
                        } catch {
                            return .failure(error)
                        }
                    }
                }
                return await group.reduce(into: []) { $0.append($1) }
            }
            for result in drawn {
                if let recipe = try result.get(), recipes.count < count, !recipes.contains(where: { $0.id == recipe.id }) {
                    recipes.append(recipe)
                }
            }
        }
        return recipes
    }

    /// Meals with `ingredient`, under the name TheMealDB lists it by: "egg" found nothing where
    /// "eggs" found 5, so the other number is asked when the first finds nothing.
    private func filtered(by ingredient: String) async throws(ProviderError) -> [MealDBFormat.FilteredMeal] {
        for name in Self.spellings(of: ingredient) {
            let envelope: MealDBFormat.Envelope<MealDBFormat.FilteredMeal> = try await get(
                "filter.php", [("i", name.replacingOccurrences(of: " ", with: "_"))])
            if let meals = envelope.meals, !meals.isEmpty { return meals }
        }
        return []
    }

    /// The name as typed, then with its last word in the other number ("egg" and "eggs").
    static func spellings(of ingredient: String) -> [String] {
        let words = ingredient.lowercased().split(separator: " ").map(String.init)
        guard let last = words.last else { return [ingredient] }
        let singular = FoodVocabulary.singular(last)
        let other: String
        if singular != last {
            other = singular
        } else if last.hasSuffix("y"), let before = last.dropLast().last, !"aeiou".contains(before) {
            other = String(last.dropLast()) + "ies"
        } else if ["o", "ch", "sh", "s", "x"].contains(where: last.hasSuffix) {
            other = last + "es"
        } else {
            other = last + "s"
        }
        return [ingredient, (words.dropLast() + [other]).joined(separator: " ")]
    }

    private func get<T: Decodable>(_ file: String, _ query: [(String, String)]) async throws(ProviderError) -> T {
        let response = try await gate.get(upstreamURL(baseURL, "/" + file, query), logPath: file)
        do {
            return try JSONDecoder().decode(T.self, from: response.body)
        } catch {
            throw gate.malformed(file, error)
        }
    }
}
