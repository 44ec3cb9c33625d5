import PantryDomain
import Testing

/// One person's data is bounded; a command past a bound is refused and changes nothing.
@Suite struct BoundsTests {
    @Test func theGroceryListHoldsAThousandItemsAndMoreOfOneStillMerges() throws {
        var world = try World.withAlice()
        for n in 0..<Decider.maxGroceryItems { try world.accept(addGrocery("u1", "item \(n)")) }
        #expect(world.reject(addGrocery("u1", "one too many")) == .limitReached)
        #expect(try world.accept(addGrocery("u1", "ITEM 7", amount: 2)).groceryAdded?.merged == true, "an item on the list is not a new one")
        try world.accept(removeGrocery("u1", "item 0"))
        try world.accept(addGrocery("u1", "room again"))
        #expect(world.state.groceries["u1"]?.count == Decider.maxGroceryItems)
    }

    @Test func favouritesStopAtAThousand() throws {
        var world = try World.withAlice()
        for n in 0..<Decider.maxFavourites { try world.accept(save("u1", "catalog:r\(n)")) }
        #expect(world.reject(save("u1", "catalog:more")) == .limitReached)
        try world.accept(unsave("u1", "catalog:r0"))
        try world.accept(save("u1", "catalog:more"))
    }

    @Test func theCartHoldsTwoHundredRecipesAndTheirCountsStillMove() throws {
        var world = try World.withAlice()
        for n in 0..<Decider.maxCartLines { try world.accept(cart("u1", "catalog:r\(n)", 1)) }
        #expect(world.reject(cart("u1", "catalog:more", 1)) == .limitReached)
        try world.accept(cart("u1", "catalog:r3", 2))
        try world.accept(cart("u1", "catalog:r4", -1))
        try world.accept(cart("u1", "catalog:more", 1))
    }

    @Test func fiveExperiencesPerRecipeFromOnePerson() throws {
        var world = try World.withAlice()
        for n in 0..<Decider.maxExperiencesPerRecipe { try world.accept(experience("u1", "catalog:soup", "tip \(n)")) }
        #expect(world.reject(experience("u1", "catalog:soup", "one more")) == .limitReached)
        try world.accept(experience("u1", "catalog:stew", "another recipe is another count"))
        #expect(world.state.experiences["u1"]?["catalog:soup"] == Decider.maxExperiencesPerRecipe)
    }
}
