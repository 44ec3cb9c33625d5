import Foundation

/// A change a user makes, as a value: what `PantryClient.send` sends and what `OfflineQueue`
/// keeps in its file until it can be sent.
public enum PantryCommand: Codable, Sendable, Hashable {
    case saveFavourite(recipeId: String)
    case removeFavourite(recipeId: String)
    /// From a recipe (its id) or by hand; the same ingredient merges.
    case addGrocery(ingredient: String, amount: Double? = nil, unit: String? = nil, recipeId: String? = nil)
    case checkGrocery(item: String, checked: Bool)
    case removeGrocery(item: String)
    /// The cart stepper: +n or -n (never 0); a line's count stays within 0 to 99.
    case adjustCart(recipeId: String, delta: Int)
    /// "Start cooking" a recipe: a countdown (without minutes, the recipe's ready time) while which,
    /// and an hour after, "I have this" earns points. It needs no cart line.
    case startCooking(recipeId: String, minutes: Int? = nil)
    /// One point per (recipe, ingredient) the user already owns, while the recipe is cooking.
    case useOwnedIngredient(recipeId: String, ingredient: String)
    case writeExperience(recipeId: String, text: String)
}

/// A command the log holds: the positions it was written at. `position` is what a read passes
/// as `after` to show it (the client does so by default).
public struct Accepted: Sendable, Hashable {
    public let position: Int64
    public let positions: [Int64]
    /// The server had applied this command already (a retry with the same Idempotency-Key) and
    /// answered its first outcome again.
    public let replayed: Bool
}
