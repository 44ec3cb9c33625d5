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

    /// The `n`th point: user `n % users`, then every ingredient of a recipe, then the next recipe,
    /// so that a user's points need few recipes cooking.
    static func point(_ n: Int, users: Int) -> (user: Int, recipe: Int, ingredient: String) {
        let round = n / users
        return (n % users, round / ingredients.count % count, ingredients[round % ingredients.count])
    }

    /// The recipes of the points `points` (`point`), which every user cooks before them.
    static func recipes(points: Range<Int>, users: Int) -> [Int] {
        guard let last = points.last else { return [] }
        let rounds = (points.lowerBound / users / ingredients.count)...(last / users / ingredients.count)
        return Array(Set(rounds.prefix(count).map { $0 % count })).sorted()
    }

    /// A cart line of recipe `recipe` for `userId`, which records it the first time: then the
    /// measured commands need not carry the facts.
    static func recording(_ recipe: Int, userId: UserID, commandId: CommandID) -> CommandEnvelope {
        CommandEnvelope(commandId: commandId, command: .adjustCart(AdjustCart(userId: userId, recipeId: id(recipe), delta: 1,
                                                                            recipe: facts(recipe))))
    }

    /// Recipe `recipe` cooking for a day (which records it the first time): what points for it need.
    static func cooking(_ recipe: Int, userId: UserID, commandId: CommandID) -> [CommandEnvelope] {
        cooking(id(recipe), facts: facts(recipe), userId: userId, commandId: commandId)
    }

    static func cooking(_ recipeId: RecipeID, facts: RecipeFacts, userId: UserID, commandId: CommandID) -> [CommandEnvelope] {
        [CommandEnvelope(commandId: commandId + "-cook", command: .startCooking(StartCooking(userId: userId, recipeId: recipeId,
                                                                                           minutes: 1440, recipe: facts)))]
    }

    /// Paces no benchmark reaches: they measure how many commands the core takes, not people
    /// (the deployments of `ops/bench-e2e` and `ops/bench-http` are given the same).
    static let paces = Paces(points: Pace(burst: 1_000_000_000, interval: 1), tips: Pace(burst: 1_000_000_000, interval: 1))
}
