import Foundation
import PantryJSON

/// The JSON form of event payloads (`schemas/events/*.json`) and the upcasting of old versions.
public enum EventCoding {
    /// The version written today. Readers accept every version up to this one.
    public static let currentSchemaVersion = 1

    public enum Failure: Error, Sendable, Equatable, CustomStringConvertible {
        case unknownType(String)
        case unsupportedSchemaVersion(type: String, version: Int)
        case invalidPayload(type: String, reason: String)

        public var description: String {
            switch self {
            case .unknownType(let type): "unknown event type '\(type)'"
            case .unsupportedSchemaVersion(let type, let version): "\(type) version \(version) is newer than this reader"
            case .invalidPayload(let type, let reason): "\(type) payload is invalid: \(reason)"
            }
        }
    }

    public static func typeName(of event: Event) -> String {
        switch event {
        case .userRegistered: "UserRegistered"
        case .recipeSaved: "RecipeSaved"
        case .savedRecipeRemoved: "SavedRecipeRemoved"
        case .groceryAdded: "GroceryAdded"
        case .groceryChecked: "GroceryChecked"
        case .groceryRemoved: "GroceryRemoved"
        case .pointEarned: "PointEarned"
        case .cartAdjusted: "CartAdjusted"
        case .experienceWritten: "ExperienceWritten"
        }
    }

    public static let typeNames = [
        "UserRegistered", "RecipeSaved", "SavedRecipeRemoved", "GroceryAdded", "GroceryChecked",
        "GroceryRemoved", "PointEarned", "CartAdjusted", "ExperienceWritten",
    ]

    public static func encode(_ event: Event) -> Data {
        var w = JSONObjectWriter()
        switch event {
        case .userRegistered(let e):
            w.field("userId", e.userId); w.field("username", e.username)
            w.field("email", e.email); w.field("passwordHash", e.passwordHash)
        case .recipeSaved(let e):
            w.field("userId", e.userId); w.field("recipeId", e.recipeId); w.field("title", e.title); w.field("image", e.image)
        case .savedRecipeRemoved(let e):
            w.field("userId", e.userId); w.field("recipeId", e.recipeId)
        case .groceryAdded(let e):
            w.field("userId", e.userId); w.field("item", e.item); w.field("ingredient", e.ingredient)
            w.field("amount", e.amount); w.field("unit", e.unit); w.field("recipeId", e.recipeId); w.field("merged", e.merged)
        case .groceryChecked(let e):
            w.field("userId", e.userId); w.field("item", e.item); w.field("checked", e.checked)
        case .groceryRemoved(let e):
            w.field("userId", e.userId); w.field("item", e.item)
        case .pointEarned(let e):
            w.field("userId", e.userId); w.field("recipeId", e.recipeId); w.field("ingredient", e.ingredient)
        case .cartAdjusted(let e):
            w.field("userId", e.userId); w.field("recipeId", e.recipeId); w.field("title", e.title); w.field("image", e.image)
            w.field("delta", e.delta); w.field("count", e.count)
        case .experienceWritten(let e):
            w.field("experienceId", e.experienceId); w.field("userId", e.userId); w.field("username", e.username)
            w.field("recipeId", e.recipeId); w.field("text", e.text)
        }
        return Data(w.finish())
    }

    public static func decode(type: String, schemaVersion: Int, data: Data, with decoder: JSONDecoder) throws(Failure) -> Event {
        guard typeNames.contains(type) else { throw .unknownType(type) }
        guard (1...currentSchemaVersion).contains(schemaVersion) else {
            throw .unsupportedSchemaVersion(type: type, version: schemaVersion)
        }
        let data = upcast(type: type, from: schemaVersion, data)
        do {
            switch type {
            case "UserRegistered": return .userRegistered(try decoder.decode(UserRegistered.self, from: data))
            case "RecipeSaved": return .recipeSaved(try decoder.decode(RecipeSaved.self, from: data))
            case "SavedRecipeRemoved": return .savedRecipeRemoved(try decoder.decode(SavedRecipeRemoved.self, from: data))
            case "GroceryAdded": return .groceryAdded(try decoder.decode(GroceryAdded.self, from: data))
            case "GroceryChecked": return .groceryChecked(try decoder.decode(GroceryChecked.self, from: data))
            case "GroceryRemoved": return .groceryRemoved(try decoder.decode(GroceryRemoved.self, from: data))
            case "PointEarned": return .pointEarned(try decoder.decode(PointEarned.self, from: data))
            case "CartAdjusted": return .cartAdjusted(try decoder.decode(CartAdjusted.self, from: data))
            default: return .experienceWritten(try decoder.decode(ExperienceWritten.self, from: data))
            }
        } catch {
            throw .invalidPayload(type: type, reason: "\(error)")
        }
    }

    /// A payload that failed to decode in `decode(batch:)`, and where it stands in the batch.
    public struct BatchFailure: Error, Sendable, Equatable {
        public var index: Int
        public var failure: Failure

        public init(index: Int, failure: Failure) { self.index = index; self.failure = failure }
    }

    /// Decodes many payloads in one call of the decoder. Replay and catch-up decode millions of
    /// small payloads, for which the decoder's fixed cost per call outweighs the parsing: the
    /// payloads are joined into one JSON array and read back in order, each as its own type.
    public static func decode(batch payloads: [(type: String, schemaVersion: Int, data: Data)]) throws(BatchFailure) -> [Event] {
        guard !payloads.isEmpty else { return [] }
        var array = Data("[".utf8)
        array.reserveCapacity(payloads.reduce(2) { $0 + $1.data.count + 1 })
        for (index, payload) in payloads.enumerated() {
            guard typeNames.contains(payload.type) else { throw BatchFailure(index: index, failure: .unknownType(payload.type)) }
            guard (1...currentSchemaVersion).contains(payload.schemaVersion) else {
                throw BatchFailure(index: index, failure: .unsupportedSchemaVersion(type: payload.type, version: payload.schemaVersion))
            }
            if index > 0 { array.append(UInt8(ascii: ",")) }
            array.append(upcast(type: payload.type, from: payload.schemaVersion, payload.data))
        }
        array.append(UInt8(ascii: "]"))
        let decoder = JSONDecoder()
        decoder.userInfo[PayloadArray.typesKey] = payloads.map(\.type)
        do {
            return try decoder.decode(PayloadArray.self, from: array).events
        } catch {
            // Find the culprit one by one (rare: the writer only stores what it encoded itself).
            let single = JSONDecoder()
            for (index, payload) in payloads.enumerated() {
                do { _ = try decode(type: payload.type, schemaVersion: payload.schemaVersion, data: payload.data, with: single) }
                catch { throw BatchFailure(index: index, failure: error) }
            }
            throw BatchFailure(index: 0, failure: .invalidPayload(type: payloads[0].type, reason: "\(error)"))
        }
    }

    /// A JSON array of payloads whose types come in the decoder's `userInfo`, in array order.
    private struct PayloadArray: Decodable {
        static let typesKey = CodingUserInfoKey(rawValue: "pantry.eventTypes")!
        var events: [Event] = []

        init(from decoder: any Decoder) throws {
            let types = decoder.userInfo[Self.typesKey] as? [String] ?? []
            var container = try decoder.unkeyedContainer()
            events.reserveCapacity(types.count)
            for type in types {
                switch type {
                case "UserRegistered": events.append(.userRegistered(try container.decode(UserRegistered.self)))
                case "RecipeSaved": events.append(.recipeSaved(try container.decode(RecipeSaved.self)))
                case "SavedRecipeRemoved": events.append(.savedRecipeRemoved(try container.decode(SavedRecipeRemoved.self)))
                case "GroceryAdded": events.append(.groceryAdded(try container.decode(GroceryAdded.self)))
                case "GroceryChecked": events.append(.groceryChecked(try container.decode(GroceryChecked.self)))
                case "GroceryRemoved": events.append(.groceryRemoved(try container.decode(GroceryRemoved.self)))
                case "PointEarned": events.append(.pointEarned(try container.decode(PointEarned.self)))
                case "CartAdjusted": events.append(.cartAdjusted(try container.decode(CartAdjusted.self)))
                case "ExperienceWritten": events.append(.experienceWritten(try container.decode(ExperienceWritten.self)))
                default: throw Failure.unknownType(type)
                }
            }
            guard container.isAtEnd else {
                throw DecodingError.dataCorrupted(.init(codingPath: [], debugDescription: "more payloads than types"))
            }
        }
    }

    /// Decodes a payload nested in a larger document (an event as published on the feed) without
    /// first cutting it out as bytes. Only the current version can be read this way; callers
    /// holding an older one go through `decode(type:schemaVersion:data:with:)`, which upcasts.
    public static func decode<Key: CodingKey>(
        type: String, from container: KeyedDecodingContainer<Key>, forKey key: Key
    ) throws -> Event {
        switch type {
        case "UserRegistered": return .userRegistered(try container.decode(UserRegistered.self, forKey: key))
        case "RecipeSaved": return .recipeSaved(try container.decode(RecipeSaved.self, forKey: key))
        case "SavedRecipeRemoved": return .savedRecipeRemoved(try container.decode(SavedRecipeRemoved.self, forKey: key))
        case "GroceryAdded": return .groceryAdded(try container.decode(GroceryAdded.self, forKey: key))
        case "GroceryChecked": return .groceryChecked(try container.decode(GroceryChecked.self, forKey: key))
        case "GroceryRemoved": return .groceryRemoved(try container.decode(GroceryRemoved.self, forKey: key))
        case "PointEarned": return .pointEarned(try container.decode(PointEarned.self, forKey: key))
        case "CartAdjusted": return .cartAdjusted(try container.decode(CartAdjusted.self, forKey: key))
        case "ExperienceWritten": return .experienceWritten(try container.decode(ExperienceWritten.self, forKey: key))
        default: throw Failure.unknownType(type)
        }
    }

    /// Rewrites a stored payload of an older version into the current shape, one version step at
    /// a time (v1→v2, v2→v3, ...), so the log is never rewritten. Every event is at version 1 today,
    /// so there is no step yet; a new version adds its step here and its rule to `schemas/README.md`.
    static func upcast(type: String, from version: Int, _ data: Data) -> Data {
        precondition(version == currentSchemaVersion, "no upcasting step from \(type) v\(version)")
        return data
    }
}
