import Foundation
import PantryDomain
import Testing

@Suite struct UseOwnedIngredientTests {
    @Test func onePointPerUserRecipeAndNormalisedIngredient() throws {
        var world = try World.withAlice()
        let event = try world.earn("u1", "r1", " Olive  OIL")
        #expect(event == .pointEarned(PointEarned(userId: "u1", recipeId: "r1", ingredient: "olive oil")))
        #expect(world.reject(use("u1", "r1", "olive oil")) == .alreadyUsed)
        #expect(world.reject(use("u1", " r1 ", "OLIVE OIL")) == .alreadyUsed)
        #expect(world.reject(use("u1", "r1", "olive\u{A0}\u{A0}oil")) == .alreadyUsed)
    }

    @Test func anotherRecipeOrAnotherUserEarnsAgain() throws {
        var world = try World.withAlice()
        try world.accept(register("u2", "bob"))
        try world.earn("u1", "r1", "olive oil")
        try world.earn("u1", "r2", " Olive  OIL")
        try world.earn("u2", "r1", "OLIVE OIL")
        #expect(world.state.usedIngredients.mapValues(\.count) == ["u1": 2, "u2": 1])
        #expect(world.events.compactMap(\.pointEarned).allSatisfy { $0.ingredient == "olive oil" })
    }

    @Test(arguments: [("Salt", "salt"), ("  sea   SALT ", "sea salt"), ("Jalapeño", "jalapeño"), ("CRÈME fraîche", "crème fraîche"),
                      ("葱", "葱"), ("🍅 Tomato", "tomato"), ("Eggs", "egg"), ("berries", "berry")])
    func pointsCarryTheNormalisedIngredient(_ typed: String, _ normal: String) throws {
        var world = try World.withAlice()
        let event = try world.earn("u1", "r1", typed)
        #expect(event.pointEarned?.ingredient == normal)
        #expect(IngredientName.words(typed).joined(separator: " ") == normal)
    }

    @Test func aPointOnlyForAnIngredientOfTheRecipe() throws {
        var world = try World.withAlice()
        let pasta = facts(title: "Pasta", ingredients: ["spaghetti", "large eggs", "garlic", "parmesan"])
        try world.startCooking("u1", "carbonara", recipe: pasta)
        #expect(world.reject(use("u1", "carbonara", "chocolate", recipe: pasta)) == .notInRecipe)
        let first = try #require(try? world.run(use("u1", "carbonara", "Garlic", recipe: pasta)).get())
        #expect(first == [.pointEarned(PointEarned(userId: "u1", recipeId: "carbonara", ingredient: "garlic"))])
        // "egg" names "large eggs": one point, whatever the plural or the words around it.
        #expect(try world.earn("u1", "carbonara", "egg", recipe: nil).pointEarned?.ingredient == "large egg")
        #expect(world.reject(use("u1", "carbonara", "LARGE EGGS")) == .alreadyUsed)
        #expect(world.reject(use("u1", "carbonara", "eggplant")) == .notInRecipe)
    }

    @Test func factsSentForARecordedRecipeAreIgnored() throws {
        var world = try World.withAlice()
        try world.earn("u1", "r1", "salt", recipe: facts(title: "Soup", ingredients: ["salt"]))
        let forged = facts(title: "Renamed", image: "https://evil.example/x.png", ingredients: ["unobtainium"])
        #expect(world.reject(use("u1", "r1", "unobtainium", recipe: forged)) == .notInRecipe)
        let saved = try world.accept(.saveRecipe(SaveRecipe(userId: "u1", recipeId: "r1", recipe: forged)))
        #expect(saved == .recipeSaved(RecipeSaved(userId: "u1", recipeId: "r1", title: "Soup", image: nil)))
        #expect(try world.accept(.adjustCart(AdjustCart(userId: "u1", recipeId: "r1", delta: 1, recipe: forged))).cartAdjusted?.title == "Soup")
        #expect(world.events.filter { if case .recipeRecorded = $0 { true } else { false } }.count == 1)
    }

    @Test func eggsEggAndCapitalisedEggsAreOnePointForTheRecipesOwnIngredient() throws {
        var world = try World.withAlice()
        let shakshuka = facts(title: "Shakshuka", ingredients: ["Eggs", "onion", "tomatoes"])
        let event = try world.earn("u1", "shakshuka", "eggs", recipe: shakshuka)
        #expect(event == .pointEarned(PointEarned(userId: "u1", recipeId: "shakshuka", ingredient: "egg")))
        #expect(world.reject(use("u1", "shakshuka", "egg")) == .alreadyUsed)
        #expect(world.reject(use("u1", "shakshuka", "Eggs")) == .alreadyUsed)
        #expect(world.state.usedIngredients["u1"]?.map { [$0.recipeId.rawValue, $0.ingredient] } == [["shakshuka", "egg"]])
    }

    @Test func chocolateForAPastaEarnsNothing() throws {
        var world = try World.withAlice()
        let pasta = facts(title: "Pasta", ingredients: ["spaghetti", "garlic", "olive oil"])
        try world.startCooking("u1", "pasta", recipe: pasta)
        #expect(world.reject(use("u1", "pasta", "chocolate", recipe: pasta)) == .notInRecipe)
        try world.earn("u1", "pasta", "garlic", recipe: pasta)
        #expect(world.reject(use("u1", "pasta", "chocolate")) == .notInRecipe, "not after the recipe is recorded either")
        #expect(world.state.usedIngredients["u1"]?.count == 1)
    }

    @Test("a point for a recipe nobody looked up is refused as not cooking: it earns and records nothing, and asks for no lookup")
    func aRecipeNobodyLookedUpEarnsNothingAndRecordsNothing() throws {
        var world = try World.withAlice()
        let bare = Command.useOwnedIngredient(UseOwnedIngredient(userId: "u1", recipeId: "made-up-1", ingredient: "unobtainium"))
        #expect(world.reject(bare) == .notCooking)
        #expect(world.reject(use("u1", "made-up-1", "unobtainium", recipe: facts(ingredients: ["unobtainium"]))) == .notCooking)
        #expect(world.state.recipes.isEmpty && world.state.usedIngredients.isEmpty)
    }

    @Test func favouritesAndCartLinesTakeTitleAndImageFromTheRecordedFacts() throws {
        var world = try World.withAlice()
        let recorded = facts(title: "Shakshuka", image: "https://img.example.org/shakshuka.jpg", ingredients: ["eggs"])
        try world.earn("u1", "shakshuka", "eggs", recipe: recorded)
        let saved = try world.accept(.saveRecipe(SaveRecipe(userId: "u1", recipeId: "shakshuka")))
        #expect(saved == .recipeSaved(RecipeSaved(userId: "u1", recipeId: "shakshuka", title: "Shakshuka",
                                                  image: "https://img.example.org/shakshuka.jpg")))
        let forged = facts(title: "Renamed", image: "https://evil.example/x.png")
        // Cooking it put nothing in the cart.
        let line = try world.accept(.adjustCart(AdjustCart(userId: "u1", recipeId: "shakshuka", delta: 2, recipe: forged)))
        #expect(line == .cartAdjusted(CartAdjusted(userId: "u1", recipeId: "shakshuka", title: "Shakshuka",
                                                   image: "https://img.example.org/shakshuka.jpg", delta: 2, count: 2)))
        // A decrement cannot rename the line either.
        let decrement = try world.accept(.adjustCart(AdjustCart(userId: "u1", recipeId: "shakshuka", delta: -1, recipe: forged)))
        #expect(decrement.cartAdjusted?.title == "Shakshuka" && decrement.cartAdjusted?.image == recorded.image)
        #expect(world.state.recipes["shakshuka"]?.facts == recorded)
    }

    @Test func theRecipeIdMustBeValid() throws {
        var world = try World.withAlice()
        #expect(world.reject(use("u1", "", "salt")) == .invalidRecipeId)
        #expect(world.reject(use("u1", "r1", "")) == .invalidIngredient)
        #expect(world.reject(use("u1", "r1", "salt\u{0}")) == .invalidIngredient)
    }
}

@Suite struct EarnedPointsTests {
    @Test func aPointFromBeforeItsRecipeWasRecordedStillCountsOnceItIs() throws {
        var world = try World.withAlice()
        // Logs written before recipes were recorded hold points for recipes the state never saw.
        Decider.evolve(&world.state, .pointEarned(PointEarned(userId: "u1", recipeId: "old", ingredient: "flour")), at: world.now)
        #expect(world.state.usedIngredients["u1"] == [PantryState.UsedIngredient(recipeId: "old", ingredient: "flour")])
        let bread = facts(title: "Bread", ingredients: ["flour", "water", "yeast"])
        try world.startCooking("u1", "old", recipe: bread)
        #expect(world.reject(use("u1", "old", "Flour", recipe: bread)) == .alreadyUsed)
        try world.earn("u1", "old", "yeast", recipe: bread)
        #expect(world.reject(use("u1", "old", "yeast")) == .alreadyUsed)
        #expect(Set(world.state.usedIngredients["u1"]?.map(\.ingredient) ?? []) == ["flour", "yeast"])
    }

    @Test func pointsAreKeptByRecipeNumberAndIngredientIndexAndReadBackByName() throws {
        var world = try World.withAlice()
        let soup = facts(title: "Soup", ingredients: ["onions", "carrot", "onion"])
        try world.earn("u1", "soup", "onion", recipe: soup)
        try world.earn("u1", "soup", "carrots")
        try world.earn("u1", "r1", "salt")
        #expect(world.state.recipeOrder == ["soup", "r1"])
        // "onions" and "onion" are one point key; the first ingredient with it stands for both.
        #expect(world.state.earnedPoints["u1"] == Set<UInt64>([0 << 16 | 0, 0 << 16 | 1, 1 << 16 | 0]))
        #expect(world.state.usedIngredients["u1"] == [
            .init(recipeId: "soup", ingredient: "onion"), .init(recipeId: "soup", ingredient: "carrot"),
            .init(recipeId: "r1", ingredient: "salt"),
        ])
        // The same state restored from its holdings decides the same.
        var restored = PantryState(restoring: world.state.holdings)
        for (event, at) in world.logged {
            if case .userRegistered = event { Decider.evolve(&restored, event, at: at) }
        }
        #expect(restored == world.state)
    }
}
