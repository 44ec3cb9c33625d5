import PantryDomain
import PantryWire

/// The facts the core needs about a recipe it has not recorded yet (its title, image and
/// ingredient names), looked up where search finds recipes: the catalog, the cache or the upstream.
struct RecipeFactsLookup {
    let recipes: RecipeSource

    /// `spender` pays for an upstream call from its budget (`APIRequestContext.upstreamSpender`):
    /// otherwise commands about made-up recipe ids would spend everyone's quota, one call each.
    func facts(of recipeId: RecipeID, spender: String) async throws -> RecipeFacts {
        Self.facts(of: try await recipe(recipeId, spender: spender))
    }

    /// How long the recipe says it takes, for a cooking timer started without minutes.
    func readyInMinutes(of recipeId: RecipeID, spender: String) async throws -> Int {
        guard let minutes = try await recipe(recipeId, spender: spender).readyInMinutes else {
            throw Problem(.minutesRequired, detail: "recipe \(recipeId) gives no time: send the timer's minutes")
        }
        return minutes
    }

    private func recipe(_ recipeId: RecipeID, spender: String) async throws -> Recipe {
        let response: FetchResponse
        do {
            response = try await recipes.fetch(.detail(id: recipeId.rawValue), client: spender)
        } catch let problem as Problem where [.api(.notFound), .api(.invalidQuery)].contains(problem.code) {
            throw Problem(Rejection(.unknownRecipe, "there is no recipe \(recipeId)"))
        }
        guard case .recipe(let recipe) = response.payload else { throw RecipeRoutes.wrongPayload }
        return recipe
    }

    /// Upstream data is not bound by the core's field rules: what would fail them is trimmed or
    /// left out here (an over-long title is shortened, an unusable image or ingredient dropped),
    /// so that a real recipe is never refused for its provider's formatting.
    static func facts(of recipe: Recipe) -> RecipeFacts {
        let cleanTitle = Validate.singleLine(recipe.title)
        let title = (try? Validate.title(cleanTitle)) ?? String(cleanTitle.unicodeScalars.prefix(Validate.maxTitleLength))
        var seen = Set<String>()
        let ingredients = recipe.ingredients.compactMap { try? Validate.ingredient(Validate.singleLine($0.name)) }
            .filter { seen.insert($0.lowercased()).inserted }
        return RecipeFacts(title: title, image: (try? Validate.imageURL(recipe.image)) ?? nil,
                           ingredients: Array(ingredients.prefix(RecipeFacts.maxIngredients)))
    }
}
