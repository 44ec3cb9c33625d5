import Foundation
import PantryDomain
import Testing

@Suite struct RecipeRulesTests {
    @Test func recipeIdsAndTitlesAreTrimmed() throws {
        var world = try World.withAlice()
        let event = try world.accept(save("u1", "  r1 ", title: "  Tomato soup  "))
        #expect(event == .recipeSaved(RecipeSaved(userId: "u1", recipeId: "r1", title: "Tomato soup", image: nil)))
        #expect(world.state.savedRecipes["u1"] == ["r1"])
        #expect(world.reject(save("u1", "r1")) == .alreadySaved)
        try world.accept(unsave("u1", " r1 "))
        #expect(world.state.savedRecipes["u1"] == [])
        try world.accept(save("u1", "r1"))
    }

    @Test func boundsOfRecipeIdAndTitle() throws {
        var world = try World.withAlice()
        try world.accept(save("u1", RecipeID(String(repeating: "r", count: 128)), title: String(repeating: "t", count: 300)))
        #expect(world.reject(save("u1", RecipeID(String(repeating: "s", count: 129)))) == .invalidRecipeId)
        #expect(world.reject(save("u1", "r2", title: String(repeating: "t", count: 301))) == .invalidTitle)
        #expect(world.reject(save("u1", "")) == .invalidRecipeId)
        #expect(world.reject(save("u1", "r2", title: "")) == .invalidTitle)
    }

    @Test(arguments: ["https://example.org/a.png", "http://img.example.org/b.jpg?w=300&h=200", "HTTPS://EXAMPLE.ORG/c.webp",
                      "  https://example.org/trimmed.png  "])
    func acceptsHttpImages(_ image: String) throws {
        var world = try World.withAlice()
        let event = try world.accept(save("u1", "r1", image: image))
        #expect(event.recipeSaved?.image == image.trimmingCharacters(in: .whitespaces))
        let cartEvent = try world.accept(cart("u1", "r1", 1, image: image))
        #expect(cartEvent.cartAdjusted?.image == image.trimmingCharacters(in: .whitespaces))
    }

    @Test(arguments: ["javascript:alert(1)", "JavaScript:alert(document.cookie)", "ftp://example.org/a.png",
                      "/images/a.png", "images/a.png", "a.png", "", "http://", "https:///path.png",
                      "data:image/png;base64,AAAA", "file:///etc/passwd", "//example.org/a.png", "mailto:a@example.org"])
    func refusesOtherImages(_ image: String) throws {
        var world = try World.withAlice()
        #expect(world.reject(save("u1", "r1", image: image)) == .invalidImageURL)
        #expect(world.reject(cart("u1", "r1", 1, image: image)) == .invalidImageURL)
    }

    @Test func recipesArePerUser() throws {
        var world = try World.withAlice()
        try world.accept(register("u2", "bob"))
        try world.accept(save("u1", "r1"))
        try world.accept(save("u2", "r1"))
        #expect(world.reject(unsave("u2", "r2")) == .notSaved)
    }
}
