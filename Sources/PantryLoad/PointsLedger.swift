/// The points the load test knows it earned: one per accepted increment, per user. Each client
/// keeps its own; they are merged when the clients are done.
public struct PointsLedger: Sendable, Equatable {
    public private(set) var points: [Int]

    public init(users: Int) {
        points = Array(repeating: 0, count: users)
    }

    public mutating func earn(user: Int) {
        points[user] += 1
    }

    public mutating func merge(_ other: PointsLedger) {
        precondition(other.points.count == points.count)
        for (user, earned) in other.points.enumerated() { points[user] += earned }
    }

    public var total: Int { points.reduce(0, +) }

    /// Compares with the leaderboard's points per user (nil where a user could not be read).
    public func check(against actual: [Int?], usernames: [String], limit: Int = 10) -> LedgerCheck {
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
public struct LedgerCheck: Codable, Sendable, Equatable {
    public struct Difference: Codable, Sendable, Equatable {
        public var username: String
        public var expected: Int
        /// nil: the user's entry could not be read.
        public var actual: Int?

        public init(username: String, expected: Int, actual: Int?) {
            self.username = username
            self.expected = expected
            self.actual = actual
        }
    }

    public var passed: Bool
    public var users: Int
    public var expectedTotal: Int
    public var actualTotal: Int
    /// Users whose points differ from the ledger, the unread ones included.
    public var mismatchedUsers: Int
    public var unreadUsers: Int
    /// The first few mismatches.
    public var differences: [Difference]
}
