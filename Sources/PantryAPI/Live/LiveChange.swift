import PantryDomain
import PantryJSON

/// One change a user may see on a live stream (`GET /v1/me/live`), rendered once for every stream
/// it goes to: its log position (the SSE `id`, the `Last-Event-ID` a resume names), whose it is,
/// and the `data` line (`schemas/openapi.yaml`, `LiveChange`).
struct LiveChange: Sendable {
    var position: Int64
    var userId: UserID
    var json: [UInt8]

    /// The event types a stream carries: what the app's screens show of the user's own (the
    /// grocery list, the cart and its timers, favourites, points).
    static let eventTypes: Set<EventType> = [
        .groceryAdded, .groceryChecked, .groceryRemoved, .cartAdjusted, .cookingStarted,
        .recipeSaved, .savedRecipeRemoved, .pointEarned,
    ]

    /// The change `event` makes, or nil for a type no stream carries. `points` is the user's total
    /// after a point, as the leaderboard stands at `position`.
    init?(_ event: Event, at position: Int64, points: Int? = nil) {
        var w = JSONObjectWriter()
        w.field("position", position)
        w.field("type", event.type.rawValue)
        switch event {
        case .groceryAdded(let e):
            w.field("item", e.item); w.field("ingredient", e.ingredient); w.field("amount", e.amount)
            w.field("unit", e.unit); w.field("recipeId", e.recipeId); w.field("merged", e.merged)
        case .groceryChecked(let e):
            w.field("item", e.item); w.field("checked", e.checked)
        case .groceryRemoved(let e):
            w.field("item", e.item)
        case .cartAdjusted(let e):
            w.field("recipeId", e.recipeId); w.field("title", e.title); w.field("image", e.image)
            w.field("delta", e.delta); w.field("count", e.count)
        case .cookingStarted(let e):
            w.field("recipeId", e.recipeId); w.field("minutes", e.minutes)
        case .recipeSaved(let e):
            w.field("recipeId", e.recipeId); w.field("title", e.title); w.field("image", e.image)
        case .savedRecipeRemoved(let e):
            w.field("recipeId", e.recipeId)
        case .pointEarned(let e):
            w.field("recipeId", e.recipeId); w.field("ingredient", e.ingredient)
            if let points { w.field("points", points) }
        case .userRegistered, .experienceWritten, .recipeRecorded, .passwordChanged, .userDeleted, .sessionRevoked:
            return nil
        }
        self.position = position
        userId = event.userId
        json = w.finish()
    }
}
