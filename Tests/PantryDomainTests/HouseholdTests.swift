import Foundation
import PantryDomain
import Testing

/// Households: one per person, invites single-use for a day, the owner's rights, the shared list
/// and cart, and what a deletion leaves of a member's items.
@Suite struct HouseholdTests {
    static let codeA = String(repeating: "a", count: 64), codeB = String(repeating: "b", count: 64)

    /// Alice (u1) owns a household that Bob (u2) joined; Carol (u3) is outside it.
    static func household() throws -> (World, HouseholdID) {
        var world = try World.withAlice()
        try world.accept(register("u2", "bob"))
        try world.accept(register("u3", "carol"))
        let created = try world.accept(.createHousehold(CreateHousehold(userId: "u1")))
        guard case .householdCreated(let e) = created else { throw Failure() }
        try world.accept(.inviteToHousehold(InviteToHousehold(userId: "u1", codeDigest: codeA)))
        try world.accept(.joinHousehold(JoinHousehold(userId: "u2", codeDigest: codeA)))
        return (world, e.householdId)
    }

    struct Failure: Error {}

    @Test func anInviteIsUsedOnceAndAPersonIsInOneHouseholdAtATime() throws {
        var (world, householdId) = try Self.household()
        #expect(world.state.households[householdId]?.members == ["u1", "u2"])
        #expect(world.reject(.joinHousehold(JoinHousehold(userId: "u3", codeDigest: Self.codeA))) == .inviteUsed)
        #expect(world.reject(.joinHousehold(JoinHousehold(userId: "u3", codeDigest: Self.codeB))) == .noSuchInvite)
        #expect(world.reject(.createHousehold(CreateHousehold(userId: "u2"))) == .alreadyInHousehold)
        #expect(world.reject(.joinHousehold(JoinHousehold(userId: "u3", codeDigest: "not hex"))) == .invalidField)
    }

    @Test func anInviteExpiresAfterADayAndCanBeRevoked() throws {
        var (world, _) = try Self.household()
        let invite = try world.accept(.inviteToHousehold(InviteToHousehold(userId: "u1", codeDigest: Self.codeB)))
        guard case .householdInviteCreated(let created) = invite else { throw Failure() }
        #expect(created.expiresAt == world.now + Decider.inviteLifetime)
        world.now += Decider.inviteLifetime
        #expect(world.reject(.joinHousehold(JoinHousehold(userId: "u3", codeDigest: Self.codeB))) == .inviteExpired)
        let codeC = String(repeating: "c", count: 64)
        let another = try world.accept(.inviteToHousehold(InviteToHousehold(userId: "u1", codeDigest: codeC)))
        guard case .householdInviteCreated(let second) = another else { throw Failure() }
        // The expired one was forgotten with the new invite: its code is unknown now.
        #expect(world.reject(.joinHousehold(JoinHousehold(userId: "u3", codeDigest: Self.codeB))) == .noSuchInvite)
        #expect(world.reject(.revokeHouseholdInvite(RevokeHouseholdInvite(userId: "u2", inviteId: second.inviteId))) == .notHouseholdOwner)
        try world.accept(.revokeHouseholdInvite(RevokeHouseholdInvite(userId: "u1", inviteId: second.inviteId)))
        #expect(world.reject(.joinHousehold(JoinHousehold(userId: "u3", codeDigest: codeC))) == .inviteRevoked)
    }

    @Test func atMostTenOpenInvitesAndTwentyMembers() throws {
        var (world, householdId) = try Self.household()
        for n in 0..<9 {
            try world.accept(.inviteToHousehold(InviteToHousehold(userId: "u1", codeDigest: Self.digest(n))))
        }
        #expect(world.state.households[householdId]?.openInvites(at: world.now) == 9)
        try world.accept(.inviteToHousehold(InviteToHousehold(userId: "u1", codeDigest: Self.digest(9))))
        #expect(world.reject(.inviteToHousehold(InviteToHousehold(userId: "u1", codeDigest: Self.digest(10)))) == .limitReached)
        // Eighteen more join: twenty in all; the twenty-first is refused.
        for n in 0..<10 {
            try world.accept(register("m\(n)"))
            try world.accept(.joinHousehold(JoinHousehold(userId: "m\(n)", codeDigest: Self.digest(n))))
        }
        for n in 10..<18 {
            try world.accept(register("m\(n)"))
            try world.accept(.inviteToHousehold(InviteToHousehold(userId: "u1", codeDigest: Self.digest(n))))
            try world.accept(.joinHousehold(JoinHousehold(userId: "m\(n)", codeDigest: Self.digest(n))))
        }
        #expect(world.state.households[householdId]?.members.count == 20)
        try world.accept(.inviteToHousehold(InviteToHousehold(userId: "u1", codeDigest: Self.digest(99))))
        #expect(world.reject(.joinHousehold(JoinHousehold(userId: "u3", codeDigest: Self.digest(99)))) == .householdFull)
    }

    static func digest(_ n: Int) -> String { String(repeating: "0", count: 60) + String(format: "%04x", n) }

    @Test func theOwnerRemovesAndHandsOverAndLeavesLast() throws {
        var (world, householdId) = try Self.household()
        #expect(world.reject(.leaveHousehold(LeaveHousehold(userId: "u1"))) == .ownerMustHandOver)
        #expect(world.reject(.removeHouseholdMember(RemoveHouseholdMember(userId: "u2", memberId: "u1"))) == .notHouseholdOwner)
        #expect(world.reject(.handOverHousehold(HandOverHousehold(userId: "u1", memberId: "u3"))) == .notHouseholdMember)
        try world.accept(.handOverHousehold(HandOverHousehold(userId: "u1", memberId: "u2")))
        #expect(world.state.households[householdId]?.owner == "u2")
        try world.accept(.leaveHousehold(LeaveHousehold(userId: "u1")))
        #expect(world.state.householdOf["u1"] == nil)
        #expect(world.reject(.leaveHousehold(LeaveHousehold(userId: "u1"))) == .notInHousehold)
        let last = try world.accept(.leaveHousehold(LeaveHousehold(userId: "u2")))
        #expect(last == .householdLeft(HouseholdLeft(householdId: householdId, userId: "u2", removedBy: nil, dissolved: true)))
        #expect(world.state.households.isEmpty && world.state.householdOf.isEmpty && world.state.inviteCodes.isEmpty)
    }

    @Test func membersShareOneListThatMergesWhoeverAdds() throws {
        var (world, householdId) = try Self.household()
        try world.accept(addGrocery("u3", "Milk"))
        let first = try world.accept(addGrocery("u1", "Tomatoes", amount: 2))
        let second = try world.accept(addGrocery("u2", "tomato", amount: 1))
        #expect(first.groceryAdded?.household == householdId && first.groceryAdded?.merged == false)
        #expect(second.groceryAdded?.merged == true && second.groceryAdded?.itemId == first.groceryAdded?.itemId)
        let itemId = try #require(first.groceryAdded?.itemId)
        #expect(world.state.households[householdId]?.items[itemId]?.authors == ["u1", "u2"])
        let ticked = try world.accept(check("u2", "TOMATO"))
        #expect(ticked.groceryChecked?.itemId == itemId)
        #expect(world.reject(check("u1", "tomato")) == .unchanged)
        // Carol's own list is hers alone; a member's own list waits while they are in a household.
        #expect(world.reject(check("u3", "tomato")) == .noSuchItem)
        #expect(world.reject(check("u1", "milk")) == .noSuchItem)
        try world.accept(removeGrocery("u1", "tomatoes"))
        #expect(world.state.households[householdId]?.items.isEmpty == true)
        #expect(world.state.authoredIn.isEmpty)
    }

    @Test func aDeletedMembersItemsLeaveTheListAndTheOthersStay() throws {
        var (world, householdId) = try Self.household()
        let onlyBob = try world.accept(addGrocery("u2", "insulin pens")).groceryAdded?.itemId
        let both = try world.accept(addGrocery("u1", "eggs")).groceryAdded?.itemId
        try world.accept(addGrocery("u2", "egg"))
        let onlyAlice = try world.accept(addGrocery("u1", "flour")).groceryAdded?.itemId
        let deletion = try #require(try? world.run(.deleteUser(DeleteUser(userId: "u2"))).get())
        #expect(deletion.map(\.type) == [.householdLeft, .userDeleted])
        let items = try #require(world.state.households[householdId]?.items)
        #expect(items[try #require(onlyBob)] == nil)
        #expect(items[try #require(both)]?.authors == ["u1"])
        #expect(items[try #require(onlyAlice)] != nil)
        #expect(world.state.households[householdId]?.members == ["u1"])
    }

    @Test func theOwnersDeletionHandsTheHouseholdToTheNextMember() throws {
        var (world, householdId) = try Self.household()
        let deletion = try #require(try? world.run(.deleteUser(DeleteUser(userId: "u1"))).get())
        #expect(deletion.map(\.type) == [.householdHandedOver, .householdLeft, .userDeleted])
        #expect(world.state.households[householdId]?.owner == "u2")
    }

    @Test func theCartIsSharedButCookingIsEachMembersOwn() throws {
        var (world, householdId) = try Self.household()
        try world.accept(cart("u1", "r1", 1, title: "Soup"))
        #expect(world.state.households[householdId]?.cart == ["r1": 1])
        #expect(world.state.carts["u1"] == nil)
        let started = try world.accept(cook("u2", "r1", 20))
        #expect(started == .cookingStarted(CookingStarted(userId: "u2", recipeId: "r1", minutes: 20, title: "Soup", image: nil)))
        #expect(world.reject(use("u1", "r1", "salt")) == .notCooking, "another member's cooking earns nothing")
        let point = try world.accept(use("u2", "r1", "salt"))
        #expect(point.pointEarned?.userId == "u2")
    }

    @Test func replayedFromTheLogTheStateIsTheSame() throws {
        var (world, _) = try Self.household()
        try world.accept(addGrocery("u2", "eggs"))
        try world.accept(addGrocery("u1", "Egg"))
        try world.accept(check("u1", "eggs"))
        try world.accept(cart("u2", "r1", 2))
        _ = try world.run(.deleteUser(DeleteUser(userId: "u2"))).get()
        let folded = Decider.evolve(PantryState(), world.logged)
        #expect(folded == world.state)
        #expect(PantryState(restoring: world.state.holdings) == world.state)
    }

    @Test func anErasedAuthorsAddsFoldToTheSameList() throws {
        // What a fold reads once Bob's key is destroyed: his item names are empty.
        var (world, _) = try Self.household()
        try world.accept(addGrocery("u2", "insulin pens"))
        try world.accept(addGrocery("u2", "eggs"))
        try world.accept(addGrocery("u1", "egg"))
        try world.accept(check("u2", "egg"))
        _ = try world.run(.deleteUser(DeleteUser(userId: "u2"))).get()
        let erased = world.logged.map { logged -> (event: Event, at: Int64) in
            switch logged.event {
            case .groceryAdded(var e) where e.userId == "u2": e.item = EventCoding.erased; e.ingredient = EventCoding.erased; return (.groceryAdded(e), logged.at)
            case .groceryChecked(var e) where e.userId == "u2": e.item = EventCoding.erased; return (.groceryChecked(e), logged.at)
            default: return logged
            }
        }
        #expect(Decider.evolve(PantryState(), erased) == world.state)
    }
}
