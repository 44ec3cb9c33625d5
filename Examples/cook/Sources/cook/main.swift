// Walks the seed apps' screens through PantryClient against a running deployment and prints what
// each screen would show:  swift run --package-path Examples/cook cook http://127.0.0.1:8080
import Foundation
import PantryClient

let arguments = CommandLine.arguments
guard arguments.count == 2, let baseURL = URL(string: arguments[1]) else {
    print("usage: cook API-URL")
    exit(2)
}
let client = PantryClient(baseURL: baseURL)

do {
    let username = "cook\(UInt32.random(in: 0...UInt32.max))"
    try await client.register(username: username, email: "\(username)@example.org", password: "correct horse battery")
    print("signed in as \(username)")

    let found = try await client.recipes(withIngredients: ["egg", "milk"], number: 5)
    print("\nWith egg and milk (\(found.value1.origin.rawValue)):")
    for summary in found.value2.payload.summaries {
        print("  \(summary.title), \(summary.missedIngredientCount ?? 0) missing")
    }
    guard let first = found.value2.payload.summaries.first else { exit(0) }

    let recipe = try await client.recipe(id: first.id)
    print("\n\(recipe.title): \(recipe.servings.map { "\($0) servings" } ?? "servings not given"), "
        + "\(recipe.readyInMinutes.map { "\($0) min" } ?? "time not given"), from \(recipe.sourceName)")
    for ingredient in recipe.ingredients.prefix(5) { print("  - \(ingredient.original)") }

    try await client.send(.saveFavourite(recipeId: recipe.id))
    print("\nFavourites: \(try await client.favourites().result.map(\.title))")

    try await client.send(.addGrocery(ingredient: recipe.ingredients[0].name, recipeId: recipe.id))
    try await client.send(.addGrocery(ingredient: "Tomatoes", amount: 500, unit: "g"))
    print("Groceries: \(try await client.groceries().result.map { "\($0.ingredient)\($0.checked ? " (checked)" : "")" })")

    try await client.send(.adjustCart(recipeId: recipe.id, delta: 1))
    print("Cart: \(try await client.cart().result.totals.items) item(s)")

    // Cooking is its own act, not the cart: while it runs, "I have this" earns a point.
    try await client.send(.startCooking(recipeId: recipe.id, minutes: 25))
    print("Cooking: \(try await client.cooking().result.map { "\($0.title), \($0.remainingSeconds) s left" })")

    try await client.send(.useOwnedIngredient(recipeId: recipe.id, ingredient: recipe.ingredients[0].name))
    let rank = try await client.myRank()
    print("Points: \(rank.points), rank \(rank.rank)")

    try await client.send(.writeExperience(recipeId: recipe.id, text: "Lovely with a little more salt."))
    print("Tips: \(try await client.experiences(recipeId: recipe.id).result.map(\.text))")

    let featured = try await client.featuredRecipe()
    let page = try await client.feed(count: 10)
    let more = try await client.feed(count: 10, cursor: page.value2.cursor)
    print("\nFeatured: \(featured.title); browse: \(page.value2.payload.recipes.count) then \(more.value2.payload.recipes.count) more")
    print("Top 10: \(try await client.leaderboard(top: 10).result.map { "\($0.rank). \($0.username) \($0.points)" })")
} catch {
    print("failed: \(error)")
    exit(1)
}
