import PantryDomain

/// The catalog's answers to each request kind, over an in-memory list of recipes.
struct CatalogSearch: Sendable {
    let recipes: [Recipe]

    /// Recipes containing every queried ingredient, fewest other ingredients first.
    func byIngredients(_ ingredients: [String], number: Int) -> [RecipeSummary] {
        let hits: [RecipeSummary] = recipes.compactMap { recipe in
            let all = ingredients.allSatisfy { query in
                recipe.ingredients.contains { IngredientName.matches(ingredient: $0.name, query: query) }
            }
            guard all else { return nil }
            let used = recipe.ingredients.filter { ingredient in
                ingredients.contains { IngredientName.matches(ingredient: ingredient.name, query: $0) }
            }.count
            return RecipeSummary(
                id: recipe.id, title: recipe.title, image: recipe.image, readyInMinutes: recipe.readyInMinutes,
                usedIngredientCount: used, missedIngredientCount: recipe.ingredients.count - used)
        }
        return hits.sorted { ($0.missedIngredientCount ?? 0, $0.title) < ($1.missedIngredientCount ?? 0, $1.title) }
            .prefix(number).map { $0 }
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
        }.sorted { $0.title < $1.title }
        let page = hits.dropFirst(offset).prefix(number).map {
            RecipeSummary(id: $0.id, title: $0.title, image: $0.image, readyInMinutes: $0.readyInMinutes)
        }
        return SearchPage(offset: offset, totalResults: hits.count, results: page)
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
