/// The points the load test knows it earned: one per accepted increment, per user. Each client
/// keeps its own; they are merged when the clients are done.
package struct PointsLedger: Sendable, Equatable {
    package private(set) var points: [Int]

    package init(users: Int) {
        points = Array(repeating: 0, count: users)
    }

    package mutating func earn(user: Int) {
        points[user] += 1
    }

    package mutating func merge(_ other: PointsLedger) {
        precondition(other.points.count == points.count)
        for (user, earned) in other.points.enumerated() { points[user] += earned }
    }

    package var total: Int { points.reduce(0, +) }

    /// Compares with the leaderboard's points per user (nil where a user could not be read).
    package func check(against actual: [Int?], usernames: [String], limit: Int = 10) -> LedgerCheck {
        precondition(actual.count == points.count && usernames.count == points.count)
        var differences: [LedgerCheck.Difference] = []
        var mismatched = 0, unread = 0, actualTotal = 0
        for (user, expected) in points.enumerated() {
            if let read = actual[user] { actualTotal += read } else { unread += 1 }
            guard actual[user] != expected else { continue }
            mismatched += 1
            if differences.count < limit {
                differences.append(.init(username: usernames[user], expected: expected, actual: actual[user]))
            }
        }
        return LedgerCheck(passed: mismatched == 0, users: points.count, expectedTotal: total,
                           actualTotal: actualTotal, mismatchedUsers: mismatched, unreadUsers: unread,
                           differences: differences)
    }
}

/// The final check: the leaderboard against the ledger, user by user and in total.
package struct LedgerCheck: Codable, Sendable, Equatable {
    package struct Difference: Codable, Sendable, Equatable {
        package var username: String
        package var expected: Int
        /// nil: the user's entry could not be read.
        package var actual: Int?

        package init(username: String, expected: Int, actual: Int?) {
            self.username = username
            self.expected = expected
            self.actual = actual
        }
    }

    package var passed: Bool
    package var users: Int
    package var expectedTotal: Int
    package var actualTotal: Int
    /// Users whose points differ from the ledger, the unread ones included.
    package var mismatchedUsers: Int
    package var unreadUsers: Int
    /// The first few mismatches.
    package var differences: [Difference]
}
