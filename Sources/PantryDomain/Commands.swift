/// What a user asks for. Each case is validated and decided into events or a rejection.
public enum Command: Sendable, Equatable {
    case registerUser(RegisterUser)
    case saveRecipe(SaveRecipe)
    case removeSavedRecipe(RemoveSavedRecipe)
    case addGrocery(AddGrocery)
    case checkGrocery(CheckGrocery)
    case removeGrocery(RemoveGrocery)
    case useOwnedIngredient(UseOwnedIngredient)
    case adjustCart(AdjustCart)
    case writeExperience(WriteExperience)

    /// The wire name, also the name of the command's JSON Schema file.
    public var typeName: String {
        switch self {
        case .registerUser: "RegisterUser"
        case .saveRecipe: "SaveRecipe"
        case .removeSavedRecipe: "RemoveSavedRecipe"
        case .addGrocery: "AddGrocery"
        case .checkGrocery: "CheckGrocery"
        case .removeGrocery: "RemoveGrocery"
        case .useOwnedIngredient: "UseOwnedIngredient"
        case .adjustCart: "AdjustCart"
        case .writeExperience: "WriteExperience"
        }
    }

    /// The user the command acts for; every command names one.
    public var userId: UserID {
        switch self {
        case .registerUser(let c): c.userId
        case .saveRecipe(let c): c.userId
        case .removeSavedRecipe(let c): c.userId
        case .addGrocery(let c): c.userId
        case .checkGrocery(let c): c.userId
        case .removeGrocery(let c): c.userId
        case .useOwnedIngredient(let c): c.userId
        case .adjustCart(let c): c.userId
        case .writeExperience(let c): c.userId
        }
    }
}

/// A command's `data`. `Fields` names its stored properties (a test holds them to each other):
/// `CommandCoding.decode` refuses any other field, so a misspelt `delat` never turns into a default.
protocol CommandPayload {
    associatedtype Fields: CaseIterable & RawRepresentable<String>
}

/// Creates an account. The password is hashed by the adapter; only the hash ever reaches the log.
public struct RegisterUser: Sendable, Equatable, CommandPayload {
    public var userId: UserID
    public var username: String
    public var email: String
    public var passwordHash: String
    enum Fields: String, CaseIterable { case userId, username, email, passwordHash }
    public init(userId: UserID, username: String, email: String, passwordHash: String) {
        self.userId = userId; self.username = username; self.email = email; self.passwordHash = passwordHash
    }
}

public struct SaveRecipe: Sendable, Equatable, CommandPayload {
    public var userId: UserID
    public var recipeId: RecipeID
    public var title: String
    public var image: String?
    enum Fields: String, CaseIterable { case userId, recipeId, title, image }
    public init(userId: UserID, recipeId: RecipeID, title: String, image: String? = nil) {
        self.userId = userId; self.recipeId = recipeId; self.title = title; self.image = image
    }
}

public struct RemoveSavedRecipe: Sendable, Equatable, CommandPayload {
    public var userId: UserID
    public var recipeId: RecipeID
    enum Fields: String, CaseIterable { case userId, recipeId }
    public init(userId: UserID, recipeId: RecipeID) { self.userId = userId; self.recipeId = recipeId }
}

/// Adds an ingredient from a recipe (with `recipeId`) or by hand; the same ingredient merges.
public struct AddGrocery: Sendable, Equatable, CommandPayload {
    public var userId: UserID
    public var ingredient: String
    public var amount: Double?
    public var unit: String?
    public var recipeId: RecipeID?
    enum Fields: String, CaseIterable { case userId, ingredient, amount, unit, recipeId }
    public init(userId: UserID, ingredient: String, amount: Double? = nil, unit: String? = nil, recipeId: RecipeID? = nil) {
        self.userId = userId; self.ingredient = ingredient; self.amount = amount; self.unit = unit; self.recipeId = recipeId
    }
}

public struct CheckGrocery: Sendable, Equatable, CommandPayload {
    public var userId: UserID
    public var ingredient: String
    public var checked: Bool
    enum Fields: String, CaseIterable { case userId, ingredient, checked }
    public init(userId: UserID, ingredient: String, checked: Bool) {
        self.userId = userId; self.ingredient = ingredient; self.checked = checked
    }
}

public struct RemoveGrocery: Sendable, Equatable, CommandPayload {
    public var userId: UserID
    public var ingredient: String
    enum Fields: String, CaseIterable { case userId, ingredient }
    public init(userId: UserID, ingredient: String) { self.userId = userId; self.ingredient = ingredient }
}

/// "I already have this at home": one point per (user, recipe, ingredient), ever.
public struct UseOwnedIngredient: Sendable, Equatable, CommandPayload {
    public var userId: UserID
    public var recipeId: RecipeID
    public var ingredient: String
    enum Fields: String, CaseIterable { case userId, recipeId, ingredient }
    public init(userId: UserID, recipeId: RecipeID, ingredient: String) {
        self.userId = userId; self.recipeId = recipeId; self.ingredient = ingredient
    }
}

/// The cart stepper: `delta` is +n or -n; the count per recipe stays within 0...99.
public struct AdjustCart: Sendable, Equatable, CommandPayload {
    public var userId: UserID
    public var recipeId: RecipeID
    public var title: String
    public var image: String?
    public var delta: Int
    enum Fields: String, CaseIterable { case userId, recipeId, title, image, delta }
    public init(userId: UserID, recipeId: RecipeID, title: String, image: String? = nil, delta: Int) {
        self.userId = userId; self.recipeId = recipeId; self.title = title; self.image = image; self.delta = delta
    }
}

/// A tip or review on a recipe.
public struct WriteExperience: Sendable, Equatable, CommandPayload {
    public var userId: UserID
    public var recipeId: RecipeID
    public var text: String
    enum Fields: String, CaseIterable { case userId, recipeId, text }
    public init(userId: UserID, recipeId: RecipeID, text: String) {
        self.userId = userId; self.recipeId = recipeId; self.text = text
    }
}
