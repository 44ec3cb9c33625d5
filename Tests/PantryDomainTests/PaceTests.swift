import PantryDomain
import Testing

/// A recipe with `count` ingredients named "<recipe> 0", "<recipe> 1", ...
private func recipe(_ name: String, _ count: Int) -> RecipeFacts {
    facts(title: name, ingredients: (0..<count).map { "\(name) \($0)" })
}

@Suite struct PaceTests {
    static let minute: Int64 = 60_000

    @Test("a scripted farmer pressing an ingredient every 10 s for a day earns 60 at once, then one every 6 minutes: 300, not 8,640")
    func aScriptedFarmerGetsAtMostTheHumanRate() throws {
        var world = try World.withAlice()
        // Every press a new (recipe, ingredient): 44 recipes of 200 ingredients, all cooking all day.
        let recipes = (0..<44).map { "farm\($0)" }
        for name in recipes { try world.startCooking("u1", RecipeID(name), recipe: recipe(name, 200), minutes: 1440) }
        let start = world.now
        var accepted = 0, refused: [Rejection.Code: Int] = [:]
        for press in 0..<8_640 {
            world.now = start + Int64(press) * 10_000
            let name = recipes[press / 200]
            switch world.run(use("u1", RecipeID(name), "\(name) \(press % 200)", recipe: nil)) {
            case .success: accepted += 1
            case .failure(let rejection): refused[rejection.code, default: 0] += 1
            }
        }
        // 60 at once, then one per 6 minutes over the 24 hours less the first 10 s press.
        #expect(accepted == 60 + 239, "\(accepted)")
        #expect(refused == [.paceExceeded: 8_640 - accepted])
    }

    @Test("the issue's farmer, 235 presses a second for 10 s, gets the 60 of one burst instead of 2,315")
    func theIssuesFarmerGetsOneBurst() throws {
        var world = try World.withAlice()
        try world.startCooking("u1", "feed", recipe: recipe("feed", 200))
        var accepted = 0
        for press in 0..<2_350 {
            world.now += 1000 / 235
            if case .success = world.run(use("u1", "feed", "feed \(press % 200)", recipe: nil)) { accepted += 1 }
        }
        #expect(accepted == Paces.human.points.burst)
    }

    @Test("an honest cook ticking off four 15-ingredient recipes at once, then one more 90 minutes later, is never refused")
    func anHonestCookIsNeverSlowed() throws {
        var world = try World.withAlice()
        for name in ["soup", "stew", "salad", "bread"] {
            try world.startCooking("u1", RecipeID(name), recipe: recipe(name, 15))
            for i in 0..<15 { try world.accept(use("u1", RecipeID(name), "\(name) \(i)", recipe: nil)) }
        }
        world.now += 90 * Self.minute
        try world.startCooking("u1", "curry", recipe: recipe("curry", 15))
        for i in 0..<15 { try world.accept(use("u1", "curry", "curry \(i)", recipe: nil)) }
        #expect(world.state.usedIngredients["u1"]?.count == 75)
    }

    @Test("a point needs its recipe cooking: refused before cooking starts, even with the recipe in the cart, and an hour after the timer ends")
    func pointsWithoutStartCookingAreRefused() throws {
        var world = try World.withAlice()
        let soup = recipe("soup", 4)
        try world.accept(.adjustCart(AdjustCart(userId: "u1", recipeId: "soup", delta: 1, recipe: soup)))
        #expect(world.reject(use("u1", "soup", "soup 0", recipe: nil)) == .notCooking, "a cart line is not cooking")
        try world.accept(cook("u1", "soup", 20, recipe: nil))
        try world.accept(use("u1", "soup", "soup 0", recipe: nil))
        // The timer ends after 20 minutes; points still count for the hour after it.
        world.now += 20 * Self.minute + Decider.cookingGrace - 1
        try world.accept(use("u1", "soup", "soup 1", recipe: nil))
        world.now += 1
        #expect(world.reject(use("u1", "soup", "soup 2", recipe: nil)) == .notCooking)
        // Restarting the timer makes it cook again; the cart is apart: taking the line out stops nothing.
        try world.accept(cook("u1", "soup", 20, recipe: nil))
        try world.accept(use("u1", "soup", "soup 2", recipe: nil))
        try world.accept(cart("u1", "soup", -1))
        try world.accept(use("u1", "soup", "soup 3", recipe: nil))
    }

    @Test("starting to cook needs no cart line and puts nothing in the cart; the pace still holds the points")
    func cookingIsItsOwnAct() throws {
        var world = try World.withAlice()
        let started = try world.run(cook("u1", "stew", 30, recipe: recipe("stew", 200))).get()
        // The recipe's facts recorded the first time, then the cook's own timer, with its title.
        #expect(started.count == 2)
        #expect(started.last == .cookingStarted(CookingStarted(userId: "u1", recipeId: "stew", minutes: 30, title: "stew", image: nil)))
        #expect(world.state.carts["u1"] == nil)
        for n in 0..<Paces.human.points.burst { try world.accept(use("u1", "stew", "stew \(n)", recipe: nil)) }
        #expect(world.reject(use("u1", "stew", "stew \(Paces.human.points.burst)", recipe: nil)) == .paceExceeded)
    }

    @Test("in a household the cart is shared, cooking is not: a member's point needs their own cooking")
    func cookingInAHouseholdIsTheCooksOwn() throws {
        var world = try World.withAlice()
        try world.accept(register("u2", "bob", email: "bob@example.org"))
        try world.accept(.createHousehold(CreateHousehold(userId: "u1")))
        try world.accept(.inviteToHousehold(InviteToHousehold(userId: "u1", codeDigest: String(repeating: "c", count: 64))))
        try world.accept(.joinHousehold(JoinHousehold(userId: "u2", codeDigest: String(repeating: "c", count: 64))))
        try world.accept(cook("u1", "soup", 30, recipe: recipe("soup", 4)))
        try world.accept(use("u1", "soup", "soup 0", recipe: nil))
        #expect(world.reject(use("u2", "soup", "soup 0", recipe: nil)) == .notCooking)
        try world.accept(cook("u2", "soup", 30, recipe: nil))
        try world.accept(use("u2", "soup", "soup 0", recipe: nil))
    }

    @Test("tips past the pace are refused: 10 at once, then one every 6 minutes, so at most 20 in any hour")
    func tipsPastTheHourlyBoundAreRefused() throws {
        var world = try World.withAlice()
        let start = world.now
        var accepted: [Int64] = []
        // A script tries a tip on a new recipe every 10 s for two hours.
        for attempt in 0..<720 {
            world.now = start + Int64(attempt) * 10_000
            switch world.run(experience("u1", RecipeID("r\(attempt)"), "tip \(attempt)")) {
            case .success: accepted.append(world.now)
            case .failure(let rejection): #expect(rejection.code == .paceExceeded)
            }
        }
        #expect(accepted.prefix(10) == ArraySlice((0..<10).map { start + Int64($0) * 10_000 }))
        #expect(accepted.count == 10 + 19, "\(accepted.count)")
        for first in accepted.indices {
            #expect(accepted[first...].prefix { $0 < accepted[first] + 60 * Self.minute }.count <= 20)
        }
        #expect(world.state.experiences["u1"]?.count == accepted.count)
    }

    @Test("the pace decides by the command's time: the same state and command are refused now and accepted 6 minutes later")
    func thePaceDecidesByTheCommandsTime() throws {
        var world = try World.withAlice()
        try world.startCooking("u1", "big", recipe: recipe("big", 100))
        for i in 0..<60 { try world.accept(use("u1", "big", "big \(i)", recipe: nil)) }
        let envelope = CommandEnvelope(commandId: "late", command: use("u1", "big", "big 60", recipe: nil))
        let refused = Decider.decide(envelope, state: world.state, at: world.now + 6 * Self.minute - 1)
        #expect(refused.failure?.code == .paceExceeded)
        #expect(refused.failure?.message.contains("the next in 1 s") == true, "\(String(describing: refused.failure))")
        #expect((try? Decider.decide(envelope, state: world.state, at: world.now + 6 * Self.minute).get())?.count == 1)
    }

    @Test("an old log, with points and tips faster than the pace and no StartCooking, folds into the same state every time")
    func anOldLogFoldsAsItWas() throws {
        // What logs written before this rule hold: a farmer's points, all in one second, never cooked.
        var old: [(event: Event, at: Int64)] = [
            (.userRegistered(UserRegistered(userId: "u1", username: "alice", email: "a@example.org", passwordHash: phcHash)), 1_000),
            (.recipeRecorded(RecipeRecorded(userId: "u1", recipeId: "feed", facts: recipe("feed", 200))), 1_000),
        ]
        old += (0..<200).map { (.pointEarned(PointEarned(userId: "u1", recipeId: "feed", ingredient: "feed \($0)")), 1_000 + Int64($0)) }
        old += (0..<5).map { (.experienceWritten(ExperienceWritten(experienceId: "e\($0)", userId: "u1", recipeId: "feed", text: "tip")), 2_000) }
        let state = Decider.evolve(PantryState(), old)
        #expect(state.usedIngredients["u1"]?.count == 200, "evolve keeps every point the log holds")
        #expect(state.experiences["u1"]?["feed"] == 5)
        #expect(Decider.evolve(PantryState(), old) == state)
        #expect(PantryState(restoring: state.holdings) == state, "the holdings keep the accounts' name digests too")
        // New commands meet the rules: first not cooking; once cooking, the old points still count.
        var world = World()
        world.state = state
        world.now = 3_000
        #expect(world.reject(use("u1", "feed", "feed 0", recipe: nil)) == .notCooking)
        try world.startCooking("u1", "feed")
        #expect(world.reject(.useOwnedIngredient(UseOwnedIngredient(userId: "u1", recipeId: "feed", ingredient: "feed 0"))) == .alreadyUsed)
    }
}

extension Result {
    var failure: Failure? { if case .failure(let error) = self { error } else { nil } }
}
