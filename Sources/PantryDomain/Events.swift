/// What happened. Events are facts: once appended they are never changed, only read
/// (and, when their shape evolves, upcast; see `schemas/README.md`).
public enum Event: Sendable, Equatable {
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

    public var userId: UserID {
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
public struct UserRegistered: Sendable, Equatable {
    public var userId: UserID
    public var account: AccountDetails?
    public init(userId: UserID, account: AccountDetails?) { self.userId = userId; self.account = account }
    public init(userId: UserID, username: String, email: String, passwordHash: String) {
        self.init(userId: userId, account: AccountDetails(username: username, email: email, passwordHash: passwordHash))
    }
}

/// The personal fields of an account. The log holds them only sealed with the user's own key.
public struct AccountDetails: Sendable, Equatable {
    public var username: String
    public var email: String
    /// A PHC-style string (`$scrypt$...`); never the password.
    public var passwordHash: String
    public init(username: String, email: String, passwordHash: String) {
        self.username = username; self.email = email; self.passwordHash = passwordHash
    }
}

/// `passwordHash` is nil once the user's key has been destroyed.
public struct PasswordChanged: Sendable, Equatable {
    public var userId: UserID
    public var passwordHash: String?
    public init(userId: UserID, passwordHash: String?) { self.userId = userId; self.passwordHash = passwordHash }
}

/// A session was logged out: its token (`tokenId`) is refused until it expires at `expiresAt`
/// (seconds since 1970), after which nobody needs to remember it.
public struct SessionRevoked: Sendable, Equatable {
    public var userId: UserID
    public var tokenId: String
    public var expiresAt: Int64
    public init(userId: UserID, tokenId: String, expiresAt: Int64) {
        self.userId = userId; self.tokenId = tokenId; self.expiresAt = expiresAt
    }
}

/// The account is closed: every read model forgets the user, and the user's key is destroyed.
public struct UserDeleted: Sendable, Equatable {
    public var userId: UserID
    public init(userId: UserID) { self.userId = userId }
}

/// A recipe's facts, recorded once, by the first command that needed them (in that user's stream).
public struct RecipeRecorded: Sendable, Equatable {
    public var userId: UserID
    public var recipeId: RecipeID
    public var title: String
    public var image: String?
    public var ingredients: [String]
    public init(userId: UserID, recipeId: RecipeID, facts: RecipeFacts) {
        self.userId = userId; self.recipeId = recipeId
        title = facts.title; image = facts.image; ingredients = facts.ingredients
    }
    public var facts: RecipeFacts { RecipeFacts(title: title, image: image, ingredients: ingredients) }
}

public struct RecipeSaved: Sendable, Equatable {
    public var userId: UserID
    public var recipeId: RecipeID
    public var title: String
    public var image: String?
    public init(userId: UserID, recipeId: RecipeID, title: String, image: String?) {
        self.userId = userId; self.recipeId = recipeId; self.title = title; self.image = image
    }
}

public struct SavedRecipeRemoved: Sendable, Equatable {
    public var userId: UserID
    public var recipeId: RecipeID
    public init(userId: UserID, recipeId: RecipeID) { self.userId = userId; self.recipeId = recipeId }
}

/// `item` is the normalised ingredient (the merge key); `ingredient` is the name as typed first.
/// `merged` says the item already existed, so readers add the amount to it.
public struct GroceryAdded: Sendable, Equatable {
    public var userId: UserID
    public var item: String
    public var ingredient: String
    public var amount: Double?
    public var unit: String?
    public var recipeId: RecipeID?
    public var merged: Bool
    public init(userId: UserID, item: String, ingredient: String, amount: Double?, unit: String?, recipeId: RecipeID?, merged: Bool) {
        self.userId = userId; self.item = item; self.ingredient = ingredient
        self.amount = amount; self.unit = unit; self.recipeId = recipeId; self.merged = merged
    }
}

public struct GroceryChecked: Sendable, Equatable {
    public var userId: UserID
    public var item: String
    public var checked: Bool
    public init(userId: UserID, item: String, checked: Bool) { self.userId = userId; self.item = item; self.checked = checked }
}

public struct GroceryRemoved: Sendable, Equatable {
    public var userId: UserID
    public var item: String
    public init(userId: UserID, item: String) { self.userId = userId; self.item = item }
}

/// Worth exactly one point. `ingredient` is normalised, so " Olive  OIL" and "olive oil" are one.
public struct PointEarned: Sendable, Equatable {
    public var userId: UserID
    public var recipeId: RecipeID
    public var ingredient: String
    public init(userId: UserID, recipeId: RecipeID, ingredient: String) {
        self.userId = userId; self.recipeId = recipeId; self.ingredient = ingredient
    }
}

/// Carries the resulting `count` so a reader never has to trust its own arithmetic.
public struct CartAdjusted: Sendable, Equatable {
    public var userId: UserID
    public var recipeId: RecipeID
    public var title: String
    public var image: String?
    public var delta: Int
    public var count: Int
    public init(userId: UserID, recipeId: RecipeID, title: String, image: String?, delta: Int, count: Int) {
        self.userId = userId; self.recipeId = recipeId; self.title = title; self.image = image
        self.delta = delta; self.count = count
    }
}

/// A countdown started on a cart line; it ends `minutes` after the event's `recordedAt`.
public struct CookingStarted: Sendable, Equatable {
    public var userId: UserID
    public var recipeId: RecipeID
    public var minutes: Int
    public init(userId: UserID, recipeId: RecipeID, minutes: Int) {
        self.userId = userId; self.recipeId = recipeId; self.minutes = minutes
    }
}

/// `experienceId` is derived from the id of the command that wrote it. The author's name is not
/// copied here (it is personal data, kept only sealed); readers take it from `UserRegistered`.
public struct ExperienceWritten: Sendable, Equatable {
    public var experienceId: String
    public var userId: UserID
    public var recipeId: RecipeID
    public var text: String
    public init(experienceId: String, userId: UserID, recipeId: RecipeID, text: String) {
        self.experienceId = experienceId; self.userId = userId
        self.recipeId = recipeId; self.text = text
    }
}
