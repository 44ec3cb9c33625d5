import Foundation
import GRDB
import PantryCore
import PantryDomain
import Testing
@testable import PantryProjections

/// A household's shared list and cart as the workers keep them, written through the real core.
@Suite struct HouseholdProjectionTests {
    static let code = String(repeating: "c", count: 64)

    /// Alice (owner) and Bob share a household; Carol keeps her own list.
    static func household() throws -> (History, HouseholdID) {
        let h = try History()
        h.register("alice", "alice")
        h.register("bob", "bobby")
        h.register("carol", "carol")
        h.run(.createHousehold(CreateHousehold(userId: "alice")))
        let householdId = Decider.householdId(h.lastCommandId)
        h.run(.inviteToHousehold(InviteToHousehold(userId: "alice", codeDigest: code)))
        h.run(.joinHousehold(JoinHousehold(userId: "bob", codeDigest: code)))
        return (h, householdId)
    }

    @Test func membersReadOneListThatSaysWhoAddedAndWhoTicked() throws {
        let (h, householdId) = try Self.household()
        h.run(.addGrocery(AddGrocery(userId: "alice", ingredient: "Eggs", amount: 6)))
        h.run(.addGrocery(AddGrocery(userId: "bob", ingredient: "egg", amount: 4)))
        h.run(.addGrocery(AddGrocery(userId: "bob", ingredient: "Flour", amount: 500, unit: "g")))
        h.run(.checkGrocery(CheckGrocery(userId: "alice", ingredient: "flour", checked: true)))
        h.run(.addGrocery(AddGrocery(userId: "carol", ingredient: "Milk")))
        let store = try h.caughtUp(GroceriesProjection())
        let list = try store.read { try GroceriesProjection.list(ListOwner.household(householdId), in: $0) }
        #expect(list.map(\.item) == ["egg", "flour"])
        #expect(list[0].ingredient == "Eggs" && list[0].addedBy == ["alice", "bob"] && list[0].amounts == [GroceryAmount(amount: 10, unit: nil)])
        #expect(list[1].checked && list[1].checkedBy == "alice" && list[1].addedBy == ["bob"])
        #expect(try store.read { try GroceriesProjection.list("carol", in: $0) }.map(\.item) == ["milk"])
        // A member's own list is not where their adds went.
        #expect(try store.read { try GroceriesProjection.list("alice", in: $0) }.isEmpty)
    }

    @Test func aDeletedMembersWordsLeaveAndTheOthersListStaysWholeAlsoOnReplay() throws {
        let (h, householdId) = try Self.household()
        h.run(.addGrocery(AddGrocery(userId: "alice", ingredient: "Eggs", amount: 6)))
        h.run(.addGrocery(AddGrocery(userId: "bob", ingredient: "EGGS")))
        h.run(.addGrocery(AddGrocery(userId: "bob", ingredient: "insulin pens")))
        h.run(.checkGrocery(CheckGrocery(userId: "bob", ingredient: "eggs", checked: true)))
        h.run(.addGrocery(AddGrocery(userId: "alice", ingredient: "Basil")))
        h.run(.adjustCart(AdjustCart(userId: "bob", recipeId: "r1", delta: 2, recipe: History.facts("Shakshuka"))))
        let live = try h.caughtUp(GroceriesProjection())
        let liveCarts = try h.caughtUp(CartsProjection())
        h.run(.deleteUser(DeleteUser(userId: "bob")))
        try live.catchUp(from: h.log, batchSize: 3)
        try liveCarts.catchUp(from: h.log, batchSize: 3)

        let list = try live.read { try GroceriesProjection.list(ListOwner.household(householdId), in: $0) }
        #expect(list.map(\.item).sorted() == ["basil", "egg"])
        let eggs = try #require(list.first { $0.item == "egg" })
        #expect(eggs.addedBy == ["alice"] && eggs.checked && eggs.checkedBy == nil && eggs.ingredient == "Eggs")
        let words = try live.read { db in
            try Row.fetchAll(db, sql: "SELECT * FROM grocery_items UNION ALL SELECT user_id, item, ingredient, 0, 0, 0, author FROM grocery_authors")
                .flatMap { $0.databaseValues.compactMap { String.fromDatabaseValue($0) } }
        }
        #expect(!words.contains { $0.contains("insulin") || $0.contains("EGGS") || $0 == "bob" })
        // The shared cart is the household's, not the deleted member's: it stays.
        #expect(try liveCarts.read { try CartsProjection.cart(ListOwner.household(householdId), in: $0) }.lines.map(\.count) == [2])

        // Replayed after the key is gone, Bob's names read as empty: the same list, the same checksum.
        let replayed = try h.store(GroceriesProjection(), "-replay")
        try replayed.catchUp(from: h.log, batchSize: 2)
        #expect(try replayed.read { try GroceriesProjection().checksum($0) } == live.read { try GroceriesProjection().checksum($0) })
    }

    @Test func aDissolvedHouseholdsListAndCartGo() throws {
        let (h, householdId) = try Self.household()
        h.run(.addGrocery(AddGrocery(userId: "bob", ingredient: "rice")))
        h.run(.adjustCart(AdjustCart(userId: "alice", recipeId: "r1", delta: 1, recipe: History.facts("Risotto"))))
        h.run(.removeHouseholdMember(RemoveHouseholdMember(userId: "alice", memberId: "bob")))
        h.run(.leaveHousehold(LeaveHousehold(userId: "alice")))
        let groceries = try h.caughtUp(GroceriesProjection())
        let carts = try h.caughtUp(CartsProjection())
        #expect(try groceries.read { try GroceriesProjection.list(ListOwner.household(householdId), in: $0) }.isEmpty)
        #expect(try carts.read { try CartsProjection.cart(ListOwner.household(householdId), in: $0) }.lines.isEmpty)
    }
}
