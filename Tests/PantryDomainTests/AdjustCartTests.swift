import PantryDomain
import Testing

@Suite struct AdjustCartTests {
    @Test func theEventCarriesTheResultingCount() throws {
        var world = try World.withAlice()
        let first = try world.accept(cart("u1", "r1", 3, title: " Soup "))
        #expect(first == .cartAdjusted(CartAdjusted(userId: "u1", recipeId: "r1", title: "Soup", image: nil, delta: 3, count: 3)))
        let second = try world.accept(cart("u1", "r1", -2))
        #expect(second.cartAdjusted?.count == 1)
        #expect(second.cartAdjusted?.delta == -2)
        #expect(world.state.carts["u1"]?["r1"] == 1)
        let third = try world.accept(cart("u1", "r1", -1))
        #expect(third.cartAdjusted?.count == 0)
        #expect(world.state.carts["u1"]?["r1"] == nil)
    }

    @Test func countStaysWithinZeroAndNinetyNine() throws {
        var world = try World.withAlice()
        #expect(world.reject(cart("u1", "r1", -1)) == .cartOutOfRange)
        try world.accept(cart("u1", "r1", 99))
        #expect(world.state.carts["u1"]?["r1"] == 99)
        #expect(world.reject(cart("u1", "r1", 1)) == .cartOutOfRange)
        #expect(world.reject(cart("u1", "r1", 99)) == .cartOutOfRange)
        try world.accept(cart("u1", "r1", -99))
        #expect(world.reject(cart("u1", "r1", -1)) == .cartOutOfRange)
    }

    @Test(arguments: [0, 100, -100, Int.max, Int.min, Int.min + 1])
    func refusesInvalidDeltas(_ delta: Int) throws {
        var world = try World.withAlice()
        try world.accept(cart("u1", "r1", 50))
        #expect(world.reject(cart("u1", "r1", delta)) == .invalidDelta)
    }

    @Test func cartsArePerUserAndRecipe() throws {
        var world = try World.withAlice()
        try world.accept(register("u2", "bob"))
        try world.accept(cart("u1", "r1", 99))
        try world.accept(cart("u1", "r2", 99))
        try world.accept(cart("u2", "r1", 99))
        #expect(world.state.carts == ["u1": ["r1": 99, "r2": 99], "u2": ["r1": 99]])
    }
}
