import Foundation
import PantryDomain
import PantryRandom
import Testing

/// Random sessions of valid and invalid commands over a few users, recipes and ingredients.
struct CommandGenerator {
    var rng: SeededGenerator
    var counter = 0

    static let userIds = ["u1", "u2", "u3", "u4", "bad id"]
    static let usernames = ["alice", "Alice", "bob", "BOB", "carol", "dave", "x"]
    static let emails = ["a@example.org", "A@EXAMPLE.ORG", "b@example.org", "c@example.org", "d@example.org", "nope"]
    static let hashes = [phcHash, phcHash, "plain password"]
    static let recipes: [RecipeID] = ["r1", " r1 ", "r2", "R2", "r3", "", "   "]
    static let invalidRecipes: Set<RecipeID> = ["", "   "]
    static let ingredients = ["olive oil", " Olive  OIL", "Salt", "salt ", "pepper", "Jalapeño", "JALAPEÑO", "", "a\u{0}b"]
    static let invalidIngredients: Set<String> = ["", "a\u{0}b"]
    static let titles = ["Soup", " Crème brûlée ", "", "麻婆豆腐"]
    static let images: [String?] = [nil, nil, "https://example.org/a.png", "javascript:alert(1)"]
    static let deltas = [-100, -50, -3, -1, 0, 1, 1, 2, 5, 30, 99, 100]
    static let texts = ["Great!", "  needs salt  ", "", String(repeating: "a", count: 2001), "😋 yum"]

    /// Every recipe has all the valid ingredients, so the property of (3) is about repeats alone.
    func facts(_ title: String, _ image: String?) -> RecipeFacts {
        RecipeFacts(title: title, image: image, ingredients: ["olive oil", "salt", "pepper", "jalapeño"])
    }

    init(seed: UInt64) { rng = SeededGenerator(seed: seed) }

    mutating func pick<T>(_ values: [T]) -> T { values.randomElement(using: &rng)! }

    mutating func next() -> CommandEnvelope {
        counter += 1
        let commandId = Int.random(in: 0..<50, using: &rng) == 0 ? pick(["", "bad id"]) : "c\(counter)"
        let user = pick(Self.userIds)
        let command: Command
        switch Int.random(in: 0..<100, using: &rng) {
        case 0..<12: command = register(user, pick(Self.usernames), email: pick(Self.emails), hash: pick(Self.hashes))
        case 12..<20: command = .saveRecipe(SaveRecipe(userId: user, recipeId: pick(Self.recipes), recipe: facts(pick(Self.titles), pick(Self.images))))
        case 20..<25: command = unsave(user, pick(Self.recipes))
        case 25..<37: command = addGrocery(user, pick(Self.ingredients), amount: pick([nil, 1, 2.5, -1]), unit: pick([nil, "g", ""]))
        case 37..<47: command = check(user, pick(Self.ingredients), Bool.random(using: &rng))
        case 47..<52: command = removeGrocery(user, pick(Self.ingredients))
        case 52..<66: command = use(user, pick(Self.recipes), pick(Self.ingredients), recipe: facts("Soup", nil))
        case 66..<72: command = cook(user, pick(Self.recipes), pick([30, 30, 0]), recipe: facts("Soup", nil))
        case 72..<92: command = .adjustCart(AdjustCart(userId: user, recipeId: pick(Self.recipes), delta: pick(Self.deltas),
                                                        recipe: facts(pick(Self.titles), pick(Self.images))))
        default: command = experience(user, pick(Self.recipes), pick(Self.texts))
        }
        return CommandEnvelope(commandId: commandId, command: command)
    }
}

@Suite struct DeciderPropertyTests {
    static let seeds: [UInt64] = [1, 42, 2024, 0xDEAD_BEEF, 7_777_777]
    static let commandsPerSeed = 2000

    /// Runs a session, checking properties (2) and (4) at every step; returns what it saw. The
    /// commands come 10 s apart, so timers run out and start again.
    struct Session {
        var state = PantryState()
        var now: Int64 = 1_800_000_000_000
        var accepted: [Event] = []
        var times: [Int64] = []
        var rejectedCount = 0
        var offeredTriples: Set<[String]> = []
        var registered: Set<UserID> = []
        var model: [String: Int] = [:]
    }

    static func run(seed: UInt64) -> Session {
        var generator = CommandGenerator(seed: seed)
        var session = Session()
        for _ in 0..<commandsPerSeed {
            let envelope = generator.next()
            let before = session.state
            session.now += 10_000
            let result = Decider.decide(envelope, state: session.state, at: session.now)
            switch result {
            case .failure:
                session.rejectedCount += 1
                // (2) `decide` is the only step taken, and a rejection must leave the state as it was.
                #expect(session.state == before)
            case .success(let events):
                for event in events { Decider.evolve(&session.state, event, at: session.now) }
                session.accepted += events
                session.times += events.map { _ in session.now }
                // One event, after the recipe's facts when the command was the first about the recipe.
                #expect(events.filter { if case .recipeRecorded = $0 { false } else { true } }.count == 1)
                #expect(events.allSatisfy { $0.userId == envelope.command.userId })
                if case .userRegistered(let e) = events.first { session.registered.insert(e.userId) }
            }

            // Model for (3): a well-formed UseOwnedIngredient by an existing user, while the recipe
            // is cooking, offers a triple.
            if case .useOwnedIngredient(let c) = envelope.command, !envelope.commandId.isEmpty, envelope.commandId != "bad id",
               before.users[c.userId] != nil,
               !CommandGenerator.invalidRecipes.contains(c.recipeId), !CommandGenerator.invalidIngredients.contains(c.ingredient),
               let until = before.cooking[c.userId]?[RecipeID(c.recipeId.rawValue.trimmingCharacters(in: .whitespaces))],
               session.now < until {
                let recipe = c.recipeId.rawValue.trimmingCharacters(in: .whitespaces)
                let ingredient = IngredientName.words(c.ingredient).joined(separator: " ")
                session.offeredTriples.insert([c.userId, recipe, ingredient])
                if case .failure(let r) = result { #expect(r.code == .alreadyUsed, "\(c)") }
            }

            // (4) with a model: an accepted adjustment moves the count by delta, and nothing leaves 0...99.
            if case .adjustCart(let c) = envelope.command, case .success(let events) = result,
               let e = events.last?.cartAdjusted {
                let key = "\(e.userId)|\(e.recipeId)"
                #expect(e.count == (session.model[key] ?? 0) + c.delta)
                session.model[key] = e.count
            }
            for (_, counts) in session.state.carts {
                #expect(counts.values.allSatisfy { (1...99).contains($0) })
            }
        }
        return session
    }

    @Test(arguments: seeds)
    func foldingTheAcceptedEventsReproducesTheState(seed: UInt64) throws {
        let session = Self.run(seed: seed)
        // The session must exercise both outcomes, or the properties say little.
        #expect(session.accepted.count > 150)
        #expect(session.rejectedCount > 300)
        #expect(Decider.evolve(PantryState(), zip(session.accepted, session.times).map { ($0, $1) }) == session.state)
        // And through the log's encoding, as the processor rebuilds it on start.
        let stored = try session.accepted.map { event in
            try EventCoding.decode(type: event.type.rawValue, schemaVersion: event.type.schemaVersion,
                                   data: EventCoding.encode(event, vault: testVault), vault: testVault)
        }
        #expect(stored == session.accepted)
        #expect(Decider.evolve(PantryState(), zip(stored, session.times).map { ($0, $1) }) == session.state)
    }

    @Test(arguments: seeds)
    func onePointPerDistinctTripleOfferedByAnExistingUser(seed: UInt64) {
        let session = Self.run(seed: seed)
        let points = session.accepted.compactMap(\.pointEarned)
        #expect(points.count > 10)
        #expect(points.count == session.offeredTriples.count)
        #expect(Set(points.map { [$0.userId, $0.recipeId.rawValue, $0.ingredient] }) == session.offeredTriples)
        #expect(points.allSatisfy { session.registered.contains($0.userId) })
    }

    @Test(arguments: seeds)
    func cartCountsNeverLeaveTheRange(seed: UInt64) {
        let session = Self.run(seed: seed)
        let adjustments = session.accepted.compactMap(\.cartAdjusted)
        #expect(adjustments.count > 25)
        #expect(adjustments.allSatisfy { (0...99).contains($0.count) && $0.delta != 0 })
        let final = session.state.carts.flatMap { user, counts in counts.map { ("\(user)|\($0.key)", $0.value) } }
        #expect(Dictionary(uniqueKeysWithValues: final) == session.model.filter { $0.value != 0 })
    }

    @Test func sameSeedSameSession() {
        var a = CommandGenerator(seed: 9), b = CommandGenerator(seed: 9)
        for _ in 0..<100 { #expect(a.next() == b.next()) }
    }
}
