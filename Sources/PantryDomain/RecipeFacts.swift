/// What the rules need to know about a recipe: that it exists, what it is called and shows, and
/// which ingredients it has. The adapter looks them up (catalog, cache or upstream) and sends them
/// with the first command that needs the recipe; the core records them once (`RecipeRecorded`),
/// so every later decision, and every replay, reads them from the log and never from the network.
package struct RecipeFacts: Sendable, Equatable {
    package var title: String
    package var image: String?
    package var ingredients: [String]
    package static let maxIngredients = 200

    package init(title: String, image: String?, ingredients: [String]) {
        self.title = title; self.image = image; self.ingredients = ingredients
    }
}

/// A recorded recipe as the state keeps it: the facts, and each ingredient's words computed once,
/// because matching runs on the single writer thread for every point.
package struct KnownRecipe: Sendable, Equatable {
    package var facts: RecipeFacts
    /// Its place in the order recipes were recorded: how the state packs a point (`earnedPoints`).
    let number: Int
    let ingredientWords: [[String]]
    /// Each ingredient's point key: its words joined by spaces.
    let keys: [String]
    /// A point key to the first ingredient with it: the usual case, the user naming the
    /// ingredient as the recipe does, is one lookup.
    let keyIndex: [String: Int]

    init(_ facts: RecipeFacts, number: Int) {
        self.facts = facts
        self.number = number
        ingredientWords = facts.ingredients.map(IngredientName.words)
        keys = ingredientWords.map { $0.joined(separator: " ") }
        var index: [String: Int] = [:]
        for (position, key) in keys.enumerated() where index[key] == nil { index[key] = position }
        keyIndex = index
    }

    /// The point key of the recipe's ingredient that `ingredient` names, matched as search matches
    /// (case, plural, whole words): the ingredient named exactly, else the first that contains it.
    func key(matching ingredient: String) -> String? {
        let query = IngredientName.words(ingredient)
        let joined = query.joined(separator: " ")
        if keyIndex[joined] != nil { return joined }
        return ingredientWords.first { IngredientName.contains($0, query) }?.joined(separator: " ")
    }
}
