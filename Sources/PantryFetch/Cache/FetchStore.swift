import Foundation
import GRDB
import PantryWire

/// The fetch worker's SQLite file: cached answers and the upstream limiters' state.
/// Every limiter change is one write transaction, so reservations are atomic across
/// tasks and survive a restart.
final class FetchStore: Sendable {
    struct CachedEntry: Sendable {
        var payload: FetchPayload
        var storedAt: Double
    }

    /// A pool (WAL): cache reads go on beside the limiter's writes. With one queue every read
    /// waited behind every write, and with each commit synced to disk a burst of 500 requests
    /// right after a restart took 23 s on a busy disk. `synchronous = NORMAL`: a commit is not
    /// synced, so a killed process loses nothing (the OS holds the WAL); a power cut may lose the
    /// last commits of the quota, which the upstream's own count puts right on the next answer.
    private let database: DatabasePool

    init(path: String) throws {
        let directory = URL(fileURLWithPath: path).deletingLastPathComponent()
        try FileManager.default.createDirectory(at: directory, withIntermediateDirectories: true)
        var configuration = Configuration()
        configuration.busyMode = .timeout(10)
        configuration.prepareDatabase { db in
            try db.execute(sql: "PRAGMA synchronous = NORMAL")
        }
        database = try DatabasePool(path: path, configuration: configuration)
        var migrator = DatabaseMigrator()
        migrator.registerMigration("v1") { db in
            try db.create(table: "cache") { t in
                t.primaryKey("key", .text)
                t.column("kind", .text).notNull()
                t.column("contentType", .text).notNull()
                // JSON of a FetchPayload, or the raw bytes of an image.
                t.column("body", .blob).notNull()
                t.column("storedAt", .double).notNull()
            }
            try db.create(table: "limiter") { t in
                t.primaryKey("provider", .text)
                t.column("day", .text).notNull()
                t.column("used", .integer).notNull()
                t.column("tokens", .double).notNull()
                t.column("tokensAt", .double).notNull()
                t.column("blockedUntil", .double).notNull()
            }
        }
        try migrator.migrate(database)
    }

    // MARK: cache

    /// The cached answer for `key` at any age; an unreadable row counts as absent.
    func cached(_ key: String) async throws -> CachedEntry? {
        let found = try await database.read { db -> (kind: String, contentType: String, body: Data, storedAt: Double)? in
            try Row.fetchOne(db, sql: "SELECT kind, contentType, body, storedAt FROM cache WHERE key = ?", arguments: [key])
                .map { ($0["kind"], $0["contentType"], $0["body"], $0["storedAt"]) }
        }
        guard let found else { return nil }
        let payload: FetchPayload
        if found.kind == PantryWire.FetchRequest.Kind.image.rawValue {
            payload = .image(ImageData(contentType: found.contentType, bytes: found.body))
        } else {
            guard let decoded = try? JSONDecoder().decode(FetchPayload.self, from: found.body) else { return nil }
            payload = decoded
        }
        return CachedEntry(payload: payload, storedAt: found.storedAt)
    }

    /// Every recipe the cache holds whole (details and random draws), for answering when the
    /// upstream cannot be asked, from the `limit` newest rows; unreadable rows are skipped.
    func cachedRecipes(limit: Int) async throws -> [Recipe] {
        let bodies = try await database.read { db in
            try Data.fetchAll(db, sql: "SELECT body FROM cache WHERE kind IN (?, ?) ORDER BY storedAt DESC LIMIT ?",
                              arguments: [PantryWire.FetchRequest.Kind.detail.rawValue, PantryWire.FetchRequest.Kind.random.rawValue, limit])
        }
        return bodies.flatMap { body -> [Recipe] in
            switch try? JSONDecoder().decode(FetchPayload.self, from: body) {
            case .recipe(let recipe): [recipe]
            case .recipes(let recipes): recipes
            default: []
            }
        }
    }

    func save(_ payload: FetchPayload, key: String, kind: PantryWire.FetchRequest.Kind, at now: Date) async throws {
        let contentType: String
        let body: Data
        if case .image(let image) = payload {
            contentType = image.contentType
            body = image.bytes
        } else {
            contentType = "application/json"
            body = try JSONEncoder().encode(payload)
        }
        try await database.write { db in
            try db.execute(
                sql: "INSERT OR REPLACE INTO cache (key, kind, contentType, body, storedAt) VALUES (?, ?, ?, ?, ?)",
                arguments: [key, kind.rawValue, contentType, body, now.timeIntervalSince1970])
        }
    }

    // MARK: limiter

    /// Reads, changes and writes one provider's limiter state in a single transaction.
    /// GRDB begins write transactions IMMEDIATE, so this holds even with another process on the file.
    func updateLimiter<T: Sendable>(
        _ provider: String, policy: LimiterPolicy, now: Date,
        _ change: @escaping @Sendable (inout LimiterState) -> T
    ) async throws -> T {
        try await database.write { db in
            var state = try Self.limiterState(db, provider: provider) ?? .initial(now: now, policy: policy)
            let result = change(&state)
            try db.execute(
                sql: """
                    INSERT OR REPLACE INTO limiter (provider, day, used, tokens, tokensAt, blockedUntil)
                    VALUES (?, ?, ?, ?, ?, ?)
                    """,
                arguments: [provider, state.day, state.used, state.tokens, state.tokensAt, state.blockedUntil])
            return result
        }
    }

    /// Quota points used on the stored day, for inspection and tests.
    func quotaUsed(_ provider: String) async throws -> (day: String, used: Double)? {
        try await database.read { db in
            try Self.limiterState(db, provider: provider).map { ($0.day, $0.used) }
        }
    }

    private static func limiterState(_ db: Database, provider: String) throws -> LimiterState? {
        guard let row = try Row.fetchOne(db, sql: "SELECT * FROM limiter WHERE provider = ?", arguments: [provider]) else {
            return nil
        }
        return LimiterState(
            day: row["day"], used: row["used"], tokens: row["tokens"], tokensAt: row["tokensAt"],
            blockedUntil: row["blockedUntil"])
    }
}
