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

    public static func decode(type: String, schemaVersion: Int, data: Data) throws(Failure) -> Event {
        guard typeNames.contains(type) else { throw .unknownType(type) }
        guard (1...currentSchemaVersion).contains(schemaVersion) else {
            throw .unsupportedSchemaVersion(type: type, version: schemaVersion)
        }
        do {
            return try upcast(type: type, from: schemaVersion, data).withUnsafeBytes { bytes in
                try JSONObjectReader.read(bytes) { payload in try decode(type: type, payload) }
            }
        } catch {
            throw .invalidPayload(type: type, reason: "\(error)")
        }
    }

    /// Decodes a payload of the current version already opened by a reader (the payload nested in
    /// an event document on the feed). The mirror of `encode`: fields the type does not know are
    /// ignored, so a reader keeps working when a later version adds one.
    public static func decode(type: String, _ json: borrowing JSONObjectReader) throws -> Event {
        switch type {
        case "UserRegistered":
            return .userRegistered(UserRegistered(
                userId: try json.string("userId"), username: try json.string("username"),
                email: try json.string("email"), passwordHash: try json.string("passwordHash")))
        case "RecipeSaved":
            return .recipeSaved(RecipeSaved(
                userId: try json.string("userId"), recipeId: try json.string("recipeId"),
                title: try json.string("title"), image: try json.optionalString("image")))
        case "SavedRecipeRemoved":
            return .savedRecipeRemoved(SavedRecipeRemoved(userId: try json.string("userId"), recipeId: try json.string("recipeId")))
        case "GroceryAdded":
            return .groceryAdded(GroceryAdded(
                userId: try json.string("userId"), item: try json.string("item"), ingredient: try json.string("ingredient"),
                amount: try json.optionalDouble("amount"), unit: try json.optionalString("unit"),
                recipeId: try json.optionalString("recipeId"), merged: try json.bool("merged")))
        case "GroceryChecked":
            return .groceryChecked(GroceryChecked(userId: try json.string("userId"), item: try json.string("item"), checked: try json.bool("checked")))
        case "GroceryRemoved":
            return .groceryRemoved(GroceryRemoved(userId: try json.string("userId"), item: try json.string("item")))
        case "PointEarned":
            return .pointEarned(PointEarned(
                userId: try json.string("userId"), recipeId: try json.string("recipeId"), ingredient: try json.string("ingredient")))
        case "CartAdjusted":
            return .cartAdjusted(CartAdjusted(
                userId: try json.string("userId"), recipeId: try json.string("recipeId"), title: try json.string("title"),
                image: try json.optionalString("image"), delta: try json.int("delta"), count: try json.int("count")))
        case "ExperienceWritten":
            return .experienceWritten(ExperienceWritten(
                experienceId: try json.string("experienceId"), userId: try json.string("userId"),
                username: try json.string("username"), recipeId: try json.string("recipeId"), text: try json.string("text")))
        default:
            throw Failure.unknownType(type)
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
