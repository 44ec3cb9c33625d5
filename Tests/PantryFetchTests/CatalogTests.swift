import Foundation
import PantryDomain
import Testing
@testable import PantryFetch
import PantryWire

/// The search rules against a small fixture catalog whose answers can be worked out by hand.
@Suite struct CatalogTests {
    static let smallCatalog = URL(fileURLWithPath: #filePath).deletingLastPathComponent().deletingLastPathComponent()
        .appendingPathComponent("Fixtures/catalog-small.json").path

    func service(seed: UInt64 = 7, catalog: String? = smallCatalog) throws -> FetchService {
        var config = FetchConfiguration(databasePath: try temporaryDatabasePath())
        config.catalogSeed = seed
        config.catalogFile = catalog
        #expect(config.primary == .catalog)
        return try FetchService(configuration: config)
    }

    @Test func ranksByMostUsedThenWeightThenFewestMissingAndStaplesAreNeverMissing() async throws {
        let result = try await service().handle(.byIngredients(ingredients: ["Egg"], number: 10))
        guard case .summaries(let hits)? = result.response?.payload else { Issue.record("\(result)"); return }
        #expect(hits.map(\.id) == ["catalog:pancakes", "catalog:shakshuka"])
        // Pancakes: 7 ingredients, the egg used, salt a staple; shakshuka: 10, olive oil and salt staples.
        #expect(hits.map(\.usedIngredientCount) == [1, 1] && hits.map(\.missedIngredientCount) == [5, 7])
        #expect(result.response?.origin == .catalog && result.response?.provider == "catalog", "the catalog says it answered, not an upstream")
        #expect(hits.allSatisfy { $0.servings != nil && $0.readyInMinutes != nil }, "what a result card shows")

        // Not every ingredient is needed: the recipe using both comes first, then those using one,
        // the one using the egg (a protein) before the one using the tomato, though it misses more.
        let both = try await service().handle(.byIngredients(ingredients: ["eggs", "tomatoes"], number: 10))
        guard case .summaries(let ranked)? = both.response?.payload else { Issue.record("\(both)"); return }
        #expect(ranked.map(\.id) == ["catalog:shakshuka", "catalog:pancakes", "catalog:guacamole"])
        #expect(ranked.map(\.usedIngredientCount) == [2, 1, 1] && ranked.map(\.missedIngredientCount) == [6, 5, 4])
        let none = try await service().handle(.byIngredients(ingredients: ["unobtainium"], number: 10))
        #expect(none.response?.payload == .summaries([]))
    }

    @Test func pantryStaplesAreSaltPepperWaterAndOils() {
        for staple in ["salt", "Kosher Salt", "salt and pepper", "black pepper", "ground black pepper", "pepper",
                       "water", "cold water", "olive oil", "Extra virgin olive oil", "vegetable oil"] {
            #expect(IngredientName.isPantryStaple(staple), "\(staple)")
        }
        for food in ["red bell pepper", "green peppers", "water chestnuts", "salted butter", "oil-packed tuna", "eggs"] {
            #expect(!IngredientName.isPantryStaple(food), "\(food)")
        }
    }

    @Test func searchFiltersByKeywordDietTimeAndPages() async throws {
        let service = try service()
        func ids(_ request: FetchRequest) async -> [String] {
            guard case .searchPage(let page)? = await service.handle(request).response?.payload else { return ["failed"] }
            return page.results.map(\.id)
        }
        // None has the word in its title: the shorter title first (the dish itself), then the title.
        #expect(await ids(.search(query: "salt", diet: nil, maxReadyTime: nil, offset: 0, number: 10))
            == ["catalog:guacamole", "catalog:shakshuka", "catalog:pancakes"])
        #expect(await ids(.search(query: "salt", diet: "vegan", maxReadyTime: nil, offset: 0, number: 10)) == ["catalog:guacamole"])
        #expect(await ids(.search(query: "salt", diet: nil, maxReadyTime: 20, offset: 0, number: 10))
            == ["catalog:guacamole", "catalog:pancakes"])
        #expect(await ids(.search(query: "salt", diet: nil, maxReadyTime: nil, offset: 1, number: 1)) == ["catalog:shakshuka"])
        #expect(await ids(.search(query: "shakshuka", diet: nil, maxReadyTime: nil, offset: 0, number: 10)) == ["catalog:shakshuka"])
    }

    @Test func detailRandomAndAutocomplete() async throws {
        let service = try service(seed: 42)
        guard case .recipe(let recipe)? = await service.handle(.detail(id: "catalog:shakshuka")).response?.payload else {
            Issue.record("no detail"); return
        }
        #expect(recipe.sourceName == "Pantry catalog" && recipe.servings == 4)
        #expect(recipe.image == "/v1/recipes/catalog:shakshuka/image", "the picture the API draws")
        #expect(await service.handle(.detail(id: "catalog:missing")) == .failure(.notFound))

        guard case .recipes(let first)? = await service.handle(.random(count: 2)).response?.payload,
              case .recipes(let again)? = try await self.service(seed: 42).handle(.random(count: 2)).response?.payload
        else { Issue.record("no random"); return }
        #expect(first.count == 2 && Set(first.map(\.id)).count == 2)
        #expect(first == again, "the same seed draws the same recipes")

        guard case .suggestions(let names)? = await service.handle(.autocomplete(prefix: "Av", number: 5)).response?.payload else {
            Issue.record("no suggestions"); return
        }
        #expect(names == ["avocados"])
    }

    @Test func catalogFileFromEnvironmentIsLoadedAndCheckedAtStart() throws {
        let directory = URL(fileURLWithPath: try temporaryDatabasePath()).deletingLastPathComponent()
        let bad = directory.appendingPathComponent("bad.json")
        try Data(#"[{"id": "catalog:x", "title": "no other fields"}]"#.utf8).write(to: bad)
        #expect(throws: FetchConfigurationError.self) { try self.service(catalog: bad.path) }
        let wrongPrefix = directory.appendingPathComponent("prefix.json")
        try Data(#"[{"id":"x","title":"t","image":null,"servings":null,"readyInMinutes":null,"ingredients":[],"instructions":[],"sourceName":"s","sourceUrl":null,"diets":[],"dishTypes":[]}]"#.utf8).write(to: wrongPrefix)
        #expect(throws: FetchConfigurationError.self) { try self.service(catalog: wrongPrefix.path) }
    }

    /// The catalog shipped with Pantry loads and answers every kind of request.
    @Test func shippedCatalogServesOffline() async throws {
        let shipped = try service(catalog: nil)
        let eggs = try await shipped.handle(.byIngredients(ingredients: ["egg", "butter"], number: 100)).get()
        guard case .summaries(let hits) = eggs.payload else { Issue.record("\(eggs)"); return }
        #expect(hits.count >= 5)
        #expect(hits.first?.usedIngredientCount == 2)
        #expect(zip(hits, hits.dropFirst()).allSatisfy { ($0.usedIngredientCount ?? 0) >= ($1.usedIngredientCount ?? 0) })
        // Five ingredients find recipes (every one of them was needed, so this found nothing).
        let five = try await shipped.handle(.byIngredients(ingredients: ["egg", "tomato", "onion", "garlic", "cheese"], number: 10)).get()
        guard case .summaries(let cooking) = five.payload else { Issue.record("\(five)"); return }
        #expect(cooking.count == 10 && (cooking.first?.usedIngredientCount ?? 0) >= 3)
        // Keywords: recipes with the word in their title before those with it only in an ingredient.
        let chicken = try await shipped.handle(.search(query: "chicken", diet: nil, maxReadyTime: nil, offset: 0, number: 100)).get()
        guard case .searchPage(let found) = chicken.payload else { Issue.record("\(chicken)"); return }
        let inTitle = found.results.map { IngredientName.words($0.title).contains("chicken") }
        #expect(inTitle.first == true && inTitle == inTitle.sorted { $0 && !$1 })
        // A plural finds the singular name.
        guard case .suggestions(let eggs) = try await shipped.handle(.autocomplete(prefix: "eggs", number: 5)).get().payload else { return }
        #expect(eggs.contains("egg"))
        let vegan = try await shipped.handle(.search(query: "salad", diet: "vegan", maxReadyTime: 60, offset: 0, number: 100)).get()
        guard case .searchPage(let page) = vegan.payload else { Issue.record("\(vegan)"); return }
        #expect(page.totalResults >= 1)
        for summary in page.results {
            guard case .recipe(let recipe) = try await shipped.handle(.detail(id: summary.id)).get().payload else { continue }
            #expect(recipe.diets.contains("vegan") && (recipe.readyInMinutes ?? 999) <= 60)
        }
        guard case .recipes(let random) = try await shipped.handle(.random(count: 10)).get().payload else { return }
        #expect(Set(random.map(\.id)).count == 10)
    }

    @Test("A cook who saves and cooks chicken dishes is offered chicken dishes first: complete, none of theirs, in one order all day")
    func likedRanksByWhatIsShared() async throws {
        let shipped = try service(catalog: nil)
        let liked = ["catalog:chicken-fajitas", "catalog:teriyaki-chicken", "catalog:chicken-caesar-wrap"]
        func ranked(_ ids: [String], day: String = "2026-11-27") async throws -> [RecipeSummary] {
            guard case .summaries(let found) = try await shipped.handle(.liked(ids: ids, day: day, number: 10)).get().payload
            else { Issue.record("not summaries"); return [] }
            return found
        }
        let found = try await ranked(liked)
        #expect(found.count == 10 && Set(found.map(\.id)).isDisjoint(with: liked))
        #expect(found.allSatisfy { $0.readyInMinutes != nil && $0.servings != nil })
        var chicken: [Bool] = []
        for summary in found.prefix(5) {
            guard case .recipe(let recipe) = try await shipped.handle(.detail(id: summary.id)).get().payload else { continue }
            chicken.append(recipe.ingredients.contains { IngredientName.words($0.name).contains("chicken") })
        }
        // 9 of the catalog's 135 recipes have chicken; the two best, and most of the five, do.
        #expect(chicken.prefix(2) == [true, true] && chicken.filter { $0 }.count >= 3, "\(found.map(\.title))")
        #expect(try await ranked(liked).map(\.id) == found.map(\.id), "the same all day")
        #expect(try await ranked(Array(liked.reversed())).map(\.id) == found.map(\.id), "whatever order they come in")
        // Recipes the catalog does not hold rank nothing: the caller shows what everyone sees.
        #expect(try await ranked(["spoonacular:716429"]).isEmpty)
        // Bad input is refused, not ranked.
        for bad: FetchRequest in [.liked(ids: [], day: "2026-11-27", number: 10), .liked(ids: ["nonsense"], day: "2026-11-27", number: 10),
                                  .liked(ids: liked, day: "tomorrow", number: 10), .liked(ids: liked, day: "2026-11-27", number: 0),
                                  .liked(ids: (0...50).map { "mealdb:\($0)" }, day: "2026-11-27", number: 10)] {
            #expect(throws: FetchError.self, "\(bad)") { try bad.validated() }
        }
    }

}

@Suite struct StoreLocationTests {
    @Test func databaseDirectoryIsCreated() async throws {
        let base = URL(fileURLWithPath: try temporaryDatabasePath()).deletingLastPathComponent()
        let path = base.appendingPathComponent("nested/dir/fetch.sqlite").path
        let config = FetchConfiguration(databasePath: path)
        _ = try FetchService(configuration: config)
        #expect(FileManager.default.fileExists(atPath: path))
    }
}
