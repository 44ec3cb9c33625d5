import Foundation
import GRDB
import PantryDomain
import PantryLog

package struct CartLine: Sendable, Equatable, Codable {
    package var recipeId: RecipeID
    package var title: String
    package var image: String?
    package var count: Int
    /// The countdown started on this line, if any.
    package var timer: CookingTimer?

    package init(recipeId: RecipeID, title: String, image: String?, count: Int, timer: CookingTimer? = nil) {
        self.recipeId = recipeId; self.title = title; self.image = image; self.count = count; self.timer = timer
    }
}

/// Seed 002's "start recipe" countdown. Times are milliseconds since 1970 (UTC), from the log's
/// clock; `remainingSeconds` is counted when the cart is read (0 once the food is done).
package struct CookingTimer: Sendable, Equatable, Codable {
    package var startedAt: Int64
    package var minutes: Int
    package var endsAt: Int64
    package var remainingSeconds: Int

    package init(startedAt: Int64, minutes: Int, now: Int64) {
        self.startedAt = startedAt
        self.minutes = minutes
        endsAt = startedAt + Int64(minutes) * 60_000
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

/// Each user's cart. `CartAdjusted` carries the resulting count, which the line takes as is (a reader
/// never redoes the arithmetic); a count of 0 removes the line. Title and image follow the latest
/// adjustment; lines keep the order in which they entered the cart. `CookingStarted` (re)starts the
/// line's countdown; it lasts while the line does.
package struct CartsProjection: Projection {
    package init() {}
    package var name: String { "carts" }
    package var eventTypes: Set<EventType> { [.cartAdjusted, .cookingStarted, .userDeleted, .householdLeft] }
    /// 2: the cooking timer.
    package var layoutVersion: Int { 2 }

    package func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE cart_lines (
                user_id TEXT NOT NULL,
                recipe_id TEXT NOT NULL,
                title TEXT NOT NULL,
                image TEXT,
                count INTEGER NOT NULL CHECK (count > 0),
                added_at_position INTEGER NOT NULL,
                timer_started_at INTEGER,
                timer_minutes INTEGER,
                PRIMARY KEY (user_id, recipe_id)
            ) WITHOUT ROWID;
            CREATE INDEX cart_lines_by_user ON cart_lines (user_id, added_at_position);
            """)
    }

    package func apply(_ event: Event, recorded: RecordedEvent, db: Database) throws {
        if case .userDeleted(let e) = event {
            try db.cachedStatement(sql: "DELETE FROM cart_lines WHERE user_id = ?").execute(arguments: [e.userId])
            return
        }
        if case .householdLeft(let e) = event {
            if e.dissolved {
                try db.cachedStatement(sql: "DELETE FROM cart_lines WHERE user_id = ?").execute(arguments: [ListOwner.household(e.householdId)])
            }
            return
        }
        if case .cookingStarted(let e) = event {
            try db.cachedStatement(sql: """
                UPDATE cart_lines SET timer_started_at = ?, timer_minutes = ? WHERE user_id = ? AND recipe_id = ?
                """).execute(arguments: [recorded.metadata.recordedAt, e.minutes, ListOwner.of(e.userId, household: e.household), e.recipeId])
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
            SELECT user_id, recipe_id, title, image, count, added_at_position, timer_started_at, timer_minutes
            FROM cart_lines ORDER BY user_id, recipe_id
            """,
        ])
    }

    // MARK: Queries

    /// The user's lines, in the order they entered the cart; timers counted at `now` (ms since 1970).
    package static func lines(_ userId: UserID, in db: Database, now: Int64 = Self.now()) throws -> [CartLine] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT recipe_id, title, image, count, timer_started_at, timer_minutes FROM cart_lines WHERE user_id = ?
            ORDER BY added_at_position
            """), arguments: [userId]).map { row in
            let startedAt: Int64? = row["timer_started_at"]
            let minutes: Int? = row["timer_minutes"]
            return CartLine(recipeId: row["recipe_id"], title: row["title"], image: row["image"], count: row["count"],
                            timer: startedAt.flatMap { start in minutes.map { CookingTimer(startedAt: start, minutes: $0, now: now) } })
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
    package static func cart(_ userId: UserID, in db: Database, now: Int64 = Self.now()) throws -> Cart {
        let lines = try lines(userId, in: db, now: now)
        return Cart(lines: lines, totals: CartTotals(lines: lines.count, items: lines.reduce(0) { $0 + $1.count }))
    }
}
