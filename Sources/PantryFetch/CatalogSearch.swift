import PantryDomain
import PantryWire
import PantryRandom

/// The catalog's answers to each request kind, over an in-memory list of recipes. Each recipe's
/// words are read once, when the list is made: the imported catalog has thousands of recipes, and
/// reading them per request cost 0.4 s a search.
struct CatalogSearch: Sendable {
    let recipes: [Recipe]
    private let indexed: [Indexed]
    private let ingredientNames: [String]
    private let positions: [String: Int]
    /// Recipes a cook can follow as shown: a ready time, servings and more than one step. "Featured
    /// today" was "Cuban Sandwich I": no time, no servings, one step ("Assemble like a normal sandwich").
    private let complete: [Int]

    private struct Indexed: Sendable {
        var title: [String]
        /// The words of each ingredient's name, in the recipe's order.
        var ingredients: [[String]]
        var isStaple: [Bool]
        var ingredientWords: Set<String>
        /// Every word of the title and the ingredients.
        var text: Set<String>
    }

    init(recipes: [Recipe]) {
        self.recipes = recipes
        indexed = recipes.map { recipe in
            let title = IngredientName.words(recipe.title)
            let ingredients = recipe.ingredients.map { IngredientName.words($0.name) }
            return Indexed(title: title, ingredients: ingredients,
                           isStaple: recipe.ingredients.map { IngredientName.isPantryStaple($0.name) },
                           ingredientWords: Set(ingredients.joined()),
                           text: Set(title + ingredients.joined()))
        }
        complete = recipes.indices.filter { Self.isComplete(recipes[$0]) }
        positions = Dictionary(recipes.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        var seen = Set<String>()
        ingredientNames = recipes.flatMap { $0.ingredients.map { $0.name.lowercased() } }.filter { seen.insert($0).inserted }
    }

    /// Recipes using any of the queried ingredients: those using the most first, then those
    /// missing the fewest others (pantry staples are never missing), as someone cooking with
    /// what they have means it. It used to need every ingredient, so five found nothing.
    func byIngredients(_ ingredients: [String], number: Int) -> [RecipeSummary] {
        let queries = ingredients.map(IngredientName.words).filter { !$0.isEmpty }
        let hits: [RecipeSummary] = zip(recipes, indexed).compactMap { recipe, index in
            // Used: how many of the user's ingredients the recipe takes (each once, however many of
            // its lines name it); missing: its other lines.
            // Most recipes have none of the words at all: a set lookup tells so before any line is read.
            guard queries.contains(where: { index.ingredientWords.isSuperset(of: $0) }) else { return nil }
            let used = queries.filter { query in index.ingredients.contains { IngredientName.contains($0, query) } }.count
            guard used > 0 else { return nil }
            let missed = index.ingredients.indices.filter { line in
                !index.isStaple[line] && !queries.contains { IngredientName.contains(index.ingredients[line], $0) }
            }.count
            return RecipeSummary(
                id: recipe.id, title: recipe.title, image: recipe.image, readyInMinutes: recipe.readyInMinutes,
                servings: recipe.servings, usedIngredientCount: used, missedIngredientCount: missed)
        }
        return hits.sorted { Self.bestForCooking($0, $1) }.prefix(number).map { $0 }
    }

    /// Most used first, then fewest missing, then by title (a stable order).
    static func bestForCooking(_ a: RecipeSummary, _ b: RecipeSummary) -> Bool {
        (-(a.usedIngredientCount ?? 0), a.missedIngredientCount ?? 0, a.title)
            < (-(b.usedIngredientCount ?? 0), b.missedIngredientCount ?? 0, b.title)
    }

    /// Every query word in the title or an ingredient; optional diet and time limit; one page.
    /// Recipes whose title has more of the query's words come first (the rest matched ingredients).
    func search(query: String, diet: String?, maxReadyTime: Int?, offset: Int, number: Int) -> SearchPage {
        let queryWords = IngredientName.words(query)
        // Positions, not recipes: copying every matching recipe to sort it was most of a search's cost.
        let hits = indexed.indices.compactMap { position -> (position: Int, inTitle: Int)? in
            let index = indexed[position]
            guard queryWords.allSatisfy(index.text.contains) else { return nil }
            if let diet, !recipes[position].diets.contains(diet) { return nil }
            if let maxReadyTime {
                guard let minutes = recipes[position].readyInMinutes, minutes <= maxReadyTime else { return nil }
            }
            return (position, queryWords.filter(index.title.contains).count)
        }.sorted { (-$0.inTitle, recipes[$0.position].title) < (-$1.inTitle, recipes[$1.position].title) }
        let page = hits.dropFirst(offset).prefix(number).map { hit in
            let recipe = recipes[hit.position]
            return RecipeSummary(id: recipe.id, title: recipe.title, image: recipe.image,
                                 readyInMinutes: recipe.readyInMinutes, servings: recipe.servings)
        }
        return SearchPage(offset: offset, totalResults: hits.count, results: page)
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
        case .featured(let day):
            let choices = complete.isEmpty ? Array(recipes.indices) : complete
            guard !choices.isEmpty else { throw .notFound }
            return .recipe(recipes[choices[Int(StableHash.of(day.utf8) % UInt64(choices.count))]])
        case .feed(let seed, let offset, let count):
            var shuffler = SeededGenerator(seed: seed)
            return .recipes(Array(recipes.shuffled(using: &shuffler).dropFirst(offset).prefix(count)))
        }
    }

    static func isComplete(_ recipe: Recipe) -> Bool {
        recipe.readyInMinutes != nil && recipe.servings != nil && recipe.instructions.count > 1
    }

    func detail(_ id: String) -> Recipe? {
        positions[id].map { recipes[$0] }
    }

    /// `count` distinct recipes (fewer if the catalog is smaller), drawn with `generator`.
    func random(count: Int, using generator: inout some RandomNumberGenerator) -> [Recipe] {
        Array(recipes.shuffled(using: &generator).prefix(count))
    }

    func autocomplete(prefix: String, number: Int) -> [String] {
        IngredientMatching.autocomplete(prefix: prefix, in: ingredientNames, limit: number)
    }
}
