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

    /// The token stops working here at once, whatever the disk says; when the file cannot be
    /// written (a full disk) the logout is answered 503, to be retried so that a restart does not
    /// bring the token back (it answered 500 and left the token valid).
    public func revoke(_ claims: SessionClaims) throws {
        revoked.withLock { _ = $0.insert(claims.tokenId) }
        do {
            try database.write { db in
                try db.execute(sql: "INSERT OR IGNORE INTO revoked_tokens (token_id, expires_at) VALUES (?, ?)",
                               arguments: [claims.tokenId, claims.expiresAt])
            }
        } catch {
            throw Problem(.serviceUnavailable, code: "storage_error",
                          detail: "logged out here, but not yet on disk; retry the logout", headers: [.retryAfter: "1"])
        }
    }

    public func isRevoked(_ tokenId: String) -> Bool {
        revoked.withLock { $0.contains(tokenId) }
    }
}
