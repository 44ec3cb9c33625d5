import PantryDomain
import Synchronization

/// Who is in which household, as the API needs it: to read a member's shared list and cart, to
/// send a household's changes to every member's live stream, and to show the household. Kept from
/// the feed, and in the API's snapshot (ids and expiries only: nothing anyone wrote).
package final class HouseholdDirectory: FeedReadModel {
    struct Invite: Sendable, Equatable {
        var inviteId: String
        var expiresAt: Int64
    }

    struct Entry: Sendable, Equatable {
        var owner: UserID
        /// In the order they joined.
        var members: [UserID]
        /// Open invites by id (used and revoked ones are gone).
        var invites: [String: Int64] = [:]
    }

    private struct State {
        var households: [HouseholdID: Entry] = [:]
        var householdOf: [UserID: HouseholdID] = [:]
    }

    private let state = Mutex(State())

    package static let householdTypes: Set<EventType> = [
        .householdCreated, .householdInviteCreated, .householdInviteRevoked, .householdJoined, .householdLeft, .householdHandedOver,
    ]

    package var eventTypes: Set<EventType> { Self.householdTypes }

    package func apply(_ events: [(event: Event, position: Int64)], through position: Int64) {
        state.withLock { state in
            for (event, _) in events {
                switch event {
                case .householdCreated(let e):
                    state.households[e.householdId] = Entry(owner: e.userId, members: [e.userId])
                    state.householdOf[e.userId] = e.householdId
                case .householdInviteCreated(let e):
                    state.households[e.householdId]?.invites[e.inviteId] = e.expiresAt
                case .householdInviteRevoked(let e):
                    state.households[e.householdId]?.invites[e.inviteId] = nil
                case .householdJoined(let e):
                    guard state.households[e.householdId] != nil else { continue }
                    state.households[e.householdId]?.invites[e.inviteId] = nil
                    if state.households[e.householdId]?.members.contains(e.userId) == false {
                        state.households[e.householdId]?.members.append(e.userId)
                    }
                    state.householdOf[e.userId] = e.householdId
                case .householdLeft(let e):
                    state.households[e.householdId]?.members.removeAll { $0 == e.userId }
                    if state.householdOf[e.userId] == e.householdId { state.householdOf[e.userId] = nil }
                    if e.dissolved { state.households[e.householdId] = nil }
                case .householdHandedOver(let e):
                    state.households[e.householdId]?.owner = e.newOwner
                default:
                    continue
                }
            }
        }
    }

    /// Every household, for the API's snapshot: take it on the feed's thread (between batches).
    var all: [HouseholdID: Entry] { state.withLock { $0.households } }

    /// The households a snapshot kept; before the feed applies anything.
    func restore(_ households: [HouseholdID: Entry]) {
        state.withLock { state in
            state.households = households
            state.householdOf = [:]
            for (id, entry) in households {
                for member in entry.members { state.householdOf[member] = id }
            }
        }
    }

    /// The household `userId` is a member of, if any.
    func household(of userId: UserID) -> (id: HouseholdID, entry: Entry)? {
        state.withLock { state in
            guard let id = state.householdOf[userId], let entry = state.households[id] else { return nil }
            return (id, entry)
        }
    }

    func members(of householdId: HouseholdID) -> [UserID] {
        state.withLock { $0.households[householdId]?.members ?? [] }
    }

    /// Whose list or cart a worker keeps for `userId`: their household's while they are in one.
    func listOwner(of userId: UserID) -> String {
        guard let (id, _) = household(of: userId) else { return userId }
        return ListOwner.household(id)
    }
}
