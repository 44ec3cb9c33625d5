import GRDB
import PantryDomain
import PantryEventStore

/// An amount of one unit; `unit` nil for a plain count ("3 eggs").
public struct GroceryAmount: Sendable, Equatable, Codable {
    public var amount: Double
    public var unit: String?

    public init(amount: Double, unit: String?) { self.amount = amount; self.unit = unit }
}

public struct GroceryItem: Sendable, Equatable, Codable {
    /// The normalised ingredient, the merge key (and the key to check or remove it).
    public var item: String
    /// The ingredient as it was typed when the item was first added.
    public var ingredient: String
    public var checked: Bool
    /// One entry per unit, in the order the units were first added: the same unit sums, different
    /// units stay side by side ("500 g" and "2 cups").
    public var amounts: [GroceryAmount]
    /// How many times the item was added without an amount ("salt", "some basil").
    public var unmeasuredAdds: Int
    /// The recipes it was added from, in the order they were first added; empty for items added by hand.
    public var recipeIds: [RecipeID]

    public init(item: String, ingredient: String, checked: Bool, amounts: [GroceryAmount], unmeasuredAdds: Int, recipeIds: [RecipeID]) {
        self.item = item; self.ingredient = ingredient; self.checked = checked
        self.amounts = amounts; self.unmeasuredAdds = unmeasuredAdds; self.recipeIds = recipeIds
    }
}

/// Each user's grocery list.
///
/// - `GroceryAdded` with `merged == false` starts the item (replacing any leftover of it); with
///   `merged == true` it adds to the existing item and unchecks it (adding again means more is needed).
///   Amounts merge per unit: units are compared trimmed and case-insensitively ("G" and "g" are one),
///   shown as first spelled; no conversion between units. An add without an amount counts in
///   `unmeasuredAdds`; an add with an amount but no unit sums into the unit-less amount.
/// - `GroceryChecked` sets `checked`; `GroceryRemoved` deletes the item with its amounts and sources.
/// - The list is ordered unchecked first, then by the position of the add that created the item.
public struct GroceriesProjection: Projection {
    public init() {}
    public var name: String { "groceries" }
    public var eventTypes: Set<String> { ["GroceryAdded", "GroceryChecked", "GroceryRemoved", "UserDeleted"] }

    public func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE grocery_items (
                user_id TEXT NOT NULL,
                item TEXT NOT NULL,
                ingredient TEXT NOT NULL,
                checked INTEGER NOT NULL,
                unmeasured_adds INTEGER NOT NULL,
                added_at_position INTEGER NOT NULL,
                PRIMARY KEY (user_id, item)
            ) WITHOUT ROWID;
            CREATE INDEX grocery_items_by_user ON grocery_items (user_id, checked, added_at_position);
            CREATE TABLE grocery_amounts (
                user_id TEXT NOT NULL,
                item TEXT NOT NULL,
                unit_key TEXT NOT NULL,
                unit TEXT,
                amount REAL NOT NULL,
                added_at_position INTEGER NOT NULL,
                PRIMARY KEY (user_id, item, unit_key)
            ) WITHOUT ROWID;
            CREATE TABLE grocery_sources (
                user_id TEXT NOT NULL,
                item TEXT NOT NULL,
                recipe_id TEXT NOT NULL,
                added_at_position INTEGER NOT NULL,
                PRIMARY KEY (user_id, item, recipe_id)
            ) WITHOUT ROWID;
            """)
    }

    public func apply(_ event: Event, recorded: RecordedEvent, db: Database) throws {
        switch event {
        case .userDeleted(let e):
            for table in ["grocery_items", "grocery_amounts", "grocery_sources"] {
                try db.cachedStatement(sql: "DELETE FROM \(table) WHERE user_id = ?").execute(arguments: [e.userId])
            }
        case .groceryAdded(let e):
            if !e.merged { try delete(userId: e.userId, item: e.item, db) }
            let unmeasured = e.amount == nil ? 1 : 0
            try db.cachedStatement(sql: """
                INSERT INTO grocery_items (user_id, item, ingredient, checked, unmeasured_adds, added_at_position)
                VALUES (?, ?, ?, 0, ?, ?)
                ON CONFLICT (user_id, item) DO UPDATE
                SET checked = 0, unmeasured_adds = unmeasured_adds + excluded.unmeasured_adds
                """).execute(arguments: [e.userId, e.item, e.ingredient, unmeasured, recorded.position])
            if let amount = e.amount {
                let unit = e.unit?.trimmingCharacters(in: .whitespaces)
                let display = (unit?.isEmpty ?? true) ? nil : unit
                try db.cachedStatement(sql: """
                    INSERT INTO grocery_amounts (user_id, item, unit_key, unit, amount, added_at_position)
                    VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (user_id, item, unit_key) DO UPDATE SET amount = amount + excluded.amount
                    """).execute(arguments: [e.userId, e.item, display?.lowercased() ?? "", display, amount, recorded.position])
            }
            if let recipeId = e.recipeId {
                try db.cachedStatement(sql: """
                    INSERT INTO grocery_sources (user_id, item, recipe_id, added_at_position) VALUES (?, ?, ?, ?)
                    ON CONFLICT (user_id, item, recipe_id) DO NOTHING
                    """).execute(arguments: [e.userId, e.item, recipeId, recorded.position])
            }
        case .groceryChecked(let e):
            try db.cachedStatement(sql: "UPDATE grocery_items SET checked = ? WHERE user_id = ? AND item = ?")
                .execute(arguments: [e.checked, e.userId, e.item])
        case .groceryRemoved(let e):
            try delete(userId: e.userId, item: e.item, db)
        default:
            break
        }
    }

    private func delete(userId: UserID, item: String, _ db: Database) throws {
        for table in ["grocery_items", "grocery_amounts", "grocery_sources"] {
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE user_id = ? AND item = ?").execute(arguments: [userId, item])
        }
    }

    public func checksum(_ db: Database) throws -> String {
        try ProjectionChecksum.sha256(db, queries: [
            "SELECT user_id, item, ingredient, checked, unmeasured_adds, added_at_position FROM grocery_items ORDER BY user_id, item",
            "SELECT user_id, item, unit_key, unit, amount, added_at_position FROM grocery_amounts ORDER BY user_id, item, unit_key",
            "SELECT user_id, item, recipe_id, added_at_position FROM grocery_sources ORDER BY user_id, item, recipe_id",
        ])
    }

    // MARK: Queries

    /// The user's list: unchecked first, then in the order the items were first added.
    public static func list(_ userId: UserID, in db: Database) throws -> [GroceryItem] {
        var amounts: [String: [GroceryAmount]] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: """
            SELECT item, unit, amount FROM grocery_amounts WHERE user_id = ? ORDER BY item, added_at_position
            """), arguments: [userId]) {
            amounts[row["item"], default: []].append(GroceryAmount(amount: row["amount"], unit: row["unit"]))
        }
        var sources: [String: [RecipeID]] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: """
            SELECT item, recipe_id FROM grocery_sources WHERE user_id = ? ORDER BY item, added_at_position, recipe_id
            """), arguments: [userId]) {
            sources[row["item"], default: []].append(row["recipe_id"])
        }
        return try Row.fetchAll(db.cachedStatement(sql: """
            SELECT item, ingredient, checked, unmeasured_adds FROM grocery_items WHERE user_id = ?
            ORDER BY checked, added_at_position
            """), arguments: [userId]).map { row in
            let item: String = row["item"]
            return GroceryItem(item: item, ingredient: row["ingredient"], checked: row["checked"],
                               amounts: amounts[item] ?? [], unmeasuredAdds: row["unmeasured_adds"],
                               recipeIds: sources[item] ?? [])
        }
    }

    /// One item of the user's list, by its key.
    public static func item(_ userId: UserID, item: String, in db: Database) throws -> GroceryItem? {
        try list(userId, in: db).first { $0.item == item }
    }
}
