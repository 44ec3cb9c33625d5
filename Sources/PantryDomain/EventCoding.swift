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
