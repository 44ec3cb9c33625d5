/// Identifiers are plain strings on the wire; these aliases say which one a field holds.
package typealias UserID = String
package typealias RecipeID = String
package typealias CommandID = String

/// Every event of a user lives in that user's stream, so the stream's version orders them.
package func userStream(_ userId: UserID) -> String { "user-\(userId)" }
