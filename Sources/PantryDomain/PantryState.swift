/// Everything `decide` needs to know, and nothing more. Built only by `evolve`.
package struct PantryState: Sendable, Equatable {
    /// What the rules know of an account: that it exists, and its username's and email's keyed
    /// digests (`NameKey`), which keep both unique. The account itself (names, password hash) stays
    /// in the log, sealed: no rule reads it.
    package struct User: Sendable, Equatable {
        /// Nil for a user whose key was destroyed: only a deletion can follow.
        package var names: Names?

        package init(names: Names?) { self.names = names }
    }

    package struct Names: Sendable, Equatable {
        package var username: NameDigest
        package var email: NameDigest

        package init(username: NameDigest, email: NameDigest) { self.username = username; self.email = email }
    }

    package struct UsedIngredient: Hashable, Sendable {
        package var recipeId: RecipeID
        package var ingredient: String

        package init(recipeId: RecipeID, ingredient: String) {
            self.recipeId = recipeId; self.ingredient = ingredient
        }
    }

    package private(set) var users: [UserID: User] = [:]
    /// Ids of closed accounts: never reused, and no command acts for them.
    package private(set) var deletedUsers: Set<UserID> = []
    /// Username skeleton (`Username.skeleton`) / lower-cased email, as keyed digests
    /// (`NameKey.username`, `.email`): both are unique, the username also against look-alikes.
    package private(set) var usernames = NameIndex()
    package private(set) var emails = NameIndex()
    /// Per user, each point earned as its recipe's number and the ingredient's index in that
    /// recipe, in 8 bytes (two strings took about 50: a soak's 742,170 points grew the core by
    /// tens of MB). Per user, like the rest: one set for every point ever earned would grow
    /// without bound, and each time it doubled its rehash stalled the writer (60 ms at 196,608).
    package private(set) var earnedPoints: [UserID: Set<UInt64>] = [:]
    /// Points for recipes the log never recorded (logs written before recipes were), by name.
    package private(set) var unrecordedPoints: [UserID: Set<UsedIngredient>] = [:]
    package private(set) var savedRecipes: [UserID: Set<RecipeID>] = [:]
    /// Per user: grocery item key to its checked state.
    package private(set) var groceries: [UserID: [String: Bool]] = [:]
    package private(set) var carts: [UserID: [RecipeID: Int]] = [:]
    /// Per user, how many experiences they wrote on each recipe (`Decider.maxExperiencesPerRecipe`).
    package private(set) var experiences: [UserID: [RecipeID: Int]] = [:]
    /// Every recipe a command has used, with the facts recorded for it.
    package private(set) var recipes: [RecipeID: KnownRecipe] = [:]
    /// Recipe ids in the order they were recorded: a recipe's number is its index here.
    package private(set) var recipeOrder: [RecipeID] = []
    /// Per user, the recipes they are cooking, with when its points stop counting (ms since 1970):
    /// a point needs its recipe cooking. Timers past that are dropped when the person starts
    /// another, so this holds at most `Decider.maxCooking` per user.
    package private(set) var cooking: [UserID: [RecipeID: Int64]] = [:]
    /// Per user, `due` of their points' and their tips' `Pace` (ms since 1970).
    package private(set) var pointsDue: [UserID: Int64] = [:]
    package private(set) var tipsDue: [UserID: Int64] = [:]
    /// The revoked sessions' token ids by the hour their token expires (seconds / 3600): looked up
    /// by the revocation's own expiry, and an hour's ids forgotten once it is over, so a pass over
    /// the hours (25 for the default 24 h tokens) is all a revocation costs.
    package private(set) var revokedTokens: [Int64: Set<String>] = [:]
    /// The households, their members' households, and the open invites' codes (SHA-256 digests)
    /// to their households. Kept whole (not per user like the rest): a member's command needs the
    /// household's list and cart, which the other members wrote.
    package internal(set) var households: [HouseholdID: Household] = [:]
    package internal(set) var householdOf: [UserID: HouseholdID] = [:]
    package internal(set) var inviteCodes: [String: HouseholdID] = [:]
    /// Per person, how many items they added are on each household's list: where their deletion
    /// erases them, without a pass over every household.
    package internal(set) var authoredIn: [UserID: [HouseholdID: Int]] = [:]
    /// Per person, their latest password reset link (its token's digest), for a day after it expires.
    package internal(set) var passwordResets: [UserID: PendingPasswordReset] = [:]
    /// The paces `decide` enforces and `evolve` keeps `pointsDue` and `tipsDue` by.
    package let paces: Paces
    /// What `usernames` and `emails` are keyed with.
    package let nameKey: NameKey

    package init(paces: Paces = .human, nameKey: NameKey = .unkeyed) { self.paces = paces; self.nameKey = nameKey }

    /// Whether the session `tokenId`, whose token expires at `expiresAt` (seconds), is revoked.
    package func isRevoked(_ tokenId: String, expiresAt: Int64) -> Bool {
        revokedTokens[Self.hour(expiresAt)]?.contains(tokenId) == true
    }

    private static func hour(_ seconds: Int64) -> Int64 { seconds / 3600 }

    package func usernameTaken(_ username: String) -> Bool { usernames.contains(nameKey.username(username)) }
    package func emailTaken(_ email: String) -> Bool { emails.contains(nameKey.email(email)) }

    /// Whether `userId` already earned the point for `ingredient` (a point key) of `recipeId`.
    package func hasEarned(_ userId: UserID, recipeId: RecipeID, ingredient: String) -> Bool {
        if let point = packedPoint(recipeId, ingredient), earnedPoints[userId]?.contains(point) == true { return true }
        // A point earned before its recipe was recorded still counts once it is.
        return unrecordedPoints[userId]?.contains(UsedIngredient(recipeId: recipeId, ingredient: ingredient)) == true
    }

    /// The point a `UseOwnedIngredient` asks for, when its recipe is recorded and the ingredient is
    /// one of the recipe's: what the one-point rule must know about before deciding it. The writer
    /// keeps the points of the log on disk and loads just these into the state before a batch.
    package func pointAsked(by command: UseOwnedIngredient) -> PointEarned? {
        guard let recipeId = try? Validate.recipeId(command.recipeId), let recipe = recipes[recipeId],
              let asked = try? Validate.ingredient(command.ingredient), let ingredient = recipe.key(matching: asked) else { return nil }
        return PointEarned(userId: command.userId, recipeId: recipeId, ingredient: ingredient)
    }

    /// A point already in the log, loaded for the one-point rule: unlike `evolve`, it does not
    /// count towards the pace, which the log's folding already did.
    package mutating func recall(_ point: PointEarned) {
        insertPoint(point)
    }

    /// One user's holdings, apart from the account and the points (which the writer reads from the
    /// log when a batch needs them): what the core's snapshot keeps per user, undecoded until that
    /// user's first event or command. Nil where the state has no entry for the user; an empty one
    /// is kept as such, so that a restored state equals the folded one.
    package struct UserHoldings: Sendable, Equatable {
        package var savedRecipes: Set<RecipeID>?
        package var groceries: [String: Bool]?
        package var carts: [RecipeID: Int]?
        package var experiences: [RecipeID: Int]?
        package var cooking: [RecipeID: Int64]?
        package var pointsDue: Int64?
        package var tipsDue: Int64?

        package init() {}
    }

    /// `user`'s holdings kept aside at a start (`CoreSnapshot`): restored before any of that
    /// user's events is evolved or commands decided.
    package mutating func restore(_ user: UserHoldings, for userId: UserID) {
        if let saved = user.savedRecipes { savedRecipes[userId] = saved }
        if let items = user.groceries { groceries[userId] = items }
        if let lines = user.carts { carts[userId] = lines }
        if let written = user.experiences { experiences[userId] = written }
        if let timers = user.cooking { cooking[userId] = timers }
        if let due = user.pointsDue { pointsDue[userId] = due }
        if let due = user.tipsDue { tipsDue[userId] = due }
    }

    /// Drops the earned points: the writer reads them from the log when a batch needs them.
    package mutating func forgetEarnedPoints() {
        earnedPoints = [:]
        unrecordedPoints = [:]
    }

    /// Every point earned, by name.
    package var usedIngredients: [UserID: Set<UsedIngredient>] {
        var all = unrecordedPoints
        for (userId, points) in earnedPoints {
            for point in points {
                let recipeId = recipeOrder[Int(point >> 16)]
                all[userId, default: []].insert(UsedIngredient(
                    recipeId: recipeId, ingredient: recipes[recipeId]!.keys[Int(point & 0xFFFF)]))
            }
        }
        return all
    }

    private func packedPoint(_ recipeId: RecipeID, _ ingredient: String) -> UInt64? {
        guard let recipe = recipes[recipeId], let index = recipe.keyIndex[ingredient] else { return nil }
        return UInt64(recipe.number) << 16 | UInt64(index)
    }

    /// What a snapshot of the state keeps: no personal data, for the accounts stay only in the log,
    /// sealed (a destroyed key still erases them), and `users` holds their names' keyed digests.
    package struct Holdings: Sendable, Equatable {
        package var users: [UserID: User]
        package var deletedUsers: Set<UserID>
        package var earnedPoints: [UserID: Set<UInt64>]
        package var unrecordedPoints: [UserID: Set<UsedIngredient>]
        package var savedRecipes: [UserID: Set<RecipeID>]
        package var groceries: [UserID: [String: Bool]]
        package var carts: [UserID: [RecipeID: Int]]
        package var experiences: [UserID: [RecipeID: Int]]
        package var cooking: [UserID: [RecipeID: Int64]]
        package var pointsDue: [UserID: Int64]
        package var tipsDue: [UserID: Int64]
        package var revokedTokens: [Int64: Set<String>]
        package var households: [HouseholdID: Household] = [:]
        package var passwordResets: [UserID: PendingPasswordReset] = [:]
        /// In the order they were recorded (their numbers).
        package var recipes: [(id: RecipeID, facts: RecipeFacts)]
        /// The digests of `users`' names, as the state indexes them.
        package var usernames: NameIndex
        package var emails: NameIndex

        package init(users: [UserID: User], deletedUsers: Set<UserID>, earnedPoints: [UserID: Set<UInt64>],
                    unrecordedPoints: [UserID: Set<UsedIngredient>], savedRecipes: [UserID: Set<RecipeID>],
                    groceries: [UserID: [String: Bool]], carts: [UserID: [RecipeID: Int]],
                    experiences: [UserID: [RecipeID: Int]], cooking: [UserID: [RecipeID: Int64]],
                    pointsDue: [UserID: Int64], tipsDue: [UserID: Int64], revokedTokens: [Int64: Set<String>],
                    recipes: [(id: RecipeID, facts: RecipeFacts)], usernames: NameIndex? = nil, emails: NameIndex? = nil) {
            self.users = users; self.deletedUsers = deletedUsers; self.earnedPoints = earnedPoints; self.unrecordedPoints = unrecordedPoints
            self.savedRecipes = savedRecipes; self.groceries = groceries; self.carts = carts
            self.experiences = experiences; self.cooking = cooking; self.pointsDue = pointsDue; self.tipsDue = tipsDue
            self.revokedTokens = revokedTokens
            self.recipes = recipes
            // Built from `users` unless given (a snapshot stores them, sorted).
            self.usernames = usernames ?? NameIndex(users.values.compactMap { $0.names?.username })
            self.emails = emails ?? NameIndex(users.values.compactMap { $0.names?.email })
        }

        package static func == (a: Holdings, b: Holdings) -> Bool {
            a.users == b.users && a.deletedUsers == b.deletedUsers && a.earnedPoints == b.earnedPoints
                && a.unrecordedPoints == b.unrecordedPoints && a.savedRecipes == b.savedRecipes
                && a.groceries == b.groceries && a.carts == b.carts && a.experiences == b.experiences
                && a.cooking == b.cooking && a.pointsDue == b.pointsDue && a.tipsDue == b.tipsDue && a.revokedTokens == b.revokedTokens
                && a.households == b.households && a.passwordResets == b.passwordResets
                && a.recipes.map(\.id) == b.recipes.map(\.id) && a.recipes.map(\.facts) == b.recipes.map(\.facts)
        }
    }

    /// Raised whenever `evolve` would build a different state from the same events: a snapshot
    /// of another version is not trusted, and the state is folded from the log instead.
    /// 5: the users and their names' digests. 6: the revoked sessions, until their tokens expire.
    /// 7: the households. 8: the password reset links; cooking is the person's own, apart from the cart.
    package static let holdingsVersion = 8

    package var holdings: Holdings {
        var holdings = Holdings(users: users, deletedUsers: deletedUsers, earnedPoints: earnedPoints, unrecordedPoints: unrecordedPoints,
                                savedRecipes: savedRecipes, groceries: groceries, carts: carts, experiences: experiences,
                                cooking: cooking, pointsDue: pointsDue, tipsDue: tipsDue, revokedTokens: revokedTokens,
                                recipes: recipeOrder.map { ($0, recipes[$0]!.facts) }, usernames: usernames, emails: emails)
        holdings.households = households
        holdings.passwordResets = passwordResets
        return holdings
    }

    /// The state `holdings` were taken of, when they were taken under `nameKey`.
    package init(restoring holdings: Holdings, paces: Paces = .human, nameKey: NameKey = .unkeyed) {
        self.paces = paces
        self.nameKey = nameKey
        users = holdings.users
        usernames = holdings.usernames
        emails = holdings.emails
        deletedUsers = holdings.deletedUsers
        earnedPoints = holdings.earnedPoints
        unrecordedPoints = holdings.unrecordedPoints
        savedRecipes = holdings.savedRecipes
        groceries = holdings.groceries
        carts = holdings.carts
        experiences = holdings.experiences
        cooking = holdings.cooking
        pointsDue = holdings.pointsDue
        tipsDue = holdings.tipsDue
        revokedTokens = holdings.revokedTokens
        restoreHouseholds(holdings.households)
        passwordResets = holdings.passwordResets
        recipeOrder = holdings.recipes.map(\.id)
        for (number, recipe) in holdings.recipes.enumerated() { recipes[recipe.id] = KnownRecipe(recipe.facts, number: number) }
    }

    /// Folds `event`, logged at `at` (ms since 1970: its `recordedAt`).
    mutating func apply(_ event: Event, at: Int64) {
        switch event {
        case .userRegistered(let e):
            let names = e.account.map { Names(username: nameKey.username($0.username), email: nameKey.email($0.email)) }
            users[e.userId] = User(names: names)
            if let names {
                usernames.insert(names.username)
                emails.insert(names.email)
            }
        case .passwordChanged(let e):
            // No rule reads the password hash; a new password uses up the reset link.
            passwordResets[e.userId]?.used = true
        case .passwordResetRequested(let e):
            applyPasswordReset(e, at: at)
        case .userDeleted(let e):
            if let names = users.removeValue(forKey: e.userId)?.names {
                usernames.remove(names.username)
                emails.remove(names.email)
            }
            deletedUsers.insert(e.userId)
            earnedPoints[e.userId] = nil
            unrecordedPoints[e.userId] = nil
            savedRecipes[e.userId] = nil
            groceries[e.userId] = nil
            carts[e.userId] = nil
            experiences[e.userId] = nil
            cooking[e.userId] = nil
            pointsDue[e.userId] = nil
            tipsDue[e.userId] = nil
            passwordResets[e.userId] = nil
            eraseAuthorship(of: e.userId)
        case .recipeRecorded(let e):
            if let known = recipes[e.recipeId] {
                recipes[e.recipeId] = KnownRecipe(e.facts, number: known.number)
            } else {
                recipes[e.recipeId] = KnownRecipe(e.facts, number: recipeOrder.count)
                recipeOrder.append(e.recipeId)
            }
        case .recipeSaved(let e):
            savedRecipes[e.userId, default: []].insert(e.recipeId)
        case .savedRecipeRemoved(let e):
            savedRecipes[e.userId]?.remove(e.recipeId)
        case .groceryAdded(let e):
            if let householdId = e.household, let itemId = e.itemId {
                addSharedItem(e, householdId, itemId)
            } else {
                // Adding an item again means more is needed, so it is unchecked.
                groceries[e.userId, default: [:]][e.item] = false
            }
        case .groceryChecked(let e):
            if let householdId = e.household, let itemId = e.itemId {
                households[householdId]?.items[itemId]?.checked = e.checked
            } else {
                groceries[e.userId, default: [:]][e.item] = e.checked
            }
        case .groceryRemoved(let e):
            if let householdId = e.household, let itemId = e.itemId {
                removeSharedItem(itemId, from: householdId)
            } else {
                groceries[e.userId]?[e.item] = nil
            }
        case .pointEarned(let e):
            insertPoint(e)
            pointsDue[e.userId] = paces.points.due(after: pointsDue[e.userId], at: at)
        case .cartAdjusted(let e):
            if let householdId = e.household {
                households[householdId]?.cart[e.recipeId] = e.count == 0 ? nil : e.count
            } else {
                carts[e.userId, default: [:]][e.recipeId] = e.count == 0 ? nil : e.count
            }
        case .experienceWritten(let e):
            experiences[e.userId, default: [:]][e.recipeId, default: 0] += 1
            tipsDue[e.userId] = paces.tips.due(after: tipsDue[e.userId], at: at)
        case .cookingStarted(let e):
            // The cook's own, whatever cart the line of an old (version 1 or 2) event was in: a
            // household's timer becomes its starter's. Timers whose points are over go.
            var timers = (cooking[e.userId] ?? [:]).filter { at < $0.value }
            timers[e.recipeId] = at + Int64(e.minutes) * 60_000 + Decider.cookingGrace
            cooking[e.userId] = timers
        case .sessionRevoked(let e):
            let now = Self.hour(at / 1000)
            for over in revokedTokens.keys.filter({ $0 < now }) { revokedTokens[over] = nil }
            if Self.hour(e.expiresAt) >= now { revokedTokens[Self.hour(e.expiresAt), default: []].insert(e.tokenId) }
        case .householdCreated, .householdInviteCreated, .householdInviteRevoked, .householdJoined, .householdLeft,
             .householdHandedOver:
            applyHousehold(event, at: at)
        }
    }

    private mutating func insertPoint(_ e: PointEarned) {
        if let point = packedPoint(e.recipeId, e.ingredient) {
            earnedPoints[e.userId, default: []].insert(point)
        } else {
            unrecordedPoints[e.userId, default: []].insert(UsedIngredient(recipeId: e.recipeId, ingredient: e.ingredient))
        }
    }
}
