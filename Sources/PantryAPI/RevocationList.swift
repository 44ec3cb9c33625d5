import Foundation
import GRDB
import Synchronization

/// Token ids revoked by logout, kept in a small SQLite file in the data directory so a restart
/// does not bring a logged-out token back. Rows outlive their token only until the next start.
public final class RevocationList: Sendable {
    public static let fileName = "api-sessions.sqlite"

    private let database: DatabaseQueue
    private let revoked: Mutex<Set<String>>

    public init(path: String, now: Date = Date()) throws {
        database = try DatabaseQueue(path: path)
        let ids = try database.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS revoked_tokens (token_id TEXT PRIMARY KEY, expires_at INTEGER NOT NULL)
                """)
            try db.execute(sql: "DELETE FROM revoked_tokens WHERE expires_at <= ?", arguments: [Int64(now.timeIntervalSince1970)])
            return try String.fetchSet(db, sql: "SELECT token_id FROM revoked_tokens")
        }
        revoked = Mutex(ids)
    }

    public func revoke(_ claims: SessionClaims) throws {
        try database.write { db in
            try db.execute(sql: "INSERT OR IGNORE INTO revoked_tokens (token_id, expires_at) VALUES (?, ?)",
                           arguments: [claims.tokenId, claims.expiresAt])
        }
        revoked.withLock { _ = $0.insert(claims.tokenId) }
    }

    public func isRevoked(_ tokenId: String) -> Bool {
        revoked.withLock { $0.contains(tokenId) }
    }
}
