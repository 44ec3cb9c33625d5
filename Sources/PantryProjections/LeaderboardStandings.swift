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

    /// One user's place, as a snapshot keeps it (`standings`, `init(restoring:)`).
    package struct Standing: Sendable, Equatable {
        package var userId: UserID
        package var username: String
        package var points: Int
        package var reachedAt: Int64

        package init(userId: UserID, username: String, points: Int, reachedAt: Int64) {
            self.userId = userId; self.username = username; self.points = points; self.reachedAt = reachedAt
        }
    }

    /// Every user's place, best first.
    package var standings: [Standing] {
        order.elements(from: 0, limit: order.count).map { place in
            Standing(userId: place.userId, username: usernames[place.userId] ?? place.userId, points: place.points,
                     reachedAt: place.reachedAt)
        }
    }

    /// The standings `standings` listed (in any order): what a snapshot restores, without a fold.
    package init(restoring standings: [Standing]) {
        var sorted: [Place] = []
        sorted.reserveCapacity(standings.count)
        for standing in standings {
            let place = Place(points: standing.points, reachedAt: standing.reachedAt, userId: standing.userId)
            places[standing.userId] = place
            usernames[standing.userId] = standing.username
            sorted.append(place)
        }
        sorted.sort()
        order = RankedBlocks(sorted: sorted)
    }

    package var count: Int { places.count }

    package static let eventTypes: Set<EventType> = [.userRegistered, .pointEarned, .userDeleted]

    /// Folds the event recorded at `position`; events of other types change nothing.
    package mutating func apply(_ event: Event, at position: Int64) {
        switch event {
        case .userRegistered(let e):
            usernames[e.userId] = e.account?.username ?? LeaderboardProjection.erasedName
            if places[e.userId] == nil { place(Place(points: 0, reachedAt: position, userId: e.userId)) }
        case .pointEarned(let e):
            award(1, to: e.userId, reachedAt: position)
        case .userDeleted(let e):
            if let current = places.removeValue(forKey: e.userId) { order.remove(current) }
            usernames[e.userId] = nil
        default:
            break
        }
    }

    /// Folds `events` (in log order, each with its position) as `apply(_:at:)` one by one would, but
    /// moves each user in the order once per batch rather than once per point: a replay or a busy
    /// feed brings the same users again and again, and a move is a removal and an insertion in the
    /// sorted blocks. A user's points wait until the batch ends, or until that user's registration
    /// or deletion, whichever comes first, so the order of their own events is kept.
    package mutating func apply(_ events: [(event: Event, position: Int64)]) {
        var pending: [UserID: (count: Int, last: Int64)] = [:]
        for (event, position) in events {
            switch event {
            case .pointEarned(let e):
                pending[e.userId, default: (0, position)].count += 1
                pending[e.userId]!.last = position
            case .userRegistered(let e):
                if let points = pending.removeValue(forKey: e.userId) { award(points.count, to: e.userId, reachedAt: points.last) }
                apply(event, at: position)
            case .userDeleted(let e):
                pending[e.userId] = nil
                apply(event, at: position)
            default:
                break
            }
        }
        for (userId, points) in pending { award(points.count, to: userId, reachedAt: points.last) }
    }

    private mutating func award(_ points: Int, to userId: UserID, reachedAt position: Int64) {
        // Points for a user the leaderboard never saw count under the user id, as in the file.
        let current = places[userId]
        if let current { order.remove(current) } else { usernames[userId] = userId }
        place(Place(points: (current?.points ?? 0) + points, reachedAt: position, userId: userId))
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
