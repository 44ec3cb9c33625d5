import Foundation
import PantryWire

/// Spoonacular's recipe API; one upstream call per request, the key sent as `apiKey`.
struct SpoonacularProvider: RecipeProvider {
    let name = "spoonacular"
    let isLocal = false
    let baseURL: String
    let apiKey: String
    let gate: UpstreamGate

    func fetch(_ request: FetchRequest) async throws(ProviderError) -> FetchPayload {
        switch request {
        case .byIngredients(let ingredients, let number):
            let found: [SpoonacularFormat.FoundByIngredients] = try await get("/recipes/findByIngredients", [
                ("ingredients", ingredients.joined(separator: ",")), ("number", "\(number)"),
                ("ranking", "1"), ("ignorePantry", "true"),
            ])
            // Ranking 1 maximises used ingredients; ties go to fewer missing, as the catalog ranks.
            return .summaries(found.map(SpoonacularFormat.summary).sorted(by: CatalogSearch.bestForCooking))
        case .search(let query, let diet, let maxReadyTime, let offset, let number):
            var parameters = [("query", query), ("offset", "\(offset)"), ("number", "\(number)"), ("addRecipeInformation", "true")]
            if let diet { parameters.append(SpoonacularFormat.searchParameters(diet: diet)) }
            if let maxReadyTime { parameters.append(("maxReadyTime", "\(maxReadyTime)")) }
            let page: SpoonacularFormat.SearchResponse = try await get("/recipes/complexSearch", parameters)
            return .searchPage(SearchPage(
                offset: page.offset ?? offset, totalResults: page.totalResults ?? page.results.count,
                results: page.results.map(SpoonacularFormat.summary)))
        case .detail(let id):
            guard let (_, local) = FetchRequest.splitID(id) else { throw .notFound }
            let info: SpoonacularFormat.Information = try await get("/recipes/\(local)/information", [("includeNutrition", "false")])
            return .recipe(SpoonacularFormat.recipe(info))
        case .random(let count):
            let random: SpoonacularFormat.RandomResponse = try await get("/recipes/random", [("number", "\(count)")])
            return .recipes(random.recipes.map(SpoonacularFormat.recipe))
        case .autocomplete(let prefix, let number):
            let names: [SpoonacularFormat.Suggestion] = try await get("/food/ingredients/autocomplete", [
                ("query", prefix), ("number", "\(number)"),
            ])
            // One food once: Spoonacular lists "egg" and "eggs" both.
            var offered = Set<[String]>()
            return .suggestions(names.map(\.name).filter { offered.insert(FoodVocabulary.words($0)).inserted })
        case .image:
            throw .rejected("images are not fetched through a recipe provider")
        case .featured, .liked, .feed:
            throw .rejected("the featured recipe and the browsing feed come from the catalog")
        }
    }

    /// Spoonacular charges 1 point per call and 0.01 per result: the worst case is reserved for
    /// `number` results (a detail costs 1), then settled to its `X-API-Quota-Request`.
    private func get<T: Decodable>(_ path: String, _ query: [(String, String)]) async throws(ProviderError) -> T {
        let results = query.first { $0.0 == "number" }.flatMap { Double($0.1) } ?? 0
        let response = try await gate.get(upstreamURL(baseURL, path, query + [("apiKey", apiKey)]), logPath: path,
                                          cost: 1 + 0.01 * results)
        do {
            return try JSONDecoder().decode(T.self, from: response.body)
        } catch {
            throw gate.malformed(path, error)
        }
    }
}
