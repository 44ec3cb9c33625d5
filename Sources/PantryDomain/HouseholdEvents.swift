/// A household began; `userId` owns it. Its id is derived from the creating command's id.
package struct HouseholdCreated: Sendable, Equatable {
    package var householdId: HouseholdID
    package var userId: UserID
    package init(householdId: HouseholdID, userId: UserID) { self.householdId = householdId; self.userId = userId }
}

/// An invite that one person may use once, until `expiresAt` (ms since 1970).
package struct HouseholdInviteCreated: Sendable, Equatable {
    package var householdId: HouseholdID
    package var userId: UserID
    package var inviteId: String
    package var codeDigest: String
    package var expiresAt: Int64
    package init(householdId: HouseholdID, userId: UserID, inviteId: String, codeDigest: String, expiresAt: Int64) {
        self.householdId = householdId; self.userId = userId; self.inviteId = inviteId
        self.codeDigest = codeDigest; self.expiresAt = expiresAt
    }
}

package struct HouseholdInviteRevoked: Sendable, Equatable {
    package var householdId: HouseholdID
    package var userId: UserID
    package var inviteId: String
    package init(householdId: HouseholdID, userId: UserID, inviteId: String) {
        self.householdId = householdId; self.userId = userId; self.inviteId = inviteId
    }
}

/// `userId` joined with the invite `inviteId`, which is used up.
package struct HouseholdJoined: Sendable, Equatable {
    package var householdId: HouseholdID
    package var userId: UserID
    package var inviteId: String
    package init(householdId: HouseholdID, userId: UserID, inviteId: String) {
        self.householdId = householdId; self.userId = userId; self.inviteId = inviteId
    }
}

/// `userId` is no longer a member: they left, the owner removed them (`removedBy`), or their
/// account was deleted. `dissolved` says nobody is left: the household and its list and cart go.
package struct HouseholdLeft: Sendable, Equatable {
    package var householdId: HouseholdID
    package var userId: UserID
    package var removedBy: UserID?
    package var dissolved: Bool
    package init(householdId: HouseholdID, userId: UserID, removedBy: UserID?, dissolved: Bool) {
        self.householdId = householdId; self.userId = userId; self.removedBy = removedBy; self.dissolved = dissolved
    }
}

/// `userId`, the owner until now, made `newOwner` the owner.
package struct HouseholdHandedOver: Sendable, Equatable {
    package var householdId: HouseholdID
    package var userId: UserID
    package var newOwner: UserID
    package init(householdId: HouseholdID, userId: UserID, newOwner: UserID) {
        self.householdId = householdId; self.userId = userId; self.newOwner = newOwner
    }
}
