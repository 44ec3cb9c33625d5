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
    case experienceWritten(ExperienceWritten)

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
        case .experienceWritten(let e): e.userId
        }
    }
}

public struct UserRegistered: Sendable, Equatable {
    public var userId: UserID
    public var username: String
    public var email: String
    /// A PHC-style string (`$scrypt$...`); never the password.
    public var passwordHash: String
    public init(userId: UserID, username: String, email: String, passwordHash: String) {
        self.userId = userId; self.username = username; self.email = email; self.passwordHash = passwordHash
    }
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

/// `experienceId` is the id of the command that wrote it; `username` is copied because usernames never change.
public struct ExperienceWritten: Sendable, Equatable {
    public var experienceId: String
    public var userId: UserID
    public var username: String
    public var recipeId: RecipeID
    public var text: String
    public init(experienceId: String, userId: UserID, username: String, recipeId: RecipeID, text: String) {
        self.experienceId = experienceId; self.userId = userId; self.username = username
        self.recipeId = recipeId; self.text = text
    }
}
