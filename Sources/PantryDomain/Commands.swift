/// What a user asks for. Each case is validated and decided into events or a rejection.
package enum Command: Sendable, Equatable {
    case registerUser(RegisterUser)
    case saveRecipe(SaveRecipe)
    case removeSavedRecipe(RemoveSavedRecipe)
    case addGrocery(AddGrocery)
    case checkGrocery(CheckGrocery)
    case removeGrocery(RemoveGrocery)
    case useOwnedIngredient(UseOwnedIngredient)
    case adjustCart(AdjustCart)
    case startCooking(StartCooking)
    case writeExperience(WriteExperience)
    case changePassword(ChangePassword)
    case deleteUser(DeleteUser)
    case revokeSession(RevokeSession)
    case createHousehold(CreateHousehold)
    case inviteToHousehold(InviteToHousehold)
    case revokeHouseholdInvite(RevokeHouseholdInvite)
    case joinHousehold(JoinHousehold)
    case leaveHousehold(LeaveHousehold)
    case removeHouseholdMember(RemoveHouseholdMember)
    case handOverHousehold(HandOverHousehold)
    case requestPasswordReset(RequestPasswordReset)
    case resetPassword(ResetPassword)

    /// The wire name, also the name of the command's JSON Schema file.
    package var typeName: String {
        switch self {
        case .registerUser: "RegisterUser"
        case .saveRecipe: "SaveRecipe"
        case .removeSavedRecipe: "RemoveSavedRecipe"
        case .addGrocery: "AddGrocery"
        case .checkGrocery: "CheckGrocery"
        case .removeGrocery: "RemoveGrocery"
        case .useOwnedIngredient: "UseOwnedIngredient"
        case .adjustCart: "AdjustCart"
        case .startCooking: "StartCooking"
        case .writeExperience: "WriteExperience"
        case .changePassword: "ChangePassword"
        case .deleteUser: "DeleteUser"
        case .revokeSession: "RevokeSession"
        case .createHousehold: "CreateHousehold"
        case .inviteToHousehold: "InviteToHousehold"
        case .revokeHouseholdInvite: "RevokeHouseholdInvite"
        case .joinHousehold: "JoinHousehold"
        case .leaveHousehold: "LeaveHousehold"
        case .removeHouseholdMember: "RemoveHouseholdMember"
        case .handOverHousehold: "HandOverHousehold"
        case .requestPasswordReset: "RequestPasswordReset"
        case .resetPassword: "ResetPassword"
        }
    }

    /// The user the command acts for; every command names one.
    package var userId: UserID {
        switch self {
        case .registerUser(let c): c.userId
        case .saveRecipe(let c): c.userId
        case .removeSavedRecipe(let c): c.userId
        case .addGrocery(let c): c.userId
        case .checkGrocery(let c): c.userId
        case .removeGrocery(let c): c.userId
        case .useOwnedIngredient(let c): c.userId
        case .adjustCart(let c): c.userId
        case .startCooking(let c): c.userId
        case .writeExperience(let c): c.userId
        case .changePassword(let c): c.userId
        case .deleteUser(let c): c.userId
        case .revokeSession(let c): c.userId
        case .createHousehold(let c): c.userId
        case .inviteToHousehold(let c): c.userId
        case .revokeHouseholdInvite(let c): c.userId
        case .joinHousehold(let c): c.userId
        case .leaveHousehold(let c): c.userId
        case .removeHouseholdMember(let c): c.userId
        case .handOverHousehold(let c): c.userId
        case .requestPasswordReset(let c): c.userId
        case .resetPassword(let c): c.userId
        }
    }
}

/// A command's `data`. `Fields` names its stored properties (a test holds them to each other):
/// `CommandCoding.decode` refuses any other field, so a misspelt `delat` never turns into a default.
protocol CommandPayload {
    associatedtype Fields: CaseIterable & RawRepresentable<String>
}

/// Creates an account. The password is hashed by the adapter; only the hash ever reaches the log.
package struct RegisterUser: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var username: String
    package var email: String
    package var passwordHash: String
    enum Fields: String, CaseIterable { case userId, username, email, passwordHash }
    package init(userId: UserID, username: String, email: String, passwordHash: String) {
        self.userId = userId; self.username = username; self.email = email; self.passwordHash = passwordHash
    }
}

/// Saves a favourite. Title and image come from the recipe (`recipe`, or the facts the log already
/// holds), never from the client.
package struct SaveRecipe: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var recipeId: RecipeID
    package var recipe: RecipeFacts?
    enum Fields: String, CaseIterable { case userId, recipeId, recipe }
    package init(userId: UserID, recipeId: RecipeID, recipe: RecipeFacts? = nil) {
        self.userId = userId; self.recipeId = recipeId; self.recipe = recipe
    }
}

package struct RemoveSavedRecipe: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var recipeId: RecipeID
    enum Fields: String, CaseIterable { case userId, recipeId }
    package init(userId: UserID, recipeId: RecipeID) { self.userId = userId; self.recipeId = recipeId }
}

/// Adds an ingredient from a recipe (with `recipeId`) or by hand; the same ingredient merges.
package struct AddGrocery: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var ingredient: String
    package var amount: Double?
    package var unit: String?
    package var recipeId: RecipeID?
    enum Fields: String, CaseIterable { case userId, ingredient, amount, unit, recipeId }
    package init(userId: UserID, ingredient: String, amount: Double? = nil, unit: String? = nil, recipeId: RecipeID? = nil) {
        self.userId = userId; self.ingredient = ingredient; self.amount = amount; self.unit = unit; self.recipeId = recipeId
    }
}

package struct CheckGrocery: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var ingredient: String
    package var checked: Bool
    enum Fields: String, CaseIterable { case userId, ingredient, checked }
    package init(userId: UserID, ingredient: String, checked: Bool) {
        self.userId = userId; self.ingredient = ingredient; self.checked = checked
    }
}

package struct RemoveGrocery: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var ingredient: String
    enum Fields: String, CaseIterable { case userId, ingredient }
    package init(userId: UserID, ingredient: String) { self.userId = userId; self.ingredient = ingredient }
}

/// "I already have this at home": one point per (user, recipe, ingredient), ever, and only for an
/// ingredient of the recipe. `recipe` carries the recipe's facts when the log does not hold them yet.
package struct UseOwnedIngredient: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var recipeId: RecipeID
    package var ingredient: String
    package var recipe: RecipeFacts?
    enum Fields: String, CaseIterable { case userId, recipeId, ingredient, recipe }
    package init(userId: UserID, recipeId: RecipeID, ingredient: String, recipe: RecipeFacts? = nil) {
        self.userId = userId; self.recipeId = recipeId; self.ingredient = ingredient; self.recipe = recipe
    }
}

/// The cart stepper: `delta` is +n or -n; the count per recipe stays within 0...99. The line's
/// title and image are the recipe's.
package struct AdjustCart: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var recipeId: RecipeID
    package var delta: Int
    package var recipe: RecipeFacts?
    enum Fields: String, CaseIterable { case userId, recipeId, delta, recipe }
    package init(userId: UserID, recipeId: RecipeID, delta: Int, recipe: RecipeFacts? = nil) {
        self.userId = userId; self.recipeId = recipeId; self.delta = delta; self.recipe = recipe
    }
}

/// Seed 002's "start recipe": the cook starts cooking a recipe, a countdown of `minutes` (1-1440)
/// from the moment the event is recorded; starting again restarts it. It needs no cart line:
/// cooking is its own act, and while it lasts (and an hour after) "I have this" earns points. The
/// adapter fills `minutes` from the recipe's ready time when the user gives none, and `recipe`
/// the first time the log meets the recipe (as for `AdjustCart`).
package struct StartCooking: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var recipeId: RecipeID
    package var minutes: Int
    package var recipe: RecipeFacts?
    enum Fields: String, CaseIterable { case userId, recipeId, minutes, recipe }
    package init(userId: UserID, recipeId: RecipeID, minutes: Int, recipe: RecipeFacts? = nil) {
        self.userId = userId; self.recipeId = recipeId; self.minutes = minutes; self.recipe = recipe
    }
}

/// A tip or review on a recipe.
package struct WriteExperience: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var recipeId: RecipeID
    package var text: String
    enum Fields: String, CaseIterable { case userId, recipeId, text }
    package init(userId: UserID, recipeId: RecipeID, text: String) {
        self.userId = userId; self.recipeId = recipeId; self.text = text
    }
}

/// A new password, hashed by the adapter like the first one.
package struct ChangePassword: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var passwordHash: String
    enum Fields: String, CaseIterable { case userId, passwordHash }
    package init(userId: UserID, passwordHash: String) { self.userId = userId; self.passwordHash = passwordHash }
}

/// Closes the account for good. The adapter checks the password first; the core then destroys the
/// user's key, which leaves the personal fields in the log unreadable.
package struct DeleteUser: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    enum Fields: String, CaseIterable { case userId }
    package init(userId: UserID) { self.userId = userId }
}

/// Logs a session out: its token is refused by every API process from then until it expires.
/// The API sends it with the token's own id and expiry (seconds since 1970).
package struct RevokeSession: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var tokenId: String
    package var expiresAt: Int64
    enum Fields: String, CaseIterable { case userId, tokenId, expiresAt }
    package init(userId: UserID, tokenId: String, expiresAt: Int64) {
        self.userId = userId; self.tokenId = tokenId; self.expiresAt = expiresAt
    }
}
