import Foundation
import Hummingbird
import PantryDomain

/// The endpoints that change a user's data, one command each. The user is always the token's:
/// no body or path names a user, so nobody can act for someone else.
struct CommandRoutes {
    let submitter: CommandSubmitter

    func register(on routes: RouterGroup<APIRequestContext>) {
        routes.put("v1/me/favourites/:recipeId") { request, context in
            let body = try await JSONBody.decode(SaveFavourite.self, from: request)
            let user = try context.requireSession()
            let recipeId = try PathParameter.value("recipeId", in: context)
            return try await submitter.respond(to: request, session: user, status: .created, .saveRecipe(
                SaveRecipe(userId: user.userId, recipeId: recipeId, title: body.title, image: body.image)))
        }
        routes.delete("v1/me/favourites/:recipeId") { request, context in
            let user = try context.requireSession()
            let recipeId = try PathParameter.value("recipeId", in: context)
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
            return try await submitter.respond(to: request, session: user, status: .created, .useOwnedIngredient(
                UseOwnedIngredient(userId: user.userId, recipeId: body.recipeId, ingredient: body.ingredient)))
        }
        routes.post("v1/me/cart") { request, context in
            let body = try await JSONBody.decode(CartAdjustment.self, from: request)
            let user = try context.requireSession()
            return try await submitter.respond(to: request, session: user, status: .ok, .adjustCart(
                AdjustCart(userId: user.userId, recipeId: body.recipeId, title: body.title, image: body.image, delta: body.delta)))
        }
        routes.post("v1/recipes/:recipeId/experiences") { request, context in
            let body = try await JSONBody.decode(Experience.self, from: request)
            let user = try context.requireSession()
            let recipeId = try PathParameter.value("recipeId", in: context)
            return try await submitter.respond(to: request, session: user, status: .created, .writeExperience(
                WriteExperience(userId: user.userId, recipeId: recipeId, text: body.text)))
        }
    }
}

// Request bodies; field rules are the domain's, checked by the core.

struct SaveFavourite: RequestDocument {
    var title: String
    var image: String?
    enum CodingKeys: String, CodingKey, CaseIterable { case title, image }
}

struct NewGrocery: RequestDocument {
    var ingredient: String
    var amount: Double?
    var unit: String?
    var recipeId: String?
    enum CodingKeys: String, CodingKey, CaseIterable { case ingredient, amount, unit, recipeId }
}

struct GroceryCheck: RequestDocument {
    var checked: Bool
    enum CodingKeys: String, CodingKey, CaseIterable { case checked }
}

struct OwnedIngredient: RequestDocument {
    var recipeId: String
    var ingredient: String
    enum CodingKeys: String, CodingKey, CaseIterable { case recipeId, ingredient }
}

struct CartAdjustment: RequestDocument {
    var recipeId: String
    var title: String
    var image: String?
    var delta: Int
    enum CodingKeys: String, CodingKey, CaseIterable { case recipeId, title, image, delta }
}

struct Experience: RequestDocument {
    var text: String
    enum CodingKeys: String, CodingKey, CaseIterable { case text }
}
