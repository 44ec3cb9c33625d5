/// What happened. Events are facts: once appended they are never changed, only read
/// (and, when their shape evolves, upcast; see `schemas/README.md`).
package enum Event: Sendable, Equatable {
    case userRegistered(UserRegistered)
    case recipeSaved(RecipeSaved)
    case savedRecipeRemoved(SavedRecipeRemoved)
    case groceryAdded(GroceryAdded)
    case groceryChecked(GroceryChecked)
    case groceryRemoved(GroceryRemoved)
    case pointEarned(PointEarned)
    case cartAdjusted(CartAdjusted)
    case cookingStarted(CookingStarted)
    case experienceWritten(ExperienceWritten)
    case recipeRecorded(RecipeRecorded)
    case passwordChanged(PasswordChanged)
    case userDeleted(UserDeleted)
    case sessionRevoked(SessionRevoked)
    case householdCreated(HouseholdCreated)
    case householdInviteCreated(HouseholdInviteCreated)
    case householdInviteRevoked(HouseholdInviteRevoked)
    case householdJoined(HouseholdJoined)
    case householdLeft(HouseholdLeft)
    case householdHandedOver(HouseholdHandedOver)
    case passwordResetRequested(PasswordResetRequested)

    package var userId: UserID {
        switch self {
        case .userRegistered(let e): e.userId
        case .recipeSaved(let e): e.userId
        case .savedRecipeRemoved(let e): e.userId
        case .groceryAdded(let e): e.userId
        case .groceryChecked(let e): e.userId
        case .groceryRemoved(let e): e.userId
        case .pointEarned(let e): e.userId
        case .cartAdjusted(let e): e.userId
        case .cookingStarted(let e): e.userId
        case .experienceWritten(let e): e.userId
        case .recipeRecorded(let e): e.userId
        case .passwordChanged(let e): e.userId
        case .userDeleted(let e): e.userId
        case .sessionRevoked(let e): e.userId
        case .householdCreated(let e): e.userId
        case .householdInviteCreated(let e): e.userId
        case .householdInviteRevoked(let e): e.userId
        case .householdJoined(let e): e.userId
        case .householdLeft(let e): e.userId
        case .householdHandedOver(let e): e.userId
        case .passwordResetRequested(let e): e.userId
        }
    }

    /// The household whose list or cart the event changes, or whose membership: nil for a
    /// person's own.
    package var householdId: HouseholdID? {
        switch self {
        case .groceryAdded(let e): e.household
        case .groceryChecked(let e): e.household
        case .groceryRemoved(let e): e.household
        case .cartAdjusted(let e): e.household
        case .cookingStarted: nil
        case .householdCreated(let e): e.householdId
        case .householdInviteCreated(let e): e.householdId
        case .householdInviteRevoked(let e): e.householdId
        case .householdJoined(let e): e.householdId
        case .householdLeft(let e): e.householdId
        case .householdHandedOver(let e): e.householdId
        case .userRegistered, .recipeSaved, .savedRecipeRemoved, .pointEarned, .experienceWritten, .recipeRecorded,
             .passwordChanged, .userDeleted, .sessionRevoked, .passwordResetRequested: nil
        }
    }
}

/// `account` is nil once the user's key has been destroyed: the event then only says that a user
/// with this id registered (an anonymous tombstone; `UserDeleted` follows it in the log).
package struct UserRegistered: Sendable, Equatable {
    package var userId: UserID
    package var account: AccountDetails?
    package init(userId: UserID, account: AccountDetails?) { self.userId = userId; self.account = account }
    package init(userId: UserID, username: String, email: String, passwordHash: String) {
        self.init(userId: userId, account: AccountDetails(username: username, email: email, passwordHash: passwordHash))
    }
}

/// The personal fields of an account. The log holds them only sealed with the user's own key.
package struct AccountDetails: Sendable, Equatable {
    package var username: String
    package var email: String
    /// A PHC-style string (`$scrypt$...`); never the password.
    package var passwordHash: String
    package init(username: String, email: String, passwordHash: String) {
        self.username = username; self.email = email; self.passwordHash = passwordHash
    }
}

/// `passwordHash` is nil once the user's key has been destroyed.
package struct PasswordChanged: Sendable, Equatable {
    package var userId: UserID
    package var passwordHash: String?
    package init(userId: UserID, passwordHash: String?) { self.userId = userId; self.passwordHash = passwordHash }
}

/// A session was logged out: its token (`tokenId`) is refused until it expires at `expiresAt`
/// (seconds since 1970), after which nobody needs to remember it.
package struct SessionRevoked: Sendable, Equatable {
    package var userId: UserID
    package var tokenId: String
    package var expiresAt: Int64
    package init(userId: UserID, tokenId: String, expiresAt: Int64) {
        self.userId = userId; self.tokenId = tokenId; self.expiresAt = expiresAt
    }
}

/// The account is closed: every read model forgets the user, and the user's key is destroyed.
package struct UserDeleted: Sendable, Equatable {
    package var userId: UserID
    package init(userId: UserID) { self.userId = userId }
}

/// A recipe's facts, recorded once, by the first command that needed them (in that user's stream).
package struct RecipeRecorded: Sendable, Equatable {
    package var userId: UserID
    package var recipeId: RecipeID
    package var title: String
    package var image: String?
    package var ingredients: [String]
    package init(userId: UserID, recipeId: RecipeID, facts: RecipeFacts) {
        self.userId = userId; self.recipeId = recipeId
        title = facts.title; image = facts.image; ingredients = facts.ingredients
    }
    package var facts: RecipeFacts { RecipeFacts(title: title, image: image, ingredients: ingredients) }
}

package struct RecipeSaved: Sendable, Equatable {
    package var userId: UserID
    package var recipeId: RecipeID
    package var title: String
    package var image: String?
    package init(userId: UserID, recipeId: RecipeID, title: String, image: String?) {
        self.userId = userId; self.recipeId = recipeId; self.title = title; self.image = image
    }
}

package struct SavedRecipeRemoved: Sendable, Equatable {
    package var userId: UserID
    package var recipeId: RecipeID
    package init(userId: UserID, recipeId: RecipeID) { self.userId = userId; self.recipeId = recipeId }
}

/// `item` is the normalised ingredient (the merge key); `ingredient` is the name as typed first.
/// `merged` says the item already existed, so readers add the amount to it. On a household's list
/// (`household`), `itemId` names the item in the clear: `item` is sealed under its author's key,
/// and the item must stay one item for everyone when that author is erased.
package struct GroceryAdded: Sendable, Equatable {
    package var userId: UserID
    package var item: String
    package var ingredient: String
    package var amount: Double?
    package var unit: String?
    package var recipeId: RecipeID?
    package var merged: Bool
    package var household: HouseholdID?
    package var itemId: String?
    package init(userId: UserID, item: String, ingredient: String, amount: Double?, unit: String?, recipeId: RecipeID?, merged: Bool,
                 household: HouseholdID? = nil, itemId: String? = nil) {
        self.userId = userId; self.item = item; self.ingredient = ingredient
        self.amount = amount; self.unit = unit; self.recipeId = recipeId; self.merged = merged
        self.household = household; self.itemId = itemId
    }
}

package struct GroceryChecked: Sendable, Equatable {
    package var userId: UserID
    package var item: String
    package var checked: Bool
    package var household: HouseholdID?
    package var itemId: String?
    package init(userId: UserID, item: String, checked: Bool, household: HouseholdID? = nil, itemId: String? = nil) {
        self.userId = userId; self.item = item; self.checked = checked; self.household = household; self.itemId = itemId
    }
}

package struct GroceryRemoved: Sendable, Equatable {
    package var userId: UserID
    package var item: String
    package var household: HouseholdID?
    package var itemId: String?
    package init(userId: UserID, item: String, household: HouseholdID? = nil, itemId: String? = nil) {
        self.userId = userId; self.item = item; self.household = household; self.itemId = itemId
    }
}

/// Worth exactly one point. `ingredient` is normalised, so " Olive  OIL" and "olive oil" are one.
package struct PointEarned: Sendable, Equatable {
    package var userId: UserID
    package var recipeId: RecipeID
    package var ingredient: String
    package init(userId: UserID, recipeId: RecipeID, ingredient: String) {
        self.userId = userId; self.recipeId = recipeId; self.ingredient = ingredient
    }
}

/// Carries the resulting `count` so a reader never has to trust its own arithmetic.
package struct CartAdjusted: Sendable, Equatable {
    package var userId: UserID
    package var recipeId: RecipeID
    package var title: String
    package var image: String?
    package var delta: Int
    package var count: Int
    /// The household whose shared cart it is; nil for the person's own.
    package var household: HouseholdID?
    package init(userId: UserID, recipeId: RecipeID, title: String, image: String?, delta: Int, count: Int, household: HouseholdID? = nil) {
        self.userId = userId; self.recipeId = recipeId; self.title = title; self.image = image
        self.delta = delta; self.count = count; self.household = household
    }
}

/// The person started cooking a recipe: a countdown that ends `minutes` after the event's
/// `recordedAt`. Version 3 carries the recipe's title and image (as a cart line does) and no
/// household: cooking is the cook's own. Versions 1 and 2 were started on a cart line, whose cart
/// `cartOwner` names (a household's, in version 2): a reader takes their title from that line.
package struct CookingStarted: Sendable, Equatable {
    package var userId: UserID
    package var recipeId: RecipeID
    package var minutes: Int
    /// Nil in versions 1 and 2 only.
    package var title: String?
    package var image: String?
    /// Versions 1 and 2 only: the household whose cart line the timer was started on.
    package var cartHousehold: HouseholdID?
    package init(userId: UserID, recipeId: RecipeID, minutes: Int, title: String?, image: String?, cartHousehold: HouseholdID? = nil) {
        self.userId = userId; self.recipeId = recipeId; self.minutes = minutes
        self.title = title; self.image = image; self.cartHousehold = cartHousehold
    }
}

/// `experienceId` is derived from the id of the command that wrote it. The author's name is not
/// copied here (it is personal data, kept only sealed); readers take it from `UserRegistered`.
package struct ExperienceWritten: Sendable, Equatable {
    package var experienceId: String
    package var userId: UserID
    package var recipeId: RecipeID
    package var text: String
    package init(experienceId: String, userId: UserID, recipeId: RecipeID, text: String) {
        self.experienceId = experienceId; self.userId = userId
        self.recipeId = recipeId; self.text = text
    }
}
