import Foundation
import PantryDomain
import Testing

@Suite struct CommandCodingTests {
    static let samples: [CommandEnvelope] = [
        CommandEnvelope(commandId: "c1", correlationId: "corr-1", causationId: "cause-1", command: register("u1", "alice")),
        CommandEnvelope(commandId: "c2", command: save("u1", "r1", title: "Crème \"brûlée\" \\ 🍮")),
        CommandEnvelope(commandId: "c3", command: save("u1", "r1", title: "Soup", image: "https://example.org/a.png")),
        CommandEnvelope(commandId: "c4", command: unsave("u1", "r1")),
        CommandEnvelope(commandId: "c5", command: addGrocery("u1", "olive oil")),
        CommandEnvelope(commandId: "c6", correlationId: "corr", command: addGrocery("u1", "flour", amount: 0.125, unit: "kg", recipeId: "r9")),
        CommandEnvelope(commandId: "c7", command: check("u1", "flour", true)),
        CommandEnvelope(commandId: "c8", command: check("u1", "flour", false)),
        CommandEnvelope(commandId: "c9", command: removeGrocery("u1", "flour")),
        CommandEnvelope(commandId: "c10", command: use("u1", "r1", " Olive  OIL")),
        CommandEnvelope(commandId: "c11", command: cart("u1", "r1", -3)),
        CommandEnvelope(commandId: "c12", causationId: "c11", command: cart("u1", "r1", 99, title: "T", image: "http://x.org/i.jpg")),
        CommandEnvelope(commandId: "c13", command: experience("u1", "r1", "line one\nline \"two\"\t😋 中文")),
        CommandEnvelope(commandId: "c14", command: cook("u1", "r1", 45)),
        CommandEnvelope(commandId: "c15", command: .revokeSession(RevokeSession(userId: "u1", tokenId: "Zq3tokenId0", expiresAt: 4_102_444_800))),
        CommandEnvelope(commandId: "c16", command: .createHousehold(CreateHousehold(userId: "u1"))),
        CommandEnvelope(commandId: "c17", command: .inviteToHousehold(InviteToHousehold(userId: "u1", codeDigest: String(repeating: "a", count: 64)))),
        CommandEnvelope(commandId: "c18", command: .revokeHouseholdInvite(RevokeHouseholdInvite(userId: "u1", inviteId: "i-1"))),
        CommandEnvelope(commandId: "c19", command: .joinHousehold(JoinHousehold(userId: "u2", codeDigest: String(repeating: "a", count: 64)))),
        CommandEnvelope(commandId: "c20", command: .leaveHousehold(LeaveHousehold(userId: "u2"))),
        CommandEnvelope(commandId: "c21", command: .removeHouseholdMember(RemoveHouseholdMember(userId: "u1", memberId: "u2"))),
        CommandEnvelope(commandId: "c22", command: .handOverHousehold(HandOverHousehold(userId: "u1", memberId: "u2"))),
        CommandEnvelope(commandId: "c23", command: .requestPasswordReset(RequestPasswordReset(userId: "u1", tokenDigest: String(repeating: "d", count: 64)))),
        CommandEnvelope(commandId: "c24", command: .resetPassword(ResetPassword(userId: "u1", tokenDigest: String(repeating: "d", count: 64),
                                                                               passwordHash: phcHash))),
    ]

    @Test func samplesCoverEveryCommandType() {
        #expect(Set(Self.samples.map(\.command.typeName)) == ["RegisterUser", "SaveRecipe", "RemoveSavedRecipe", "AddGrocery",
                                                               "CheckGrocery", "RemoveGrocery", "UseOwnedIngredient", "AdjustCart", "WriteExperience",
                                                               "StartCooking", "RevokeSession", "CreateHousehold", "InviteToHousehold",
                                                               "RevokeHouseholdInvite", "JoinHousehold", "LeaveHousehold",
                                                               "RemoveHouseholdMember", "HandOverHousehold", "RequestPasswordReset",
                                                               "ResetPassword"])
    }

    @Test(arguments: samples)
    func roundTrip(_ envelope: CommandEnvelope) throws {
        let data = CommandCoding.encode(envelope)
        #expect(CommandCoding.decode(data) == .success(envelope))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(json["type"] as? String == envelope.command.typeName)
        #expect(json["commandId"] as? String == envelope.commandId)
        #expect(json["data"] is [String: Any])
    }

    /// The `data` written is exactly the command's stored properties, found by reflection. The
    /// samples set every optional property at least once, so the round trip above proves the
    /// reader accepts each of them.
    @Test(arguments: samples)
    func dataHoldsExactlyTheCommandsProperties(_ envelope: CommandEnvelope) throws {
        let json = try #require(try JSONSerialization.jsonObject(with: CommandCoding.encode(envelope)) as? [String: Any])
        try expectJSONHoldsExactlyThePayloadsProperties(try #require(json["data"] as? [String: Any]), of: envelope.command)
    }

    @Test func decodesTheDocumentedWireForm() throws {
        let json = #"{"commandId":"c1","type":"AdjustCart","correlationId":"k","data":{"userId":"u1","recipeId":"r1","delta":-2,"recipe":{"title":"Soup","ingredients":["salt"]}}}"#
        let envelope = try CommandCoding.decode(Array(json.utf8)).get()
        #expect(envelope == CommandEnvelope(commandId: "c1", correlationId: "k", command: cart("u1", "r1", -2)))
        let bare = #"{"commandId":"c2","type":"AdjustCart","data":{"userId":"u1","recipeId":"r1","delta":1}}"#
        #expect(try CommandCoding.decode(Array(bare.utf8)).get().command
                == .adjustCart(AdjustCart(userId: "u1", recipeId: "r1", delta: 1)))
    }

    @Test func theFingerprintIgnoresTheRecipeFactsButNothingElse() {
        let bare = Command.useOwnedIngredient(UseOwnedIngredient(userId: "u1", recipeId: "r1", ingredient: "salt"))
        #expect(CommandCoding.fingerprint(bare) == CommandCoding.fingerprint(use("u1", "r1", "salt")))
        #expect(CommandCoding.fingerprint(bare) != CommandCoding.fingerprint(use("u1", "r1", "butter")))
        #expect(CommandCoding.fingerprint(bare) != CommandCoding.fingerprint(use("u2", "r1", "salt")))
        #expect(CommandCoding.fingerprint(cart("u1", "r1", 1)) != CommandCoding.fingerprint(cart("u1", "r1", 2)))
        #expect(CommandCoding.fingerprint(save("u1", "r1")) != CommandCoding.fingerprint(unsave("u1", "r1")))
    }

    struct Bad: Sendable, CustomTestStringConvertible {
        var name: String
        var bytes: [UInt8]
        var code: Rejection.Code
        var commandId: CommandID?
        var mentions: String?
        init(_ name: String, _ json: String, _ code: Rejection.Code, commandId: CommandID?, mentions: String? = nil) {
            self.init(name, Array(json.utf8), code, commandId: commandId, mentions: mentions)
        }
        init(_ name: String, _ bytes: [UInt8], _ code: Rejection.Code, commandId: CommandID?, mentions: String? = nil) {
            self.name = name; self.bytes = bytes; self.code = code; self.commandId = commandId; self.mentions = mentions
        }
        var testDescription: String { name }
    }

    static let cartData = #""userId":"u1","recipeId":"r1""#

    static let bad: [Bad] = [
        Bad("truncated JSON", #"{"commandId":"c1","type":"#, .malformedJSON, commandId: nil),
        Bad("not JSON at all", "hello", .malformedJSON, commandId: nil),
        Bad("empty document", "", .malformedJSON, commandId: nil),
        Bad("string for an integer", #"{"commandId":"c1","type":"AdjustCart","data":{\#(cartData),"delta":"1"}}"#,
            .invalidField, commandId: "c1", mentions: "delta"),
        Bad("integer for a string", #"{"commandId":"c1","type":"AdjustCart","data":{"userId":7,"recipeId":"r1","delta":1}}"#,
            .invalidField, commandId: "c1", mentions: "userId"),
        Bad("string for a bool", #"{"commandId":"c1","type":"CheckGrocery","data":{"userId":"u1","ingredient":"salt","checked":"yes"}}"#,
            .invalidField, commandId: "c1", mentions: "checked"),
        Bad("fraction for an integer", #"{"commandId":"c1","type":"AdjustCart","data":{\#(cartData),"delta":1.5}}"#,
            .invalidField, commandId: "c1"),
        Bad("missing field in data", #"{"commandId":"c1","type":"AdjustCart","data":{"userId":"u1","recipeId":"r1"}}"#,
            .invalidField, commandId: "c1", mentions: "delta"),
        Bad("a client title on a cart line", #"{"commandId":"c1","type":"AdjustCart","data":{"userId":"u1","recipeId":"r1","title":"Soup","delta":1}}"#,
            .invalidField, commandId: "c1", mentions: "title"),
        Bad("recipe facts without ingredients", #"{"commandId":"c1","type":"SaveRecipe","data":{"userId":"u1","recipeId":"r1","recipe":{"title":"Soup"}}}"#,
            .invalidField, commandId: "c1", mentions: "ingredients"),
        Bad("an unknown field in the recipe facts", #"{"commandId":"c1","type":"SaveRecipe","data":{"userId":"u1","recipeId":"r1","recipe":{"title":"Soup","ingredients":["salt"],"points":9}}}"#,
            .invalidField, commandId: "c1", mentions: "points"),
        Bad("ingredients that are not strings", #"{"commandId":"c1","type":"SaveRecipe","data":{"userId":"u1","recipeId":"r1","recipe":{"title":"Soup","ingredients":[1]}}}"#,
            .invalidField, commandId: "c1", mentions: "ingredients"),
        Bad("missing data", #"{"commandId":"c1","type":"AdjustCart"}"#, .invalidField, commandId: "c1", mentions: "data"),
        Bad("missing type", #"{"commandId":"c1","data":{}}"#, .invalidField, commandId: "c1", mentions: "type"),
        Bad("missing commandId", #"{"type":"AdjustCart","data":{\#(cartData),"delta":1}}"#, .invalidField, commandId: nil, mentions: "commandId"),
        Bad("unknown field in data", #"{"commandId":"c1","type":"AdjustCart","data":{\#(cartData),"delat":1}}"#,
            .invalidField, commandId: "c1", mentions: "delat"),
        Bad("unknown field at the top level", #"{"commandId":"c1","type":"AdjustCart","extra":true,"data":{\#(cartData),"delta":1}}"#,
            .invalidField, commandId: "c1", mentions: "extra"),
        Bad("duplicate field", #"{"commandId":"c1","type":"AdjustCart","commandId":"c2","data":{\#(cartData),"delta":1}}"#,
            .invalidField, commandId: nil, mentions: "commandId"),
        Bad("duplicate field in data", #"{"commandId":"c1","type":"AdjustCart","data":{\#(cartData),"delta":1,"delta":2}}"#,
            .invalidField, commandId: "c1", mentions: "delta"),
        Bad("number for correlationId", #"{"commandId":"c1","type":"AdjustCart","correlationId":5,"data":{\#(cartData),"delta":1}}"#,
            .invalidField, commandId: "c1", mentions: "correlationId"),
        Bad("integer too large", #"{"commandId":"c1","type":"AdjustCart","data":{\#(cartData),"delta":99999999999999999999}}"#,
            .invalidField, commandId: "c1", mentions: "delta"),
        Bad("unknown type", #"{"commandId":"c1","type":"LaunchRocket","data":{}}"#, .unknownCommand, commandId: "c1", mentions: "LaunchRocket"),
        Bad("null for a required string", #"{"commandId":"c1","type":"AdjustCart","data":{"userId":"u1","recipeId":null,"delta":1}}"#,
            .invalidField, commandId: "c1", mentions: "recipeId"),
        Bad("null commandId", #"{"commandId":null,"type":"AdjustCart","data":{\#(cartData),"delta":1}}"#, .invalidField, commandId: nil),
        Bad("data that is not an object", #"{"commandId":"c1","type":"AdjustCart","data":"x"}"#, .invalidField, commandId: "c1"),
        Bad("a document that is not an object", #"["c1"]"#, .invalidField, commandId: nil),
        Bad("invalid UTF-8", Array(#"{"commandId":"c1","type":"WriteExperience","data":{"userId":"u1","recipeId":"r1","text":""#.utf8)
            + [0xC3, 0x28, 0xFF] + Array(#""}}"#.utf8), .invalidUTF8, commandId: nil),
        Bad("overlong UTF-8", Array(#"{"commandId":"c1","type":"X","data":{},"p":""#.utf8) + [0xC0, 0xAF] + Array(#""}"#.utf8),
            .invalidUTF8, commandId: nil),
        Bad("oversized document", Array(#"{"commandId":"c1","type":"WriteExperience","data":{"userId":"u1","recipeId":"r1","text":""#.utf8)
            + Array(repeating: UInt8(ascii: "a"), count: 64 * 1024) + Array(#""}}"#.utf8), .tooLarge, commandId: nil),
    ]

    @Test(arguments: bad)
    func refusesBadDocuments(_ bad: Bad) throws {
        guard case .failure(let failure) = CommandCoding.decode(bad.bytes) else {
            Issue.record("\(bad.name) was decoded")
            return
        }
        #expect(failure.rejection.code == bad.code, "\(failure.rejection.message)")
        #expect(failure.commandId == bad.commandId)
        if let word = bad.mentions {
            #expect(failure.rejection.message.contains(word), "\(failure.rejection.message)")
        }
    }

    @Test func sizeLimitIsExactly64KiB() throws {
        let prefix = #"{"commandId":"c1","type":"WriteExperience","data":{"userId":"u1","recipeId":"r1","text":"x"}}"#
        let padded = Array(prefix.utf8) + Array(repeating: UInt8(ascii: " "), count: CommandCoding.maxDocumentBytes - prefix.utf8.count)
        #expect(padded.count == 64 * 1024)
        #expect((try? CommandCoding.decode(padded).get()) == CommandEnvelope(commandId: "c1", command: experience("u1", "r1", "x")))
        guard case .failure(let failure) = CommandCoding.decode(padded + [0x20]) else {
            Issue.record("a document of 64 KiB + 1 was decoded")
            return
        }
        #expect(failure.rejection.code == .tooLarge)
    }

    @Test func decodingDoesNotValidateTheRules() throws {
        // Shape only: an empty title is the decider's business (invalid_title), not the decoder's.
        let json = #"{"commandId":"c1","type":"SaveRecipe","data":{"userId":"u1","recipeId":"r1","recipe":{"title":"","ingredients":["salt"]}}}"#
        let envelope = try CommandCoding.decode(Array(json.utf8)).get()
        var world = try World.withAlice()
        #expect(world.reject(envelope.command, commandId: envelope.commandId) == .invalidTitle)
    }
}
