import PantryDomain

/// The catalog's answers to each request kind, over an in-memory list of recipes.
struct CatalogSearch: Sendable {
    let recipes: [Recipe]

    /// Recipes using any of the queried ingredients: those using the most first, then those
    /// missing the fewest others (pantry staples are never missing), as someone cooking with
    /// what they have means it. It used to need every ingredient, so five found nothing.
    func byIngredients(_ ingredients: [String], number: Int) -> [RecipeSummary] {
        let hits: [RecipeSummary] = recipes.compactMap { recipe in
            let used = recipe.ingredients.filter { ingredient in
                ingredients.contains { IngredientName.matches(ingredient: ingredient.name, query: $0) }
            }
            guard !used.isEmpty else { return nil }
            let missed = recipe.ingredients.count - used.count
                - recipe.ingredients.filter { !used.contains($0) && IngredientName.isPantryStaple($0.name) }.count
            return RecipeSummary(
                id: recipe.id, title: recipe.title, image: recipe.image, readyInMinutes: recipe.readyInMinutes,
                servings: recipe.servings, usedIngredientCount: used.count, missedIngredientCount: missed)
        }
        return hits.sorted { Self.bestForCooking($0, $1) }.prefix(number).map { $0 }
    }

    /// Most used first, then fewest missing, then by title (a stable order).
    static func bestForCooking(_ a: RecipeSummary, _ b: RecipeSummary) -> Bool {
        (-(a.usedIngredientCount ?? 0), a.missedIngredientCount ?? 0, a.title)
            < (-(b.usedIngredientCount ?? 0), b.missedIngredientCount ?? 0, b.title)
    }

    /// Every query word in the title or an ingredient; optional diet and time limit; one page.
    func search(query: String, diet: String?, maxReadyTime: Int?, offset: Int, number: Int) -> SearchPage {
        let queryWords = IngredientName.words(query)
        let hits = recipes.filter { recipe in
            let text = Set(IngredientName.words(recipe.title) + recipe.ingredients.flatMap { IngredientName.words($0.name) })
            guard queryWords.allSatisfy(text.contains) else { return false }
            if let diet, !recipe.diets.contains(diet) { return false }
            if let maxReadyTime {
                guard let minutes = recipe.readyInMinutes, minutes <= maxReadyTime else { return false }
            }
            return true
        }.sorted { (-Self.titleMatches(queryWords, $0), $0.title) < (-Self.titleMatches(queryWords, $1), $1.title) }
        let page = hits.dropFirst(offset).prefix(number).map {
            RecipeSummary(id: $0.id, title: $0.title, image: $0.image, readyInMinutes: $0.readyInMinutes, servings: $0.servings)
        }
        return SearchPage(offset: offset, totalResults: hits.count, results: page)
    }

    /// Relevance: how many of the query's words the title has (the rest matched ingredients).
    private static func titleMatches(_ queryWords: [String], _ recipe: Recipe) -> Int {
        let title = Set(IngredientName.words(recipe.title))
        return queryWords.filter(title.contains).count
    }

    /// The answer to `request` from these recipes alone.
    func answer(_ request: FetchRequest, using generator: inout some RandomNumberGenerator) throws(ProviderError) -> FetchPayload {
        switch request {
        case .byIngredients(let ingredients, let number):
            return .summaries(byIngredients(ingredients, number: number))
        case .search(let query, let diet, let maxReadyTime, let offset, let number):
            return .searchPage(search(query: query, diet: diet, maxReadyTime: maxReadyTime, offset: offset, number: number))
        case .detail(let id):
            guard let recipe = detail(id) else { throw .notFound }
            return .recipe(recipe)
        case .random(let count):
            return .recipes(random(count: count, using: &generator))
        case .autocomplete(let prefix, let number):
            return .suggestions(autocomplete(prefix: prefix, number: number))
        case .image:
            throw .rejected("the catalog has no images")
        }
    }

    func detail(_ id: String) -> Recipe? {
        recipes.first { $0.id == id }
    }

    /// `count` distinct recipes (fewer if the catalog is smaller), drawn with `generator`.
    func random(count: Int, using generator: inout some RandomNumberGenerator) -> [Recipe] {
        Array(recipes.shuffled(using: &generator).prefix(count))
    }

    func autocomplete(prefix: String, number: Int) -> [String] {
        IngredientMatching.autocomplete(prefix: prefix, in: recipes.flatMap { $0.ingredients.map(\.name) }, limit: number)
    }
}

/// A small, seedable generator (SplitMix64), so tests can fix the catalog's random picks.
struct SplitMix64: RandomNumberGenerator, Sendable {
    private var state: UInt64

    init(seed: UInt64) {
        state = seed
    }

    mutating func next() -> UInt64 {
        state &+= 0x9E37_79B9_7F4A_7C15
        var z = state
        z = (z ^ (z >> 30)) &* 0xBF58_476D_1CE4_E5B9
        z = (z ^ (z >> 27)) &* 0x94D0_49BB_1331_11EB
        return z ^ (z >> 31)
    }
}
