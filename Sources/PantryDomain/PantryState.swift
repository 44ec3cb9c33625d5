/// Everything `decide` needs to know, and nothing more. Built only by `evolve`.
public struct PantryState: Sendable, Equatable {
    public struct User: Sendable, Equatable {
        /// Nil for a user whose key was destroyed: only a deletion can follow.
        public var account: AccountDetails?
    }

    public struct UsedIngredient: Hashable, Sendable {
        public var recipeId: RecipeID
        public var ingredient: String
    }

    public private(set) var users: [UserID: User] = [:]
    /// Ids of closed accounts: never reused, and no command acts for them.
    public private(set) var deletedUsers: Set<UserID> = []
    /// Username skeleton (`Username.skeleton`) / lower-cased email to user: both are unique, the
    /// username also against look-alikes.
    public private(set) var usernames: [String: UserID] = [:]
    public private(set) var emails: [String: UserID] = [:]
    /// Per user, like the rest: one set for every point ever earned would grow without bound, and
    /// each time it doubled its rehash stalled the writer (60 ms at 196,608 points).
    public private(set) var usedIngredients: [UserID: Set<UsedIngredient>] = [:]
    public private(set) var savedRecipes: [UserID: Set<RecipeID>] = [:]
    /// Per user: grocery item key to its checked state.
    public private(set) var groceries: [UserID: [String: Bool]] = [:]
    public private(set) var carts: [UserID: [RecipeID: Int]] = [:]
    /// Every recipe a command has used, with the facts recorded for it.
    public private(set) var recipes: [RecipeID: KnownRecipe] = [:]

    public init() {}

    mutating func apply(_ event: Event) {
        switch event {
        case .userRegistered(let e):
            users[e.userId] = User(account: e.account)
            if let account = e.account {
                usernames[Username.skeleton(account.username)] = e.userId
                emails[account.email.lowercased()] = e.userId
            }
        case .passwordChanged(let e):
            users[e.userId]?.account?.passwordHash = e.passwordHash ?? ""
        case .userDeleted(let e):
            if let account = users.removeValue(forKey: e.userId)?.account {
                usernames[Username.skeleton(account.username)] = nil
                emails[account.email.lowercased()] = nil
            }
            deletedUsers.insert(e.userId)
            usedIngredients[e.userId] = nil
            savedRecipes[e.userId] = nil
            groceries[e.userId] = nil
            carts[e.userId] = nil
        case .recipeRecorded(let e):
            recipes[e.recipeId] = KnownRecipe(e.facts)
        case .recipeSaved(let e):
            savedRecipes[e.userId, default: []].insert(e.recipeId)
        case .savedRecipeRemoved(let e):
            savedRecipes[e.userId]?.remove(e.recipeId)
        case .groceryAdded(let e):
            // Adding an item again means more is needed, so it is unchecked.
            groceries[e.userId, default: [:]][e.item] = false
        case .groceryChecked(let e):
            groceries[e.userId, default: [:]][e.item] = e.checked
        case .groceryRemoved(let e):
            groceries[e.userId]?[e.item] = nil
        case .pointEarned(let e):
            usedIngredients[e.userId, default: []].insert(UsedIngredient(recipeId: e.recipeId, ingredient: e.ingredient))
        case .cartAdjusted(let e):
            carts[e.userId, default: [:]][e.recipeId] = e.count == 0 ? nil : e.count
        case .experienceWritten:
            break // no rule depends on earlier experiences
        }
    }
}
