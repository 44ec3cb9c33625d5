import Foundation
import HummingbirdTesting
import PantryTestRuntime
import Testing

/// Issue 12's and 32's rules for points: one for a real ingredient of a real recipe being cooked,
/// once, at no more than a person's pace.
extension APIRouteTests {
@Suite struct PointRouteTests {
    static let shakshuka = "catalog:shakshuka"  // olive oil, onion, bell pepper, garlic, cumin, ..., egg, parsley, salt
    /// One deployment for both checks: the first reads the whole log, before the second's 30 recipes are recorded in it.
    @Test func pointsCannotBeFarmed() async throws {
        try await InProcessDeployment.run { api, deployment in
            try await Self.pointsAreEarnedOnlyForARealIngredientOfARealRecipe(api, deployment)
            try await Self.aScriptedFarmerGetsAtMostAPersonsPaceOfPoints(api)
        }
    }


    private static func points(_ api: some TestClientProtocol, _ token: String, after position: Int = 0) async throws -> Int? {
        try await api.get("/v1/me?after=\(position)", token: token).ok()["points"] as? Int
    }

    private static func pointsAreEarnedOnlyForARealIngredientOfARealRecipe(_ api: some TestClientProtocol, _ deployment: InProcessDeployment) async throws {
        let (_, token) = try await api.registerAndLogIn("farmer")
        let shakshuka = Self.shakshuka
        // Not cooking: refused before anything is looked up, a made-up recipe too.
        for body in [["recipeId": "catalog:made-up-1", "ingredient": "unobtainium"], ["recipeId": shakshuka, "ingredient": "Eggs"]] {
            expectProblem(try await api.post("/v1/me/owned-ingredients", body, token: token), 409, "not_cooking")
        }
        try await api.startCooking(shakshuka, token: token)
        for ingredient in ["chocolate", "eggplant"] {
            expectProblem(try await api.post("/v1/me/owned-ingredients", ["recipeId": shakshuka, "ingredient": ingredient], token: token),
                          422, "not_in_recipe")
        }
        #expect(try await Self.points(api, token) == 0)

        let earned = try await api.post("/v1/me/owned-ingredients", ["recipeId": shakshuka, "ingredient": "Eggs"], token: token).ok(201)
        #expect(try await Self.points(api, token, after: earned["position"] as? Int ?? -1) == 1)
        // egg, eggs and EGG are one ingredient of the recipe: one point, ever.
        for same in ["egg", "EGG", " eggs "] {
            expectProblem(try await api.post("/v1/me/owned-ingredients", ["recipeId": shakshuka, "ingredient": same], token: token),
                          409, "already_used")
        }
        #expect(try await Self.points(api, token) == 1)

        func data(_ type: String) throws -> [[String: Any]] {
            try deployment.events().filter { $0.type == type }.map { try JSONSerialization.jsonObject(with: $0.data) as? [String: Any] ?? [:] }
        }
        let recorded = try data("RecipeRecorded")
        #expect(recorded.map { $0["recipeId"] as? String } == [shakshuka], "the facts are recorded once, in the log")
        #expect((recorded.first?["ingredients"] as? [String])?.contains("egg") == true)
        #expect(try data("PointEarned").map { $0["ingredient"] as? String } == ["egg"])
    }

    /// Issue 32: a script pressed every ingredient of the feed's recipes, 2,315 points in 10 s. Now
    /// each recipe must be cooking first, and one person earns 60 at once, then one in 6 minutes.
    private static func aScriptedFarmerGetsAtMostAPersonsPaceOfPoints(_ api: some TestClientProtocol) async throws {
        let (_, token) = try await api.registerAndLogIn("scripted")
        let recipes = try #require(try await api.get("/v1/recipes/random?count=30").ok().object("payload")?.objects("recipes"))
        let ingredientCount = recipes.reduce(0) { $0 + ($1.objects("ingredients")?.count ?? 0) }
        #expect(ingredientCount > 100)
        var earned = 0, position = 0
        var refused: [String: Int] = [:]
        for recipe in recipes {
            let id = recipe["id"] as? String ?? ""
            let names = values(recipe.objects("ingredients"), "name") ?? []
            let early = try await api.post("/v1/me/owned-ingredients", ["recipeId": id, "ingredient": names.first ?? ""], token: token)
            expectProblem(early, 409, "not_cooking")
            try await api.startCooking(id, token: token)
            for name in names {
                let answer = try await api.post("/v1/me/owned-ingredients", ["recipeId": id, "ingredient": name], token: token)
                if answer.status == 201 {
                    earned += 1
                    position = answer.json["position"] as? Int ?? -1
                } else {
                    #expect(answer.header("Content-Type") == "application/problem+json", "\(answer)")
                    refused["\(answer.status) \(answer.json["code"] as? String ?? "")", default: 0] += 1
                }
            }
        }
        #expect(earned == 60, "\(earned) \(refused)")
        #expect(refused["429 pace_exceeded", default: 0] > 40 && Set(refused.keys).isSubset(of: ["429 pace_exceeded", "409 already_used"]),
                "\(refused)")
        #expect(try await Self.points(api, token, after: position) == 60)
    }
}
}
