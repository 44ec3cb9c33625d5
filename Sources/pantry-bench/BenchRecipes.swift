import PantryDomain

/// The recipes generated workloads use. Points are only earned for a recipe's own ingredients, so
/// each recipe has the most ingredients a recipe may have, and `point(n, users:)` gives every `n`
/// a (recipe, ingredient) that is new for its user, up to users × count × 200 commands.
enum BenchRecipes {
    static let count = 97
    private static let ingredients = (0..<RecipeFacts.maxIngredients).map { "ingredient \($0)" }

    static func id(_ recipe: Int) -> RecipeID { "bench-recipe-\(recipe)" }

    static func facts(_ recipe: Int) -> RecipeFacts {
        RecipeFacts(title: "Bench recipe \(recipe)", image: nil, ingredients: ingredients)
    }

    /// The `n`th point: user `n % users`, then every recipe, then every ingredient.
    static func point(_ n: Int, users: Int) -> (user: Int, recipe: Int, ingredient: String) {
        let round = n / users
        return (n % users, round % count, ingredients[(round / count) % ingredients.count])
    }

    /// A command that records recipe `recipe` for `userId` (a point for its first ingredient), so
    /// that the measured commands need not carry the facts.
    static func recording(_ recipe: Int, userId: UserID, commandId: CommandID) -> CommandEnvelope {
        CommandEnvelope(commandId: commandId, command: .useOwnedIngredient(UseOwnedIngredient(
            userId: userId, recipeId: id(recipe), ingredient: ingredients[0], recipe: facts(recipe))))
    }
}
