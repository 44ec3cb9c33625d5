import GRDB
import PantryDomain
import PantryLog
import PantryStandings

/// Points per user. The order is `points DESC, reached_at_position ASC`, where
/// `reached_at_position` is the log position of the event that gave the user the current score
/// (their registration while they have 0 points), so places are unique; ranks are shared by equal points.
/// The index on exactly that order keeps `top`, `entry` and `around` index-only for 100k users.
package struct LeaderboardProjection: Projection {
    package init() {}
    package var name: String { "leaderboard" }
    package var eventTypes: Set<EventType> { [.userRegistered, .pointEarned, .userDeleted] }
    /// 3: without layout 2's row per point (`earned_points`), which halved the replay (0.22 of
    /// the log's read speed, from 0.44); the API asks the log's point index instead.
    package var layoutVersion: Int { 3 }

    package func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE leaderboard_users (
                user_id TEXT PRIMARY KEY NOT NULL,
                username TEXT NOT NULL,
                points INTEGER NOT NULL,
                reached_at_position INTEGER NOT NULL,
                registered_at_position INTEGER NOT NULL
            ) WITHOUT ROWID;
            CREATE INDEX leaderboard_rank ON leaderboard_users (points DESC, reached_at_position, user_id, username);
            """)
    }

    package func apply(_ event: Event, recorded: RecordedEvent, db: Database) throws {
        try apply(batch: [(event, recorded)], db: db)
    }

    /// One write per user per batch, however many points: rows of different users never affect
    /// each other.
    package func apply(batch: [(event: Event, recorded: RecordedEvent)], db: Database) throws {
        let fold = PointsFold()
        try fold.apply(batch: batch, db: db)
        try fold.finish(db)
    }

    /// A rebuild sums every user's points over the whole log and writes each user once at the end:
    /// with 100,000 users a batch of 100,000 positions still held about one point per user, so
    /// summing per batch left one write per point, and the rebuild ran at 0.24 of the log's read
    /// speed (`pantry-bench replay`, 1,000,000 events).
    package func rebuildFold() -> (any ProjectionFold)? { PointsFold() }

    /// Points summed per user until `finish`, or until that user's next registration or deletion
    /// (written or dropped first, to keep the order of a user's own events). A point counts only
    /// its user and position, so a rebuild reads just those of the log's points (`UserOnlyFold`):
    /// without their JSON and whole rows, a replay of 1M events took 1.8 s of CPU, not 2.35 s.
    final class PointsFold: UserOnlyFold {
        private struct Pending {
            var count = 0
            var first: Int64
            var last: Int64
        }

        private var pending: [UserID: Pending] = [:]

        var userOnlyType: EventType { .pointEarned }

        func apply(batch: [(event: Event, recorded: RecordedEvent)], db: Database) throws {
            for (event, recorded) in batch { try fold(event, at: recorded.position, db) }
        }

        func apply(batch: [(event: Event, recorded: RecordedEvent)], users: [EventUser], db: Database) throws {
            var next = users.startIndex
            for (event, recorded) in batch {
                while next < users.endIndex, users[next].position < recorded.position {
                    count(users[next].userId, at: users[next].position)
                    next += 1
                }
                try fold(event, at: recorded.position, db)
            }
            for point in users[next...] { count(point.userId, at: point.position) }
        }

        private func fold(_ event: Event, at position: Int64, _ db: Database) throws {
            switch event {
            case .userRegistered(let e):
                if let points = pending.removeValue(forKey: e.userId) { try Self.write(points, for: e.userId, db) }
                try db.cachedStatement(sql: """
                    INSERT INTO leaderboard_users (user_id, username, points, reached_at_position, registered_at_position)
                    VALUES (?1, ?2, 0, ?3, ?3)
                    ON CONFLICT (user_id) DO UPDATE SET username = excluded.username
                    """).execute(arguments: [e.userId, e.account?.username ?? LeaderboardEntry.erasedName, position])
            case .userDeleted(let e):
                pending[e.userId] = nil
                try db.cachedStatement(sql: "DELETE FROM leaderboard_users WHERE user_id = ?").execute(arguments: [e.userId])
            case .pointEarned(let e):
                count(e.userId, at: position)
            default:
                break
            }
        }

        private func count(_ userId: UserID, at position: Int64) {
            pending[userId, default: Pending(first: position, last: position)].count += 1
            pending[userId]!.last = position
        }

        func finish(_ db: Database) throws {
            // In key order: a batch touches most of the table, and writes in key order walk its
            // pages once instead of jumping between pages the page cache no longer holds.
            for (userId, points) in pending.sorted(by: { $0.key.utf8.lexicographicallyPrecedes($1.key.utf8) }) {
                try Self.write(points, for: userId, db)
            }
            pending = [:]
        }

        private static func write(_ points: Pending, for userId: UserID, _ db: Database) throws {
            // The decider only awards points to registered users; points for an unknown user still
            // count (under the user id, registered at their first point) rather than being lost.
            try db.cachedStatement(sql: """
                INSERT INTO leaderboard_users (user_id, username, points, reached_at_position, registered_at_position)
                VALUES (?1, ?1, ?2, ?3, ?4)
                ON CONFLICT (user_id) DO UPDATE SET points = points + excluded.points, reached_at_position = excluded.reached_at_position
                """).execute(arguments: [userId, points.count, points.last, points.first])
        }
    }

    package func checksum(_ db: Database) throws -> String {
        try ProjectionChecksum.sha256(db, queries: [
            "SELECT user_id, username, points, reached_at_position, registered_at_position FROM leaderboard_users ORDER BY user_id",
        ])
    }

    // MARK: Queries

    private static let ordered = """
        SELECT user_id, username, points FROM leaderboard_users INDEXED BY leaderboard_rank
        ORDER BY points DESC, reached_at_position ASC
        """

    /// The first `n` users with points, best first; equal points share a rank.
    package static func top(_ n: Int, in db: Database) throws -> [LeaderboardEntry] {
        guard n > 0 else { return [] }
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT user_id, username, points FROM leaderboard_users INDEXED BY leaderboard_rank
            WHERE points > 0 ORDER BY points DESC, reached_at_position ASC LIMIT ?
            """), arguments: [n])
        return try ranked(rows, from: 0, db)
    }

    /// The user's points and rank (1 + how many have more points); nil for a user the leaderboard
    /// has never seen.
    package static func entry(_ userId: UserID, in db: Database) throws -> LeaderboardEntry? {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT username, points FROM leaderboard_users WHERE user_id = ?
            """), arguments: [userId]) else { return nil }
        let points: Int = row["points"]
        return LeaderboardEntry(rank: try rank(of: points, db), userId: userId, username: row["username"], points: points)
    }

    /// The users listed `radius` places above and below `userId` (fewer at the edges), the user
    /// included; empty for an unknown user. Places, not ranks: a tie is cut where the window ends.
    package static func around(_ userId: UserID, radius: Int, in db: Database) throws -> [LeaderboardEntry] {
        guard let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT points, reached_at_position FROM leaderboard_users WHERE user_id = ?
            """), arguments: [userId]) else { return [] }
        let points: Int = row["points"]
        let reached: Int64 = row["reached_at_position"]
        let index = try Int.fetchOne(db.cachedStatement(sql: """
            SELECT (SELECT COUNT(*) FROM leaderboard_users INDEXED BY leaderboard_rank WHERE points > ?1)
                 + (SELECT COUNT(*) FROM leaderboard_users INDEXED BY leaderboard_rank WHERE points = ?1 AND reached_at_position < ?2)
            """), arguments: [points, reached]) ?? 0
        let radius = max(0, radius)
        let first = max(0, index - radius)
        let rows = try Row.fetchAll(db.cachedStatement(sql: ordered + " LIMIT ? OFFSET ?"),
                                    arguments: [index + radius - first + 1, first])
        return try ranked(rows, from: first, db)
    }

    /// How many users the leaderboard holds.
    package static func count(in db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM leaderboard_users")) ?? 0
    }

    /// The standard competition rank of a score ("1, 2, 2, 4"): one more than the users with more points.
    private static func rank(of points: Int, _ db: Database) throws -> Int {
        try (Int.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) FROM leaderboard_users INDEXED BY leaderboard_rank WHERE points > ?
            """), arguments: [points]) ?? 0) + 1
    }

    /// Entries for `rows` in order, listed from index `offset`, ranked as `LeaderboardStandings` ranks them.
    private static func ranked(_ rows: [Row], from offset: Int, _ db: Database) throws -> [LeaderboardEntry] {
        var entries: [LeaderboardEntry] = []
        for (index, row) in rows.enumerated() {
            let points: Int = row["points"]
            var rank = offset + index + 1
            if let previous = entries.last, previous.points == points {
                rank = previous.rank
            } else if entries.isEmpty, offset > 0 {
                rank = try Self.rank(of: points, db)
            }
            entries.append(LeaderboardEntry(rank: rank, userId: row["user_id"], username: row["username"], points: points))
        }
        return entries
    }
}
