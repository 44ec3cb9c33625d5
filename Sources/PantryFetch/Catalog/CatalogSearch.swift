import Foundation
import PantryDomain
import PantryWire
import PantryRandom

/// The catalog's answers to each request kind, over an in-memory list of recipes. Each recipe's
/// words are read once, when the list is made: the imported catalog has thousands of recipes, and
/// reading them per request cost 0.4 s a search.
struct CatalogSearch: Sendable {
    let recipes: [Recipe]
    private let indexed: [Indexed]
    private let ingredientNames: IngredientMatching.Names
    private let positions: [String: Int]
    /// Recipes a cook can follow as shown: a ready time, servings and more than one step. "Featured
    /// today" was "Cuban Sandwich I": no time, no servings, one step ("Assemble like a normal sandwich").
    private let complete: [Int]
    /// Each recipe's title, for sorting without copying the recipe.
    private let titles: [String]
    /// For each folded word, the positions of the recipes that have it in an ingredient, and in
    /// their title, ingredients, dish types or diets: a search reads only the recipes that have
    /// its words. Reading all 3,264 for each of a burst's 263 fallback answers took 4.7 s of CPU
    /// (a debug build), most of it copying each recipe's index.
    private let withIngredientWord: [String: [Int]]
    private let withWord: [String: [Int]]
    /// What each recipe's taste is compared by (`liked`): the words of its ingredients that are
    /// not staples, and its diets (marked apart: the diet "vegan" is not an ingredient word);
    /// and in how many recipes each occurs.
    private let tastes: [Set<String>]
    private let tasteFrequency: [String: Int]

    /// A recipe's words, folded (`FoodVocabulary.words`).
    private struct Indexed: Sendable {
        var title: [String]
        var titleWords: Set<String>
        /// The words of each ingredient's name, in the recipe's order.
        var ingredients: [[String]]
        var isStaple: [Bool]
        var ingredientWords: Set<String>
        /// Every word of the title, the ingredients, the dish types and the diets.
        var text: Set<String>
    }

    init(recipes: [Recipe]) {
        self.recipes = recipes
        indexed = recipes.map { recipe in
            let title = FoodVocabulary.words(recipe.title)
            let ingredients = recipe.ingredients.map { FoodVocabulary.words($0.name) }
            let kinds = (recipe.dishTypes + recipe.diets).flatMap(FoodVocabulary.words)
            return Indexed(title: title, titleWords: Set(title), ingredients: ingredients,
                           isStaple: recipe.ingredients.map { FoodMatch.isStaple(line: $0.name) },
                           ingredientWords: Set(ingredients.joined()),
                           text: Set(title + ingredients.joined() + kinds))
        }
        complete = recipes.indices.filter { Self.isComplete(recipes[$0]) }
        var withIngredientWord: [String: [Int]] = [:]
        var withWord: [String: [Int]] = [:]
        for (position, index) in indexed.enumerated() {
            for word in index.ingredientWords { withIngredientWord[word, default: []].append(position) }
            for word in index.text { withWord[word, default: []].append(position) }
        }
        self.withIngredientWord = withIngredientWord
        self.withWord = withWord
        tastes = zip(indexed, recipes).map { index, recipe in
            Set(zip(index.ingredients, index.isStaple).filter { !$0.1 }.flatMap(\.0)).union(recipe.diets.map { "diet:" + $0 })
        }
        tasteFrequency = tastes.reduce(into: [:]) { counts, words in
            for word in words { counts[word, default: 0] += 1 }
        }
        titles = recipes.map(\.title)
        positions = Dictionary(recipes.enumerated().map { ($1.id, $0) }, uniquingKeysWith: { first, _ in first })
        ingredientNames = IngredientMatching.Names(recipes.flatMap { $0.ingredients.compactMap { IngredientMatching.offered($0.name) } })
    }

    private struct CookingHit {
        var position: Int, used: Int, usedWeight: Int, missed: Int, rank: Int
    }

    private struct SearchHit {
        var position: Int, inTitle: Int, timed: Int, titleWords: Int
    }

    /// By title, then by position (titles repeat).
    private func before(_ a: Int, _ b: Int) -> Bool {
        let (x, y) = (titles[a], titles[b])
        return x != y ? x < y : a < b
    }

    /// Positions of the recipes having every one of `words` (ascending), from the shortest list.
    private static func having(_ words: [String], in postings: [String: [Int]], sets: (Int) -> Set<String>) -> [Int] {
        guard let shortest = words.map({ postings[$0] ?? [] }).min(by: { $0.count < $1.count }) else { return [] }
        return words.count == 1 ? shortest : shortest.filter { position in words.allSatisfy(sets(position).contains) }
    }

    /// Recipes using any of the queried foods (`FoodMatch`: chicken broth is not chicken): those
    /// using the most first; among them those whose use weighs most (`FoodVocabulary.weight`: a
    /// protein outweighs a vegetable, which outweighs a seasoning); then by the missing count,
    /// less twice the weight of the typed foods the title names; then, as the tie-break, fewest
    /// missing (Spoonacular's `ranking=2`). Staples (salt, water, oil, black pepper) are neither
    /// used nor missing, typed or in a recipe.
    func byIngredients(_ ingredients: [String], number: Int) -> [RecipeSummary] {
        let typed = ingredients.filter { !FoodMatch.isStaple(typed: $0) }
        let foods = (typed.isEmpty ? ingredients : typed).map(FoodVocabulary.words).filter { !$0.isEmpty }.map(FoodMatch.init)
        let weights = foods.map { FoodVocabulary.weight(of: $0.food) }
        let candidates = Set(foods.flatMap { Self.having($0.food, in: withIngredientWord, sets: { indexed[$0].ingredientWords }) })
        // Used: which of the user's foods the recipe takes (each once, however many of its lines
        // name it); missing: its other lines; named: typed foods in its title.
        // Loops, not filters: this runs for every line of hundreds of recipes per answer.
        var hits: [CookingHit] = []
        for position in candidates {
            let index = indexed[position]
            var usedFoods = Set<Int>()
            var missed = 0
            for line in index.ingredients.indices where !index.isStaple[line] {
                var found = false
                for (number, food) in foods.enumerated() where food.isIn(index.ingredients[line]) {
                    usedFoods.insert(number)
                    found = true
                }
                if !found { missed += 1 }
            }
            guard !usedFoods.isEmpty else { continue }
            var namedWeight = 0
            for (number, food) in foods.enumerated()
            where food.food.count == 1 ? index.titleWords.contains(food.food[0]) : IngredientName.contains(index.title, food.food) {
                namedWeight += weights[number]
            }
            // The name weighs against the missing lines rather than before or after them. Fewest
            // missing alone put Gin Fried Rice (5 missing) before Chicken Fried Rice (6) for
            // chicken, rice and garlic; the name before the missing count put a fish stew "with
            // egg and potato" (8) before crêpes (1) for milk, flour and eggs. Precision at 5 over
            // the search-quality set (Tests/Fixtures/search-quality.json): docs/benchmarks/fetch.md.
            hits.append(CookingHit(position: position, used: usedFoods.count, usedWeight: usedFoods.reduce(0) { $0 + weights[$1] },
                                   missed: missed, rank: missed - 2 * namedWeight))
        }
        hits.sort { a, b in
            // Written out: tuples compared in a debug build looked up their metadata each time,
            // a third of a by-ingredients answer.
            if a.used != b.used { return a.used > b.used }
            if a.usedWeight != b.usedWeight { return a.usedWeight > b.usedWeight }
            if a.rank != b.rank { return a.rank < b.rank }
            if a.missed != b.missed { return a.missed < b.missed }
            return before(a.position, b.position)
        }
        return hits.prefix(number).map { hit in
            let recipe = recipes[hit.position]
            return RecipeSummary(
                id: recipe.id, title: recipe.title, image: recipe.image, readyInMinutes: recipe.readyInMinutes,
                servings: recipe.servings, usedIngredientCount: hit.used, missedIngredientCount: hit.missed)
        }
    }

    /// Most used first, then fewest missing, then by title (a stable order): how the upstreams'
    /// answers are ranked.
    static func bestForCooking(_ a: RecipeSummary, _ b: RecipeSummary) -> Bool {
        (-(a.usedIngredientCount ?? 0), a.missedIngredientCount ?? 0, a.title)
            < (-(b.usedIngredientCount ?? 0), b.missedIngredientCount ?? 0, b.title)
    }

    /// Every query word (folded: "chilies" is chili, "courgette" zucchini) in the title, an
    /// ingredient, the dish types or the diets; optional diet and time limit; one page. "Quick"
    /// and its like are no word to find but a time: a recipe known to take longer is left out,
    /// one known to fit comes first. Then relevance: more of the words in the title, then the
    /// shorter title (the dish itself before dishes that have it on the side), then the title.
    func search(query: String, diet: String?, maxReadyTime: Int?, offset: Int, number: Int) -> SearchPage {
        let folded = FoodVocabulary.words(query)
        let words = folded.filter { !FoodVocabulary.quickWords.contains($0) }
        let quick = words.count < folded.count && !words.isEmpty
        let queryWords = words.isEmpty ? folded : words
        let hits = Self.having(queryWords, in: withWord, sets: { indexed[$0].text }).compactMap { position -> SearchHit? in
            if let diet, !recipes[position].diets.contains(diet) { return nil }
            let minutes = recipes[position].readyInMinutes
            if let maxReadyTime {
                guard let minutes, minutes <= maxReadyTime else { return nil }
            }
            if quick, let minutes, minutes > FoodVocabulary.quickMinutes { return nil }
            return SearchHit(position: position, inTitle: queryWords.filter(indexed[position].title.contains).count,
                             timed: quick && minutes != nil ? 0 : 1, titleWords: indexed[position].title.count)
        }.sorted { a, b in
            if a.inTitle != b.inTitle { return a.inTitle > b.inTitle }
            if a.timed != b.timed { return a.timed < b.timed }
            if a.titleWords != b.titleWords { return a.titleWords < b.titleWords }
            return before(a.position, b.position)
        }
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
        case .liked(let ids, let day, let number):
            return .summaries(liked(ids, day: day, number: number).map { recipe in
                RecipeSummary(id: recipe.id, title: recipe.title, image: recipe.image, readyInMinutes: recipe.readyInMinutes,
                              servings: recipe.servings)
            })
        case .feed(let seed, let offset, let count):
            var shuffler = SeededGenerator(seed: seed)
            return .recipes(Array(recipes.shuffled(using: &shuffler).dropFirst(offset).prefix(count)))
        }
    }

    /// Complete recipes ranked by what they share with the recipes `ids` (those the catalog
    /// holds): each ingredient word (staples left out) or diet they share counts once per liked
    /// recipe that has it, so what a user saves and cooks most weighs most, and by how rare it is
    /// in the catalog (log N/n), so "chicken" says more than "onion" or "gluten free". Those
    /// sharing nothing are left out; equal scores go by a hash of the day and the id.
    func liked(_ ids: [String], day: String, number: Int) -> [Recipe] {
        let liked = Set(ids.compactMap { positions[$0] })
        var weights: [String: Double] = [:]
        for position in liked {
            for word in tastes[position] { weights[word, default: 0] += log(Double(recipes.count) / Double(tasteFrequency[word] ?? 1)) }
        }
        let scored = complete.compactMap { position -> (score: Double, tie: UInt64, position: Int)? in
            guard !liked.contains(position) else { return nil }
            let score = tastes[position].reduce(0) { $0 + weights[$1, default: 0] }
            return score > 0 ? (score, StableHash.of("\(day)|\(recipes[position].id)".utf8), position) : nil
        }
        return scored.sorted { ($0.score, $1.tie) > ($1.score, $0.tie) }.prefix(number).map { recipes[$0.position] }
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
