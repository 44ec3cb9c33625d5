import Foundation
import PantryDomain
import Testing

@Suite struct UseOwnedIngredientTests {
    @Test func onePointPerUserRecipeAndNormalisedIngredient() throws {
        var world = try World.withAlice()
        let event = try world.accept(use("u1", "r1", " Olive  OIL"))
        #expect(event == .pointEarned(PointEarned(userId: "u1", recipeId: "r1", ingredient: "olive oil")))
        #expect(world.reject(use("u1", "r1", "olive oil")) == .alreadyUsed)
        #expect(world.reject(use("u1", " r1 ", "OLIVE OIL")) == .alreadyUsed)
        #expect(world.reject(use("u1", "r1", "olive\u{A0}\u{A0}oil")) == .alreadyUsed)
    }

    @Test func anotherRecipeOrAnotherUserEarnsAgain() throws {
        var world = try World.withAlice()
        try world.accept(register("u2", "bob"))
        try world.accept(use("u1", "r1", "olive oil"))
        try world.accept(use("u1", "r2", " Olive  OIL"))
        try world.accept(use("u2", "r1", "OLIVE OIL"))
        #expect(world.state.usedIngredients.mapValues(\.count) == ["u1": 2, "u2": 1])
        #expect(world.events.compactMap(\.pointEarned).allSatisfy { $0.ingredient == "olive oil" })
    }

    @Test(arguments: [("Salt", "salt"), ("  sea   SALT ", "sea salt"), ("Jalapeño", "jalapeño"), ("CRÈME fraîche", "crème fraîche"),
                      ("葱", "葱"), ("🍅 Tomato", "🍅 tomato")])
    func pointsCarryTheNormalisedIngredient(_ typed: String, _ normal: String) throws {
        var world = try World.withAlice()
        let event = try world.accept(use("u1", "r1", typed))
        #expect(event.pointEarned?.ingredient == normal)
        #expect(normalizedIngredient(typed.trimmingCharacters(in: .whitespaces)) == normal)
    }

    @Test func theRecipeIdMustBeValid() throws {
        var world = try World.withAlice()
        #expect(world.reject(use("u1", "", "salt")) == .invalidRecipeId)
        #expect(world.reject(use("u1", "r1", "")) == .invalidIngredient)
        #expect(world.reject(use("u1", "r1", "salt\u{0}")) == .invalidIngredient)
    }
}
