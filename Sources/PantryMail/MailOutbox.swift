import Foundation
import GRDB

/// The messages waiting to be sent, in an SQLite file of their own (`mail-outbox.sqlite` in the
/// API's data directory): a message is written here, durably, before the request that made it is
/// answered, and leaves only once an SMTP server accepted it (or it is too old to be of use).
/// A server that is down, or an API that restarts, delays a message and loses none.
///
/// A message holds its recipient's address and, for a reset, a link that is a secret: it stays no
/// longer than it takes to deliver, and the file is readable by its owner only.
package final class MailOutbox: Sendable {
    package struct Queued: Sendable, Equatable {
        package var id: Int64
        package var recipient: String
        /// The whole message, headers and body, CRLF line ends.
        package var message: [UInt8]
        /// ms since 1970.
        package var queuedAt: Int64
        package var attempts: Int
        package var nextAttemptAt: Int64
    }

    private let database: DatabaseQueue

    package init(path: String) throws {
        var configuration = Configuration()
        configuration.prepareDatabase { db in
            // The row is on disk before the request that queued it is answered; a sent one is
            // overwritten with zeros, not left in a free page (the address and the link go with it).
            try db.execute(sql: "PRAGMA synchronous = FULL")
            try db.execute(sql: "PRAGMA secure_delete = ON")
        }
        // Made owner-only before SQLite opens it (its journals take the file's mode), whatever the umask.
        if !FileManager.default.fileExists(atPath: path) {
            FileManager.default.createFile(atPath: path, contents: nil, attributes: [.posixPermissions: 0o600])
        }
        database = try DatabaseQueue(path: path, configuration: configuration)
        try database.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS outbox (
                    id INTEGER PRIMARY KEY AUTOINCREMENT,
                    recipient TEXT NOT NULL,
                    message BLOB NOT NULL,
                    queuedAt INTEGER NOT NULL,
                    attempts INTEGER NOT NULL DEFAULT 0,
                    nextAttemptAt INTEGER NOT NULL
                )
                """)
        }
    }

    /// Queues a message, due at once; returns its id.
    @discardableResult
    package func add(recipient: String, message: [UInt8], now: Int64) throws -> Int64 {
        try database.write { db in
            try db.execute(sql: "INSERT INTO outbox (recipient, message, queuedAt, nextAttemptAt) VALUES (?, ?, ?, ?)",
                           arguments: [recipient, Data(message), now, now])
            return db.lastInsertedRowID
        }
    }

    /// Every message still waiting, oldest first.
    package func waiting() throws -> [Queued] {
        try database.read { db in try Self.rows(db, "SELECT * FROM outbox ORDER BY id") }
    }

    /// Takes the messages due at `now`, oldest first, for `lease` ms: until then no other sender
    /// (another API process on this data directory) takes them, and a sender that dies with them
    /// leaves them to be taken again once the lease is over.
    package func claimDue(at now: Int64, lease: Int64, limit: Int) throws -> [Queued] {
        try database.write { db in
            let due = try Self.rows(db, "SELECT * FROM outbox WHERE nextAttemptAt <= ? ORDER BY id LIMIT ?", [now, limit])
            for queued in due {
                try db.execute(sql: "UPDATE outbox SET nextAttemptAt = ? WHERE id = ?", arguments: [now + lease, queued.id])
            }
            return due
        }
    }

    /// When the next waiting message is due (ms since 1970), or nil when none waits.
    package func nextDue() throws -> Int64? {
        try database.read { db in try Int64.fetchOne(db, sql: "SELECT MIN(nextAttemptAt) FROM outbox") }
    }

    /// Sent, or given up: the message (and the address and link in it) leaves the file.
    package func remove(_ id: Int64) throws {
        try database.write { db in try db.execute(sql: "DELETE FROM outbox WHERE id = ?", arguments: [id]) }
    }

    package func postpone(_ id: Int64, attempts: Int, until: Int64) throws {
        try database.write { db in
            try db.execute(sql: "UPDATE outbox SET attempts = ?, nextAttemptAt = ? WHERE id = ?", arguments: [attempts, until, id])
        }
    }

    private static func rows(_ db: Database, _ sql: String, _ arguments: StatementArguments = []) throws -> [Queued] {
        try Row.fetchAll(db, sql: sql, arguments: arguments).map { row in
            Queued(id: row["id"], recipient: row["recipient"], message: Array(row["message"] as Data), queuedAt: row["queuedAt"],
                   attempts: row["attempts"], nextAttemptAt: row["nextAttemptAt"])
        }
    }
}
