/// The rules of households: who may join, invite, remove and hand over, and how a member's grocery
/// commands reach the shared list.
extension Decider {
    package static let maxHouseholdMembers = 20
    package static let maxOpenInvites = 10
    /// Used and revoked invites are remembered until they expire, so a second use is told why;
    /// this bounds how many a household keeps (an owner inviting and revoking in a loop).
    package static let maxInvitesKept = 50
    /// An invite is good for a day after it is made (ms).
    package static let inviteLifetime: Int64 = 24 * 3600 * 1000

    /// The ids of what a command creates are derived from its id, as `experienceId` is: a retry
    /// names the same household or invite, and the adapter can answer with it.
    package static func householdId(_ commandId: CommandID) -> HouseholdID {
        "h-" + StableHash.hex(StableHash.of(Array("household\u{0}".utf8) + Array(commandId.utf8)))
    }

    package static func inviteId(_ commandId: CommandID) -> String {
        "i-" + StableHash.hex(StableHash.of(Array("invite\u{0}".utf8) + Array(commandId.utf8)))
    }

    static func householdEvents(for envelope: CommandEnvelope, state: PantryState, at: Int64) throws(Rejection) -> [Event] {
        switch envelope.command {
        case .createHousehold(let c):
            let userId = try existingUser(c.userId, state)
            guard state.householdOf[userId] == nil else {
                throw Rejection(.alreadyInHousehold, "you are in a household already; leave it first")
            }
            let householdId = householdId(envelope.commandId)
            guard state.households[householdId] == nil else {
                throw Rejection(.invalidCommandId, "this command id names a household already; send another")
            }
            return [.householdCreated(HouseholdCreated(householdId: householdId, userId: userId))]

        case .inviteToHousehold(let c):
            let (householdId, household) = try ownedHousehold(c.userId, state)
            let codeDigest = try Validate.codeDigest(c.codeDigest)
            guard state.inviteCodes[codeDigest] == nil else {
                throw Rejection(.invalidField, "this invite code is in use; make another")
            }
            guard household.openInvites(at: at) < maxOpenInvites else {
                throw Rejection(.limitReached, "at most \(maxOpenInvites) open invites; revoke one first")
            }
            guard household.invites.values.count(where: { $0.expiresAt > at }) < maxInvitesKept else {
                throw Rejection(.limitReached, "at most \(maxInvitesKept) invites a day")
            }
            let inviteId = inviteId(envelope.commandId)
            guard household.invites[inviteId] == nil else {
                throw Rejection(.invalidCommandId, "this command id names an invite already; send another")
            }
            return [.householdInviteCreated(HouseholdInviteCreated(householdId: householdId, userId: c.userId, inviteId: inviteId,
                                                                   codeDigest: codeDigest, expiresAt: at + inviteLifetime))]

        case .revokeHouseholdInvite(let c):
            let (householdId, household) = try ownedHousehold(c.userId, state)
            guard let invite = household.invites[c.inviteId] else { throw Rejection(.noSuchInvite, "there is no invite \(c.inviteId)") }
            try usable(invite, at: at)
            return [.householdInviteRevoked(HouseholdInviteRevoked(householdId: householdId, userId: c.userId, inviteId: c.inviteId))]

        case .joinHousehold(let c):
            let userId = try existingUser(c.userId, state)
            let codeDigest = try Validate.codeDigest(c.codeDigest)
            guard let householdId = state.inviteCodes[codeDigest], let household = state.households[householdId],
                  let (inviteId, invite) = household.invites.first(where: { $0.value.codeDigest == codeDigest }) else {
                throw Rejection(.noSuchInvite, "this invite code is not known; ask for a new one")
            }
            try usable(invite, at: at)
            guard state.householdOf[userId] == nil else {
                throw Rejection(.alreadyInHousehold, "you are in a household already; leave it first")
            }
            guard household.members.count < maxHouseholdMembers else {
                throw Rejection(.householdFull, "a household has at most \(maxHouseholdMembers) members")
            }
            return [.householdJoined(HouseholdJoined(householdId: householdId, userId: userId, inviteId: inviteId))]

        case .leaveHousehold(let c):
            let userId = try existingUser(c.userId, state)
            guard let (householdId, household) = state.household(of: userId) else {
                throw Rejection(.notInHousehold, "you are not in a household")
            }
            guard household.owner != userId || household.members.count == 1 else {
                throw Rejection(.ownerMustHandOver, "hand the household over to another member before leaving it")
            }
            return [.householdLeft(HouseholdLeft(householdId: householdId, userId: userId, removedBy: nil,
                                                 dissolved: household.members.count == 1))]

        case .removeHouseholdMember(let c):
            let (householdId, household) = try ownedHousehold(c.userId, state)
            let memberId = try otherMember(c.memberId, of: household, not: c.userId)
            return [.householdLeft(HouseholdLeft(householdId: householdId, userId: memberId, removedBy: c.userId, dissolved: false))]

        case .handOverHousehold(let c):
            let (householdId, household) = try ownedHousehold(c.userId, state)
            guard c.memberId != c.userId else { throw Rejection(.unchanged, "you own the household already") }
            let memberId = try otherMember(c.memberId, of: household, not: c.userId)
            return [.householdHandedOver(HouseholdHandedOver(householdId: householdId, userId: c.userId, newOwner: memberId))]

        default:
            throw Rejection(.unknownCommand, "\(envelope.command.typeName) is not a household command")
        }
    }

    /// What a deletion does to the person's household before `UserDeleted`: an owner hands it to
    /// the member who joined first after them, and the last member's leaving dissolves it.
    static func leavingOnDeletion(_ userId: UserID, _ state: PantryState) -> [Event] {
        guard let (householdId, household) = state.household(of: userId) else { return [] }
        var events: [Event] = []
        if household.owner == userId, let next = household.members.first(where: { $0 != userId }) {
            events.append(.householdHandedOver(HouseholdHandedOver(householdId: householdId, userId: userId, newOwner: next)))
        }
        events.append(.householdLeft(HouseholdLeft(householdId: householdId, userId: userId, removedBy: nil,
                                                   dissolved: household.members.count == 1)))
        return events
    }

    /// A member's add to the shared list: merged into the item of the same key, whoever added it.
    static func sharedGroceryAdd(_ add: GroceryAdded, in shared: (id: HouseholdID, household: Household), commandId: CommandID,
                                 _ state: PantryState) throws(Rejection) -> Event {
        var add = add
        add.household = shared.id
        if let itemId = shared.household.itemIds[state.nameKey.groceryItem(add.item)] {
            add.itemId = itemId
            add.merged = true
            return .groceryAdded(add)
        }
        guard shared.household.items.count < maxGroceryItems else {
            throw Rejection(.limitReached, "at most \(maxGroceryItems) items on the household's grocery list; remove one first")
        }
        let itemId = "g-" + StableHash.hex(StableHash.of(Array("grocery\u{0}".utf8) + Array(commandId.utf8)))
        guard shared.household.items[itemId] == nil else {
            throw Rejection(.invalidCommandId, "this command id names an item already; send another")
        }
        add.itemId = itemId
        return .groceryAdded(add)
    }

    /// The shared list's item for `ingredient`: its key, id and state.
    static func sharedItem(_ ingredient: String, in shared: (id: HouseholdID, household: Household),
                           _ state: PantryState) throws(Rejection) -> (key: String, itemId: String, item: Household.SharedGroceryItem) {
        let key = IngredientName.key(ingredient)
        guard let itemId = shared.household.itemIds[state.nameKey.groceryItem(key)], let item = shared.household.items[itemId] else {
            throw Rejection(.noSuchItem, "there is no \(key) on the household's grocery list")
        }
        return (key, itemId, item)
    }

    private static func ownedHousehold(_ userId: UserID, _ state: PantryState) throws(Rejection) -> (HouseholdID, Household) {
        _ = try existingUser(userId, state)
        guard let (householdId, household) = state.household(of: userId) else {
            throw Rejection(.notInHousehold, "you are not in a household")
        }
        guard household.owner == userId else {
            throw Rejection(.notHouseholdOwner, "only the household's owner may do this")
        }
        return (householdId, household)
    }

    private static func otherMember(_ memberId: UserID, of household: Household, not ownerId: UserID) throws(Rejection) -> UserID {
        guard memberId != ownerId else {
            throw Rejection(.invalidField, "name another member (to leave, leave the household)")
        }
        guard household.members.contains(memberId) else {
            throw Rejection(.notHouseholdMember, "\(memberId) is not a member of your household")
        }
        return memberId
    }

    private static func usable(_ invite: Household.Invite, at: Int64) throws(Rejection) {
        switch invite.status {
        case .used: throw Rejection(.inviteUsed, "this invite has been used; ask for a new one")
        case .revoked: throw Rejection(.inviteRevoked, "this invite was revoked; ask for a new one")
        case .open: guard invite.expiresAt > at else { throw Rejection(.inviteExpired, "this invite has expired; ask for a new one") }
        }
    }
}

extension Validate {
    /// A SHA-256 in lower-case hex: what the adapter sends for an invite's code.
    package static func codeDigest(_ raw: String) throws(Rejection) -> String {
        guard raw.utf8.count == 64, raw.utf8.allSatisfy({ (48...57).contains($0) || (97...102).contains($0) }) else {
            throw Rejection(.invalidField, "codeDigest must be a SHA-256 in 64 lower-case hex digits")
        }
        return raw
    }
}
