import PantryDomain

/// The points leaderboard in memory, for a process that keeps it from the event feed itself (the
/// API answers its reads without a hop to the leaderboard worker). The rules and the order are
/// `LeaderboardProjection`'s, whose file stays the durable copy that replay verifies; a test holds
/// the two to the same answers over random histories.
package struct LeaderboardStandings: Sendable {
    /// A user's place in the order: more points first, then whoever reached that score first.
    /// Positions are unique, so no two users tie.
    struct Place: Comparable, Sendable {
        var points: Int
        var reachedAt: Int64
        var userId: UserID

        static func < (a: Place, b: Place) -> Bool {
            a.points != b.points ? a.points > b.points : a.reachedAt < b.reachedAt
        }

        static func == (a: Place, b: Place) -> Bool { a.points == b.points && a.reachedAt == b.reachedAt }
    }

    private var places: [UserID: Place] = [:]
    private var usernames: [UserID: String] = [:]
    private var order = RankedBlocks<Place>()

    package init() {}

    package var count: Int { places.count }

    package static let eventTypes: Set<EventType> = [.userRegistered, .pointEarned, .userDeleted]

    /// Folds the event recorded at `position`; events of other types change nothing.
    package mutating func apply(_ event: Event, at position: Int64) {
        switch event {
        case .userRegistered(let e):
            usernames[e.userId] = e.account?.username ?? LeaderboardProjection.erasedName
            if places[e.userId] == nil { place(Place(points: 0, reachedAt: position, userId: e.userId)) }
        case .pointEarned(let e):
            // Points for a user the leaderboard never saw count under the user id, as in the file.
            let current = places[e.userId]
            if let current { order.remove(current) } else { usernames[e.userId] = e.userId }
            place(Place(points: (current?.points ?? 0) + 1, reachedAt: position, userId: e.userId))
        case .userDeleted(let e):
            if let current = places.removeValue(forKey: e.userId) { order.remove(current) }
            usernames[e.userId] = nil
        default:
            break
        }
    }

    private mutating func place(_ place: Place) {
        places[place.userId] = place
        order.insert(place)
    }

    /// The first `n` users, ranks 1...n.
    package func top(_ n: Int) -> [LeaderboardEntry] { page(offset: 0, limit: n) }

    /// The user's points and rank; nil for a user the leaderboard has never seen.
    package func entry(_ userId: UserID) -> LeaderboardEntry? {
        guard let place = places[userId], let rank = order.rank(of: place) else { return nil }
        return entry(place, rank: rank + 1)
    }

    /// The users ranked `rank - radius ... rank + radius` around `userId` (fewer at the edges),
    /// the user included; empty for an unknown user.
    package func around(_ userId: UserID, radius: Int) -> [LeaderboardEntry] {
        guard let me = entry(userId) else { return [] }
        let first = max(1, me.rank - max(0, radius))
        return page(offset: first - 1, limit: me.rank + max(0, radius) - first + 1)
    }

    private func page(offset: Int, limit: Int) -> [LeaderboardEntry] {
        guard limit > 0 else { return [] }
        return order.elements(from: offset, limit: limit).enumerated().map { index, place in
            entry(place, rank: offset + index + 1)
        }
    }

    private func entry(_ place: Place, rank: Int) -> LeaderboardEntry {
        LeaderboardEntry(rank: rank, userId: place.userId, username: usernames[place.userId] ?? place.userId, points: place.points)
    }
}
