import PantryDomain
import Testing

@Suite struct WriteExperienceTests {
    @Test func textIsTrimmedAndTheEventCarriesIdsAndUsername() throws {
        var world = try World.withAlice()
        let event = try world.accept(experience("u1", " r1 ", "  Add a pinch of salt.  \n"), commandId: "exp-42")
        #expect(event == .experienceWritten(ExperienceWritten(experienceId: "exp-42", userId: "u1", username: "alice",
                                                              recipeId: "r1", text: "Add a pinch of salt.")))
    }

    @Test func textLengthBounds() throws {
        var world = try World.withAlice()
        let max = String(repeating: "a", count: 2000)
        #expect(try world.accept(experience("u1", "r1", max)).experienceWritten?.text == max)
        #expect(try world.accept(experience("u1", "r1", "  " + max + "  ")).experienceWritten?.text == max)
        #expect(world.reject(experience("u1", "r1", max + "a")) == .invalidText)
        let emoji = String(repeating: "😋", count: 2000)
        #expect(try world.accept(experience("u1", "r1", emoji)).experienceWritten?.text == emoji)
        #expect(world.reject(experience("u1", "r1", emoji + "😋")) == .invalidText)
        #expect(try world.accept(experience("u1", "r1", "x")).experienceWritten?.text == "x")
    }

    @Test(arguments: ["", " ", "   \n\t  ", "\u{A0}\u{2003}", "\r\n"])
    func whitespaceOnlyTextIsRefused(_ text: String) throws {
        var world = try World.withAlice()
        #expect(world.reject(experience("u1", "r1", text)) == .invalidText)
    }

    @Test func eachExperienceIsItsOwn() throws {
        var world = try World.withAlice()
        try world.accept(experience("u1", "r1", "same"), commandId: "a")
        try world.accept(experience("u1", "r1", "same"), commandId: "b")
        #expect(world.events.compactMap(\.experienceWritten).map(\.experienceId) == ["a", "b"])
    }
}
