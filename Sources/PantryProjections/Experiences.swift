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
/// the experience itself does not carry personal data). A deleted user's experiences go with them. "Newest first" is log order reversed (the position, not the clock,
/// which may step back).
package struct ExperiencesProjection: Projection {
    package static let defaultLimit = 50
    package static let maxLimit = 500

    package init() {}
    package var name: String { "experiences" }
    package var eventTypes: Set<EventType> { [.userRegistered, .experienceWritten, .userDeleted] }
    package var layoutVersion: Int { 2 }

    package func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE experiences (
                experience_id TEXT PRIMARY KEY NOT NULL,
                recipe_id TEXT NOT NULL,
                user_id TEXT NOT NULL,
                username TEXT NOT NULL,
                text TEXT NOT NULL,
                written_at INTEGER NOT NULL,
                position INTEGER NOT NULL UNIQUE
            );
            CREATE INDEX experiences_by_recipe ON experiences (recipe_id, position DESC);
            CREATE INDEX experiences_by_user ON experiences (user_id);
            CREATE TABLE authors (
                user_id TEXT PRIMARY KEY NOT NULL,
                username TEXT NOT NULL
            ) WITHOUT ROWID;
            """)
    }

    package func apply(_ event: Event, recorded: RecordedEvent, db: Database) throws {
        switch event {
        case .userRegistered(let e):
            try db.cachedStatement(sql: "INSERT OR REPLACE INTO authors (user_id, username) VALUES (?, ?)")
                .execute(arguments: [e.userId, e.account?.username ?? LeaderboardEntry.erasedName])
        case .experienceWritten(let e):
            // The id derives from the writing command's id, which the core accepts once; a repeat is ignored.
            try db.cachedStatement(sql: """
                INSERT INTO experiences (experience_id, recipe_id, user_id, username, text, written_at, position)
                VALUES (?1, ?2, ?3, IFNULL((SELECT username FROM authors WHERE user_id = ?3), ?3), ?4, ?5, ?6)
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
            "SELECT experience_id, recipe_id, user_id, username, text, written_at, position FROM experiences ORDER BY experience_id",
            "SELECT user_id, username FROM authors ORDER BY user_id",
        ])
    }

    // MARK: Queries

    /// A recipe's experiences, newest first, at most `limit` (clamped to 1...`maxLimit`); the id
    /// as a query gives it.
    package static func forRecipe(_ recipeId: String, limit: Int = defaultLimit, in db: Database) throws -> [Experience] {
        let limit = min(max(limit, 1), maxLimit)
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT experience_id, recipe_id, user_id, username, text, written_at FROM experiences
            WHERE recipe_id = ? ORDER BY position DESC LIMIT ?
            """), arguments: [recipeId, limit]).map {
            Experience(experienceId: $0["experience_id"], recipeId: $0["recipe_id"], userId: $0["user_id"],
                       username: $0["username"], text: $0["text"], writtenAt: $0["written_at"])
        }
    }

    package static func count(_ recipeId: RecipeID, in db: Database) throws -> Int {
        try Int.fetchOne(db.cachedStatement(sql: "SELECT COUNT(*) FROM experiences WHERE recipe_id = ?"), arguments: [recipeId]) ?? 0
    }
}
