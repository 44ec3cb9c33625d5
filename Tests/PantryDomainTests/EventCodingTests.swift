import Foundation
import PantryDomain
import PantryKeys
import Testing
import PantryTestSupport

@Suite struct EventCodingTests {
    static let tricky = "say \"hi\" \\ back\\slash\nnew line\r\ttab \u{0}\u{1}\u{1F}\u{7F} 🍅 é 中文 \u{2028} 👩‍🍳 /"

    static let samples: [Event] = [
        .userRegistered(UserRegistered(userId: "u1", username: "alice", email: "a\"b@example.org", passwordHash: phcHash)),
        .recipeSaved(RecipeSaved(userId: "u1", recipeId: "r1", title: tricky, image: nil)),
        .recipeSaved(RecipeSaved(userId: "u1", recipeId: "r\\1", title: "Soup", image: "https://example.org/a.png?x=\"1\"")),
        .savedRecipeRemoved(SavedRecipeRemoved(userId: "u1", recipeId: "r1")),
        .groceryAdded(GroceryAdded(userId: "u1", item: "olive oil", ingredient: " Olive OIL", amount: nil, unit: nil, recipeId: nil, merged: false)),
        .groceryAdded(GroceryAdded(userId: "u1", item: "flour", ingredient: "Flour", amount: 0.1, unit: "kg", recipeId: "r1", merged: true)),
        .groceryAdded(GroceryAdded(userId: "u1", item: "x", ingredient: "x", amount: 1_000_000, unit: tricky, recipeId: RecipeID(tricky), merged: true)),
        .groceryAdded(GroceryAdded(userId: "u1", item: "y", ingredient: "y", amount: 1e-7, unit: nil, recipeId: nil, merged: false)),
        .groceryAdded(GroceryAdded(userId: "u1", item: "z", ingredient: "z", amount: 1.0 / 3.0, unit: nil, recipeId: nil, merged: false)),
        .groceryAdded(GroceryAdded(userId: "u1", item: "w", ingredient: "w", amount: 0, unit: nil, recipeId: nil, merged: false)),
        .groceryChecked(GroceryChecked(userId: "u1", item: "flour", checked: true)),
        .groceryChecked(GroceryChecked(userId: "u1", item: "flour", checked: false)),
        .groceryRemoved(GroceryRemoved(userId: "u1", item: tricky)),
        .pointEarned(PointEarned(userId: "u1", recipeId: "r1", ingredient: "jalapeño")),
        .cartAdjusted(CartAdjusted(userId: "u1", recipeId: "r1", title: "T", image: nil, delta: -99, count: 0)),
        .cartAdjusted(CartAdjusted(userId: "u1", recipeId: "r1", title: tricky, image: "http://x.org/i.jpg", delta: 99, count: 99)),
        .experienceWritten(ExperienceWritten(experienceId: "c-1", userId: "u1", recipeId: "r1", text: tricky)),
        .experienceWritten(ExperienceWritten(experienceId: "c-2", userId: "u1", recipeId: "r1",
                                             text: String(repeating: "😋", count: 2000))),
        .recipeRecorded(RecipeRecorded(userId: "u1", recipeId: "r1", facts: RecipeFacts(
            title: tricky, image: "https://example.org/a.png", ingredients: ["salt", tricky, "jalapeño"]))),
        .recipeRecorded(RecipeRecorded(userId: "u1", recipeId: "r2", facts: RecipeFacts(title: "T", image: nil, ingredients: ["x"]))),
        .passwordChanged(PasswordChanged(userId: "u1", passwordHash: phcHash)),
        .userDeleted(UserDeleted(userId: "u1")),
        .cookingStarted(CookingStarted(userId: "u1", recipeId: RecipeID(tricky), minutes: 1440, title: tricky, image: nil)),
        .sessionRevoked(SessionRevoked(userId: "u1", tokenId: "Zq3tokenId0", expiresAt: 4_102_444_800)),
        .groceryAdded(GroceryAdded(userId: "u2", item: "egg", ingredient: "Eggs", amount: 6, unit: nil, recipeId: nil, merged: true,
                                   household: "h-1", itemId: "g-1")),
        .groceryChecked(GroceryChecked(userId: "u2", item: "egg", checked: true, household: "h-1", itemId: "g-1")),
        .groceryRemoved(GroceryRemoved(userId: "u2", item: "egg", household: "h-1", itemId: "g-1")),
        .cartAdjusted(CartAdjusted(userId: "u2", recipeId: "r1", title: "T", image: nil, delta: 1, count: 1, household: "h-1")),
        .cookingStarted(CookingStarted(userId: "u2", recipeId: "r1", minutes: 20, title: "T", image: "https://example.org/a.png")),
        .householdCreated(HouseholdCreated(householdId: "h-1", userId: "u1")),
        .householdInviteCreated(HouseholdInviteCreated(householdId: "h-1", userId: "u1", inviteId: "i-1",
                                                       codeDigest: String(repeating: "a", count: 64), expiresAt: 1_800_086_400_000)),
        .householdInviteRevoked(HouseholdInviteRevoked(householdId: "h-1", userId: "u1", inviteId: "i-1")),
        .householdJoined(HouseholdJoined(householdId: "h-1", userId: "u2", inviteId: "i-1")),
        .householdLeft(HouseholdLeft(householdId: "h-1", userId: "u2", removedBy: "u1", dissolved: false)),
        .householdLeft(HouseholdLeft(householdId: "h-1", userId: "u1", removedBy: nil, dissolved: true)),
        .householdHandedOver(HouseholdHandedOver(householdId: "h-1", userId: "u1", newOwner: "u2")),
        .passwordResetRequested(PasswordResetRequested(userId: "u1", tokenDigest: String(repeating: "c", count: 64), expiresAt: 1_800_001_800_000)),
    ]

    @Test func samplesCoverEveryEventType() {
        #expect(Set(Self.samples.map(\.type)) == Set(EventType.allCases))
        #expect(EventType.allCases.count == 21)
    }

    /// The names are in every log ever written: each type is the one its schema file names.
    @Test func everyTypeIsNamedAsItsSchemaFile() throws {
        let schemas = URL(fileURLWithPath: #filePath).deletingLastPathComponent()
            .appendingPathComponent("../../schemas/events").standardizedFileURL
        let names = try FileManager.default.contentsOfDirectory(atPath: schemas.path)
            .filter { $0.hasSuffix(".schema.json") && !$0.contains(".v") }
            .map { String($0.dropLast(".schema.json".count)) }
        #expect(Set(names) == Set(EventType.allCases).names)
    }

    @Test(arguments: samples)
    func handWrittenEncodingDecodesToTheSameEvent(_ event: Event) throws {
        let data = try EventCoding.encode(event, vault: testVault)
        let decoded = try EventCoding.decode(type: event.type.rawValue, schemaVersion: event.type.schemaVersion, data: data, vault: testVault)
        #expect(decoded == event)
    }

    /// The payload's fields are exactly the event's stored properties, found by reflection.
    @Test(arguments: samples)
    func handWrittenEncodingHoldsExactlyTheEventsProperties(_ event: Event) throws {
        var parsed = try #require(try JSONSerialization.jsonObject(with: EventCoding.encode(event, vault: testVault)) as? [String: Any])
        switch event {
        case .userRegistered(let e):
            // The personal fields are sealed: opened, they are the account's properties.
            let sealed = try #require(parsed["sealed"] as? String)
            let opened = try #require(try testVault.open(sealed, for: e.userId))
            let account = try #require(try JSONSerialization.jsonObject(with: Data(opened)) as? [String: Any])
            #expect(Set(parsed.keys) == ["userId", "sealed"])
            let details = try #require(e.account)
            #expect(account as? [String: String] == ["username": details.username, "email": details.email,
                                                     "passwordHash": details.passwordHash])
        case .passwordChanged, .groceryAdded, .groceryChecked, .groceryRemoved, .experienceWritten:
            // The sealed fields, opened, and the clear ones are together the event's properties.
            let sealed = try #require(parsed.removeValue(forKey: "sealed") as? String)
            let opened = try #require(try testVault.open(sealed, for: event.userId))
            let personal = try #require(try JSONSerialization.jsonObject(with: Data(opened)) as? [String: Any])
            #expect(Set(personal.keys).isDisjoint(with: parsed.keys))
            parsed.merge(personal) { clear, _ in clear }
            try expectJSONHoldsExactlyThePayloadsProperties(parsed, of: event)
        default:
            try expectJSONHoldsExactlyThePayloadsProperties(parsed, of: event)
        }
    }

    /// Another writer's JSON (whitespace, another field order, escapes where this one writes raw
    /// UTF-8, a field this version does not know) reads as the same event.
    /// Before version 3 a timer was started on a cart line (a household's, in version 2): such an
    /// event reads with no title and the cart it named, and folds as the starter's own cooking.
    @Test func anOldCookingStartedIsUpcastToTheCooksOwn() throws {
        let v2 = try EventCoding.decode(type: "CookingStarted", schemaVersion: 2,
                                        data: Data(#"{"userId":"u2","recipeId":"r1","minutes":20,"household":"h-1"}"#.utf8), vault: nil)
        #expect(v2 == .cookingStarted(CookingStarted(userId: "u2", recipeId: "r1", minutes: 20, title: nil, image: nil, cartHousehold: "h-1")))
        let v1 = try EventCoding.decode(type: "CookingStarted", schemaVersion: 1,
                                        data: Data(#"{"userId":"u1","recipeId":"r1","minutes":5}"#.utf8), vault: nil)
        #expect(v1 == .cookingStarted(CookingStarted(userId: "u1", recipeId: "r1", minutes: 5, title: nil, image: nil)))
        let state = Decider.evolve(PantryState(), [(event: v2, at: Int64(1_000))])
        #expect(state.cooking["u2"]?["r1"] == 1_000 + 20 * 60_000 + Decider.cookingGrace)
        // Version 3 needs its title.
        #expect(throws: EventCoding.Failure.self) {
            try EventCoding.decode(type: "CookingStarted", schemaVersion: 3, data: Data(#"{"userId":"u1","recipeId":"r1","minutes":5}"#.utf8), vault: nil)
        }
    }

    @Test func aPayloadFromAnotherWriterDecodes() throws {
        let json = #"""
             { "ingredient" : "jalape\u00f1o \ud83c\udf45",
               "future": {"nested": [1, 2.5e3, null, true]},
               "recipeId":"r\/1", "userId" : "u1" }
            """#
        let event = try EventCoding.decode(type: "PointEarned", schemaVersion: 1, data: Data(json.utf8), vault: nil)
        #expect(event == .pointEarned(PointEarned(userId: "u1", recipeId: "r/1", ingredient: "jalapeño 🍅")))
    }

    @Test(arguments: [
        #"{"userId":"u1","recipeId":"r1"}"#,                                   // a missing field
        #"{"userId":"u1","recipeId":"r1","ingredient":7}"#,                    // a wrong type
        #"{"userId":"u1","recipeId":"r1","ingredient":null}"#,                 // null for a required string
        #"{"userId":"u1","recipeId":"r1","ingredient":"salt""#,                // truncated
        #"{"userId":"u1","userId":"u2","recipeId":"r1","ingredient":"salt"}"#, // a duplicate field
        #"["u1","r1","salt"]"#,                                                // not an object
        "",
    ])
    func aBrokenPayloadIsInvalid(_ json: String) {
        #expect {
            try EventCoding.decode(type: "PointEarned", schemaVersion: 1, data: Data(json.utf8), vault: nil)
        } throws: { error in
            guard case .invalidPayload("PointEarned", _) = error as? EventCoding.Failure else { return false }
            return true
        }
    }

    @Test func optionalFieldsAreOmittedWhenNil() throws {
        let data = try EventCoding.encode(.recipeSaved(RecipeSaved(userId: "u1", recipeId: "r1", title: "T", image: nil)), vault: testVault)
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(json.keys) == ["userId", "recipeId", "title"])
    }

    @Test func controlCharactersAreEscaped() throws {
        let data = try EventCoding.encode(.pointEarned(PointEarned(userId: "u1", recipeId: "r1", ingredient: "a\u{0}b\u{1F}c\nd\"e\\f")), vault: testVault)
        let text = try #require(String(data: data, encoding: .utf8))
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 })
        #expect(text == #"{"userId":"u1","recipeId":"r1","ingredient":"a\u0000b\u001fc\nd\"e\\f"}"#)
    }

    @Test func unknownTypeIsRefused() {
        #expect(throws: EventCoding.Failure.unknownType("PizzaOrdered")) {
            try EventCoding.decode(type: "PizzaOrdered", schemaVersion: 1, data: Data("{}".utf8), vault: nil)
        }
    }

    @Test(arguments: [EventType.pointEarned.schemaVersion + 1, 99, 0, -1])
    func unsupportedSchemaVersionIsRefused(_ version: Int) throws {
        let data = try EventCoding.encode(.pointEarned(PointEarned(userId: "u1", recipeId: "r1", ingredient: "salt")), vault: testVault)
        #expect(throws: EventCoding.Failure.unsupportedSchemaVersion(type: "PointEarned", version: version)) {
            try EventCoding.decode(type: "PointEarned", schemaVersion: version, data: data, vault: nil)
        }
    }

    /// Stored payloads of the first version are read as they were written, never rewritten.
    @Test func version1PayloadsStillDecode() throws {
        let registered = #"{"userId":"u1","username":"alice","email":"a@example.org","passwordHash":"$scrypt$x"}"#
        #expect(try EventCoding.decode(type: "UserRegistered", schemaVersion: 1, data: Data(registered.utf8), vault: nil)
                == .userRegistered(UserRegistered(userId: "u1", username: "alice", email: "a@example.org", passwordHash: "$scrypt$x")))
        let experience = #"{"experienceId":"c-1","userId":"u1","username":"alice","recipeId":"r1","text":"Nice"}"#
        #expect(try EventCoding.decode(type: "ExperienceWritten", schemaVersion: 1, data: Data(experience.utf8), vault: nil)
                == .experienceWritten(ExperienceWritten(experienceId: "c-1", userId: "u1", recipeId: "r1", text: "Nice")))
    }

    /// Logs written before grocery items and tips were sealed hold them in the clear, at the
    /// versions before: they replay as they were written, with no key needed.
    @Test func groceryAndTipPayloadsWrittenBeforeTheSealStillDecode() throws {
        let added = #"{"userId":"u1","item":"insulin pen","ingredient":"Insulin pens","amount":2,"recipeId":"r1","merged":false}"#
        #expect(try EventCoding.decode(type: "GroceryAdded", schemaVersion: 1, data: Data(added.utf8), vault: nil)
                == .groceryAdded(GroceryAdded(userId: "u1", item: "insulin pen", ingredient: "Insulin pens", amount: 2, unit: nil,
                                              recipeId: "r1", merged: false)))
        let checked = #"{"userId":"u1","item":"insulin pen","checked":true}"#
        #expect(try EventCoding.decode(type: "GroceryChecked", schemaVersion: 1, data: Data(checked.utf8), vault: nil)
                == .groceryChecked(GroceryChecked(userId: "u1", item: "insulin pen", checked: true)))
        let removed = #"{"userId":"u1","item":"insulin pen"}"#
        #expect(try EventCoding.decode(type: "GroceryRemoved", schemaVersion: 1, data: Data(removed.utf8), vault: nil)
                == .groceryRemoved(GroceryRemoved(userId: "u1", item: "insulin pen")))
        let experience = #"{"experienceId":"e-1","userId":"u1","recipeId":"r1","text":"Nice"}"#
        #expect(try EventCoding.decode(type: "ExperienceWritten", schemaVersion: 2, data: Data(experience.utf8), vault: nil)
                == .experienceWritten(ExperienceWritten(experienceId: "e-1", userId: "u1", recipeId: "r1", text: "Nice")))
    }

    /// What a person writes (a grocery item, a tip) is in the payload only sealed: not as typed,
    /// not JSON-escaped, not in base64; once the key is destroyed it reads as erased.
    @Test func groceryItemsAndTipsAreSealedAndUnreadableOnceTheKeyIsDestroyed() throws {
        // A key store of its own: another test's `persistPending` could write this user's key back.
        let vault = try UserKeyStore(path: scratchPath("domain-erasure", ".sqlite"), readOnly: false)
        let userId = "erased-\(UUID().uuidString)"
        let item = "insulin pen", tip = "Less \"salt\", my doctor says"
        let events: [Event] = [
            .groceryAdded(GroceryAdded(userId: userId, item: item, ingredient: item, amount: 2, unit: nil, recipeId: nil, merged: false)),
            .groceryChecked(GroceryChecked(userId: userId, item: item, checked: true)),
            .groceryRemoved(GroceryRemoved(userId: userId, item: item)),
            .experienceWritten(ExperienceWritten(experienceId: "e-1", userId: userId, recipeId: "r1", text: tip)),
        ]
        let payloads = try events.map { try EventCoding.encode($0, vault: vault) }
        for (payload, text) in zip(payloads, [item, item, item, tip]) {
            let escaped = try #require(String(data: try JSONSerialization.data(withJSONObject: [text]), encoding: .utf8)).dropFirst(2).dropLast(2)
            for form in [text, String(escaped), Data(text.utf8).base64EncodedString()] {
                #expect(payload.range(of: Data(form.utf8)) == nil, "\(form) is readable in the payload")
            }
        }
        try vault.persistPending()
        for (event, payload) in zip(events, payloads) {
            #expect(try EventCoding.decode(type: event.type.rawValue, schemaVersion: event.type.schemaVersion, data: payload, vault: vault) == event)
        }
        try vault.destroy([userId])
        let erased = try zip(events, payloads).map {
            try EventCoding.decode(type: $0.type.rawValue, schemaVersion: $0.type.schemaVersion, data: $1, vault: vault)
        }
        #expect(erased == [
            .groceryAdded(GroceryAdded(userId: userId, item: EventCoding.erased, ingredient: EventCoding.erased, amount: 2, unit: nil,
                                       recipeId: nil, merged: false)),
            .groceryChecked(GroceryChecked(userId: userId, item: EventCoding.erased, checked: true)),
            .groceryRemoved(GroceryRemoved(userId: userId, item: EventCoding.erased)),
            .experienceWritten(ExperienceWritten(experienceId: "e-1", userId: userId, recipeId: "r1", text: EventCoding.erased)),
        ])
    }

    /// The log service sends a sealed payload opened: the clear fields as they are, the sealed
    /// ones under `opened` (null once the key is gone), which a reader without keys decodes.
    @Test func anOpenedPayloadKeepsItsClearFieldsAndDecodesWithoutAVault() throws {
        let event = Event.groceryAdded(GroceryAdded(userId: "u-opened", item: "flour", ingredient: "Flour", amount: 0.5, unit: "kg",
                                                    recipeId: "r1", merged: true))
        let sealed = try EventCoding.encode(event, vault: testVault)
        let opened = try EventCoding.opened(type: "GroceryAdded", data: sealed, vault: testVault)
        let json = try #require(try JSONSerialization.jsonObject(with: opened) as? [String: Any])
        #expect(Set(json.keys) == ["userId", "amount", "unit", "recipeId", "merged", "opened"])
        #expect(try EventCoding.decode(type: "GroceryAdded", schemaVersion: 2, data: opened, vault: nil) == event)
    }

    /// Once the user's key is destroyed, the registration reads as an anonymous tombstone.
    @Test func aDestroyedKeyLeavesATombstone() throws {
        let userId = "erased-\(UUID().uuidString)"
        let event = Event.userRegistered(UserRegistered(userId: userId, username: "zoë", email: "z@example.org", passwordHash: phcHash))
        let data = try EventCoding.encode(event, vault: testVault)
        try testVault.persistPending()
        try testVault.destroy([userId])
        #expect(try EventCoding.decode(type: "UserRegistered", schemaVersion: 2, data: data, vault: testVault)
                == .userRegistered(UserRegistered(userId: userId, account: nil)))
        #expect(throws: EventCoding.Failure.self) {
            try EventCoding.decode(type: "UserRegistered", schemaVersion: 2, data: data, vault: nil)
        }
    }

    @Test func invalidPayloadIsRefused() {
        do {
            _ = try EventCoding.decode(type: "PointEarned", schemaVersion: 1, data: Data(#"{"userId":"u1"}"#.utf8), vault: nil)
            Issue.record("a payload without recipeId was decoded")
        } catch {
            guard case .invalidPayload(let type, _) = error else {
                Issue.record("expected invalidPayload, got \(error)")
                return
            }
            #expect(type == "PointEarned")
        }
    }
}
