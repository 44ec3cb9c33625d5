import ArgumentParser
import Foundation
import GRDB
import Hummingbird
import Synchronization

/// The points route as most people would build it without Pantry, for `ops/bench-http` to put
/// Pantry's durable increments beside: Hummingbird and GRDB, one SQLite file in WAL mode with
/// `synchronous=FULL` (so an answered point survives a power loss, as Pantry's does), one write
/// transaction per request, bodies read with Hummingbird's `JSONDecoder`, bearer tokens in a map
/// in memory. It keeps no event log, publishes no feed and has no idempotency keys: less work per
/// point than Pantry does, which is what makes it the fair "usual" bar.
struct UsualStackServer: AsyncParsableCommand {
    static let configuration = CommandConfiguration(
        commandName: "http-usual",
        abstract: "Serve GET /health, POST /v1/accounts and POST /v1/me/owned-ingredients the usual way (Hummingbird + GRDB) until stopped.")

    @Option(help: "The port to listen on.") var port = 8091
    @Option(help: "The directory for its SQLite file (usual.sqlite).") var data: String

    /// Bearer tokens to user ids, in memory.
    private final class Tokens: Sendable {
        let byToken = Mutex<[String: String]>([:])
    }

    private struct Registration: Decodable {
        var username: String
        var email: String
        var password: String
    }

    private struct OwnedIngredient: Decodable {
        var recipeId: String
        var ingredient: String
    }

    func run() async throws {
        let pool = try DatabasePool(path: URL(fileURLWithPath: data).appendingPathComponent("usual.sqlite").path)
        // On the writer, after GRDB's own set-up (it sets NORMAL there), as Pantry's log does.
        try await pool.writeWithoutTransaction { db in try db.execute(sql: "PRAGMA synchronous = FULL") }
        try await pool.write { db in
            try db.execute(sql: """
                CREATE TABLE IF NOT EXISTS users (id TEXT PRIMARY KEY, username TEXT NOT NULL UNIQUE, email TEXT NOT NULL,
                                                  points INTEGER NOT NULL DEFAULT 0);
                CREATE TABLE IF NOT EXISTS points (userId TEXT NOT NULL REFERENCES users(id), recipeId TEXT NOT NULL,
                                                   ingredient TEXT NOT NULL, earnedAt REAL NOT NULL,
                                                   PRIMARY KEY (userId, recipeId, ingredient));
                """)
        }
        let tokens = Tokens()
        let router = Router()
        router.get("health") { _, _ in Self.json(.ok, #"{"status":"ok"}"#) }
        // Set-up only (not measured), so no password hash: ops/bench-http registers its users here.
        router.post("v1/accounts") { request, context -> Response in
            let registration = try await request.decode(as: Registration.self, context: context)
            let userId = UUID().uuidString
            let token = UUID().uuidString
            try await pool.write { db in
                try db.execute(sql: "INSERT INTO users (id, username, email) VALUES (?, ?, ?)",
                               arguments: [userId, registration.username, registration.email])
            }
            tokens.byToken.withLock { $0[token] = userId }
            return Self.json(.created, #"{"userId":"\#(userId)","token":"\#(token)"}"#)
        }
        router.post("v1/me/owned-ingredients") { request, context -> Response in
            guard let header = request.headers[.authorization], header.hasPrefix("Bearer "),
                  let userId = tokens.byToken.withLock({ $0[String(header.dropFirst("Bearer ".count))] }) else {
                throw HTTPError(.unauthorized)
            }
            let use = try await request.decode(as: OwnedIngredient.self, context: context)
            let recipeId = use.recipeId.trimmingCharacters(in: .whitespaces)
            let ingredient = use.ingredient.trimmingCharacters(in: .whitespaces).lowercased()
            guard !recipeId.isEmpty, !ingredient.isEmpty else { throw HTTPError(.unprocessableContent) }
            let earned = try await pool.write { db -> Int64? in
                try db.execute(sql: "INSERT OR IGNORE INTO points (userId, recipeId, ingredient, earnedAt) VALUES (?, ?, ?, ?)",
                               arguments: [userId, recipeId, ingredient, Date().timeIntervalSince1970])
                guard db.changesCount == 1 else { return nil }
                let row = db.lastInsertedRowID
                try db.execute(sql: "UPDATE users SET points = points + 1 WHERE id = ?", arguments: [userId])
                return row
            }
            guard let earned else { throw HTTPError(.conflict, message: "this ingredient already earned its point") }
            return Self.json(.created, #"{"position":\#(earned)}"#)
        }
        let app = Application(router: router, configuration: .init(address: .hostname("127.0.0.1", port: port)))
        try await app.runService()
    }

    private static func json(_ status: HTTPResponse.Status, _ body: String) -> Response {
        Response(status: status, headers: [.contentType: "application/json"], body: ResponseBody(byteBuffer: ByteBuffer(string: body)))
    }
}
