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
/// `merged` says the item already existed, so readers add the amount to it.
package struct GroceryAdded: Sendable, Equatable {
    package var userId: UserID
    package var item: String
    package var ingredient: String
    package var amount: Double?
    package var unit: String?
    package var recipeId: RecipeID?
    package var merged: Bool
    package init(userId: UserID, item: String, ingredient: String, amount: Double?, unit: String?, recipeId: RecipeID?, merged: Bool) {
        self.userId = userId; self.item = item; self.ingredient = ingredient
        self.amount = amount; self.unit = unit; self.recipeId = recipeId; self.merged = merged
    }
}

package struct GroceryChecked: Sendable, Equatable {
    package var userId: UserID
    package var item: String
    package var checked: Bool
    package init(userId: UserID, item: String, checked: Bool) { self.userId = userId; self.item = item; self.checked = checked }
}

package struct GroceryRemoved: Sendable, Equatable {
    package var userId: UserID
    package var item: String
    package init(userId: UserID, item: String) { self.userId = userId; self.item = item }
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
    package init(userId: UserID, recipeId: RecipeID, title: String, image: String?, delta: Int, count: Int) {
        self.userId = userId; self.recipeId = recipeId; self.title = title; self.image = image
        self.delta = delta; self.count = count
    }
}

/// A countdown started on a cart line; it ends `minutes` after the event's `recordedAt`.
package struct CookingStarted: Sendable, Equatable {
    package var userId: UserID
    package var recipeId: RecipeID
    package var minutes: Int
    package init(userId: UserID, recipeId: RecipeID, minutes: Int) {
        self.userId = userId; self.recipeId = recipeId; self.minutes = minutes
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
