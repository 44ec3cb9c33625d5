import Foundation
import HummingbirdTesting
import PantryTestRuntime
import Testing

/// What the app screens of the seeds render: result cards with servings and minutes, ready-time
/// sections (seed 002), a featured recipe and "load more" that never repeats (seed 004), a
/// favourite suggestion that comes with its recipes (seed 001), and "Start cooking".
extension APIRouteTests {
@Suite struct RecipeScreenRouteTests {
    private static func results(_ answer: [String: Any]) -> [[String: Any]]? {
        answer.object("payload")?.object("searchPage")?.objects("results")
    }

    private static func featured(_ answer: [String: Any]) -> [String: Any]? {
        answer.object("payload")?.object("recipe")
    }

    /// One deployment for the six screens (a start is most of their time); each has users of its own.
    @Test func theRecipeScreensShowWhatTheSeedsAskFor() async throws {
        try await InProcessDeployment.run { api, _ in
            try await Self.aSearchIsShownInReadyTimeSectionsOfTheSameResults(api)
            try await Self.theFeaturedRecipeIsTheSameAllDay(api)
            try await Self.loadMoreNeverRepeatsARecipe(api)
            try await Self.theFavouriteSuggestionComesWithRecipes(api)
            try await Self.featuredAndSuggestionsFollowWhatACookSavesAndCooks(api)
            try await Self.startCookingIsItsOwnActAndPutsNothingInTheCart(api)
        }
    }

    private static func aSearchIsShownInReadyTimeSectionsOfTheSameResults(_ api: some TestClientProtocol) async throws {
        let plain = try await api.get("/v1/recipes/search?query=soup&number=30").ok()
        #expect(plain["sections"] == nil)
        let found = try await api.get("/v1/recipes/search?query=soup&number=30&sections=readyTime").ok()
        let results = try #require(Self.results(found))
        #expect(try canonical(results) == canonical(Self.results(plain) ?? []))
        for card in results {  // what a card shows
            #expect((card["servings"] as? Int ?? 0) != 0 && (card["readyInMinutes"] as? Int ?? 0) != 0
                    && !(card["image"] as? String ?? "").isEmpty, "\(card)")
        }
        let sections = try #require(found.objects("sections"))
        #expect(values(Array(sections.prefix(4)), "title")
                == ["Under 15 minutes", "15 to 30 minutes", "30 minutes to an hour", "Over an hour"])
        for section in sections {
            let low = section["minMinutes"] as? Int ?? 0, high = section["maxMinutes"] as? Int ?? 1_000_000
            for summary in section.objects("results") ?? [] {
                let minutes = summary["readyInMinutes"] as? Int ?? -1
                #expect(low <= minutes && minutes <= high, "\(section["title"] ?? "") \(summary)")
            }
        }
        #expect(sections.flatMap { values($0.objects("results")) ?? [] }.sorted() == values(results)?.sorted())
        #expect(try await api.get("/v1/recipes/search?query=soup&sections=calories").status == 422)
    }

    private static func theFeaturedRecipeIsTheSameAllDay(_ api: some TestClientProtocol) async throws {
        let today = try #require(Self.featured(try await api.get("/v1/recipes/featured").ok())?["id"] as? String)
        #expect(Self.featured(try await api.get("/v1/recipes/featured").ok())?["id"] as? String == today)
        var days = Set<String>()
        for day in 1...10 {
            let path = "/v1/recipes/featured?day=2026-12-\(day < 10 ? "0" : "")\(day)"
            days.insert(try #require(Self.featured(try await api.get(path).ok())?["id"] as? String))
        }
        #expect(days.count > 1, "another day, another recipe")
        #expect(try await api.get("/v1/recipes/featured?day=2026-02-30").status == 422)
    }

    private static func loadMoreNeverRepeatsARecipe(_ api: some TestClientProtocol) async throws {
        var seen: [String] = []
        var cursor: String?
        for _ in 0..<10 {
            let page = try await api.get("/v1/recipes/feed?count=50" + (cursor.map { "&cursor=\($0)" } ?? "")).ok()
            seen += try #require(values(page.object("payload")?.objects("recipes")))
            cursor = page["cursor"] as? String
            if cursor == nil { break }
        }
        #expect(cursor == nil, "the catalog ends")
        #expect(seen.count == Set(seen).count && seen.count == 135, "every recipe of the bundled catalog once")
        let other = values(try await api.get("/v1/recipes/feed?count=50").ok().object("payload")?.objects("recipes"))
        #expect(other != Array(seen.prefix(50)), "another session, another order")
        for bad in ["nonsense", "zz.zz.zz", "1.-1", "1." + String(repeating: "z", count: 40)] {
            #expect(try await api.get("/v1/recipes/feed?cursor=\(bad)").status == 422, "\(bad)")
        }
    }

    private static func theFavouriteSuggestionComesWithRecipes(_ api: some TestClientProtocol) async throws {
        let (_, token) = try await api.registerAndLogIn("suggested")
        let found = try #require(values(Self.results(try await api.get("/v1/recipes/search?query=soup&number=3").ok())))
        let saved = Array(found.prefix(2))
        var position = 0
        for id in saved {
            position = try await api.call(.put, "/v1/me/favourites/\(id)", token: token).ok(201)["position"] as? Int ?? 0
        }
        let suggestion = try #require(try await api.get("/v1/me/favourite-suggestion?after=\(position)", token: token).ok().object("result"))
        #expect(suggestion["keyword"] as? String == "soup" && (suggestion["basedOn"] as? [String])?.sorted() == saved.sorted())
        let suggested = try #require(values(suggestion.objects("recipes")))
        #expect(!suggested.isEmpty, "\(suggestion)")
        #expect(Set(suggested).isDisjoint(with: suggestion["basedOn"] as? [String] ?? []), "nothing already saved")
        let soups = try #require(values(Self.results(try await api.get("/v1/recipes/search?query=soup&number=100").ok())))
        #expect(Set(suggested).isSubset(of: soups))
        let (_, other) = try await api.registerAndLogIn("nothing-saved")
        let none = try await api.get("/v1/me/favourite-suggestion", token: other).ok()
        #expect(none.keys.contains("result") && none["result"] is NSNull, "\(none)")
    }

    /// Issue 33: "Featured today" was one recipe for everyone and the suggestion the first titles
    /// with its word. A cook who saves and cooks chicken dishes is featured a chicken dish, none of
    /// theirs, all day; the suggestion puts it first; a new cook sees what everyone sees.
    private static func featuredAndSuggestionsFollowWhatACookSavesAndCooks(_ api: some TestClientProtocol) async throws {
        func hasChicken(_ recipe: [String: Any]?) -> Bool {
            (values(recipe?.objects("ingredients"), "name") ?? []).contains { $0.contains("chicken") }
        }
        let day = "2026-11-27"
        let everyone = try #require(Self.featured(try await api.get("/v1/recipes/featured?day=\(day)").ok()))
        #expect(!hasChicken(everyone), "the day's pick for everyone has none")
        let (_, newCook) = try await api.registerAndLogIn("new-cook")
        #expect(Self.featured(try await api.get("/v1/recipes/featured?day=\(day)", token: newCook).ok())?["id"] as? String
                == everyone["id"] as? String)

        let (_, token) = try await api.registerAndLogIn("chicken-cook")
        let saved = ["catalog:chicken-fajitas", "catalog:chicken-caesar-wrap"]
        var position = 0
        for id in saved {
            position = try await api.call(.put, "/v1/me/favourites/\(id)", token: token).ok(201)["position"] as? Int ?? 0
        }
        let cooking = try await api.post("/v1/me/cooking/catalog:teriyaki-chicken", ["minutes": 30], token: token).ok(201)["position"] as? Int ?? 0
        // Both workers have applied them (read-your-writes), so the featured read that asks them sees them.
        _ = try await api.get("/v1/me/favourites?after=\(position)", token: token).ok()
        _ = try await api.get("/v1/me/cooking?after=\(cooking)", token: token).ok()
        let featured = try #require(Self.featured(try await api.get("/v1/recipes/featured?day=\(day)", token: token).ok()))
        let featuredId = try #require(featured["id"] as? String)
        #expect(hasChicken(featured), "\(featured["title"] ?? "")")
        #expect(!(saved + ["catalog:teriyaki-chicken"]).contains(featuredId))
        #expect((featured["readyInMinutes"] as? Int ?? 0) != 0 && (featured["servings"] as? Int ?? 0) != 0
                && (featured["instructions"] as? [Any] ?? []).count > 1, "complete")
        #expect(Self.featured(try await api.get("/v1/recipes/featured?day=\(day)", token: token).ok())?["id"] as? String == featuredId,
                "the same all day")

        let suggestion = try #require(try await api.get("/v1/me/favourite-suggestion", token: token).ok().object("result"))
        #expect(suggestion["keyword"] as? String == "chicken" && (featured["title"] as? String ?? "").lowercased().contains("chicken"))
        let suggested = values(suggestion.objects("recipes")) ?? []
        #expect(suggested.first == featuredId, "\(values(suggestion.objects("recipes"), "title") ?? [])")
        #expect(Set(suggested).isDisjoint(with: saved))
    }

    private static func startCookingIsItsOwnActAndPutsNothingInTheCart(_ api: some TestClientProtocol) async throws {
        let (_, token) = try await api.registerAndLogIn("cook-timer")
        let recipe = try await api.catalogRecipe("egg")
        let id = try #require(recipe["id"] as? String)
        let readyIn = try #require(recipe["readyInMinutes"] as? Int)
        let path = "/v1/me/cooking/\(id)"
        func timers(after position: Any?) async throws -> [[String: Any]] {
            try #require(try await api.get("/v1/me/cooking?after=\(position as? Int ?? -1)", token: token).ok().objects("result"))
        }
        // Without minutes, the recipe's own time; no cart line is needed, and none is made.
        let started = try await api.post(path, [String: Any](), token: token).ok(201)
        let startedTimers = try await timers(after: started["position"])
        try #require(startedTimers.count == 1, "\(startedTimers)")
        let timer = startedTimers[0]
        #expect(timer["recipeId"] as? String == id && timer["title"] as? String == recipe["title"] as? String)
        #expect(timer["minutes"] as? Int == readyIn)
        let startedAt = timer["startedAt"] as? Int ?? 0, endsAt = timer["endsAt"] as? Int ?? 0
        #expect(endsAt - startedAt == readyIn * 60_000)
        #expect(timer["pointsUntil"] as? Int == endsAt + 3_600_000)
        #expect((readyIn * 60 - 5...readyIn * 60).contains(timer["remainingSeconds"] as? Int ?? -1), "\(timer)")
        let cart = try await api.get("/v1/me/cart?after=\(started["position"] as? Int ?? -1)", token: token).ok()
        #expect(cart.object("result")?.objects("lines")?.isEmpty == true, "\(cart)")
        let first = try #require(values(recipe.objects("ingredients"), "name")?.first)
        let point = try await api.post("/v1/me/owned-ingredients", ["recipeId": id, "ingredient": first], token: token)
        #expect(point.status == 201, "\(point)")
        // Started again with a time of one's own: the countdown restarts.
        let again = try await api.post(path, ["minutes": 1], token: token).ok(201)
        let restarted = try await timers(after: again["position"])
        #expect(restarted.count == 1 && restarted.first?["minutes"] as? Int == 1, "\(restarted)")
        #expect((55...60).contains(restarted.first?["remainingSeconds"] as? Int ?? -1), "\(restarted)")
        let refusals: [([String: Any], String)] = [(["minutes": 0], "invalid_minutes"), (["minutes": 1441], "invalid_minutes"),
                                                   (["minutes": "soon"], "invalid_field"), (["seconds": 5], "invalid_field")]
        for (body, code) in refusals {
            let answer = try await api.post(path, body, token: token)
            #expect(answer.status == 422 && answer.json["code"] as? String == code, "\(body) \(answer)")
        }
        // A recipe that does not exist is 404, and starts nothing.
        let missing = try await api.post("/v1/me/cooking/catalog:no-such-recipe", ["minutes": 5], token: token)
        #expect(missing.status == 404 && missing.json["code"] as? String == "unknown_recipe", "\(missing)")
        // The cart is the cook's own doing, and taking a line out does not stop the cooking.
        _ = try await api.post("/v1/me/cart", ["recipeId": id, "delta": 1], token: token).ok()
        let gone = try await api.post("/v1/me/cart", ["recipeId": id, "delta": -1], token: token).ok()
        let emptied = try await api.get("/v1/me/cart?after=\(gone["position"] as? Int ?? -1)", token: token).ok()
        #expect(emptied.object("result")?.objects("lines")?.isEmpty == true, "\(emptied)")
        #expect(values(try await timers(after: gone["position"]), "recipeId") == [id])
    }
}
}

