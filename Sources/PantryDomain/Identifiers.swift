import PantryJSON

/// Identifiers are plain strings on the wire; these aliases say which one a field holds.
package typealias UserID = String
package typealias CommandID = String

/// A recipe's id, as its provider or the catalog gives it. A type of its own, not an alias: the
/// one-point rule handles it beside a user id and an ingredient's key, all strings on the wire,
/// and an id passed for another compiled (`packedPoint(ingredient, recipeId)` would have).
/// Written and read as its string, so the log, the feed and the snapshot hold what they held.
package struct RecipeID: RawRepresentable, Hashable, Sendable, Codable,
                         ExpressibleByStringInterpolation, LosslessStringConvertible {
    package var rawValue: String

    package init(rawValue: String) { self.rawValue = rawValue }
    package init(_ rawValue: String) { self.rawValue = rawValue }
    package init(stringLiteral value: String) { rawValue = value }

    package var description: String { rawValue }
}

extension JSONObjectWriter {
    package mutating func field(_ key: String, _ value: RecipeID) { field(key, value.rawValue) }
    package mutating func field(_ key: String, _ value: RecipeID?) { field(key, value?.rawValue) }
}

/// Every event of a user lives in that user's stream, so the stream's version orders them.
package func userStream(_ userId: UserID) -> String { "user-\(userId)" }
