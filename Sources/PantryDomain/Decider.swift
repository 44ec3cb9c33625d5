/// The rules: `decide` turns a command into events or a rejection against the current state;
/// `evolve` folds an event into the state. Pure functions: no I/O, no clock, no randomness.
package enum Decider {
    package static let maxCartCount = 99
    /// What one person's data may hold, so that no account can grow without bound (one added
    /// 100,000 grocery items in 140 s, and reading them took the API to 479 MiB; 1,000 tips on one
    /// recipe in 3 s buried the honest ones). Far above what a cook keeps.
    package static let maxGroceryItems = 1_000
    package static let maxFavourites = 1_000
    package static let maxCartLines = 200
    package static let maxExperiencesPerRecipe = 5
    /// A recipe's points count from `StartCooking` until an hour after its countdown ends (ms):
    /// "I have this" is pressed while cooking, or just after the timer rang.
    package static let cookingGrace: Int64 = 60 * 60_000
    /// Recipes one person may have cooking at once (a timer not yet past its grace): the bound
    /// the cart's lines gave the timers when a timer lived on a line.
    package static let maxCooking = 200

    /// `at` is when the event was logged (its `recordedAt`, ms since 1970): the paces are kept by it.
    package static func evolve(_ state: inout PantryState, _ event: Event, at: Int64) {
        state.apply(event, at: at)
    }

    package static func evolve(_ state: PantryState, _ events: some Sequence<(event: Event, at: Int64)>) -> PantryState {
        var state = state
        for (event, at) in events { state.apply(event, at: at) }
        return state
    }

    /// `commandId` becomes the id of what the command creates (an experience), which keeps ids
    /// deterministic and retries harmless. `at` is the time its events will be logged with (ms
    /// since 1970), which the paces and the cooking rule decide by: never a clock read here.
    package static func decide(_ envelope: CommandEnvelope, state: PantryState, at: Int64) -> Result<[Event], Rejection> {
        do throws(Rejection) {
            _ = try Validate.commandId(envelope.commandId)
            return .success(try events(for: envelope, state: state, at: at))
        } catch {
            return .failure(error)
        }
    }

    private static func events(for envelope: CommandEnvelope, state: PantryState, at: Int64) throws(Rejection) -> [Event] {
        switch envelope.command {
        case .registerUser(let c):
            let userId = try Validate.userId(c.userId)
            let username = try Validate.username(c.username)
            let email = try Validate.email(c.email)
            let hash = try Validate.passwordHash(c.passwordHash)
            guard state.users[userId] == nil, !state.deletedUsers.contains(userId) else {
                throw Rejection(.userExists, "user \(userId) already exists")
            }
            guard !state.usernameTaken(username) else {
                throw Rejection(.usernameTaken, "username \(username) is taken, or looks like one that is")
            }
            guard !state.emailTaken(email) else {
                throw Rejection(.emailTaken, "an account with this email already exists")
            }
            return [.userRegistered(UserRegistered(userId: userId, username: username, email: email, passwordHash: hash))]

        case .changePassword(let c):
            let userId = try existingUser(c.userId, state)
            let hash = try Validate.passwordHash(c.passwordHash)
            return [.passwordChanged(PasswordChanged(userId: userId, passwordHash: hash))]

        case .deleteUser(let c):
            let userId = try existingUser(c.userId, state)
            return leavingOnDeletion(userId, state) + [.userDeleted(UserDeleted(userId: userId))]

        case .revokeSession(let c):
            let userId = try existingUser(c.userId, state)
            guard (1...64).contains(c.tokenId.utf8.count), c.tokenId.unicodeScalars.allSatisfy(Validate.isIdentifierScalar) else {
                throw Rejection(.invalidField, "tokenId must be 1-64 characters of letters, digits, '_' or '-'")
            }
            guard c.expiresAt > 0 else { throw Rejection(.invalidField, "expiresAt must be a positive number of seconds") }
            // What makes a refresh single-use: of concurrent refreshes of one token, in any API
            // process, only the first revocation is accepted, and only its refresh gets a token.
            guard !state.isRevoked(c.tokenId, expiresAt: c.expiresAt) else {
                throw Rejection(.alreadyRevoked, "session \(c.tokenId) is revoked already")
            }
            return [.sessionRevoked(SessionRevoked(userId: userId, tokenId: c.tokenId, expiresAt: c.expiresAt))]

        case .saveRecipe(let c):
            let userId = try existingUser(c.userId, state)
            let recipeId = try Validate.recipeId(c.recipeId)
            let (recipe, recorded) = try knownRecipe(recipeId, facts: c.recipe, userId: userId, state)
            guard state.savedRecipes[userId]?.contains(recipeId) != true else {
                throw Rejection(.alreadySaved, "recipe \(recipeId) is already saved")
            }
            guard (state.savedRecipes[userId]?.count ?? 0) < maxFavourites else {
                throw Rejection(.limitReached, "at most \(maxFavourites) favourites; remove one first")
            }
            return recorded + [.recipeSaved(RecipeSaved(userId: userId, recipeId: recipeId, title: recipe.facts.title,
                                                        image: recipe.facts.image))]

        case .removeSavedRecipe(let c):
            let userId = try existingUser(c.userId, state)
            let recipeId = try Validate.recipeId(c.recipeId)
            guard state.savedRecipes[userId]?.contains(recipeId) == true else {
                throw Rejection(.notSaved, "recipe \(recipeId) is not saved")
            }
            return [.savedRecipeRemoved(SavedRecipeRemoved(userId: userId, recipeId: recipeId))]

        case .addGrocery(let c):
            let userId = try existingUser(c.userId, state)
            let ingredient = try Validate.ingredient(c.ingredient)
            let amount = try Validate.amount(c.amount)
            let unit = try Validate.unit(c.unit)
            let recipeId = try c.recipeId.map { (id) throws(Rejection) in try Validate.recipeId(id) }
            if let shared = state.household(of: userId) {
                return [try sharedGroceryAdd(GroceryAdded(userId: userId, item: IngredientName.key(ingredient), ingredient: ingredient,
                                                          amount: amount, unit: unit, recipeId: recipeId, merged: false),
                                             in: shared, commandId: envelope.commandId, state)]
            }
            let existing = groceryItem(ingredient, of: userId, state)
            guard existing != nil || (state.groceries[userId]?.count ?? 0) < maxGroceryItems else {
                throw Rejection(.limitReached, "at most \(maxGroceryItems) items on the grocery list; remove one first")
            }
            let item = existing ?? IngredientName.key(ingredient)
            let merged = existing != nil
            return [.groceryAdded(GroceryAdded(userId: userId, item: item, ingredient: ingredient, amount: amount,
                                               unit: unit, recipeId: recipeId, merged: merged))]

        case .checkGrocery(let c):
            let userId = try existingUser(c.userId, state)
            let ingredient = try Validate.ingredient(c.ingredient)
            if let shared = state.household(of: userId) {
                let (key, itemId, item) = try sharedItem(ingredient, in: shared, state)
                guard item.checked != c.checked else {
                    throw Rejection(.unchanged, "\(key) is already \(c.checked ? "checked" : "unchecked")")
                }
                return [.groceryChecked(GroceryChecked(userId: userId, item: key, checked: c.checked, household: shared.id, itemId: itemId))]
            }
            guard let item = groceryItem(ingredient, of: userId, state), let checked = state.groceries[userId]?[item] else {
                throw Rejection(.noSuchItem, "there is no \(IngredientName.key(ingredient)) on the grocery list")
            }
            guard checked != c.checked else {
                throw Rejection(.unchanged, "\(item) is already \(c.checked ? "checked" : "unchecked")")
            }
            return [.groceryChecked(GroceryChecked(userId: userId, item: item, checked: c.checked))]

        case .removeGrocery(let c):
            let userId = try existingUser(c.userId, state)
            let ingredient = try Validate.ingredient(c.ingredient)
            if let shared = state.household(of: userId) {
                let (key, itemId, _) = try sharedItem(ingredient, in: shared, state)
                return [.groceryRemoved(GroceryRemoved(userId: userId, item: key, household: shared.id, itemId: itemId))]
            }
            guard let item = groceryItem(ingredient, of: userId, state) else {
                throw Rejection(.noSuchItem, "there is no \(IngredientName.key(ingredient)) on the grocery list")
            }
            return [.groceryRemoved(GroceryRemoved(userId: userId, item: item))]

        case .useOwnedIngredient(let c):
            let userId = try existingUser(c.userId, state)
            let recipeId = try Validate.recipeId(c.recipeId)
            let asked = try Validate.ingredient(c.ingredient)
            // New commands only: points logged before this rule stay, and evolve never checks it.
            // First, so a point for a recipe nobody cooks never has the API look the recipe up.
            guard let until = state.cooking[userId]?[recipeId], at < until else {
                throw Rejection(.notCooking, "recipe \(recipeId) is not cooking: start cooking it first")
            }
            let (recipe, recorded) = try knownRecipe(recipeId, facts: c.recipe, userId: userId, state)
            // One key per ingredient of the recipe, whatever the case or plural the user typed.
            guard let ingredient = recipe.key(matching: asked) else {
                throw Rejection(.notInRecipe, "\(asked) is not an ingredient of recipe \(recipeId)")
            }
            guard !state.hasEarned(userId, recipeId: recipeId, ingredient: ingredient) else {
                throw Rejection(.alreadyUsed, "\(ingredient) already earned a point for recipe \(recipeId)")
            }
            try keepsPace(state.paces.points, due: state.pointsDue[userId], at: at, "points")
            return recorded + [.pointEarned(PointEarned(userId: userId, recipeId: recipeId, ingredient: ingredient))]

        case .adjustCart(let c):
            let userId = try existingUser(c.userId, state)
            let recipeId = try Validate.recipeId(c.recipeId)
            guard c.delta != 0, (-maxCartCount...maxCartCount).contains(c.delta) else {
                throw Rejection(.invalidDelta, "delta must be a non-zero number from -\(maxCartCount) to \(maxCartCount)")
            }
            let (recipe, recorded) = try knownRecipe(recipeId, facts: c.recipe, userId: userId, state)
            let shared = state.household(of: userId)
            let cart = shared?.household.cart ?? state.carts[userId]
            let before = cart?[recipeId] ?? 0
            guard before > 0 || c.delta < 0 || (cart?.count ?? 0) < maxCartLines else {
                throw Rejection(.limitReached, "at most \(maxCartLines) recipes in the cart; remove one first")
            }
            let count = before + c.delta
            guard (0...maxCartCount).contains(count) else {
                throw Rejection(.cartOutOfRange, "the cart count for \(recipeId) must stay within 0...\(maxCartCount); it would be \(count)")
            }
            return recorded + [.cartAdjusted(CartAdjusted(userId: userId, recipeId: recipeId, title: recipe.facts.title,
                                                          image: recipe.facts.image, delta: c.delta, count: count, household: shared?.id))]

        case .startCooking(let c):
            // Cooking is the cook's own act: it needs no cart line (the cart holds only what the
            // cook put there). The pace on points stays the wall against farming.
            let userId = try existingUser(c.userId, state)
            let recipeId = try Validate.recipeId(c.recipeId)
            guard (1...1440).contains(c.minutes) else {
                throw Rejection(.invalidMinutes, "minutes must be 1 to 1440 (a day), got \(c.minutes)")
            }
            let timers = state.cooking[userId] ?? [:]
            guard timers[recipeId] != nil || timers.values.count(where: { at < $0 }) < maxCooking else {
                throw Rejection(.limitReached, "at most \(maxCooking) recipes cooking at once")
            }
            let (recipe, recorded) = try knownRecipe(recipeId, facts: c.recipe, userId: userId, state)
            return recorded + [.cookingStarted(CookingStarted(userId: userId, recipeId: recipeId, minutes: c.minutes,
                                                              title: recipe.facts.title, image: recipe.facts.image))]

        case .writeExperience(let c):
            let userId = try existingUser(c.userId, state)
            let recipeId = try Validate.recipeId(c.recipeId)
            let text = try Validate.experienceText(c.text)
            guard (state.experiences[userId]?[recipeId] ?? 0) < maxExperiencesPerRecipe else {
                throw Rejection(.limitReached, "at most \(maxExperiencesPerRecipe) experiences per recipe from one person")
            }
            try keepsPace(state.paces.tips, due: state.tipsDue[userId], at: at, "tips")
            return [.experienceWritten(ExperienceWritten(experienceId: experienceId(envelope.commandId), userId: userId,
                                                         recipeId: recipeId, text: text))]

        case .createHousehold, .inviteToHousehold, .revokeHouseholdInvite, .joinHousehold, .leaveHousehold,
             .removeHouseholdMember, .handOverHousehold:
            return try householdEvents(for: envelope, state: state, at: at)

        case .requestPasswordReset, .resetPassword:
            return try passwordResetEvents(for: envelope.command, state: state, at: at)
        }
    }

    private static func keepsPace(_ pace: Pace, due: Int64?, at: Int64, _ what: String) throws(Rejection) {
        let wait = pace.wait(due: due, at: at)
        guard wait == 0 else {
            throw Rejection(.paceExceeded, "\(what) come at most \(pace.burst) at once, then one every \(pace.interval / 1000) s; "
                            + "the next in \((wait + 999) / 1000) s")
        }
    }

    /// An experience's public id: derived from the command id, so a retry names the same
    /// experience, but opaque, so it does not publish the author's idempotency key.
    package static func experienceId(_ commandId: CommandID) -> String {
        "e-" + StableHash.hex(StableHash.of(commandId.utf8))
    }

    /// The recipe as the log knows it, or, the first time, as the adapter looked it up: then its
    /// facts are recorded with the command's events. Facts sent for a recipe already recorded are
    /// ignored: the first record stands, so a decision never depends on when it was made.
    private static func knownRecipe(_ recipeId: RecipeID, facts: RecipeFacts?, userId: UserID,
                                    _ state: PantryState) throws(Rejection) -> (KnownRecipe, [Event]) {
        if let known = state.recipes[recipeId] { return (known, []) }
        guard let facts else { throw Rejection(.unknownRecipe, "there is no recipe \(recipeId)") }
        let checked = try Validate.recipeFacts(facts)
        return (KnownRecipe(checked, number: state.recipeOrder.count), [.recipeRecorded(RecipeRecorded(userId: userId, recipeId: recipeId, facts: checked))])
    }

    /// The key of the user's grocery item for `ingredient`, if it is on their list: one item whatever
    /// the case or plural ("Tomatoes" is "tomato"). Items added before keys were singular are found by
    /// their old key, lowercase words as typed, so a long-lived list keeps working.
    private static func groceryItem(_ ingredient: String, of userId: UserID, _ state: PantryState) -> String? {
        guard let list = state.groceries[userId] else { return nil }
        return [IngredientName.key(ingredient), normalizedIngredient(ingredient)].first { list[$0] != nil }
    }

    static func existingUser(_ userId: UserID, _ state: PantryState) throws(Rejection) -> UserID {
        guard state.users[userId] != nil else { throw Rejection(.unknownUser, "there is no user \(userId)") }
        return userId
    }
}
