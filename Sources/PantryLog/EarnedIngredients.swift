/// The ingredients one user earned a point for in one recipe, read from the log's point index
/// (`events_points`, the one the core asks for the one-point rule): what "I have this" would
/// answer `already_used` to. Read from the log rather than kept by the leaderboard worker, whose
/// row per point halved its replay (0.22 of the raw read, from 0.44).
package struct EarnedIngredients: Equatable, Sendable {
    /// The log's head when the read began: every point up to it is in `ingredients`.
    package var head: Int64
    /// Each `PointEarned.ingredient` (lowercase singular words) once, in byte order.
    package var ingredients: [String]

    package init(head: Int64, ingredients: [String]) { self.head = head; self.ingredients = ingredients }

    /// The most one read gives: a recipe has at most 200 ingredients, so only a log written
    /// before the one-point rule could hold more for one user and recipe.
    package static let limit = 1_000
}
