import GRDB
import PantryDomain
import PantryEventStore

public struct CartLine: Sendable, Equatable, Codable {
    public var recipeId: RecipeID
    public var title: String
    public var image: String?
    public var count: Int

    public init(recipeId: RecipeID, title: String, image: String?, count: Int) {
        self.recipeId = recipeId; self.title = title; self.image = image; self.count = count
    }
}

public struct CartTotals: Sendable, Equatable, Codable {
    /// How many recipes are in the cart.
    public var lines: Int
    /// The sum of the counts.
    public var items: Int

    public init(lines: Int, items: Int) { self.lines = lines; self.items = items }
}

public struct Cart: Sendable, Equatable, Codable {
    public var lines: [CartLine]
    public var totals: CartTotals

    public init(lines: [CartLine], totals: CartTotals) { self.lines = lines; self.totals = totals }
}

/// Each user's cart. `CartAdjusted` carries the resulting count, which the line takes as is (a reader
/// never redoes the arithmetic); a count of 0 removes the line. Title and image follow the latest
/// adjustment; lines keep the order in which they entered the cart.
public struct CartsProjection: Projection {
    public init() {}
    public var name: String { "carts" }
    public var eventTypes: Set<String> { ["CartAdjusted", "UserDeleted"] }

    public func migrate(_ db: Database) throws {
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
            """)
    }

    public func apply(_ event: Event, recorded: RecordedEvent, db: Database) throws {
        if case .userDeleted(let e) = event {
            try db.cachedStatement(sql: "DELETE FROM cart_lines WHERE user_id = ?").execute(arguments: [e.userId])
            return
        }
        guard case .cartAdjusted(let e) = event else { return }
        if e.count <= 0 {
            try db.cachedStatement(sql: "DELETE FROM cart_lines WHERE user_id = ? AND recipe_id = ?")
                .execute(arguments: [e.userId, e.recipeId])
        } else {
            try db.cachedStatement(sql: """
                INSERT INTO cart_lines (user_id, recipe_id, title, image, count, added_at_position)
                VALUES (?, ?, ?, ?, ?, ?)
                ON CONFLICT (user_id, recipe_id) DO UPDATE
                SET title = excluded.title, image = excluded.image, count = excluded.count
                """).execute(arguments: [e.userId, e.recipeId, e.title, e.image, e.count, recorded.position])
        }
    }

    public func checksum(_ db: Database) throws -> String {
        try ProjectionChecksum.sha256(db, queries: [
            "SELECT user_id, recipe_id, title, image, count, added_at_position FROM cart_lines ORDER BY user_id, recipe_id",
        ])
    }

    // MARK: Queries

    /// The user's lines, in the order they entered the cart.
    public static func lines(_ userId: UserID, in db: Database) throws -> [CartLine] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT recipe_id, title, image, count FROM cart_lines WHERE user_id = ? ORDER BY added_at_position
            """), arguments: [userId]).map {
            CartLine(recipeId: $0["recipe_id"], title: $0["title"], image: $0["image"], count: $0["count"])
        }
    }

    public static func totals(_ userId: UserID, in db: Database) throws -> CartTotals {
        let row = try Row.fetchOne(db.cachedStatement(sql: """
            SELECT COUNT(*) AS lines, IFNULL(SUM(count), 0) AS items FROM cart_lines WHERE user_id = ?
            """), arguments: [userId])
        return CartTotals(lines: row?["lines"] ?? 0, items: row?["items"] ?? 0)
    }

    /// Lines and totals from one snapshot.
    public static func cart(_ userId: UserID, in db: Database) throws -> Cart {
        let lines = try lines(userId, in: db)
        return Cart(lines: lines, totals: CartTotals(lines: lines.count, items: lines.reduce(0) { $0 + $1.count }))
    }
}
