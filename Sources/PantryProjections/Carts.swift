import Foundation
import GRDB
import PantryDomain
import PantryLog

package struct CartLine: Sendable, Equatable, Codable {
    package var recipeId: RecipeID
    package var title: String
    package var image: String?
    package var count: Int

    package init(recipeId: RecipeID, title: String, image: String?, count: Int) {
        self.recipeId = recipeId; self.title = title; self.image = image; self.count = count
    }
}

/// Seed 002's "start recipe" countdown: a recipe the person is cooking. Times are milliseconds
/// since 1970 (UTC), from the log's clock; `remainingSeconds` is counted when it is read (0 once
/// the food is done); `pointsUntil` is when "I have this" stops earning (an hour after the end).
package struct CookingTimer: Sendable, Equatable, Codable {
    package var recipeId: RecipeID
    package var title: String
    package var image: String?
    package var startedAt: Int64
    package var minutes: Int
    package var endsAt: Int64
    package var pointsUntil: Int64
    package var remainingSeconds: Int

    package init(recipeId: RecipeID, title: String, image: String?, startedAt: Int64, minutes: Int, now: Int64) {
        self.recipeId = recipeId; self.title = title; self.image = image
        self.startedAt = startedAt
        self.minutes = minutes
        endsAt = startedAt + Int64(minutes) * 60_000
        pointsUntil = endsAt + Decider.cookingGrace
        remainingSeconds = Int(max(0, (endsAt - now + 999) / 1000))
    }
}

package struct CartTotals: Sendable, Equatable, Codable {
    /// How many recipes are in the cart.
    package var lines: Int
    /// The sum of the counts.
    package var items: Int

    package init(lines: Int, items: Int) { self.lines = lines; self.items = items }
}

package struct Cart: Sendable, Equatable, Codable {
    package var lines: [CartLine]
    package var totals: CartTotals

    package init(lines: [CartLine], totals: CartTotals) { self.lines = lines; self.totals = totals }
}

/// Each user's cart, and what each person is cooking. `CartAdjusted` carries the resulting count,
/// which the line takes as is (a reader never redoes the arithmetic); a count of 0 removes the
/// line. Title and image follow the latest adjustment; lines keep the order in which they entered
/// the cart. `CookingStarted` (re)starts the person's countdown of a recipe, apart from the cart
/// (an old event's title is its cart line's); as in the core's state, a person's timers whose
/// points are over go when they start another, so each holds at most `Decider.maxCooking`.
package struct CartsProjection: Projection {
    package init() {}
    package var name: String { "carts" }
    package var eventTypes: Set<EventType> { [.cartAdjusted, .cookingStarted, .userDeleted, .householdLeft] }
    /// 2: the cooking timer. 3: cooking apart from the cart, the cook's own.
    package var layoutVersion: Int { 3 }

    package func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE cart_lines (
                user_id TEXT NOT NULL,
                recipe_id TEXT NOT NULL,
                title TEXT NOT NULL,
                image TEXT,
                count INTEGER NOT NULL CHECK (count > 0),
                added_at_position INTEGER NOT NULL,
                PRIMARY KEY (user_id, recipe_id)
            ) WITHOUT ROWID;
            CREATE INDEX cart_lines_by_user ON cart_lines (user_id, added_at_position);
            CREATE TABLE cooking (
                user_id TEXT NOT NULL,
                recipe_id TEXT NOT NULL,
                title TEXT NOT NULL,
                image TEXT,
                started_at INTEGER NOT NULL,
                minutes INTEGER NOT NULL,
                PRIMARY KEY (user_id, recipe_id)
            ) WITHOUT ROWID;
            """)
    }

    package func apply(_ event: Event, recorded: RecordedEvent, db: Database) throws {
        if case .userDeleted(let e) = event {
            try db.cachedStatement(sql: "DELETE FROM cart_lines WHERE user_id = ?").execute(arguments: [e.userId])
            try db.cachedStatement(sql: "DELETE FROM cooking WHERE user_id = ?").execute(arguments: [e.userId])
            return
        }
        if case .householdLeft(let e) = event {
            if e.dissolved {
                try db.cachedStatement(sql: "DELETE FROM cart_lines WHERE user_id = ?").execute(arguments: [ListOwner.household(e.householdId)])
            }
            return
        }
        if case .cookingStarted(let e) = event {
            let at = recorded.metadata.recordedAt
            var title = e.title, image = e.image
            if title == nil, let line = try Row.fetchOne(db.cachedStatement(sql: """
                SELECT title, image FROM cart_lines WHERE user_id = ? AND recipe_id = ?
                """), arguments: [ListOwner.of(e.userId, household: e.cartHousehold), e.recipeId]) {
                title = line["title"]; image = line["image"]
            }
            try db.cachedStatement(sql: """
                DELETE FROM cooking WHERE user_id = ? AND started_at + minutes * 60000 + ? <= ?
                """).execute(arguments: [e.userId, Decider.cookingGrace, at])
            try db.cachedStatement(sql: """
                INSERT INTO cooking (user_id, recipe_id, title, image, started_at, minutes) VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id, recipe_id) DO UPDATE
                SET title = excluded.title, image = excluded.image, started_at = excluded.started_at, minutes = excluded.minutes
                """).execute(arguments: [e.userId, e.recipeId, title ?? e.recipeId.rawValue, image, at, e.minutes])
            return
        }
        guard case .cartAdjusted(let e) = event else { return }
        let owner = ListOwner.of(e.userId, household: e.household)
        if e.count <= 0 {
            try db.cachedStatement(sql: "DELETE FROM cart_lines WHERE user_id = ? AND recipe_id = ?")
                .execute(arguments: [owner, e.recipeId])
        } else {
            try db.cachedStatement(sql: """
                INSERT INTO cart_lines (user_id, recipe_id, title, image, count, added_at_position)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id, recipe_id) DO UPDATE
                SET title = excluded.title, image = excluded.image, count = excluded.count
                """).execute(arguments: [owner, e.recipeId, e.title, e.image, e.count, recorded.position])
        }
    }

    /// A rebuild keeps every cart in memory and writes each line once (`CartsFold`).
    package func rebuildFold() -> (any ProjectionFold)? { CartsFold() }

    package func checksum(_ db: Database) throws -> String {
        try ProjectionChecksum.sha256(db, queries: [
            """
            SELECT user_id, recipe_id, title, image, count, added_at_position
            FROM cart_lines ORDER BY user_id, recipe_id
            """,
            "SELECT user_id, recipe_id, title, image, started_at, minutes FROM cooking ORDER BY user_id, recipe_id",
        ])
    }

    // MARK: Queries

    /// The user's lines, in the order they entered the cart.
    package static func lines(_ userId: UserID, in db: Database) throws -> [CartLine] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT recipe_id, title, image, count FROM cart_lines WHERE user_id = ? ORDER BY added_at_position
            """), arguments: [userId]).map { row in
            CartLine(recipeId: row["recipe_id"], title: row["title"], image: row["image"], count: row["count"])
        }
    }

    /// What the person is cooking, newest first: the timers whose points still count at `now` (ms
    /// since 1970), counted then.
    package static func cooking(_ userId: UserID, in db: Database, now: Int64 = Self.now()) throws -> [CookingTimer] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT recipe_id, title, image, started_at, minutes FROM cooking
            WHERE user_id = ? AND started_at + minutes * 60000 + ? > ? ORDER BY started_at DESC, recipe_id
            """), arguments: [userId, Decider.cookingGrace, now]).map { row in
            CookingTimer(recipeId: row["recipe_id"], title: row["title"], image: row["image"], startedAt: row["started_at"],
                         minutes: row["minutes"], now: now)
        }
    }

    package static func now() -> Int64 { Int64((Date().timeIntervalSince1970 * 1000).rounded()) }

    package static func totals(_ userId: UserID, in db: Database) throws -> CartTotals {
        let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) AS lines, IFNULL(SUM(count), 0) AS items FROM cart_lines WHERE user_id = ?
            """), arguments: [userId])
        return CartTotals(lines: row?["lines"] ?? 0, items: row?["items"] ?? 0)
    }

    /// Lines and totals from one snapshot.
    package static func cart(_ userId: UserID, in db: Database) throws -> Cart {
        let lines = try lines(userId, in: db)
        return Cart(lines: lines, totals: CartTotals(lines: lines.count, items: lines.reduce(0) { $0 + $1.count }))
    }
}
