import PantryDomain

/// The points leaderboard in memory, for a process that keeps it from the event feed itself (the
/// API answers its reads without a hop to the leaderboard worker). The rules and the order are
/// `LeaderboardProjection`'s (PantryProjections), whose file stays the durable copy that replay
/// verifies; a test holds the two to the same answers over random histories. Pure, in a target of
/// its own, so that the API links neither GRDB nor the projections.
package struct LeaderboardStandings: Sendable {
    /// A user's place in the order: more points first, then whoever reached that score first.
    /// Positions are unique, so no two places are equal; equal points still share a rank.
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

    /// The name of a place restored without one (`init(restoring:)`): its account's, which the
    /// caller reads when it is first shown (`name(_:_:)`). A username is never empty.
    package static let unresolvedName = ""

    /// Every user's place, best first.
    package var standings: [Standing] {
        order.elements(from: 0, limit: order.count).map { place in
            Standing(userId: place.userId, username: usernames[place.userId] ?? Self.unresolvedName, points: place.points,
                     reachedAt: place.reachedAt)
        }
    }

    /// The standings `standings` listed (best first is read fastest): what a snapshot restores,
    /// without a fold. A standing named `unresolvedName` keeps no name until `name(_:_:)` gives it.
    package init(restoring standings: [Standing]) {
        var sorted: [Place] = []
        sorted.reserveCapacity(standings.count)
        places.reserveCapacity(standings.count)
        for standing in standings {
            let place = Place(points: standing.points, reachedAt: standing.reachedAt, userId: standing.userId)
            places[standing.userId] = place
            if standing.username != Self.unresolvedName { usernames[standing.userId] = standing.username }
            sorted.append(place)
        }
        // A snapshot lists them in order already: a million places are not sorted again.
        if !zip(sorted, sorted.dropFirst()).allSatisfy({ $0 < $1 }) { sorted.sort() }
        order = RankedBlocks(sorted: sorted)
    }

    /// Gives a place restored without a name its account's name; a place that has one, or a user
    /// no longer placed (deleted meanwhile), is left as it is.
    package mutating func name(_ userId: UserID, _ username: String) {
        guard places[userId] != nil, usernames[userId] == nil else { return }
        usernames[userId] = username
    }

    package var count: Int { places.count }

    package static let eventTypes: Set<EventType> = [.userRegistered, .pointEarned, .userDeleted]

    /// Folds the event recorded at `position`; events of other types change nothing.
    package mutating func apply(_ event: Event, at position: Int64) {
        switch event {
        case .userRegistered(let e):
            usernames[e.userId] = e.account?.username ?? LeaderboardEntry.erasedName
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

    /// The first `n` users with points, best first; equal points share a rank.
    package func top(_ n: Int) -> [LeaderboardEntry] {
        guard n > 0 else { return [] }
        return ranked(order.elements(from: 0, limit: n).prefix { $0.points > 0 }, from: 0)
    }

    /// The user's points and rank (1 + how many have more points); nil for a user the leaderboard
    /// has never seen.
    package func entry(_ userId: UserID) -> LeaderboardEntry? {
        guard let place = places[userId] else { return nil }
        return entry(place, rank: rank(of: place.points))
    }

    /// The users listed `radius` places above and below `userId` (fewer at the edges), the user
    /// included; empty for an unknown user. Places, not ranks: a tie is cut where the window ends.
    package func around(_ userId: UserID, radius: Int) -> [LeaderboardEntry] {
        guard let place = places[userId], let index = order.rank(of: place) else { return [] }
        let first = max(0, index - max(0, radius))
        return ranked(order.elements(from: first, limit: index + max(0, radius) - first + 1)[...], from: first)
    }

    /// The standard competition rank of a score ("1, 2, 2, 4"): one more than the users with more
    /// points, counted as the users ordered before the first place a score can take. One search of
    /// the blocks, as the place's own index was.
    private func rank(of points: Int) -> Int {
        order.count(below: Place(points: points, reachedAt: .min, userId: "")) + 1
    }

    /// Entries for `places`, listed from index `offset`: a place with fewer points than the one
    /// before it ranks by its index (everyone above has more), an equal one shares the rank.
    private func ranked(_ places: ArraySlice<Place>, from offset: Int) -> [LeaderboardEntry] {
        var entries: [LeaderboardEntry] = []
        entries.reserveCapacity(places.count)
        for (index, place) in places.enumerated() {
            var rank = offset + index + 1
            if let previous = entries.last, previous.points == place.points {
                rank = previous.rank
            } else if entries.isEmpty, offset > 0 {
                rank = self.rank(of: place.points)
            }
            entries.append(entry(place, rank: rank))
        }
        return entries
    }

    private func entry(_ place: Place, rank: Int) -> LeaderboardEntry {
        LeaderboardEntry(rank: rank, userId: place.userId, username: usernames[place.userId] ?? Self.unresolvedName, points: place.points)
    }
}
