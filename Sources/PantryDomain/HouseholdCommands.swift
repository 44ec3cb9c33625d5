/// A household: people who share one grocery list and one cart (with its timers). Points, tips,
/// favourites and the account stay personal. One household per person at a time.
package typealias HouseholdID = String

/// Starts a household with its creator as the owner and only member.
package struct CreateHousehold: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    enum Fields: String, CaseIterable { case userId }
    package init(userId: UserID) { self.userId = userId }
}

/// The owner invites someone: the adapter makes a random code, gives it to the owner once and
/// sends only its SHA-256 (`codeDigest`, 64 hex digits), so the log never holds a usable code.
package struct InviteToHousehold: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var codeDigest: String
    enum Fields: String, CaseIterable { case userId, codeDigest }
    package init(userId: UserID, codeDigest: String) { self.userId = userId; self.codeDigest = codeDigest }
}

package struct RevokeHouseholdInvite: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var inviteId: String
    enum Fields: String, CaseIterable { case userId, inviteId }
    package init(userId: UserID, inviteId: String) { self.userId = userId; self.inviteId = inviteId }
}

/// Joins the household whose open invite has this code (its SHA-256, as for the invite).
package struct JoinHousehold: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var codeDigest: String
    enum Fields: String, CaseIterable { case userId, codeDigest }
    package init(userId: UserID, codeDigest: String) { self.userId = userId; self.codeDigest = codeDigest }
}

/// A member leaves; the owner only once nobody else is left (else they hand it over first).
package struct LeaveHousehold: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    enum Fields: String, CaseIterable { case userId }
    package init(userId: UserID) { self.userId = userId }
}

/// The owner removes another member.
package struct RemoveHouseholdMember: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var memberId: UserID
    enum Fields: String, CaseIterable { case userId, memberId }
    package init(userId: UserID, memberId: UserID) { self.userId = userId; self.memberId = memberId }
}

/// The owner makes another member the owner.
package struct HandOverHousehold: Sendable, Equatable, CommandPayload {
    package var userId: UserID
    package var memberId: UserID
    enum Fields: String, CaseIterable { case userId, memberId }
    package init(userId: UserID, memberId: UserID) { self.userId = userId; self.memberId = memberId }
}
