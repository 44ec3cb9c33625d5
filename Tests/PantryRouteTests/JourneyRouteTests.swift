import Foundation
import PantryTestRuntime
import Testing

/// The user journey of the seeds against the real deployment (core, every worker, fetch with its
/// embedded catalog, API): register, log in, find recipes with what is at home, save, make a
/// grocery list, earn points, fill the cart, write a tip, and see the leaderboard. Every read uses
/// `?after=` with the position its command answered, so nothing here sleeps or polls.
extension APIRouteTests {
@Suite struct JourneyRouteTests {
    @Test func aCookGoesFromWhatIsAtHomeToTheLeaderboard() async throws {
        try await InProcessDeployment.run { api, _ in
            let (_, token) = try await api.registerAndLogIn("cook")
            func get(_ path: String) async throws -> [String: Any] { try await api.get(path, token: token).ok() }
            func position(_ answer: [String: Any]) -> Int { answer["position"] as? Int ?? -1 }

            // Find recipes with the ingredients at home, then open one.
            let found = try await get("/v1/recipes/by-ingredients?ingredients=egg,tomato&number=5")
            #expect(found.object("payload")?["type"] as? String == "summaries" && found["provider"] as? String == "catalog")
            let summaries = try #require(found.object("payload")?.objects("summaries"))
            // Those using both first, then those using one; within each, fewest missing first.
            let ranks = summaries.map { [-($0["usedIngredientCount"] as? Int ?? 0), $0["missedIngredientCount"] as? Int ?? 0] }
            #expect(!summaries.isEmpty && summaries.first?["usedIngredientCount"] as? Int == 2
                    && ranks == ranks.sorted { $0.lexicographicallyPrecedes($1) }, "\(ranks)")
            let recipe = try #require(try await get("/v1/recipes/\(summaries[0]["id"] as? String ?? "")").object("payload")?.object("recipe"))
            let recipeId = try #require(recipe["id"] as? String)
            let title = try #require(recipe["title"] as? String)
            let ingredients = try #require(recipe.objects("ingredients"))
            let names = ingredients.map { $0["name"] as? String ?? "" }
            #expect(!ingredients.isEmpty && !(recipe["instructions"] as? [Any] ?? []).isEmpty)
            #expect(!(try await get("/v1/recipes/search?query=soup&number=3").object("payload")?.object("searchPage")?.objects("results") ?? []).isEmpty)
            #expect(try await get("/v1/recipes/random?count=2").object("payload")?.objects("recipes")?.count == 2)
            #expect((try await get("/v1/ingredients/autocomplete?prefix=tom").object("payload")?["suggestions"] as? [String] ?? []).contains("tomato"))

            // Save it and find it again.
            let saved = try await api.call(.put, "/v1/me/favourites/\(recipeId)", token: token).ok(201)
            let favourites = try await get("/v1/me/favourites?after=\(position(saved))")
            #expect(values(favourites.objects("result"), "recipeId") == [recipeId])
            #expect(position(favourites) >= position(saved))
            let word = String(title.split(separator: " ").first ?? "").addingPercentEncoding(withAllowedCharacters: .alphanumerics) ?? ""
            #expect(values(try await get("/v1/me/favourites?q=\(word)").objects("result"), "recipeId") == [recipeId])
            #expect(values(try await get("/v1/me/favourites?q=zzzz-nothing").objects("result"), "recipeId") == [])
            #expect(try await get("/v1/me/favourite-suggestion").object("result")?["basedOn"] as? [String] == [recipeId])

            // Groceries: the recipe's first two ingredients, one by hand twice (merged), check, uncheck, remove.
            for ingredient in ingredients.prefix(2) {
                var body: [String: Any] = ["ingredient": ingredient["name"] ?? "", "recipeId": recipeId]
                if let amount = ingredient["amount"] as? NSNumber, amount.doubleValue != 0 { body["amount"] = amount }
                if let unit = ingredient["unit"] as? String, !unit.isEmpty { body["unit"] = unit }
                _ = try await api.post("/v1/me/groceries", body, token: token).ok(201)
            }
            _ = try await api.post("/v1/me/groceries", ["ingredient": "Flour", "amount": 200, "unit": "g"], token: token).ok(201)
            let merged = try await api.post("/v1/me/groceries", ["ingredient": " flour ", "amount": 100, "unit": "g"], token: token).ok(201)
            let groceries = try #require(try await get("/v1/me/groceries?after=\(position(merged))").objects("result"))
            let flour = groceries.filter { $0["item"] as? String == "flour" }
            #expect(groceries.count == 3 && flour.map { amounts($0["amounts"]) } == [["300.0 g"]], "\(groceries)")
            func flourChecked(after answer: [String: Any]) async throws -> [Bool] {
                try await get("/v1/me/groceries?after=\(position(answer))").objects("result")?
                    .filter { $0["item"] as? String == "flour" }.map { $0["checked"] as? Bool ?? false } ?? []
            }
            let checked = try await api.call(.patch, "/v1/me/groceries/flour", json: ["checked": true], token: token).ok()
            #expect(try await flourChecked(after: checked) == [true])
            let unchecked = try await api.call(.patch, "/v1/me/groceries/flour", json: ["checked": false], token: token).ok()
            #expect(try await flourChecked(after: unchecked) == [false])
            let removed = try await api.call(.delete, "/v1/me/groceries/flour", token: token).ok()
            #expect(try await get("/v1/me/groceries?after=\(position(removed))").objects("result")?.count == 2)

            // Points for cooking with what is at home: not before cooking, then one per ingredient, never twice.
            let early = try await api.post("/v1/me/owned-ingredients", ["recipeId": recipeId, "ingredient": names[0]], token: token)
            #expect(early.status == 409 && early.json["code"] as? String == "not_cooking", "\(early)")
            try await api.startCooking(recipeId, token: token)
            var used: [String: Any] = [:]
            for name in names.prefix(3) {
                used = try await api.post("/v1/me/owned-ingredients", ["recipeId": recipeId, "ingredient": name], token: token).ok(201)
            }
            let again = try await api.post("/v1/me/owned-ingredients", ["recipeId": recipeId, "ingredient": names[0].uppercased()], token: token)
            #expect(again.status == 409 && again.json["code"] as? String == "already_used", "\(again)")
            let me = try await get("/v1/me?after=\(position(used))")
            #expect(me["points"] as? Int == 3 && me["rank"] as? Int == 1, "\(me)")

            // The cart holds only what the cook put there (cooking put nothing): three, then one fewer.
            _ = try await api.post("/v1/me/cart", ["recipeId": recipeId, "delta": 3], token: token).ok()
            let cart = try await api.post("/v1/me/cart", ["recipeId": recipeId, "delta": -1], token: token).ok()
            let lines = try #require(try await get("/v1/me/cart?after=\(position(cart))").object("result"))
            #expect(lines.objects("lines")?.map { "\($0["recipeId"] ?? "") \($0["title"] ?? "") \($0["count"] ?? "")" } == ["\(recipeId) \(title) 2"])
            #expect(lines.object("totals")?["lines"] as? Int == 1 && lines.object("totals")?["items"] as? Int == 2 && lines.object("totals")?.count == 2)
            #expect(try await get("/v1/me/cooking?after=\(position(cart))").objects("result")?.map { $0["minutes"] as? Int ?? 0 } == [30])

            // A tip for others, shown with the author's name.
            let tip = try await api.post("/v1/recipes/\(recipeId)/experiences", ["text": "  Less salt, more lemon.  "], token: token).ok(201)
            let experiences = try await get("/v1/recipes/\(recipeId)/experiences?after=\(position(tip))").objects("result")
            #expect(experiences?.map { "\($0["username"] ?? ""): \($0["text"] ?? "")" } == ["cook: Less salt, more lemon."])

            // The leaderboard, with a second cook who earns more.
            let (_, rival) = try await api.registerAndLogIn("rival")
            #expect(names.count >= 4)
            try await api.startCooking(recipeId, token: rival)
            var last: [String: Any] = [:]
            for name in names.prefix(4) {
                last = try await api.post("/v1/me/owned-ingredients", ["recipeId": recipeId, "ingredient": name], token: rival).ok(201)
            }
            let top = try await get("/v1/leaderboard?limit=10&after=\(position(last))").objects("result")
            #expect(top?.map { "\($0["username"] ?? "") \($0["points"] ?? "") \($0["rank"] ?? "")" } == ["rival 4 1", "cook 3 2"])
            #expect(try await get("/v1/leaderboard/me").object("result")?["rank"] as? Int == 2)
            #expect(values(try await get("/v1/leaderboard/around-me?radius=1").objects("result"), "username") == ["rival", "cook"])
        }
    }
}
}

