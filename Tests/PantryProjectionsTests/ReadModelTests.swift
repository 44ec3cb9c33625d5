import Foundation
import GRDB
import PantryCore
import PantryDomain
import PantryEventStore
import Testing
@testable import PantryProjections
import PantryStandings

@Suite struct LeaderboardTests {
    func point(_ history: History, _ user: String, _ ingredient: String) {
        history.run(.useOwnedIngredient(UseOwnedIngredient(userId: user, recipeId: "r1", ingredient: ingredient,
                                                           recipe: History.facts("Recipe r1"))))
    }

    @Test("Equal points share a rank (1, 2, 2), listed by who got there first, and users without points are not in the top")
    func equalPointsShareARank() throws {
        let h = try History()
        for (id, name) in [("u1", "alice"), ("u2", "bob"), ("u3", "carol"), ("u4", "dave"), ("u5", "erin")] {
            h.register(id, name)
        }
        point(h, "u2", "salt")      // bob reaches 1 first
        point(h, "u1", "salt")      // alice reaches 1 later
        point(h, "u3", "salt")
        point(h, "u3", "pepper")    // carol 2
        let store = try h.caughtUp(LeaderboardProjection())

        let top = try store.read { try LeaderboardProjection.top(10, in: $0) }
        #expect(top.map(\.username) == ["carol", "bob", "alice"])
        #expect(top.map(\.rank) == [1, 2, 2])
        #expect(top.map(\.points) == [2, 1, 1])
        #expect(try store.read { try LeaderboardProjection.top(2, in: $0) }.map(\.userId) == ["u3", "u2"])
        #expect(try store.read { try LeaderboardProjection.top(0, in: $0) }.isEmpty)
        #expect(try store.read { try LeaderboardProjection.entry("u1", in: $0) }?.rank == 2)

        // Alice reaches 2 after carol: tied with carol, listed behind her; bob is third.
        point(h, "u1", "pepper")
        try store.catchUp(from: h.log)
        #expect(try store.read { try LeaderboardProjection.top(10, in: $0) }.map { "\($0.rank):\($0.username)" }
                == ["1:carol", "1:alice", "3:bob"])
        // Users without points rank after everyone with points, all on one rank.
        #expect(try store.read { try LeaderboardProjection.entry("u4", in: $0) }
                == LeaderboardEntry(rank: 4, userId: "u4", username: "dave", points: 0))
        #expect(try store.read { try LeaderboardProjection.entry("u5", in: $0) }?.rank == 4)
        #expect(try store.read { try LeaderboardProjection.entry("u1", in: $0) }
                == LeaderboardEntry(rank: 1, userId: "u1", username: "alice", points: 2))
        #expect(try store.read { try LeaderboardProjection.entry("nobody", in: $0) } == nil)
        #expect(try store.read { try LeaderboardProjection.count(in: $0) } == 5)
        // A window that starts inside a tie gives the tie's rank, not the place's.
        #expect(try store.read { try LeaderboardProjection.around("u5", radius: 1, in: $0) }.map { "\($0.rank):\($0.userId)" }
                == ["4:u4", "4:u5"])
        #expect(try store.read { try LeaderboardProjection.around("u2", radius: 0, in: $0) }.map(\.rank) == [3])
        #expect(try store.read { try LeaderboardProjection.around("u1", radius: 0, in: $0) }.map(\.rank) == [1])
    }

    @Test func aroundMeAtTheEdges() throws {
        let h = try History()
        for i in 1...7 { h.register("u\(i)", "user\(i)") }
        // u7 leads with 3, u6 has 2, u5 has 1; u1...u4 have none (listed by registration, one rank).
        for (user, n) in [("u7", 3), ("u6", 2), ("u5", 1)] {
            for k in 0..<n { point(h, user, "ingredient\(k)") }
        }
        let store = try h.caughtUp(LeaderboardProjection())
        func around(_ user: String, _ radius: Int) throws -> [String] {
            try store.read { try LeaderboardProjection.around(user, radius: radius, in: $0) }.map { "\($0.rank):\($0.userId)" }
        }
        #expect(try around("u7", 2) == ["1:u7", "2:u6", "3:u5"])                        // top edge
        #expect(try around("u6", 2) == ["1:u7", "2:u6", "3:u5", "4:u1"])
        #expect(try around("u2", 2) == ["3:u5", "4:u1", "4:u2", "4:u3", "4:u4"])        // middle
        #expect(try around("u4", 2) == ["4:u2", "4:u3", "4:u4"])                        // bottom edge
        #expect(try around("u4", 0) == ["4:u4"])
        #expect(try around("u1", 100).count == 7)
        #expect(try around("nobody", 2).isEmpty)
    }
}

@Suite struct CartTests {
    @Test func linesCountsAndTotals() throws {
        let h = try History()
        h.register("u1", "alice")
        h.register("u2", "bob")
        func adjust(_ user: String, _ recipe: RecipeID, _ delta: Int, title: String? = nil) {
            h.run(.adjustCart(AdjustCart(userId: user, recipeId: recipe, delta: delta, recipe: History.facts(
                title ?? "Recipe \(recipe)", image: "https://img.example.org/\(recipe).jpg"))))
        }
        adjust("u1", "r1", 2)
        adjust("u1", "r2", 1)
        adjust("u2", "r1", 5)
        adjust("u1", "r1", 3, title: "Renamed r1")   // the recipe's recorded title stands
        let store = try h.caughtUp(CartsProjection())
        #expect(try store.read { try CartsProjection.lines("u1", in: $0) } == [
            CartLine(recipeId: "r1", title: "Recipe r1", image: "https://img.example.org/r1.jpg", count: 5),
            CartLine(recipeId: "r2", title: "Recipe r2", image: "https://img.example.org/r2.jpg", count: 1),
        ])
        #expect(try store.read { try CartsProjection.totals("u1", in: $0) } == CartTotals(lines: 2, items: 6))

        adjust("u1", "r1", -5)      // to 0: the line disappears
        try store.catchUp(from: h.log)
        #expect(try store.read { try CartsProjection.lines("u1", in: $0) }.map(\.recipeId) == ["r2"])
        #expect(try store.read { try CartsProjection.totals("u1", in: $0) } == CartTotals(lines: 1, items: 1))
        #expect(try store.read { try CartsProjection.cart("u2", in: $0) }.totals == CartTotals(lines: 1, items: 5))
        #expect(try store.read { try CartsProjection.cart("nobody", in: $0) } == Cart(lines: [], totals: CartTotals(lines: 0, items: 0)))

        adjust("u1", "r1", 1)       // comes back at the end
        try store.catchUp(from: h.log)
        #expect(try store.read { try CartsProjection.lines("u1", in: $0) }.map(\.recipeId) == ["r2", "r1"])
    }

    @Test func cookingCountsDownFromWhenItWasRecordedApartFromTheCartAndEndsWithItsPoints() throws {
        let h = try History()
        h.register("u1", "alice")
        h.run(.startCooking(StartCooking(userId: "u1", recipeId: "r1", minutes: 45, recipe: History.facts("Recipe r1"))))
        let started = h.clockMillis
        let store = try h.caughtUp(CartsProjection())
        func timer(at now: Int64) throws -> CookingTimer? {
            try store.read { try CartsProjection.cooking("u1", in: $0, now: now) }.first
        }
        #expect(try timer(at: started + 60_000) == CookingTimer(recipeId: "r1", title: "Recipe r1", image: nil, startedAt: started,
                                                               minutes: 45, now: started + 60_000))
        #expect(try timer(at: started + 60_000)?.remainingSeconds == 44 * 60)
        #expect(try timer(at: started + 60_000)?.endsAt == started + 45 * 60_000)
        #expect(try timer(at: started + 46 * 60_000)?.remainingSeconds == 0, "done")
        #expect(try store.read { try CartsProjection.lines("u1", in: $0) }.isEmpty, "cooking puts nothing in the cart")

        // The cart is apart: a line comes and goes, the cooking goes on.
        h.run(.adjustCart(AdjustCart(userId: "u1", recipeId: "r1", delta: 1)))
        h.run(.adjustCart(AdjustCart(userId: "u1", recipeId: "r1", delta: -1)))
        try store.catchUp(from: h.log)
        #expect(try timer(at: started)?.minutes == 45)
        // Once its points are over it is no longer listed, and gone from the file when another starts.
        #expect(try timer(at: started + 45 * 60_000 + Decider.cookingGrace) == nil)
        h.clock += 46 * 60 + 3600
        h.run(.startCooking(StartCooking(userId: "u1", recipeId: "r2", minutes: 5, recipe: History.facts("Recipe r2"))))
        try store.catchUp(from: h.log)
        #expect(try store.read { try String.fetchAll($0, sql: "SELECT recipe_id FROM cooking") } == ["r2"])
    }
}

@Suite struct GroceryTests {
    @Test func sumsEachQuantityKeepsWhatWasBoughtAndSortsByAisle() throws {
        let h = try History()
        h.register("u1", "alice")
        func add(_ ingredient: String, _ amount: Double? = nil, _ unit: String? = nil, _ recipe: RecipeID? = nil) {
            h.run(.addGrocery(AddGrocery(userId: "u1", ingredient: ingredient, amount: amount, unit: unit, recipeId: recipe)))
        }
        func check(_ ingredient: String, _ checked: Bool) {
            h.run(.checkGrocery(CheckGrocery(userId: "u1", ingredient: ingredient, checked: checked)))
        }
        add("Flour", 500, "g", "r1")
        add("Salt")
        add("Eggs", 3)
        add("flour", 1, "kg", "r2")
        add("FLOUR", 200, "grams", "r1")
        add("salt")
        add("egg", 2)
        check("flour", true)
        let store = try h.caughtUp(GroceriesProjection())
        var list = try store.read { try GroceriesProjection.list("u1", in: $0) }
        // Unchecked first, by aisle (dairy before spices), checked last; "Eggs" and "egg" are one item.
        #expect(list.map(\.item) == ["egg", "salt", "flour"])
        #expect(list.map(\.aisle) == ["Milk, Eggs, Other Dairy", "Spices and Seasonings", "Baking"])
        #expect(list[2] == GroceryItem(item: "flour", ingredient: "Flour", aisle: "Baking", checked: true, amounts: [],
                                       bought: [GroceryAmount(amount: 1.7, unit: "kg")], unmeasuredAdds: 0, recipeIds: ["r1", "r2"]))
        #expect(list[1].unmeasuredAdds == 2 && list[1].amounts.isEmpty && list[1].recipeIds.isEmpty)
        #expect(list[0].amounts == [GroceryAmount(amount: 5, unit: nil)])

        // 500 g bought, then 100 g more: 100 g to buy, the 500 g stays bought.
        add("Flour", 100, "g")
        h.run(.removeGrocery(RemoveGrocery(userId: "u1", ingredient: "EGG")))
        check("salt", true)
        try store.catchUp(from: h.log)
        list = try store.read { try GroceriesProjection.list("u1", in: $0) }
        #expect(list.map(\.item) == ["flour", "salt"])
        #expect(list.map(\.checked) == [false, true])
        #expect(list[0].amounts == [GroceryAmount(amount: 100, unit: "g")])
        #expect(list[0].bought == [GroceryAmount(amount: 1.7, unit: "kg")])

        check("flour", true)
        try store.catchUp(from: h.log)
        #expect(try store.read { try GroceriesProjection.item("u1", item: "flour", in: $0) }?.bought
                == [GroceryAmount(amount: 1.8, unit: "kg")])
        check("flour", false)
        try store.catchUp(from: h.log)
        let unchecked = try #require(try store.read { try GroceriesProjection.item("u1", item: "flour", in: $0) })
        #expect(unchecked.amounts == [GroceryAmount(amount: 1.8, unit: "kg")] && unchecked.bought.isEmpty)

        // Removed and added again: a fresh item, nothing carried over.
        h.run(.removeGrocery(RemoveGrocery(userId: "u1", ingredient: "flour")))
        add("flour", 2, "cup")
        try store.catchUp(from: h.log)
        #expect(try store.read { try GroceriesProjection.item("u1", item: "flour", in: $0) }
                == GroceryItem(item: "flour", ingredient: "flour", aisle: "Baking", checked: false,
                               amounts: [GroceryAmount(amount: 2, unit: "cup")], bought: [], unmeasuredAdds: 0, recipeIds: []))
        #expect(try store.read { try GroceriesProjection.list("u2", in: $0) }.isEmpty)
    }

    @Test func volumesInOneUnitStayInItAndMixedOnesAreShownInMillilitres() throws {
        let h = try History()
        h.register("u1", "alice")
        func add(_ ingredient: String, _ amount: Double, _ unit: String) {
            h.run(.addGrocery(AddGrocery(userId: "u1", ingredient: ingredient, amount: amount, unit: unit, recipeId: nil)))
        }
        add("soy sauce", 1, "tbsp")
        add("soy sauce", 2, "Tablespoons")
        add("milk", 2, "tbsp")
        add("milk", 1, "cup")
        add("stock", 750, "ml")
        add("stock", 0.5, "l")
        add("garlic", 2, "cloves")
        add("garlic", 1, "Cloves")
        add("garlic", 100, "g")
        let store = try h.caughtUp(GroceriesProjection())
        let list = try store.read { try GroceriesProjection.list("u1", in: $0) }
        let amounts = Dictionary(uniqueKeysWithValues: list.map { ($0.item, $0.amounts) })
        #expect(amounts["soy sauce"] == [GroceryAmount(amount: 3, unit: "tbsp")])
        #expect(amounts["milk"] == [GroceryAmount(amount: 266.162, unit: "ml")])
        #expect(amounts["stock"] == [GroceryAmount(amount: 1.25, unit: "l")])
        #expect(amounts["garlic"] == [GroceryAmount(amount: 3, unit: "cloves"), GroceryAmount(amount: 100, unit: "g")])
    }

    @Test func everyIngredientOfTheBundledCatalogHasAnAisle() throws {
        let catalog = URL(filePath: #filePath).deletingLastPathComponent()
            .appending(path: "../../Sources/PantryFetch/Resources/catalog.json")
        let recipes = try #require(try JSONSerialization.jsonObject(with: Data(contentsOf: catalog)) as? [[String: Any]])
        let names = Set(recipes.flatMap { ($0["ingredients"] as? [[String: Any]] ?? []).compactMap { $0["name"] as? String } })
        #expect(names.count > 200)
        #expect(names.filter { GroceryAisle.of(item: IngredientName.key($0)) == .other }.sorted() == [])
        #expect(GroceryAisle.of(item: "red wine vinegar") == .oilAndVinegar && GroceryAisle.of(item: "peanut butter") == .nutButtersAndHoney)
        #expect(GroceryAisle.of(item: "egg white") == .dairy && GroceryAisle.of(item: "unobtainium") == .other)
    }
}

@Suite struct FavouriteTests {
    @Test func newestFirstSearchAndSuggestion() throws {
        let h = try History()
        h.register("u1", "alice")
        h.register("u2", "bob")
        var savedAt: [String: Int64] = [:]
        for (id, title) in [("r1", "Spicy Chicken Curry"), ("r2", "Lemon Tart"), ("r3", "Chicken Noodle Soup"),
                            ("r4", "Green curry with CHICKEN")] {
            h.run(.saveRecipe(SaveRecipe(userId: "u1", recipeId: RecipeID(id), recipe: History.facts(title, image: "https://img.example.org/\(id).jpg"))))
            savedAt[id] = h.clockMillis
        }
        h.run(.saveRecipe(SaveRecipe(userId: "u2", recipeId: "r9", recipe: History.facts("Crème brûlée"))))
        let store = try h.caughtUp(FavouritesProjection())
        let list = try store.read { try FavouritesProjection.list("u1", in: $0) }
        #expect(list.map(\.recipeId) == ["r4", "r3", "r2", "r1"])
        #expect(list.map(\.savedAt) == ["r4", "r3", "r2", "r1"].map { savedAt[$0]! })
        #expect(list.last?.image == "https://img.example.org/r1.jpg")

        #expect(try store.read { try FavouritesProjection.search("u1", text: "chicken", in: $0) }.map(\.recipeId) == ["r4", "r3", "r1"])
        #expect(try store.read { try FavouritesProjection.search("u1", text: " TART ", in: $0) }.map(\.recipeId) == ["r2"])
        #expect(try store.read { try FavouritesProjection.search("u1", text: "", in: $0) }.count == 4)
        #expect(try store.read { try FavouritesProjection.search("u1", text: "pizza", in: $0) }.isEmpty)
        #expect(try store.read { try FavouritesProjection.search("u2", text: "CRÈME", in: $0) }.map(\.recipeId) == ["r9"])

        // chicken and curry are in 3 and 2 titles.
        #expect(try store.read { try FavouritesProjection.suggestion("u1", in: $0) }
                == FavouriteSuggestion(keyword: "chicken", basedOn: ["r4", "r3", "r1"]))

        h.run(.removeSavedRecipe(RemoveSavedRecipe(userId: "u1", recipeId: "r3")))
        try store.catchUp(from: h.log)
        #expect(try store.read { try FavouritesProjection.list("u1", in: $0) }.map(\.recipeId) == ["r4", "r2", "r1"])
        // chicken and curry now tie at 2 titles, both newest in r4: alphabetical.
        #expect(try store.read { try FavouritesProjection.suggestion("u1", in: $0) }
                == FavouriteSuggestion(keyword: "chicken", basedOn: ["r4", "r1"]))
        #expect(try store.read { try FavouritesProjection.suggestion("nobody", in: $0) } == nil)
    }

    @Test func suggestionTieGoesToTheNewestSave() throws {
        let h = try History()
        h.register("u1", "alice")
        for (id, title) in [("r1", "Apple pie"), ("r2", "Zucchini bread"), ("r3", "The best 10 minute pie"), ("r4", "Zucchini fritters")] {
            h.run(.saveRecipe(SaveRecipe(userId: "u1", recipeId: RecipeID(id), recipe: History.facts(title))))
        }
        let store = try h.caughtUp(FavouritesProjection())
        // pie and zucchini are in 2 titles each; zucchini's newest save (r4) is newer than pie's (r3).
        #expect(try store.read { try FavouritesProjection.suggestion("u1", in: $0) }
                == FavouriteSuggestion(keyword: "zucchini", basedOn: ["r4", "r2"]))
        #expect(FavouritesProjection.significantWords("The best 10 minute pie") == ["pie"])
    }
}

@Suite struct ExperienceTests {
    @Test func inTurnsWithOlderAccountsFirstAndALimit() throws {
        let h = try History()
        h.register("u1", "alice")
        h.register("u2", "bob")
        var ids: [String] = []
        for (user, recipe, text) in [("u2", "r1", "Great with rice"), ("u1", "r1", "Add more garlic"),
                                     ("u1", "r2", "Too salty"), ("u2", "r1", "Made it twice")] {
            h.run(.writeExperience(WriteExperience(userId: user, recipeId: RecipeID(recipe), text: text)))
            ids.append(Decider.experienceId(h.lastCommandId))
        }
        let store = try h.caughtUp(ExperiencesProjection())
        let all = try store.read { try ExperiencesProjection.forRecipe("r1", in: $0) }
        // Each author's first tip, the older account's first; then bob's second.
        #expect(all.experiences.map(\.text) == ["Add more garlic", "Great with rice", "Made it twice"])
        #expect(all.experiences.map(\.experienceId) == [ids[1], ids[0], ids[3]])
        #expect(all.experiences.map(\.username) == ["alice", "bob", "bob"])
        #expect(all.next == nil)
        let firstTwo = try store.read { try ExperiencesProjection.forRecipe("r1", limit: 2, in: $0) }
        #expect(firstTwo.experiences.map(\.text) == ["Add more garlic", "Great with rice"])
        let rest = try store.read { try ExperiencesProjection.forRecipe("r1", limit: 2, after: firstTwo.next, in: $0) }
        #expect(rest.experiences.map(\.text) == ["Made it twice"] && rest.next == nil)
        #expect(try store.read { try ExperiencesProjection.forRecipe("r2", in: $0) }.experiences.map(\.userId) == ["u1"])
        #expect(try store.read { try ExperiencesProjection.forRecipe("r3", in: $0) }.experiences.isEmpty)
        #expect(try store.read { try ExperiencesProjection.count("r1", in: $0) } == 3)
    }

    /// Issue 45: 45 accounts from 3 addresses wrote 225 tips in 4 s, and newest first with no
    /// next page left every earlier tip unreadable.
    @Test func anHonestTipIsReachableAfter225OthersFrom45Accounts() throws {
        let h = try History()
        h.register("honest", "honest_cook")
        h.run(.writeExperience(WriteExperience(userId: "honest", recipeId: "r1", text: "Rest the dough overnight")))
        for account in 0..<45 { h.register("p\(account)", "puppet\(account)") }
        for round in 0..<5 {
            _ = h.runAll((0..<45).map { .writeExperience(WriteExperience(userId: "p\($0)", recipeId: "r1", text: "buy now \(round)")) })
        }
        let store = try h.caughtUp(ExperiencesProjection())
        #expect(try store.read { try ExperiencesProjection.count("r1", in: $0) } == 226)
        var read: [Experience] = []
        var cursor: ExperiencesProjection.Cursor?
        var pages = 0
        repeat {
            let page = try store.read { try ExperiencesProjection.forRecipe("r1", limit: 50, after: cursor, in: $0) }
            read += page.experiences
            cursor = page.next
            pages += 1
            // The cursor goes through its text, as it does through the API.
            if let next = cursor { #expect(ExperiencesProjection.Cursor(text: next.text) == next) }
        } while cursor != nil && pages < 10
        #expect(read.count == 226 && Set(read.map(\.experienceId)).count == 226, "every tip once")
        // The burst cannot take over the first page: the honest account is older than the burst's.
        #expect(read.first?.text == "Rest the dough overnight")
        // And no account's tips stand in a row: each puppet's first tip comes before any second.
        #expect(read.prefix(46).map(\.userId).count { $0.hasPrefix("p") } == 45)
        for text in ["", "1.2", "a.b.c", "-1.2.3", "1.2.3.4", "1..3", "1.2.99999999999999999999", "١.٢.٣"] {
            #expect(ExperiencesProjection.Cursor(text: text) == nil, "\(text)")
        }
    }
}

@Suite struct CatalogTests {
    @Test func catalogNamesAndFiles() throws {
        #expect(ProjectionCatalog.names == ["leaderboard", "carts", "favourites", "groceries", "experiences"])
        #expect(throws: ProjectionError.unknownProjection("nope")) { try ProjectionCatalog.named("nope") }
        let h = try History()
        let dir = h.directory.appendingPathComponent("p")
        for name in ProjectionCatalog.names {
            let store = try ProjectionStore.open(name: name, directory: dir, keys: h.keys)
            #expect(store.path == dir.appendingPathComponent("\(name).sqlite").path)
            #expect(try store.checkpoint == 0)
        }
    }
}
