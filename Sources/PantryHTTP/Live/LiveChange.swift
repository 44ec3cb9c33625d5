import PantryDomain
import PantryJSON

/// One change a user may see on a live stream (`GET /v1/me/live`), rendered once for every stream
/// it goes to: its log position (the SSE `id`, the `Last-Event-ID` a resume names), whose it is,
/// and the `data` line (`schemas/openapi.yaml`, `LiveChange`).
package struct LiveChange: Sendable {
    var position: Int64
    /// Who made it: their words leave the window with them when they are deleted.
    var userId: UserID
    /// Whose streams carry it: the person's own, or every member of the household whose list, cart
    /// or membership it changes, as the household stood when it was applied.
    var audience: [UserID]
    var json: [UInt8]

    /// The event types a stream carries: what the app's screens show of the user's own and their
    /// household's (the grocery list, the cart, what they cook, favourites, points, who is in it).
    package static let eventTypes = Set<EventType>([
        .groceryAdded, .groceryChecked, .groceryRemoved, .cartAdjusted, .cookingStarted,
        .recipeSaved, .savedRecipeRemoved, .pointEarned,
    ]).union(HouseholdDirectory.householdTypes)

    /// The change `event` makes, or nil for a type no stream carries. `points` is the user's total
    /// after a point, as the leaderboard stands at `position`. `members` are the household's, for
    /// an event of a household.
    package init?(_ event: Event, at position: Int64, points: Int? = nil, members: [UserID] = []) {
        var w = JSONObjectWriter()
        w.field("position", position)
        w.field("type", event.type.rawValue)
        // Who made the change, so a screen can say so; and whose list it is.
        w.field("userId", event.userId)
        w.field("household", event.householdId)
        switch event {
        case .groceryAdded(let e):
            w.field("item", e.item); w.field("ingredient", e.ingredient); w.field("amount", e.amount)
            w.field("unit", e.unit); w.field("recipeId", e.recipeId); w.field("merged", e.merged); w.field("itemId", e.itemId)
        case .groceryChecked(let e):
            w.field("item", e.item); w.field("checked", e.checked); w.field("itemId", e.itemId)
        case .groceryRemoved(let e):
            w.field("item", e.item); w.field("itemId", e.itemId)
        case .householdCreated, .householdInviteCreated, .householdInviteRevoked:
            break
        case .householdJoined:
            break
        case .householdLeft(let e):
            w.field("removedBy", e.removedBy); w.field("dissolved", e.dissolved)
        case .householdHandedOver(let e):
            w.field("newOwner", e.newOwner)
        case .cartAdjusted(let e):
            w.field("recipeId", e.recipeId); w.field("title", e.title); w.field("image", e.image)
            w.field("delta", e.delta); w.field("count", e.count)
        case .cookingStarted(let e):
            w.field("recipeId", e.recipeId); w.field("minutes", e.minutes); w.field("title", e.title); w.field("image", e.image)
        case .recipeSaved(let e):
            w.field("recipeId", e.recipeId); w.field("title", e.title); w.field("image", e.image)
        case .savedRecipeRemoved(let e):
            w.field("recipeId", e.recipeId)
        case .pointEarned(let e):
            w.field("recipeId", e.recipeId); w.field("ingredient", e.ingredient)
            if let points { w.field("points", points) }
        case .userRegistered, .experienceWritten, .recipeRecorded, .passwordChanged, .userDeleted, .sessionRevoked, .passwordResetRequested:
            return nil
        }
        self.position = position
        userId = event.userId
        audience = event.householdId == nil ? [event.userId] : Array(Set(members + [event.userId]))
        json = w.finish()
    }
}
