import Foundation
import Hummingbird
import PantryDomain
import PantryJSON
import PantryTokens

/// The endpoints that change a user's data, one command each. The user is always the token's:
/// no body or path names a user, so nobody can act for someone else.
struct CommandRoutes {
    let submitter: CommandSubmitter
    let lookup: RecipeFactsLookup

    func register(on routes: RouterGroup<APIRequestContext>) {
        // Title and image come from the recipe itself, never from the client: no body is needed.
        routes.put("v1/me/favourites/:recipeId") { request, context in
            try await JSONBody.refuseFields(in: request)
            let user = try context.requireSession()
            let recipeId = RecipeID(try PathParameter.value("recipeId", in: context))
            return try await respond(to: request, session: user, status: .created, recipeId: recipeId,
                                     context: context) {
                .saveRecipe(SaveRecipe(userId: user.userId, recipeId: recipeId, recipe: $0))
            }
        }
        routes.delete("v1/me/favourites/:recipeId") { request, context in
            let user = try context.requireSession()
            let recipeId = RecipeID(try PathParameter.value("recipeId", in: context))
            return try await submitter.respond(to: request, session: user, status: .ok, .removeSavedRecipe(
                RemoveSavedRecipe(userId: user.userId, recipeId: recipeId)))
        }
        routes.post("v1/me/groceries") { request, context in
            let body = try await JSONBody.decode(NewGrocery.self, from: request)
            let user = try context.requireSession()
            return try await submitter.respond(to: request, session: user, status: .created, .addGrocery(
                AddGrocery(userId: user.userId, ingredient: body.ingredient, amount: body.amount, unit: body.unit,
                           recipeId: body.recipeId)))
        }
        routes.patch("v1/me/groceries/:ingredient") { request, context in
            let body = try await JSONBody.decode(GroceryCheck.self, from: request)
            let user = try context.requireSession()
            let ingredient = try PathParameter.value("ingredient", in: context)
            return try await submitter.respond(to: request, session: user, status: .ok, .checkGrocery(
                CheckGrocery(userId: user.userId, ingredient: ingredient, checked: body.checked)))
        }
        routes.delete("v1/me/groceries/:ingredient") { request, context in
            let user = try context.requireSession()
            let ingredient = try PathParameter.value("ingredient", in: context)
            return try await submitter.respond(to: request, session: user, status: .ok, .removeGrocery(
                RemoveGrocery(userId: user.userId, ingredient: ingredient)))
        }
        routes.post("v1/me/owned-ingredients") { request, context in
            let body = try await JSONBody.decode(OwnedIngredient.self, from: request)
            let user = try context.requireSession()
            return try await respond(to: request, session: user, status: .created, recipeId: body.recipeId,
                                     context: context) {
                .useOwnedIngredient(UseOwnedIngredient(userId: user.userId, recipeId: body.recipeId, ingredient: body.ingredient,
                                                       recipe: $0))
            }
        }
        routes.post("v1/me/cart") { request, context in
            let body = try await JSONBody.decode(CartAdjustment.self, from: request)
            let user = try context.requireSession()
            return try await respond(to: request, session: user, status: .ok, recipeId: body.recipeId,
                                     context: context) {
                .adjustCart(AdjustCart(userId: user.userId, recipeId: body.recipeId, delta: body.delta, recipe: $0))
            }
        }
        // Seed 002's "start recipe", apart from the cart: the countdown runs for the minutes given,
        // else the recipe's own; while it runs (and an hour after) "I have this" earns points.
        routes.post("v1/me/cooking/:recipeId") { request, context in
            let body = try await JSONBody.decode(CookingStart.self, from: request)
            let user = try context.requireSession()
            let recipeId = RecipeID(try PathParameter.value("recipeId", in: context))
            let minutes = if let given = body.minutes { given } else {
                try await lookup.readyInMinutes(of: recipeId, spender: context.upstreamSpender)
            }
            return try await respond(to: request, session: user, status: .created, recipeId: recipeId, context: context) {
                .startCooking(StartCooking(userId: user.userId, recipeId: recipeId, minutes: minutes, recipe: $0))
            }
        }
        routes.post("v1/recipes/:recipeId/experiences") { request, context in
            let body = try await JSONBody.decode(Experience.self, from: request)
            let user = try context.requireSession()
            let recipeId = RecipeID(try PathParameter.value("recipeId", in: context))
            return try await submitter.respond(to: request, session: user, status: .created, .writeExperience(
                WriteExperience(userId: user.userId, recipeId: recipeId, text: body.text)))
        }
    }

    /// A command about a recipe. It goes to the core without the recipe's facts, which the log
    /// usually holds already; only when the core does not know the recipe are they looked up and
    /// the same command (same id) sent again with them. An unknown recipe is 404 `unknown_recipe`.
    private func respond(to request: Request, session: SessionClaims, status: HTTPResponse.Status, recipeId: RecipeID,
                         context: APIRequestContext, _ command: (RecipeFacts?) -> Command) async throws -> Response {
        let commandId = try submitter.commandId(request, userId: session.userId)
        do {
            return try await submitter.respond(commandId: commandId, status: status, command(nil))
        } catch let problem as Problem where problem.code == .rejection(.unknownRecipe) {
            // The spender is written out only here: most commands never need it.
            let facts = try await lookup.facts(of: recipeId, spender: context.upstreamSpender)
            return try await submitter.respond(commandId: commandId, status: status, command(facts))
        }
    }
}

// Request bodies; field rules are the domain's, checked by the core.

struct NewGrocery: RequestDocument {
    var ingredient: String
    var amount: Double?
    var unit: String?
    var recipeId: RecipeID?
    static let fields = ["ingredient", "amount", "unit", "recipeId"]
    static let nullableFields = ["amount", "unit", "recipeId"]
    init(json: borrowing JSONObjectReader) throws {
        ingredient = try json.string("ingredient")
        amount = try json.optionalDouble("amount")
        unit = try json.optionalString("unit")
        recipeId = try json.optionalString("recipeId").map(RecipeID.init(_:))
    }
}

struct GroceryCheck: RequestDocument {
    var checked: Bool
    static let fields = ["checked"]
    init(json: borrowing JSONObjectReader) throws { checked = try json.bool("checked") }
}

struct OwnedIngredient: RequestDocument {
    var recipeId: RecipeID
    var ingredient: String
    static let fields = ["recipeId", "ingredient"]
    init(json: borrowing JSONObjectReader) throws {
        recipeId = RecipeID(try json.string("recipeId"))
        ingredient = try json.string("ingredient")
    }
}

struct CartAdjustment: RequestDocument {
    var recipeId: RecipeID
    var delta: Int
    static let fields = ["recipeId", "delta"]
    init(json: borrowing JSONObjectReader) throws {
        recipeId = RecipeID(try json.string("recipeId"))
        delta = try json.int("delta")
    }
}

struct CookingStart: RequestDocument {
    var minutes: Int?
    static let fields = ["minutes"]
    init(json: borrowing JSONObjectReader) throws { minutes = try json.optionalInt("minutes") }
}

struct Experience: RequestDocument {
    var text: String
    static let fields = ["text"]
    init(json: borrowing JSONObjectReader) throws { text = try json.string("text") }
}
