import PantryDomain

/// One row of the points leaderboard.
package struct LeaderboardEntry: Sendable, Equatable, Codable {
    /// 1 for the leader; equal points share a rank, the next score ranking by how many are above
    /// it ("1, 2, 2, 4"). Listed in the order of `points DESC`, then whoever reached that score
    /// first; users without points come last, in registration order, and never in the top.
    package var rank: Int
    package var userId: UserID
    package var username: String
    package var points: Int

    package init(rank: Int, userId: UserID, username: String, points: Int) {
        self.rank = rank; self.userId = userId; self.username = username; self.points = points
    }

    /// The name shown for a user whose key is destroyed, until their deletion (next in the log)
    /// removes them: in the standings, the leaderboard's file and the experiences.
    package static let erasedName = "deleted user"
}
