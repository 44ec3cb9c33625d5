import Foundation
import PantryDomain
import Testing

/// One row per way a command can be refused: the commands that set the scene, then the one refused.
func resetRequest(_ digest: String) -> Command { .requestPasswordReset(RequestPasswordReset(userId: "u1", tokenDigest: digest)) }
func resetWith(_ digest: String) -> Command { .resetPassword(ResetPassword(userId: "u1", tokenDigest: digest, passwordHash: phcHash)) }

struct RuleCase: Sendable, CustomTestStringConvertible {
    var name: String
    var setup: [Command]
    var command: Command
    var commandId: CommandID?
    var expected: Rejection.Code
    /// Milliseconds between the setup and the command.
    var later: Int64

    init(_ expected: Rejection.Code, _ name: String, setup: [Command] = [register("u1", "alice")],
         _ command: Command, commandId: CommandID? = nil, later: Int64 = 0) {
        self.expected = expected; self.name = name; self.setup = setup; self.command = command; self.commandId = commandId
        self.later = later
    }

    var testDescription: String { "\(expected.rawValue): \(name)" }

    /// The code `decide` actually gives, after the setup (which must all be accepted).
    func produce() throws -> Rejection.Code? {
        var world = World()
        for command in setup { try world.accept(command) }
        world.now += later
        return world.reject(command, commandId: commandId)
    }
}

let alice = register("u1", "alice")
let codeA = String(repeating: "a", count: 64), codeB = String(repeating: "b", count: 64)
func code(_ n: Int) -> String { String(repeating: "0", count: 60) + String(format: "%04x", n) }
func invite(_ code: String) -> Command { .inviteToHousehold(InviteToHousehold(userId: "u1", codeDigest: code)) }
func join(_ userId: UserID, _ code: String) -> Command { .joinHousehold(JoinHousehold(userId: userId, codeDigest: code)) }
/// Alice (u1) owns a household Bob (u2) joined with the invite `codeA`.
let household: [Command] = [alice, register("u2", "bob"), .createHousehold(CreateHousehold(userId: "u1")), invite(codeA), join("u2", codeA)]
let longText = String(repeating: "a", count: 2001)

/// Alice with `recipe` (salt only, unless given) in her cart and its timer started.
func aliceCooking(_ recipeId: RecipeID = "r1", _ recipe: RecipeFacts = facts()) -> [Command] {
    [alice, .adjustCart(AdjustCart(userId: "u1", recipeId: recipeId, delta: 1, recipe: recipe)), cook("u1", recipeId, 30)]
}

/// A recipe with more ingredients than a burst of points.
let bigRecipe = facts(ingredients: (0...Paces.human.points.burst).map { "ingredient \($0)" })

let ruleCases: [RuleCase] = [
    RuleCase(.invalidCommandId, "empty commandId", save("u1", "r1"), commandId: ""),
    RuleCase(.invalidCommandId, "commandId with a space", save("u1", "r1"), commandId: "cmd 1"),
    RuleCase(.invalidCommandId, "commandId of 129 characters", save("u1", "r1"), commandId: String(repeating: "c", count: 129)),
    RuleCase(.invalidCommandId, "non-ASCII commandId", save("u1", "r1"), commandId: "cmd-é"),
    RuleCase(.invalidCommandId, "commandId with a newline", save("u1", "r1"), commandId: "cmd\n1"),
    RuleCase(.invalidUserId, "empty userId", setup: [], register("", "alice")),
    RuleCase(.invalidUserId, "userId with a space", setup: [], register("u 1", "alice")),
    RuleCase(.invalidUserId, "userId of 65 characters", setup: [], register(String(repeating: "u", count: 65), "alice")),
    RuleCase(.userExists, "same userId twice", register("u1", "alice2", email: "other@example.org")),
    RuleCase(.invalidUsername, "username of 2 characters", setup: [], register("u1", "ab")),
    RuleCase(.invalidUsername, "username of 33 characters", setup: [], register("u1", String(repeating: "a", count: 33))),
    RuleCase(.invalidUsername, "username with a space", setup: [], register("u1", "al ice")),
    RuleCase(.invalidUsername, "username with '!'", setup: [], register("u1", "alice!")),
    RuleCase(.usernameTaken, "username differing only in case", register("u2", "ALICE", email: "a2@example.org")),
    RuleCase(.invalidEmail, "email without '@'", setup: [], register("u1", "alice", email: "alice.example.org")),
    RuleCase(.invalidEmail, "email without a dotted domain", setup: [], register("u1", "alice", email: "alice@localhost")),
    RuleCase(.emailTaken, "email differing only in case", register("u2", "bob", email: "ALICE@Example.ORG")),
    RuleCase(.invalidPasswordHash, "a plain password", setup: [], register("u1", "alice", hash: "correct horse battery staple")),
    RuleCase(.invalidPasswordHash, "a short PHC-looking string", setup: [], register("u1", "alice", hash: "$short")),
    RuleCase(.unknownUser, "saving for nobody", setup: [], save("ghost", "r1")),
    RuleCase(.invalidRecipeId, "blank recipeId", save("u1", "   ")),
    RuleCase(.invalidRecipeId, "recipeId of 129 characters", save("u1", RecipeID(String(repeating: "r", count: 129)))),
    RuleCase(.invalidTitle, "blank title", save("u1", "r1", title: " \n ")),
    RuleCase(.invalidTitle, "title of 301 characters", save("u1", "r1", title: String(repeating: "t", count: 301))),
    RuleCase(.invalidImageURL, "javascript: image", save("u1", "r1", image: "javascript:alert(1)")),
    RuleCase(.invalidImageURL, "ftp image", cart("u1", "r1", 1, image: "ftp://example.org/a.png")),
    RuleCase(.invalidImageURL, "relative image", save("u1", "r1", image: "/images/a.png")),
    RuleCase(.invalidIngredient, "blank ingredient", addGrocery("u1", "  ")),
    RuleCase(.invalidIngredient, "ingredient of 101 characters", use("u1", "r1", String(repeating: "i", count: 101))),
    RuleCase(.invalidAmount, "negative amount", addGrocery("u1", "salt", amount: -1)),
    RuleCase(.invalidAmount, "infinite amount", addGrocery("u1", "salt", amount: .infinity)),
    RuleCase(.invalidAmount, "NaN amount", addGrocery("u1", "salt", amount: .nan)),
    RuleCase(.invalidUnit, "unit of 33 characters", addGrocery("u1", "salt", unit: String(repeating: "g", count: 33))),
    RuleCase(.alreadySaved, "saving twice", setup: [alice, save("u1", "r1")], save("u1", " r1 ")),
    RuleCase(.notSaved, "removing a recipe never saved", unsave("u1", "r1")),
    RuleCase(.notSaved, "removing twice", setup: [alice, save("u1", "r1"), unsave("u1", "r1")], unsave("u1", "r1")),
    RuleCase(.noSuchItem, "checking a missing item", check("u1", "salt")),
    RuleCase(.noSuchItem, "unchecking a missing item", check("u1", "salt", false)),
    RuleCase(.noSuchItem, "removing a missing item", removeGrocery("u1", "salt")),
    RuleCase(.noSuchItem, "checking a removed item", setup: [alice, addGrocery("u1", "salt"), removeGrocery("u1", "SALT")], check("u1", "salt")),
    RuleCase(.unchanged, "checking a checked item", setup: [alice, addGrocery("u1", "salt"), check("u1", "salt")], check("u1", " Salt ")),
    RuleCase(.unchanged, "unchecking an unchecked item", setup: [alice, addGrocery("u1", "salt")], check("u1", "salt", false)),
    RuleCase(.alreadyUsed, "same ingredient, other spelling", setup: aliceCooking("r1", facts(ingredients: ["olive oil"])) + [use("u1", "r1", " Olive  OIL")],
             use("u1", "r1", "olive oil")),
    RuleCase(.alreadyUsed, "singular of a plural", setup: aliceCooking("r1", facts(ingredients: ["eggs"])) + [use("u1", "r1", "Eggs")], use("u1", "r1", "egg")),
    RuleCase(.notCooking, "a point for a recipe never cooked", use("u1", "r1", "salt")),
    RuleCase(.notCooking, "a point for a recipe in the cart but not cooking", setup: [alice, cart("u1", "r1", 1)], use("u1", "r1", "salt")),
    RuleCase(.notCooking, "a point for a recipe only in the cart", setup: [alice, cart("u1", "r1", 1)], use("u1", "r1", "salt")),
    RuleCase(.paceExceeded, "one point past the burst at once",
             setup: aliceCooking("big", bigRecipe) + (0..<Paces.human.points.burst).map { use("u1", "big", "ingredient \($0)") },
             use("u1", "big", "ingredient \(Paces.human.points.burst)")),
    RuleCase(.paceExceeded, "one tip past the burst at once",
             setup: [alice] + (0..<Paces.human.tips.burst).map { experience("u1", RecipeID("r\($0)"), "tip \($0)") },
             experience("u1", "r-last", "one more")),
    RuleCase(.notCooking, "a point for a recipe nobody looked up, refused before the API would look it up",
             .useOwnedIngredient(UseOwnedIngredient(userId: "u1", recipeId: "made-up-1", ingredient: "salt"))),
    RuleCase(.unknownRecipe, "a favourite of a recipe nobody looked up", .saveRecipe(SaveRecipe(userId: "u1", recipeId: "made-up-2"))),
    RuleCase(.unknownRecipe, "a cart line of a recipe nobody looked up",
             .adjustCart(AdjustCart(userId: "u1", recipeId: "made-up-3", delta: 1))),
    RuleCase(.notInRecipe, "chocolate in a pasta", setup: aliceCooking("pasta", facts(ingredients: ["spaghetti", "garlic"])),
             use("u1", "pasta", "chocolate")),
    RuleCase(.notInRecipe, "egg is not eggplant", setup: aliceCooking("r1", facts(ingredients: ["eggplant"])), use("u1", "r1", "egg")),
    RuleCase(.invalidField, "recipe facts without ingredients", .adjustCart(AdjustCart(userId: "u1", recipeId: "r1", delta: 1, recipe: facts(ingredients: [])))),
    RuleCase(.unknownUser, "a deleted user's command", setup: [alice, .deleteUser(DeleteUser(userId: "u1"))], save("u1", "r1")),
    RuleCase(.userExists, "a deleted user's id again", setup: [alice, .deleteUser(DeleteUser(userId: "u1"))],
             register("u1", "alice2", email: "alice2@example.org")),
    RuleCase(.invalidDelta, "zero delta", cart("u1", "r1", 0)),
    RuleCase(.invalidDelta, "delta of 100", cart("u1", "r1", 100)),
    RuleCase(.invalidDelta, "delta of Int.min", cart("u1", "r1", Int.min)),
    RuleCase(.invalidDelta, "delta of Int.max", cart("u1", "r1", Int.max)),
    RuleCase(.cartOutOfRange, "below zero", cart("u1", "r1", -1)),
    RuleCase(.unknownRecipe, "cooking a recipe nobody looked up", .startCooking(StartCooking(userId: "u1", recipeId: "made-up-4", minutes: 30))),
    RuleCase(.limitReached, "one recipe more than may cook at once",
             setup: [alice] + (0..<Decider.maxCooking).map { cook("u1", RecipeID("r\($0)"), 30) }, cook("u1", "one-more", 30)),
    RuleCase(.invalidMinutes, "a timer of 0 minutes", setup: [alice, cart("u1", "r1", 1)], cook("u1", "r1", 0)),
    RuleCase(.invalidMinutes, "a timer longer than a day", setup: [alice, cart("u1", "r1", 1)], cook("u1", "r1", 1441)),
    RuleCase(.cartOutOfRange, "above 99", setup: [alice, cart("u1", "r1", 60)], cart("u1", "r1", 40)),
    RuleCase(.limitReached, "a sixth experience on one recipe",
             setup: [alice] + (0..<Decider.maxExperiencesPerRecipe).map { experience("u1", "r1", "tip \($0)") },
             experience("u1", "r1", "one more")),
    RuleCase(.alreadyRevoked, "a session revoked twice (two refreshes of one token)",
             setup: [alice, .revokeSession(RevokeSession(userId: "u1", tokenId: "t1", expiresAt: 4_102_444_800))],
             .revokeSession(RevokeSession(userId: "u1", tokenId: "t1", expiresAt: 4_102_444_800))),
    RuleCase(.alreadyInHousehold, "a second household", setup: household, .createHousehold(CreateHousehold(userId: "u1"))),
    RuleCase(.alreadyInHousehold, "joining while in one", setup: household + [register("u3", "carol"), .createHousehold(CreateHousehold(userId: "u3")),
                                                                               invite(codeB)], join("u3", codeB)),
    RuleCase(.notInHousehold, "leaving none", .leaveHousehold(LeaveHousehold(userId: "u1"))),
    RuleCase(.notHouseholdOwner, "a member inviting", setup: household, .inviteToHousehold(InviteToHousehold(userId: "u2", codeDigest: codeB))),
    RuleCase(.ownerMustHandOver, "the owner leaving others behind", setup: household, .leaveHousehold(LeaveHousehold(userId: "u1"))),
    RuleCase(.notHouseholdMember, "removing a stranger", setup: household + [register("u3", "carol")],
             .removeHouseholdMember(RemoveHouseholdMember(userId: "u1", memberId: "u3"))),
    RuleCase(.noSuchInvite, "a code nobody made", setup: household + [register("u3", "carol")], join("u3", codeB)),
    RuleCase(.inviteUsed, "a code used already", setup: household + [register("u3", "carol")], join("u3", codeA)),
    RuleCase(.inviteExpired, "a code a day old", setup: household + [register("u3", "carol"), invite(codeB)], join("u3", codeB),
             later: Decider.inviteLifetime),
    RuleCase(.inviteRevoked, "a revoked code", setup: household + [register("u3", "carol"), invite(codeB),
                                                                  .revokeHouseholdInvite(RevokeHouseholdInvite(userId: "u1", inviteId: Decider.inviteId("cmd-7")))],
             join("u3", codeB)),
    RuleCase(.householdFull, "a twenty-first member",
             setup: household + (3...20).flatMap { [register("u\($0)"), invite(code($0)), join("u\($0)", code($0))] }
                 + [register("u21"), invite(code(21))], join("u21", code(21))),
    RuleCase(.resetTokenInvalid, "a reset link never made", setup: [register("u1", "alice"), resetRequest(codeA)], resetWith(codeB)),
    RuleCase(.resetTokenUsed, "a reset link used already", setup: [register("u1", "alice"), resetRequest(codeA), resetWith(codeA)],
             resetWith(codeA)),
    RuleCase(.resetTokenExpired, "a reset link half an hour old", setup: [register("u1", "alice"), resetRequest(codeA)], resetWith(codeA),
             later: Decider.passwordResetLifetime),
    RuleCase(.invalidText, "blank experience", experience("u1", "r1", " \t\n ")),
    RuleCase(.invalidText, "experience of 2001 characters", experience("u1", "r1", longText)),
    RuleCase(.invalidText, "experience with a control character", experience("u1", "r1", "nice\u{07}")),
]

/// Codes raised while reading JSON, or by the processor's idempotency record, never by `decide`;
/// `CommandCodingTests` and `CommandProcessorTests` cover them. (`invalid_field` is also raised by
/// `decide` for recipe facts without ingredients.)
let adapterOnlyCodes: Set<Rejection.Code> = [.malformedJSON, .invalidUTF8, .tooLarge, .unknownCommand, .invalidField, .commandIdReused]

@Suite struct RejectionCodeTests {
    @Test(arguments: ruleCases)
    func commandIsRefusedWithItsCode(_ rule: RuleCase) throws {
        #expect(try rule.produce() == rule.expected)
    }

    @Test func everyDomainCodeIsReachedBySomeCase() throws {
        var produced: Set<Rejection.Code> = []
        for rule in ruleCases {
            if let code = try rule.produce() { produced.insert(code) }
        }
        let required = Set(Rejection.Code.allCases).subtracting(adapterOnlyCodes)
        #expect(required.subtracting(produced).isEmpty, "never produced: \(required.subtracting(produced).map(\.rawValue).sorted())")
        #expect(produced.subtracting([.invalidField]).isSubset(of: required),
                "decide produced adapter-only codes: \(produced.subtracting(required))")
    }

    @Test func codesAreStableStrings() {
        #expect(Rejection.Code.allCases.count == 49)
        #expect(Set(Rejection.Code.allCases.map(\.rawValue)).count == Rejection.Code.allCases.count)
        for code in Rejection.Code.allCases {
            #expect(code.rawValue.allSatisfy { $0.isLowercase || $0 == "_" || $0 == "8" }, "\(code.rawValue)")
        }
    }
}
