/// The rules: `decide` turns a command into events or a rejection against the current state;
/// `evolve` folds an event into the state. Pure functions: no I/O, no clock, no randomness.
public enum Decider {
    public static let maxCartCount = 99

    public static func evolve(_ state: inout PantryState, _ event: Event) {
        state.apply(event)
    }

    public static func evolve(_ state: PantryState, _ events: some Sequence<Event>) -> PantryState {
        var state = state
        for event in events { state.apply(event) }
        return state
    }

    /// `commandId` becomes the id of what the command creates (an experience), which keeps ids
    /// deterministic and retries harmless.
    public static func decide(_ envelope: CommandEnvelope, state: PantryState) -> Result<[Event], Rejection> {
        do throws(Rejection) {
            _ = try Validate.commandId(envelope.commandId)
            return .success(try events(for: envelope, state: state))
        } catch {
            return .failure(error)
        }
    }

    private static func events(for envelope: CommandEnvelope, state: PantryState) throws(Rejection) -> [Event] {
        switch envelope.command {
        case .registerUser(let c):
            let userId = try Validate.userId(c.userId)
            let username = try Validate.username(c.username)
            let email = try Validate.email(c.email)
            let hash = try Validate.passwordHash(c.passwordHash)
            guard state.users[userId] == nil else { throw Rejection(.userExists, "user \(userId) already exists") }
            guard state.usernames[username.lowercased()] == nil else {
                throw Rejection(.usernameTaken, "username \(username) is taken")
            }
            guard state.emails[email.lowercased()] == nil else {
                throw Rejection(.emailTaken, "an account with this email already exists")
            }
            return [.userRegistered(UserRegistered(userId: userId, username: username, email: email, passwordHash: hash))]

        case .saveRecipe(let c):
            let userId = try existingUser(c.userId, state)
            let recipeId = try Validate.recipeId(c.recipeId)
            let title = try Validate.title(c.title)
            let image = try Validate.imageURL(c.image)
            guard state.savedRecipes[userId]?.contains(recipeId) != true else {
                throw Rejection(.alreadySaved, "recipe \(recipeId) is already saved")
            }
            return [.recipeSaved(RecipeSaved(userId: userId, recipeId: recipeId, title: title, image: image))]

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
            let item = normalizedIngredient(ingredient)
            let merged = state.groceries[userId]?[item] != nil
            return [.groceryAdded(GroceryAdded(userId: userId, item: item, ingredient: ingredient, amount: amount,
                                               unit: unit, recipeId: recipeId, merged: merged))]

        case .checkGrocery(let c):
            let userId = try existingUser(c.userId, state)
            let item = normalizedIngredient(try Validate.ingredient(c.ingredient))
            guard let checked = state.groceries[userId]?[item] else {
                throw Rejection(.noSuchItem, "there is no \(item) on the grocery list")
            }
            guard checked != c.checked else {
                throw Rejection(.unchanged, "\(item) is already \(c.checked ? "checked" : "unchecked")")
            }
            return [.groceryChecked(GroceryChecked(userId: userId, item: item, checked: c.checked))]

        case .removeGrocery(let c):
            let userId = try existingUser(c.userId, state)
            let item = normalizedIngredient(try Validate.ingredient(c.ingredient))
            guard state.groceries[userId]?[item] != nil else {
                throw Rejection(.noSuchItem, "there is no \(item) on the grocery list")
            }
            return [.groceryRemoved(GroceryRemoved(userId: userId, item: item))]

        case .useOwnedIngredient(let c):
            let userId = try existingUser(c.userId, state)
            let recipeId = try Validate.recipeId(c.recipeId)
            let ingredient = normalizedIngredient(try Validate.ingredient(c.ingredient))
            let used = PantryState.UsedIngredient(recipeId: recipeId, ingredient: ingredient)
            guard state.usedIngredients[userId]?.contains(used) != true else {
                throw Rejection(.alreadyUsed, "\(ingredient) already earned a point for recipe \(recipeId)")
            }
            return [.pointEarned(PointEarned(userId: userId, recipeId: recipeId, ingredient: ingredient))]

        case .adjustCart(let c):
            let userId = try existingUser(c.userId, state)
            let recipeId = try Validate.recipeId(c.recipeId)
            let title = try Validate.title(c.title)
            let image = try Validate.imageURL(c.image)
            guard c.delta != 0, (-maxCartCount...maxCartCount).contains(c.delta) else {
                throw Rejection(.invalidDelta, "delta must be a non-zero number from -\(maxCartCount) to \(maxCartCount)")
            }
            let count = (state.carts[userId]?[recipeId] ?? 0) + c.delta
            guard (0...maxCartCount).contains(count) else {
                throw Rejection(.cartOutOfRange, "the cart count for \(recipeId) must stay within 0...\(maxCartCount); it would be \(count)")
            }
            return [.cartAdjusted(CartAdjusted(userId: userId, recipeId: recipeId, title: title, image: image,
                                               delta: c.delta, count: count))]

        case .writeExperience(let c):
            let userId = try existingUser(c.userId, state)
            let recipeId = try Validate.recipeId(c.recipeId)
            let text = try Validate.experienceText(c.text)
            let username = state.users[userId]?.username ?? userId
            return [.experienceWritten(ExperienceWritten(experienceId: envelope.commandId, userId: userId,
                                                         username: username, recipeId: recipeId, text: text))]
        }
    }

    private static func existingUser(_ userId: UserID, _ state: PantryState) throws(Rejection) -> UserID {
        guard state.users[userId] != nil else { throw Rejection(.unknownUser, "there is no user \(userId)") }
        return userId
    }
}
