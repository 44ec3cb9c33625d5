import Foundation
import GRDB
import PantryCore
import PantryDomain
import PantryEventStore
import PantryRandom
import Testing
@testable import PantryProjections
import PantryStandings

/// ~5000 seeded random commands through the real `CommandProcessor` (rejections included).
func randomHistory(seed: UInt64, commands: Int) throws -> History {
    let h = try History()
    var rng = SeededGenerator(seed: seed)
    let users = (0..<40).map { "u\($0)" }
    let recipes = (0..<30).map { "r\($0)" }
    let words = ["Chicken", "Curry", "Lemon", "Tart", "Soup", "Noodle", "Green", "Spicy", "Bread", "Pie", "Rice", "Salad"]
    let ingredients = ["Flour", "flour", "Salt", "Olive  Oil", "olive oil", "Eggs", "Butter", "Sugar", "Milk", "Basil", "Garlic"]
    let units: [String?] = ["g", "G", "kg", "cup", nil]
    func title(_ recipe: String) -> String {
        let n = Int(recipe.dropFirst())!
        return "\(words[n % words.count]) \(words[(n * 7 + 3) % words.count]) \(n)"
    }
    func facts(_ recipe: String) -> RecipeFacts {
        let n = Int(recipe.dropFirst())!
        return History.facts(title(recipe), image: n % 2 == 0 ? "https://img.example.org/\(recipe).jpg" : nil)
    }
    var pending: [Command] = users.enumerated().map { i, id in
        .registerUser(RegisterUser(userId: id, username: "user\(i)", email: "user\(i)@example.org",
                                   passwordHash: "$scrypt$ln=15,r=8,p=1$c2FsdHNhbHQ$aGFzaGhhc2g"))
    }
    for _ in 0..<(commands - users.count) {
        let user = users.randomElement(using: &rng)!
        let recipe = recipes.randomElement(using: &rng)!
        let recipeId = RecipeID(recipe)
        let ingredient = ingredients.randomElement(using: &rng)!
        let roll = Int.random(in: 0..<100, using: &rng)
        let command: Command
        switch roll {
        case 0..<28:
            command = .useOwnedIngredient(UseOwnedIngredient(userId: user, recipeId: recipeId, ingredient: ingredient,
                                                             recipe: facts(recipe)))
        case 28..<42:
            command = .saveRecipe(SaveRecipe(userId: user, recipeId: recipeId, recipe: facts(recipe)))
        case 42..<48:
            command = .removeSavedRecipe(RemoveSavedRecipe(userId: user, recipeId: recipeId))
        case 48..<63:
            let amount: Double? = Bool.random(using: &rng) ? Double(Int.random(in: 1...2000, using: &rng)) / 4 : nil
            command = .addGrocery(AddGrocery(userId: user, ingredient: ingredient, amount: amount,
                                             unit: units.randomElement(using: &rng)!,
                                             recipeId: Bool.random(using: &rng) ? recipeId : nil))
        case 63..<70:
            command = .checkGrocery(CheckGrocery(userId: user, ingredient: ingredient, checked: Bool.random(using: &rng)))
        case 70..<75:
            command = .removeGrocery(RemoveGrocery(userId: user, ingredient: ingredient))
        case 75..<92:
            var delta = Int.random(in: -3...3, using: &rng)
            if delta == 0 { delta = 1 }
            command = .adjustCart(AdjustCart(userId: user, recipeId: recipeId, delta: delta, recipe: facts(recipe)))
        case 92..<95:
            command = .startCooking(StartCooking(userId: user, recipeId: recipeId, minutes: Int.random(in: 1...120, using: &rng)))
        case 97 where Int.random(in: 0..<4, using: &rng) == 0:
            // No projection reads logouts: they must pass through every one unharmed.
            command = .revokeSession(RevokeSession(userId: user, tokenId: "t\(Int.random(in: 0..<1000, using: &rng))", expiresAt: 4_102_444_800))
        case 95..<98:
            command = .writeExperience(WriteExperience(userId: user, recipeId: recipeId, text: "tip \(Int.random(in: 0..<1000, using: &rng))"))
        case 98:
            command = .changePassword(ChangePassword(userId: user, passwordHash: "$scrypt$ln=15,r=8,p=1$bmV3c2FsdA$bmV3aGFzaGhhc2g"))
        case 99 where Int.random(in: 0..<4, using: &rng) == 0:
            command = .deleteUser(DeleteUser(userId: user))
        default:
            command = .writeExperience(WriteExperience(userId: user, recipeId: recipeId, text: "tip \(Int.random(in: 0..<1000, using: &rng))"))
        }
        pending.append(command)
        // Households now and then: a few owners, invites their members use, and all the ways out.
        if Int.random(in: 0..<40, using: &rng) == 0 {
            pending += householdSteps(user: user, other: users.randomElement(using: &rng)!, serial: pending.count)
        }
    }
    var start = 0
    while start < pending.count {
        let end = min(pending.count, start + Int.random(in: 1...80, using: &rng))
        let outcomes = h.runAll(Array(pending[start..<end]))
        #expect(!outcomes.contains { $0.status == .failed })
        start = end
    }
    // A revoked invite, which needs the invite's id (derived from its command's).
    h.register("hh-owner", "hhowner")
    h.run(.createHousehold(CreateHousehold(userId: "hh-owner")))
    h.run(.inviteToHousehold(InviteToHousehold(userId: "hh-owner", codeDigest: String(repeating: "f", count: 64))))
    h.run(.revokeHouseholdInvite(RevokeHouseholdInvite(userId: "hh-owner", inviteId: Decider.inviteId(h.lastCommandId))))
    // A forgotten password: no projection reads the link, and the reset is a PasswordChanged.
    h.register("reset-user", "resetuser")
    let digest = String(repeating: "e", count: 64)
    h.run(.requestPasswordReset(RequestPasswordReset(userId: "reset-user", tokenDigest: digest)))
    h.run(.resetPassword(ResetPassword(userId: "reset-user", tokenDigest: digest,
                                       passwordHash: "$scrypt$ln=15,r=8,p=1$bmV3c2FsdA$bmV3aGFzaGhhc2g")))
    return h
}

/// A household step between two random users: mostly refused in a random history, often enough
/// accepted (a create, an invite the other joins, then a hand-over, a removal or a leave).
private func householdSteps(user: String, other: String, serial: Int) -> [Command] {
    let code = String(repeating: "0", count: 56) + String(format: "%08x", serial)
    let steps: [Command] = [
        .createHousehold(CreateHousehold(userId: user)),
        .inviteToHousehold(InviteToHousehold(userId: user, codeDigest: code)),
        .joinHousehold(JoinHousehold(userId: other, codeDigest: code)),
    ]
    switch serial % 4 {
    case 0: return steps + [.handOverHousehold(HandOverHousehold(userId: user, memberId: other))]
    case 1: return steps + [.removeHouseholdMember(RemoveHouseholdMember(userId: user, memberId: other))]
    case 2: return steps + [.leaveHousehold(LeaveHousehold(userId: other))]
    default: return steps
    }
}

@Suite struct RandomHistoryTests {
    @Test func randomBatchesWithDuplicatesAndOverlapsEqualAStraightReplay() throws {
        let h = try randomHistory(seed: 0x5EED_CAFE, commands: 5_000)
        let events = try h.events()
        let head = try h.log.headPosition()
        #expect(Int64(events.count) == head)
        #expect(head > 2_500)
        var types = Set<String>()
        for e in events { types.insert(e.type) }
        #expect(types == Set(EventType.allCases).names)   // every event type occurs

        let replayDir = h.directory.appendingPathComponent("replayed")
        var rng = SeededGenerator(seed: 42)
        for projection in ProjectionCatalog.all {
            let live = try h.store(projection, "-live")
            var checkpoint: Int64 = 0
            var gaps = 0
            while checkpoint < head {
                let roll = Int.random(in: 0..<8, using: &rng)
                if roll == 0, checkpoint + 2 <= head {
                    // Something was dropped on the wire: the next batch starts too late.
                    let first = Int64.random(in: (checkpoint + 2)...min(head, checkpoint + 6), using: &rng)
                    #expect(throws: ProjectionError.gap(expected: checkpoint + 1, got: first)) {
                        try live.apply(Array(events[Int(first - 1)..<Int(min(head, first + 10))]))
                    }
                    gaps += 1
                    if Bool.random(using: &rng) {
                        // Recover the worker's way sometimes: read the missing range from the log.
                        let missing = try h.log.read(after: checkpoint, limit: Int(first - 1 - checkpoint))
                        try live.apply(missing)
                        checkpoint = try live.checkpoint
                        #expect(checkpoint == first - 1)
                    }
                    continue
                }
                // Redelivery: start at or before the checkpoint, sometimes far before.
                let first = max(1, checkpoint + 1 - Int64.random(in: 0...(roll < 3 ? 200 : 15), using: &rng))
                let last = min(head, first + Int64.random(in: 0..<120, using: &rng))
                var batch = Array(events[Int(first - 1)..<Int(last)])
                if Bool.random(using: &rng) {
                    // Duplicates inside the batch, kept in position order.
                    for _ in 0..<Int.random(in: 1...5, using: &rng) {
                        let i = Int.random(in: 0..<batch.count, using: &rng)
                        batch.insert(batch[i], at: i)
                    }
                }
                try live.apply(batch)
                if Int.random(in: 0..<4, using: &rng) == 0 { try live.apply(batch) }   // delivered twice
                let before = checkpoint
                checkpoint = try live.checkpoint
                #expect(checkpoint == max(before, last))
            }
            #expect(gaps > 0)
            #expect(try live.checkpoint == head)

            let report = try Replayer.rebuild(projection, directory: replayDir, from: h.log, keys: h.keys, batchSize: 1_000)
            #expect(report.checkpoint == head)
            #expect(try live.checksum() == report.checksum, "\(projection.name)")
            #expect(try Replayer.checksum(name: projection.name, directory: replayDir) == (head, report.checksum))
        }
    }

    /// An independent oracle for the leaderboard order, computed from the raw events.
    @Test func leaderboardMatchesANaiveRanking() throws {
        let h = try randomHistory(seed: 7, commands: 1_500)
        let store = try h.caughtUp(LeaderboardProjection())
        var points: [String: (points: Int, reached: Int64, name: String)] = [:]
        for recorded in try h.events() {
            let event = try EventCoding.decode(type: recorded.type, schemaVersion: recorded.schemaVersion,
                                               data: recorded.data, vault: h.keys)
            switch event {
            case .userRegistered(let e): points[e.userId] = (0, recorded.position, e.account?.username ?? LeaderboardEntry.erasedName)
            case .userDeleted(let e): points[e.userId] = nil
            case .pointEarned(let e): points[e.userId]!.points += 1; points[e.userId]!.reached = recorded.position
            default: break
            }
        }
        // Rank: one more than the users with more points, counted naively.
        let expected = points.sorted { a, b in
            a.value.points != b.value.points ? a.value.points > b.value.points : a.value.reached < b.value.reached
        }.map { user in
            LeaderboardEntry(rank: 1 + points.values.count { $0.points > user.value.points }, userId: user.key,
                             username: user.value.name, points: user.value.points)
        }
        let withPoints = expected.filter { $0.points > 0 }
        #expect(Set(withPoints.map(\.rank)).count < withPoints.count, "the history has ties")
        #expect(try store.read { try LeaderboardProjection.top(1_000, in: $0) } == withPoints)
        for (index, entry) in expected.enumerated() {
            #expect(try store.read { try LeaderboardProjection.entry(entry.userId, in: $0) } == entry)
            let around = try store.read { try LeaderboardProjection.around(entry.userId, radius: 3, in: $0) }
            #expect(around == Array(expected[max(0, index - 3)..<min(expected.count, index + 4)]))
        }
    }
}
