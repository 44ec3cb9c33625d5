/// What the rules know of a household: who is in it, its invites, and its shared grocery list as
/// ids and keyed digests. The items' names stay sealed in the log under their authors' keys, so the
/// state (and the core's snapshot of it) holds no text anyone wrote.
package struct Household: Sendable, Equatable {
    package var owner: UserID
    /// In the order they joined; the owner among them.
    package var members: [UserID]
    /// By invite id: open ones, and used or revoked ones until they expire (so that a second use
    /// is told "used", not "unknown").
    package var invites: [String: Invite] = [:]
    /// The shared grocery list, by item id.
    package var items: [String: SharedGroceryItem] = [:]
    /// An item's key's keyed digest (`NameKey.groceryItem`) to the item's id: the same ingredient
    /// added again, by anyone, merges into one item.
    package var itemIds: [NameDigest: String] = [:]
    /// The shared cart: recipe to count, as `PantryState.carts` holds a person's. Cooking is
    /// not shared: it is the cook's own (`PantryState.cooking`).
    package var cart: [RecipeID: Int] = [:]

    package init(owner: UserID) { self.owner = owner; members = [owner] }

    package struct Invite: Sendable, Equatable {
        package var codeDigest: String
        package var expiresAt: Int64
        package var status: Status
        package enum Status: Int, Sendable { case open = 0, used = 1, revoked = 2 }
        package init(codeDigest: String, expiresAt: Int64, status: Status) {
            self.codeDigest = codeDigest; self.expiresAt = expiresAt; self.status = status
        }
    }

    /// `authors` are the members who added it, in order: the item is theirs to erase, and it
    /// leaves the list when the last of them is deleted. `digest` is nil while every author who
    /// named it has been erased from the log (their names cannot be opened any more).
    package struct SharedGroceryItem: Sendable, Equatable {
        package var checked: Bool
        package var authors: [UserID]
        package var digest: NameDigest?
        package init(checked: Bool, authors: [UserID], digest: NameDigest?) {
            self.checked = checked; self.authors = authors; self.digest = digest
        }
    }

    package func openInvites(at: Int64) -> Int { invites.values.count { $0.status == .open && $0.expiresAt > at } }

    /// Forgets the invites that expired before `at`, with their codes in `codes`.
    mutating func forgetExpiredInvites(at: Int64, codes: inout [String: HouseholdID]) {
        for (id, invite) in invites where invite.expiresAt <= at {
            invites[id] = nil
            codes[invite.codeDigest] = nil
        }
    }

    /// Removes the item; returns its authors.
    @discardableResult
    mutating func removeItem(_ itemId: String) -> [UserID] {
        guard let item = items.removeValue(forKey: itemId) else { return [] }
        if let digest = item.digest, itemIds[digest] == itemId { itemIds[digest] = nil }
        return item.authors
    }
}

extension NameKey {
    /// What a household's list is indexed by for a grocery item's key ("tomato").
    package func groceryItem(_ key: String) -> NameDigest {
        digest(Array("grocery\u{0}".utf8) + Array(key.utf8))
    }
}

extension PantryState {
    /// The household whose list and cart `userId` shares, if any.
    package func household(of userId: UserID) -> (id: HouseholdID, household: Household)? {
        guard let id = householdOf[userId], let household = households[id] else { return nil }
        return (id, household)
    }

    mutating func applyHousehold(_ event: Event, at: Int64) {
        switch event {
        case .householdCreated(let e):
            households[e.householdId] = Household(owner: e.userId)
            householdOf[e.userId] = e.householdId
        case .householdInviteCreated(let e):
            households[e.householdId]?.forgetExpiredInvites(at: at, codes: &inviteCodes)
            households[e.householdId]?.invites[e.inviteId] = Household.Invite(codeDigest: e.codeDigest, expiresAt: e.expiresAt, status: .open)
            inviteCodes[e.codeDigest] = e.householdId
        case .householdInviteRevoked(let e):
            households[e.householdId]?.invites[e.inviteId]?.status = .revoked
        case .householdJoined(let e):
            guard households[e.householdId] != nil else { return }
            households[e.householdId]?.invites[e.inviteId]?.status = .used
            if households[e.householdId]?.members.contains(e.userId) == false { households[e.householdId]?.members.append(e.userId) }
            householdOf[e.userId] = e.householdId
        case .householdLeft(let e):
            households[e.householdId]?.members.removeAll { $0 == e.userId }
            if householdOf[e.userId] == e.householdId { householdOf[e.userId] = nil }
            if e.dissolved, let gone = households.removeValue(forKey: e.householdId) {
                for invite in gone.invites.values where inviteCodes[invite.codeDigest] == e.householdId { inviteCodes[invite.codeDigest] = nil }
                for member in gone.members where householdOf[member] == e.householdId { householdOf[member] = nil }
                for author in Set(gone.items.values.flatMap(\.authors)) {
                    authoredIn[author]?[e.householdId] = nil
                    if authoredIn[author]?.isEmpty == true { authoredIn[author] = nil }
                }
            }
        case .householdHandedOver(let e):
            households[e.householdId]?.owner = e.newOwner
        default:
            break
        }
    }

    /// An add to a household's list: the item by its id, which the event carries in the clear. An
    /// author erased from the log adds with an empty `item`, so no digest is learnt from it.
    mutating func addSharedItem(_ e: GroceryAdded, _ householdId: HouseholdID, _ itemId: String) {
        guard households[householdId] != nil else { return }
        let digest = e.item == EventCoding.erased ? nil : nameKey.groceryItem(e.item)
        var item = households[householdId]!.items[itemId] ?? Household.SharedGroceryItem(checked: false, authors: [], digest: nil)
        // Adding an item again means more is needed, so it is unchecked.
        item.checked = false
        if !item.authors.contains(e.userId) {
            item.authors.append(e.userId)
            authoredIn[e.userId, default: [:]][householdId, default: 0] += 1
        }
        if item.digest == nil, let digest {
            item.digest = digest
            households[householdId]!.itemIds[digest] = itemId
        }
        households[householdId]!.items[itemId] = item
    }

    /// Removes a household's item, and its authors' counts of it.
    mutating func removeSharedItem(_ itemId: String, from householdId: HouseholdID) {
        for author in households[householdId]?.removeItem(itemId) ?? [] { uncount(author, in: householdId) }
    }

    private mutating func uncount(_ author: UserID, in householdId: HouseholdID) {
        guard let count = authoredIn[author]?[householdId] else { return }
        authoredIn[author]![householdId] = count > 1 ? count - 1 : nil
        if authoredIn[author]!.isEmpty { authoredIn[author] = nil }
    }

    /// A deleted person's words leave every household list they added to: an item only they added
    /// goes, one that others added too stays as theirs.
    mutating func eraseAuthorship(of userId: UserID) {
        for householdId in (authoredIn.removeValue(forKey: userId) ?? [:]).keys {
            guard var household = households[householdId] else { continue }
            for (itemId, item) in household.items where item.authors.contains(userId) {
                let others = item.authors.filter { $0 != userId }
                if others.isEmpty { household.removeItem(itemId) } else { household.items[itemId]?.authors = others }
                // The others' counts stay: each still added the items they keep.
            }
            households[householdId] = household
        }
    }

    /// The households as a snapshot kept them, with the indexes built from them.
    mutating func restoreHouseholds(_ restored: [HouseholdID: Household]) {
        households = restored
        householdOf = [:]; inviteCodes = [:]; authoredIn = [:]
        for (id, household) in restored {
            for member in household.members { householdOf[member] = id }
            for invite in household.invites.values { inviteCodes[invite.codeDigest] = id }
            for item in household.items.values {
                for author in item.authors { authoredIn[author, default: [:]][id, default: 0] += 1 }
            }
        }
    }
}
