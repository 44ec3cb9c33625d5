/// Identifiers are plain strings on the wire; these aliases say which one a field holds.
public typealias UserID = String
public typealias RecipeID = String
public typealias CommandID = String

/// Every event of a user lives in that user's stream, so the stream's version orders them.
public func userStream(_ userId: UserID) -> String { "user-\(userId)" }
