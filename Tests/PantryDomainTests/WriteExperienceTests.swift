import PantryDomain
import Testing

@Suite struct WriteExperienceTests {
    @Test func textIsTrimmedAndTheEventCarriesAnOpaqueIdAndNoName() throws {
        var world = try World.withAlice()
        let event = try world.accept(experience("u1", " r1 ", "  Add a pinch of salt.  \n"), commandId: "u1:my-key")
        let id = try #require(event.experienceWritten?.experienceId)
        #expect(event == .experienceWritten(ExperienceWritten(experienceId: id, userId: "u1", recipeId: "r1",
                                                              text: "Add a pinch of salt.")))
        #expect(id.hasPrefix("e-") && !id.contains("my-key") && id == Decider.experienceId("u1:my-key"))
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
        #expect(world.events.compactMap(\.experienceWritten).map(\.experienceId) == [Decider.experienceId("a"), Decider.experienceId("b")])
    }
}
