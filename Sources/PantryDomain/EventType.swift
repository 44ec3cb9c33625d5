/// An event's type, as the log's `type` column and the feed's topic spell it. The raw values are
/// stored in every log ever written, so a case is never renamed; the log and the feed keep
/// carrying strings, and a reader meets types added after it was built (`EventType(rawValue:)` nil).
package enum EventType: String, CaseIterable, Sendable {
    case userRegistered = "UserRegistered"
    case recipeSaved = "RecipeSaved"
    case savedRecipeRemoved = "SavedRecipeRemoved"
    case groceryAdded = "GroceryAdded"
    case groceryChecked = "GroceryChecked"
    case groceryRemoved = "GroceryRemoved"
    case pointEarned = "PointEarned"
    case cartAdjusted = "CartAdjusted"
    case cookingStarted = "CookingStarted"
    case experienceWritten = "ExperienceWritten"
    case recipeRecorded = "RecipeRecorded"
    case passwordChanged = "PasswordChanged"
    case userDeleted = "UserDeleted"
    case sessionRevoked = "SessionRevoked"
    case householdCreated = "HouseholdCreated"
    case householdInviteCreated = "HouseholdInviteCreated"
    case householdInviteRevoked = "HouseholdInviteRevoked"
    case householdJoined = "HouseholdJoined"
    case householdLeft = "HouseholdLeft"
    case householdHandedOver = "HouseholdHandedOver"
    case passwordResetRequested = "PasswordResetRequested"

    /// The version written today: 2 for those whose personal fields moved under a seal
    /// (`UserRegistered`, the grocery events) or out of the event (`ExperienceWritten`), 3 for the
    /// tip whose text then moved under the seal too, and for the grocery events that can name a
    /// household's list (`household`, `itemId`), and for `CookingStarted`, the cook's own apart from
    /// the cart; 2 for the cart's event, which can name a household's too; 1 for the rest.
    /// A reader built before households refuses those versions rather than put a household's item
    /// on a person's own list.
    package var schemaVersion: Int {
        switch self {
        case .experienceWritten, .groceryAdded, .groceryChecked, .groceryRemoved, .cookingStarted: 3
        case .userRegistered, .cartAdjusted: 2
        case .recipeSaved, .savedRecipeRemoved, .pointEarned, .recipeRecorded,
             .passwordChanged, .userDeleted, .sessionRevoked, .householdCreated, .householdInviteCreated,
             .householdInviteRevoked, .householdJoined, .householdLeft, .householdHandedOver, .passwordResetRequested: 1
        }
    }

    /// The first version that seals the personal fields; earlier ones hold them in the clear.
    package var sealedSince: Int? {
        switch self {
        case .userRegistered, .groceryAdded, .groceryChecked, .groceryRemoved: 2
        case .passwordChanged: 1
        case .experienceWritten: 3
        case .recipeSaved, .savedRecipeRemoved, .pointEarned, .cartAdjusted, .cookingStarted, .recipeRecorded,
             .userDeleted, .sessionRevoked, .householdCreated, .householdInviteCreated, .householdInviteRevoked,
             .householdJoined, .householdLeft, .householdHandedOver, .passwordResetRequested: nil
        }
    }

    /// The payload holds sealed personal fields: only a reader with the vault decodes it. Points,
    /// carts and favourites carry no text of the person's own, and stay in the clear (and fast).
    package var isSealed: Bool { sealedSince != nil }
}

extension Event {
    package var type: EventType {
        switch self {
        case .userRegistered: .userRegistered
        case .recipeSaved: .recipeSaved
        case .savedRecipeRemoved: .savedRecipeRemoved
        case .groceryAdded: .groceryAdded
        case .groceryChecked: .groceryChecked
        case .groceryRemoved: .groceryRemoved
        case .pointEarned: .pointEarned
        case .cartAdjusted: .cartAdjusted
        case .cookingStarted: .cookingStarted
        case .experienceWritten: .experienceWritten
        case .recipeRecorded: .recipeRecorded
        case .passwordChanged: .passwordChanged
        case .userDeleted: .userDeleted
        case .sessionRevoked: .sessionRevoked
        case .householdCreated: .householdCreated
        case .householdInviteCreated: .householdInviteCreated
        case .householdInviteRevoked: .householdInviteRevoked
        case .householdJoined: .householdJoined
        case .householdLeft: .householdLeft
        case .householdHandedOver: .householdHandedOver
        case .passwordResetRequested: .passwordResetRequested
        }
    }
}

extension Set<EventType> {
    /// The types as the log and the feed name them (what a log read or a subscription takes).
    package var names: Set<String> { Set<String>(map(\.rawValue)) }
}
