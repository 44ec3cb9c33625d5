import PantryDomain
import Testing

@Suite struct GroceryTests {
    @Test func addingTheSameIngredientAgainMerges() throws {
        var world = try World.withAlice()
        let first = try world.accept(addGrocery("u1", "Olive Oil", amount: 2, unit: "tbsp", recipeId: " r1 "))
        #expect(first == .groceryAdded(GroceryAdded(userId: "u1", item: "olive oil", ingredient: "Olive Oil", amount: 2,
                                                    unit: "tbsp", recipeId: "r1", merged: false)))
        let second = try world.accept(addGrocery("u1", "  OLIVE   oil "))
        #expect(second.groceryAdded?.merged == true)
        #expect(second.groceryAdded?.item == first.groceryAdded?.item)
        #expect(second.groceryAdded?.ingredient == "OLIVE   oil")
        #expect(world.state.groceries["u1"] == ["olive oil": false])
    }

    @Test func checkUncheckAndRemoveNeedAnExistingItem() throws {
        var world = try World.withAlice()
        #expect(world.reject(check("u1", "salt")) == .noSuchItem)
        #expect(world.reject(check("u1", "salt", false)) == .noSuchItem)
        #expect(world.reject(removeGrocery("u1", "salt")) == .noSuchItem)
        try world.accept(addGrocery("u1", "Salt"))
        let checked = try world.accept(check("u1", " SALT "))
        #expect(checked == .groceryChecked(GroceryChecked(userId: "u1", item: "salt", checked: true)))
        #expect(world.reject(check("u1", "salt")) == .unchanged)
        let unchecked = try world.accept(check("u1", "salt", false))
        #expect(unchecked.groceryChecked?.checked == false)
        #expect(world.reject(check("u1", "Salt", false)) == .unchanged)
        let removed = try world.accept(removeGrocery("u1", "sALT"))
        #expect(removed == .groceryRemoved(GroceryRemoved(userId: "u1", item: "salt")))
        #expect(world.state.groceries["u1"] == [:])
        #expect(world.reject(removeGrocery("u1", "salt")) == .noSuchItem)
        #expect(world.reject(check("u1", "salt")) == .noSuchItem)
    }

    @Test func reAddingACheckedItemUnchecksIt() throws {
        var world = try World.withAlice()
        try world.accept(addGrocery("u1", "flour"))
        try world.accept(check("u1", "flour"))
        #expect(world.state.groceries["u1"]?["flour"] == true)
        let again = try world.accept(addGrocery("u1", "Flour", amount: 500, unit: "g"))
        #expect(again.groceryAdded?.merged == true)
        #expect(world.state.groceries["u1"]?["flour"] == false)
        #expect(world.reject(check("u1", "flour", false)) == .unchanged)
        try world.accept(check("u1", "flour"))
    }

    @Test func singularAndPluralAreOneItem() throws {
        var world = try World.withAlice()
        let first = try world.accept(addGrocery("u1", "Tomatoes", amount: 2))
        #expect(first.groceryAdded?.item == "tomato" && first.groceryAdded?.ingredient == "Tomatoes")
        #expect(try world.accept(addGrocery("u1", "tomato", amount: 1)).groceryAdded?.merged == true)
        #expect(try world.accept(addGrocery("u1", "Cherry Tomatoes")).groceryAdded?.item == "cherry tomato")
        try world.accept(check("u1", "TOMATO"))
        #expect(world.state.groceries["u1"] == ["tomato": true, "cherry tomato": false])
        #expect(try world.accept(removeGrocery("u1", "cherry tomatoes")).groceryRemoved?.item == "cherry tomato")
    }

    @Test func anItemAddedUnderItsOldKeyIsStillFound() throws {
        var world = try World.withAlice()
        // Before keys were singular, "Eggs" was kept as "eggs".
        let old = Event.groceryAdded(GroceryAdded(userId: "u1", item: "eggs", ingredient: "Eggs", amount: 6, unit: nil,
                                                  recipeId: nil, merged: false))
        Decider.evolve(&world.state, old, at: world.now)
        #expect(try world.accept(addGrocery("u1", "eggs", amount: 6)).groceryAdded?.item == "eggs")
        #expect(try world.accept(check("u1", "Eggs")).groceryChecked?.item == "eggs")
        #expect(try world.accept(removeGrocery("u1", "eggs")).groceryRemoved?.item == "eggs")
        #expect(try world.accept(addGrocery("u1", "eggs")).groceryAdded?.item == "egg")
    }

    @Test func listsArePerUser() throws {
        var world = try World.withAlice()
        try world.accept(register("u2", "bob"))
        try world.accept(addGrocery("u1", "eggs"))
        #expect(world.reject(check("u2", "eggs")) == .noSuchItem)
        let bobs = try world.accept(addGrocery("u2", "Eggs"))
        #expect(bobs.groceryAdded?.merged == false)
    }

    @Test func amountsAndUnits() throws {
        var world = try World.withAlice()
        let zero = try world.accept(addGrocery("u1", "a", amount: 0, unit: "   "))
        #expect(zero.groceryAdded?.amount == 0)
        #expect(zero.groceryAdded?.unit == nil)
        let max = try world.accept(addGrocery("u1", "b", amount: 1_000_000, unit: String(repeating: "g", count: 32)))
        #expect(max.groceryAdded?.amount == 1_000_000)
        #expect(world.reject(addGrocery("u1", "c", amount: 1_000_000.5)) == .invalidAmount)
        #expect(world.reject(addGrocery("u1", "c", amount: -0.01)) == .invalidAmount)
        #expect(world.reject(addGrocery("u1", "c", amount: -.infinity)) == .invalidAmount)
        #expect(world.reject(addGrocery("u1", "c", unit: "g\u{0}")) == .invalidUnit)
        #expect(world.reject(addGrocery("u1", "c", recipeId: "  ")) == .invalidRecipeId)
    }
}
