import GRDB
import PantryDomain
import PantryLog
import PantryStandings

package struct Experience: Sendable, Equatable, Codable {
    package var experienceId: String
    package var recipeId: RecipeID
    package var userId: UserID
    package var username: String
    package var text: String
    /// Milliseconds since 1970 (UTC): when the log recorded it.
    package var writtenAt: Int64

    package init(experienceId: String, recipeId: RecipeID, userId: UserID, username: String, text: String, writtenAt: Int64) {
        self.experienceId = experienceId; self.recipeId = recipeId; self.userId = userId
        self.username = username; self.text = text; self.writtenAt = writtenAt
    }
}

/// Tips and reviews per recipe, with their authors' current names (kept here from `UserRegistered`:
/// the experience itself does not carry personal data). A deleted user's experiences go with them.
///
/// The order a recipe's tips are read in is one a burst of new accounts cannot take over (issue 45:
/// 45 accounts from 3 addresses wrote 225 tips in 4 s, and newest first buried every tip before
/// them past the last page). Tips come in turns: every author's first tip on the recipe, then
/// every author's second, and so on (at most `Decider.maxExperiencesPerRecipe` turns), so one
/// account's tips never stand in a row ahead of others'; within a turn, older accounts first (by
/// the log position of their registration, which a burst cannot make earlier), so accounts opened
/// for the burst come after everyone who was there before it. Account age rather than the newest
/// tip: any order by time puts the burst first. The key (turn, account's position, tip's position)
/// is stable, so a page's cursor (`Cursor`) continues exactly where it stopped: a tip written or
/// deleted meanwhile never makes another come twice or be skipped.
package struct ExperiencesProjection: Projection {
    package static let defaultLimit = 50
    package static let maxLimit = 500

    package init() {}
    package var name: String { "experiences" }
    package var eventTypes: Set<EventType> { [.userRegistered, .experienceWritten, .userDeleted] }
    package var layoutVersion: Int { 3 }
    /// A tip's turn counts its author's tips on the recipe, and a deletion finds its author's
    /// tips: without the index each read the whole table, and a replay after 5,000 deletions of
    /// a million events ran at 0.68 of the log's read rate against 1.30 without them.
    package var indexesTheFoldReads: Set<String> { ["experiences_by_user"] }

    package func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE experiences (
                experience_id TEXT PRIMARY KEY NOT NULL,
                recipe_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                username TEXT NOT NULL,
                text TEXT NOT NULL,
                written_at INTEGER NOT NULL,
                position INTEGER NOT NULL UNIQUE,
                turn INTEGER NOT NULL,
                author_since INTEGER NOT NULL
            );
            CREATE INDEX experiences_in_turns ON experiences (recipe_id, turn, author_since, position);
            CREATE INDEX experiences_by_user ON experiences (user_id, recipe_id);
            CREATE TABLE authors (
                user_id TEXT PRIMARY KEY NOT NULL,
                username TEXT NOT NULL,
                registered_at INTEGER NOT NULL
            ) WITHOUT ROWID;
            """)
    }

    package func apply(_ event: Event, recorded: RecordedEvent, db: Database) throws {
        switch event {
        case .userRegistered(let e):
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO authors (user_id, username, registered_at) VALUES (?, ?, ?)")
                .execute(arguments: [e.userId, e.account?.username ?? LeaderboardEntry.erasedName, recorded.position])
        case .experienceWritten(let e):
            // The id derives from the writing command's id, which the core accepts once; a repeat is
            // ignored. Its turn is how many tips the author already has here (bounded by the decider).
            try db.cachedStatement(sql: """
                INSERT INTO experiences (experience_id, recipe_id, user_id, username, text, written_at, position, turn, author_since)
                VALUES (?1, ?2, ?3, IFNULL((SELECT username FROM authors WHERE user_id = ?3), ?3), ?4, ?5, ?6,
                        (SELECT COUNT(*) FROM experiences WHERE user_id = ?3 AND recipe_id = ?2),
                        IFNULL((SELECT registered_at FROM authors WHERE user_id = ?3), ?6))
                ON CONFLICT (experience_id) DO NOTHING
                """).execute(arguments: [e.experienceId, e.recipeId, e.userId, e.text,
                                         recorded.metadata.recordedAt, recorded.position])
        case .userDeleted(let e):
            try db.cachedStatement(sql: "DELETE FROM experiences WHERE user_id = ?").execute(arguments: [e.userId])
            try db.cachedStatement(sql: "DELETE FROM authors WHERE user_id = ?").execute(arguments: [e.userId])
        default:
            break
        }
    }

    package func checksum(_ db: Database) throws -> String {
        try ProjectionChecksum.sha256(db, queries: [
            """
            SELECT experience_id, recipe_id, user_id, username, text, written_at, position, turn, author_since
            FROM experiences ORDER BY experience_id
            """,
            "SELECT user_id, username, registered_at FROM authors ORDER BY user_id",
        ])
    }

    // MARK: Queries

    /// Where a page of a recipe's tips ends: the order's key of its last tip, as an opaque text
    /// (`turn.authorSince.position`, decimal) that the next page's `cursor` gives back.
    package struct Cursor: Sendable, Equatable {
        package var turn: Int64
        package var authorSince: Int64
        package var position: Int64

        package init(turn: Int64, authorSince: Int64, position: Int64) {
            self.turn = turn; self.authorSince = authorSince; self.position = position
        }

        /// Nil unless `text` is one this projection gives.
        package init?(text: String) {
            let parts = text.split(separator: ".", omittingEmptySubsequences: false)
            guard parts.count == 3, parts.allSatisfy({ (1...18).contains($0.count) && $0.allSatisfy(\.isASCII) }),
                  let turn = Int64(parts[0]), let since = Int64(parts[1]), let position = Int64(parts[2]),
                  turn >= 0, since >= 0, position >= 0 else { return nil }
            self.init(turn: turn, authorSince: since, position: position)
        }

        package var text: String { "\(turn).\(authorSince).\(position)" }
    }

    /// A page of a recipe's experiences in turns (see the type), at most `limit` (clamped to
    /// 1...`maxLimit`), after `cursor` (the first page without one), and the cursor of the next
    /// page when there may be one.
    package static func forRecipe(_ recipeId: String, limit: Int = defaultLimit, after cursor: Cursor? = nil,
                                  in db: Database) throws -> (experiences: [Experience], next: Cursor?) {
        let limit = min(max(limit, 1), maxLimit)
        let start = cursor ?? Cursor(turn: -1, authorSince: 0, position: 0)
        // One row more than the page says whether there is a next one.
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT experience_id, recipe_id, user_id, username, text, written_at, turn, author_since, position
            FROM experiences INDEXED BY experiences_in_turns
            WHERE recipe_id = ? AND (turn, author_since, position) > (?, ?, ?)
            ORDER BY turn, author_since, position LIMIT ?
            """), arguments: [recipeId, start.turn, start.authorSince, start.position, limit + 1])
        let page = rows.prefix(limit)
        let next = rows.count > limit ? page.last.map {
            Cursor(turn: $0["turn"], authorSince: $0["author_since"], position: $0["position"])
        } : nil
        return (page.map {
            Experience(experienceId: $0["experience_id"], recipeId: $0["recipe_id"], userId: $0["user_id"],
                       username: $0["username"], text: $0["text"], writtenAt: $0["written_at"])
        }, next)
    }

    package static func count(_ recipeId: RecipeID, in db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM experiences WHERE recipe_id = ?"), arguments: [recipeId]) ?? 0
    }
}
