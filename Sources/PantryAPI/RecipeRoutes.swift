import Foundation
import HTTPTypes
import Hummingbird
import PantryFetch

/// Finding recipes: by the ingredients at home, by keyword, by id, at random, and ingredient
/// names as the user types. Each answer says where it came from (`origin`) and how old it is.
struct RecipeRoutes {
    let recipes: RecipeSource

    func register(on routes: RouterGroup<APIRequestContext>) {
        routes.get("v1/recipes/by-ingredients") { request, context in
            guard let list = try QueryParameter.string("ingredients", in: request, maxLength: 400) else {
                throw Problem(.unprocessableContent, code: "invalid_query", detail: "'ingredients' (1-5, comma-separated) is required")
            }
            let ingredients = list.split(separator: ",", omittingEmptySubsequences: false).map(String.init)
            return try await answer(.byIngredients(
                ingredients: ingredients, number: try QueryParameter.int("number", in: request, range: 1...100) ?? 10), context)
        }
        routes.get("v1/recipes/search") { request, context in
            guard let query = try QueryParameter.string("query", in: request, maxLength: 100) else {
                throw Problem(.unprocessableContent, code: "invalid_query", detail: "'query' is required")
            }
            return try await answer(.search(
                query: query, diet: try QueryParameter.string("diet", in: request, maxLength: 64),
                maxReadyTime: try QueryParameter.int("maxReadyTime", in: request, range: 1...1440),
                offset: try QueryParameter.int("offset", in: request, range: 0...900) ?? 0,
                number: try QueryParameter.int("number", in: request, range: 1...100) ?? 10), context)
        }
        routes.get("v1/recipes/random") { request, context in
            try await answer(.random(count: try QueryParameter.int("count", in: request, range: 1...100) ?? 1), context)
        }
        routes.get("v1/recipes/:recipeId") { _, context in
            try await answer(.detail(id: try PathParameter.value("recipeId", in: context)), context)
        }
        // The picture the catalog's recipes point to (`/v1/recipes/{id}/image`): drawn, never fetched.
        routes.get("v1/recipes/:recipeId/image") { _, context in
            let response = try await recipes.fetch(.detail(id: try PathParameter.value("recipeId", in: context)),
                                                   client: context.clientAddress)
            guard case .recipe(let recipe) = response.payload else { throw Self.wrongPayload }
            let svg = RecipePicture.svg(title: recipe.title, ingredients: recipe.ingredients.map(\.name))
            return Response(status: .ok, headers: [
                .contentType: "image/svg+xml; charset=utf-8", .cacheControl: "public, max-age=86400",
                .contentSecurityPolicy: "default-src 'none'; style-src 'unsafe-inline'",
                .init("X-Content-Type-Options")!: "nosniff",
            ], body: ResponseBody(byteBuffer: ByteBuffer(string: svg)))
        }
        routes.get("v1/ingredients/autocomplete") { request, context in
            guard let prefix = try QueryParameter.string("prefix", in: request, maxLength: 64) else {
                throw Problem(.unprocessableContent, code: "invalid_query", detail: "'prefix' is required")
            }
            return try await answer(.autocomplete(
                prefix: prefix, number: try QueryParameter.int("number", in: request, range: 1...25) ?? 10), context)
        }
        // The image bytes themselves, so the apps can show cached pictures when the quota is spent.
        routes.get("v1/images") { request, context in
            guard let url = try QueryParameter.string("url", in: request, maxLength: 2048) else {
                throw Problem(.unprocessableContent, code: "invalid_query", detail: "'url' is required")
            }
            let response = try await recipes.fetch(.image(url: url), client: context.clientAddress)
            guard case .image(let image) = response.payload else { throw Self.wrongPayload }
            return Response(status: .ok, headers: [.contentType: image.contentType, .age: String(response.ageSeconds),
                                                   Self.originHeader: response.origin.rawValue],
                            body: ResponseBody(byteBuffer: ByteBuffer(bytes: image.bytes)))
        }
    }

    static let originHeader = HTTPField.Name("Pantry-Origin")!
    static let wrongPayload = Problem(.internalServerError, code: "internal_error",
                                      detail: "the fetch worker answered with a payload of another kind")

    /// The caller's address goes with the request: the upstream calls one client may cause are limited.
    private func answer(_ request: FetchRequest, _ context: APIRequestContext) async throws -> Response {
        let response = try await recipes.fetch(request, client: context.clientAddress)
        if case .image = response.payload { throw Self.wrongPayload }
        return JSONResponse.make(response)
    }
}
