import Foundation
import PantryDomain
import Testing

@Suite struct EventCodingTests {
    static let tricky = "say \"hi\" \\ back\\slash\nnew line\r\ttab \u{0}\u{1}\u{1F}\u{7F} 🍅 é 中文 \u{2028} 👩‍🍳 /"

    static let samples: [Event] = [
        .userRegistered(UserRegistered(userId: "u1", username: "alice", email: "a\"b@example.org", passwordHash: phcHash)),
        .recipeSaved(RecipeSaved(userId: "u1", recipeId: "r1", title: tricky, image: nil)),
        .recipeSaved(RecipeSaved(userId: "u1", recipeId: "r\\1", title: "Soup", image: "https://example.org/a.png?x=\"1\"")),
        .savedRecipeRemoved(SavedRecipeRemoved(userId: "u1", recipeId: "r1")),
        .groceryAdded(GroceryAdded(userId: "u1", item: "olive oil", ingredient: " Olive OIL", amount: nil, unit: nil, recipeId: nil, merged: false)),
        .groceryAdded(GroceryAdded(userId: "u1", item: "flour", ingredient: "Flour", amount: 0.1, unit: "kg", recipeId: "r1", merged: true)),
        .groceryAdded(GroceryAdded(userId: "u1", item: "x", ingredient: "x", amount: 1_000_000, unit: tricky, recipeId: tricky, merged: true)),
        .groceryAdded(GroceryAdded(userId: "u1", item: "y", ingredient: "y", amount: 1e-7, unit: nil, recipeId: nil, merged: false)),
        .groceryAdded(GroceryAdded(userId: "u1", item: "z", ingredient: "z", amount: 1.0 / 3.0, unit: nil, recipeId: nil, merged: false)),
        .groceryAdded(GroceryAdded(userId: "u1", item: "w", ingredient: "w", amount: 0, unit: nil, recipeId: nil, merged: false)),
        .groceryChecked(GroceryChecked(userId: "u1", item: "flour", checked: true)),
        .groceryChecked(GroceryChecked(userId: "u1", item: "flour", checked: false)),
        .groceryRemoved(GroceryRemoved(userId: "u1", item: tricky)),
        .pointEarned(PointEarned(userId: "u1", recipeId: "r1", ingredient: "jalapeño")),
        .cartAdjusted(CartAdjusted(userId: "u1", recipeId: "r1", title: "T", image: nil, delta: -99, count: 0)),
        .cartAdjusted(CartAdjusted(userId: "u1", recipeId: "r1", title: tricky, image: "http://x.org/i.jpg", delta: 99, count: 99)),
        .experienceWritten(ExperienceWritten(experienceId: "c-1", userId: "u1", username: "alice", recipeId: "r1", text: tricky)),
        .experienceWritten(ExperienceWritten(experienceId: "c-2", userId: "u1", username: "alice", recipeId: "r1",
                                             text: String(repeating: "😋", count: 2000))),
    ]

    @Test func samplesCoverEveryEventType() {
        #expect(Set(Self.samples.map(EventCoding.typeName(of:))) == Set(EventCoding.typeNames))
        #expect(EventCoding.typeNames.count == 9)
    }

    @Test(arguments: samples)
    func handWrittenEncodingDecodesToTheSameEvent(_ event: Event) throws {
        let data = EventCoding.encode(event)
        let decoded = try EventCoding.decode(type: EventCoding.typeName(of: event), schemaVersion: EventCoding.currentSchemaVersion,
                                             data: data, with: JSONDecoder())
        #expect(decoded == event)
    }

    @Test(arguments: samples)
    func handWrittenEncodingIsJSONThatAgreesWithJSONEncoder(_ event: Event) throws {
        let data = EventCoding.encode(event)
        let parsed = try #require(try JSONSerialization.jsonObject(with: data) as? NSDictionary)
        #expect(String(data: data, encoding: .utf8) != nil)
        let reference: Data = switch event {
        case .userRegistered(let e): try JSONEncoder().encode(e)
        case .recipeSaved(let e): try JSONEncoder().encode(e)
        case .savedRecipeRemoved(let e): try JSONEncoder().encode(e)
        case .groceryAdded(let e): try JSONEncoder().encode(e)
        case .groceryChecked(let e): try JSONEncoder().encode(e)
        case .groceryRemoved(let e): try JSONEncoder().encode(e)
        case .pointEarned(let e): try JSONEncoder().encode(e)
        case .cartAdjusted(let e): try JSONEncoder().encode(e)
        case .experienceWritten(let e): try JSONEncoder().encode(e)
        }
        let expected = try #require(try JSONSerialization.jsonObject(with: reference) as? NSDictionary)
        #expect(parsed.isEqual(expected), "\(String(decoding: data, as: UTF8.self))")
    }

    @Test func aBatchDecodesToTheSameEventsAsOneByOne() throws {
        let payloads = Self.samples.map { (EventCoding.typeName(of: $0), EventCoding.currentSchemaVersion, EventCoding.encode($0)) }
        #expect(try EventCoding.decode(batch: payloads) == Self.samples)
        #expect(try EventCoding.decode(batch: []) == [])
    }

    @Test func aBatchNamesThePayloadThatFailed() {
        var payloads = Self.samples.map { (EventCoding.typeName(of: $0), EventCoding.currentSchemaVersion, EventCoding.encode($0)) }
        payloads[5].2 = Data(#"{"userId":"u1","item":"x"}"#.utf8)   // a GroceryAdded without its fields
        #expect(throws: EventCoding.BatchFailure.self) { try EventCoding.decode(batch: payloads) }
        do {
            _ = try EventCoding.decode(batch: payloads)
        } catch {
            #expect(error.index == 5)
        }
        payloads[5] = ("PizzaOrdered", 1, Data("{}".utf8))
        #expect(throws: EventCoding.BatchFailure(index: 5, failure: .unknownType("PizzaOrdered"))) {
            try EventCoding.decode(batch: payloads)
        }
        payloads[5] = ("PointEarned", 2, Data("{}".utf8))
        #expect(throws: EventCoding.BatchFailure(index: 5, failure: .unsupportedSchemaVersion(type: "PointEarned", version: 2))) {
            try EventCoding.decode(batch: payloads)
        }
    }

    @Test func optionalFieldsAreOmittedWhenNil() throws {
        let data = EventCoding.encode(.recipeSaved(RecipeSaved(userId: "u1", recipeId: "r1", title: "T", image: nil)))
        let json = try #require(try JSONSerialization.jsonObject(with: data) as? [String: Any])
        #expect(Set(json.keys) == ["userId", "recipeId", "title"])
    }

    @Test func controlCharactersAreEscaped() throws {
        let data = EventCoding.encode(.groceryRemoved(GroceryRemoved(userId: "u1", item: "a\u{0}b\u{1F}c\nd\"e\\f")))
        let text = try #require(String(data: data, encoding: .utf8))
        #expect(!text.unicodeScalars.contains { $0.value < 0x20 })
        #expect(text == #"{"userId":"u1","item":"a\u0000b\u001fc\nd\"e\\f"}"#)
    }

    @Test func unknownTypeIsRefused() {
        #expect(throws: EventCoding.Failure.unknownType("PizzaOrdered")) {
            try EventCoding.decode(type: "PizzaOrdered", schemaVersion: 1, data: Data("{}".utf8), with: JSONDecoder())
        }
    }

    @Test(arguments: [EventCoding.currentSchemaVersion + 1, 99, 0, -1])
    func unsupportedSchemaVersionIsRefused(_ version: Int) {
        let data = EventCoding.encode(.pointEarned(PointEarned(userId: "u1", recipeId: "r1", ingredient: "salt")))
        #expect(throws: EventCoding.Failure.unsupportedSchemaVersion(type: "PointEarned", version: version)) {
            try EventCoding.decode(type: "PointEarned", schemaVersion: version, data: data, with: JSONDecoder())
        }
    }

    @Test func invalidPayloadIsRefused() {
        do {
            _ = try EventCoding.decode(type: "PointEarned", schemaVersion: 1, data: Data(#"{"userId":"u1"}"#.utf8), with: JSONDecoder())
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
