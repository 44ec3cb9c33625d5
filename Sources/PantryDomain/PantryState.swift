/// Everything `decide` needs to know, and nothing more. Built only by `evolve`.
public struct PantryState: Sendable, Equatable {
    public struct User: Sendable, Equatable {
        /// Nil for a user whose key was destroyed: only a deletion can follow.
        public var account: AccountDetails?
    }

    public struct UsedIngredient: Hashable, Sendable {
        public var recipeId: RecipeID
        public var ingredient: String

        public init(recipeId: RecipeID, ingredient: String) {
            self.recipeId = recipeId; self.ingredient = ingredient
        }
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

    /// Everything but the accounts: what a snapshot of the state keeps. The accounts stay only in
    /// the log, sealed, so a snapshot holds no personal data and a destroyed key still erases it.
    public struct Holdings: Sendable, Equatable {
        public var deletedUsers: Set<UserID>
        public var usedIngredients: [UserID: Set<UsedIngredient>]
        public var savedRecipes: [UserID: Set<RecipeID>]
        public var groceries: [UserID: [String: Bool]]
        public var carts: [UserID: [RecipeID: Int]]
        public var recipes: [RecipeID: RecipeFacts]

        public init(deletedUsers: Set<UserID>, usedIngredients: [UserID: Set<UsedIngredient>],
                    savedRecipes: [UserID: Set<RecipeID>], groceries: [UserID: [String: Bool]],
                    carts: [UserID: [RecipeID: Int]], recipes: [RecipeID: RecipeFacts]) {
            self.deletedUsers = deletedUsers; self.usedIngredients = usedIngredients
            self.savedRecipes = savedRecipes; self.groceries = groceries; self.carts = carts; self.recipes = recipes
        }
    }

    /// Raised whenever `evolve` would build a different state from the same events: a snapshot
    /// of another version is not trusted, and the state is folded from the log instead.
    public static let holdingsVersion = 1

    public var holdings: Holdings {
        Holdings(deletedUsers: deletedUsers, usedIngredients: usedIngredients, savedRecipes: savedRecipes,
                 groceries: groceries, carts: carts, recipes: recipes.mapValues(\.facts))
    }

    /// A state with `holdings` and no accounts yet: the accounts' events (`UserRegistered`,
    /// `PasswordChanged`) are evolved into it afterwards.
    public init(restoring holdings: Holdings) {
        deletedUsers = holdings.deletedUsers
        usedIngredients = holdings.usedIngredients
        savedRecipes = holdings.savedRecipes
        groceries = holdings.groceries
        carts = holdings.carts
        recipes = holdings.recipes.mapValues(KnownRecipe.init)
    }

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
