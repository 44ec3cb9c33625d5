import PantryDomain

/// Whether an ingredient line is a queried food, on folded words (`FoodVocabulary.words`): the
/// food's words in the line, and not as part of another food's name (chicken in "chicken
/// broth", pepper in "black pepper"). A conjunction does not hide the food a name ends in:
/// "chicken or vegetable broth" is a broth.
struct FoodMatch: Sendable {
    /// The queried food's folded words.
    let food: [String]
    private let modifiers: Set<String>
    private let heads: Set<String>

    /// Made once per query: a search tries it on every line of thousands of recipes.
    init(_ food: [String]) {
        self.food = food
        let name = food.joined(separator: " ")
        modifiers = FoodVocabulary.derivedModifiers[name] ?? []
        heads = FoodVocabulary.derivedHeads.union(FoodVocabulary.derivedHeadsOf[name] ?? [])
    }

    /// Whether the line (folded words) is this food.
    func isIn(_ line: [String]) -> Bool {
        guard !food.isEmpty, food.count <= line.count else { return false }
        for start in 0...(line.count - food.count) where line[start] == food[0] {
            guard food.count == 1 || line[start..<(start + food.count)].elementsEqual(food) else { continue }
            if start > 0, modifiers.contains(line[start - 1]) { continue }
            var next = start + food.count
            while next + 1 < line.count, line[next] == "or" || line[next] == "and" { next += 2 }
            if !(next < line.count && heads.contains(line[next])) { return true }
        }
        return false
    }

    /// Salt, water, oil, black pepper: never used nor missing, typed or in a recipe, as
    /// Spoonacular's `ignorePantry` has it. "pepper" alone, typed, is the vegetable.
    static func isStaple(typed: String) -> Bool {
        IngredientName.isPantryStaple(typed) && FoodVocabulary.words(typed) != ["pepper"]
    }

    static func isStaple(line name: String) -> Bool {
        IngredientName.isPantryStaple(name)
    }
}
