import PantryDomain
import Testing

/// Titles, ingredients, units and experiences share one text rule.
@Suite struct TextFieldTests {
    static let unicode = ["Crème brûlée", "麻婆豆腐", "Jalapeño poppers 🌶️", "Ωmega-3 bowl", "👩‍🍳 Chef's kiss", "naïve café",
                          "Smörgåsbord", "ราดหน้า"]

    @Test(arguments: unicode)
    func unicodeIsAcceptedWhereTextIsAllowed(_ text: String) throws {
        var world = try World.withAlice()
        #expect(try world.accept(save("u1", RecipeID(text), title: text)).recipeSaved
                == RecipeSaved(userId: "u1", recipeId: RecipeID(text), title: text, image: nil))
        #expect(try world.accept(addGrocery("u1", text, unit: text)).groceryAdded?.ingredient == text)
        #expect(try world.earn("u1", "r1", text).pointEarned?.ingredient == IngredientName.words(text).joined(separator: " "))
        #expect(try world.accept(cart("u1", RecipeID(text), 1, title: text)).cartAdjusted?.title == text)
        #expect(try world.accept(experience("u1", RecipeID(text), text)).experienceWritten?.text == text)
    }

    /// At the ends too: the contract's patterns refuse them anywhere, and trimming them first
    /// let "kg\n" through as "kg" (schemathesis, ST201).
    static let controls = ["a\u{0}b", "a\u{7}b", "line\nbreak", "tab\tinside", "esc\u{1B}[31m", "del\u{7F}", "c1\u{85}x", "c1\u{9F}x", "cr\rlf",
                           "kg\n", "\tsalt", "salt\r\n", "nel\u{85}"]

    @Test(arguments: controls)
    func controlCharactersAreRefused(_ text: String) throws {
        var world = try World.withAlice()
        #expect(world.reject(save("u1", "r1", title: text)) == .invalidTitle)
        #expect(world.reject(save("u1", RecipeID(text))) == .invalidRecipeId)
        #expect(world.reject(addGrocery("u1", text)) == .invalidIngredient)
        #expect(world.reject(addGrocery("u1", "salt", unit: text)) == .invalidUnit)
        #expect(world.reject(use("u1", "r1", text)) == .invalidIngredient)
        #expect(world.reject(cart("u1", "r1", 1, title: text)) == .invalidTitle)
        if text.unicodeScalars.contains(where: { !["\n", "\r", "\t"].contains($0) && $0.properties.generalCategory == .control }) {
            #expect(world.reject(experience("u1", "r1", text)) == .invalidText)
        }
    }

    /// A review may span lines; only experiences allow line breaks and tabs.
    @Test func experiencesMaySpanLines() throws {
        var world = try World.withAlice()
        let text = "Tips:\n\t- less salt\r\n\t- more garlic"
        #expect(try world.accept(experience("u1", "r1", "  \(text)\n")).experienceWritten?.text == text)
    }

    /// Upstream text is made single-line before the rules see it, so a provider's formatting
    /// never gets a real recipe refused.
    @Test func upstreamTextIsMadeSingleLine() throws {
        #expect(Validate.singleLine("  Tomato soup\r\n") == "Tomato soup")
        #expect(Validate.singleLine("Tomato\tsoup\u{202E}") == "Tomato soup")
        #expect(try Validate.title(Validate.singleLine("\u{85}Crème brûlée\n")) == "Crème brûlée")
    }

    @Test func ingredientBounds() throws {
        var world = try World.withAlice()
        let hundred = String(repeating: "i", count: 100)
        #expect(try world.accept(addGrocery("u1", "  " + hundred + " ")).groceryAdded?.ingredient == hundred)
        #expect(world.reject(addGrocery("u1", hundred + "i")) == .invalidIngredient)
        let accents = String(repeating: "é", count: 100)
        #expect(try world.accept(addGrocery("u1", accents)).groceryAdded?.ingredient == accents)
    }

    @Test(arguments: ["c", "cmd-1", String(repeating: "x", count: 128), "01J9Z3K8Q4W5E6R7T8Y9U0I1O2", "a~!@#$%^&*()_+{}|:<>?"])
    func validCommandIds(_ id: CommandID) throws {
        var world = try World.withAlice()
        try world.accept(save("u1", "r1"), commandId: id)
    }

    @Test(arguments: ["", " ", "a b", "tab\t", String(repeating: "x", count: 129), "ü", "🍅", "a\u{7F}"])
    func invalidCommandIds(_ id: CommandID) throws {
        var world = try World.withAlice()
        #expect(world.reject(save("u1", "r1"), commandId: id) == .invalidCommandId)
    }
}
