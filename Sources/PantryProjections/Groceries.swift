import Foundation
import GRDB
import PantryDomain
import PantryLog

/// An amount of one unit; `unit` nil for a plain count ("3 eggs").
package struct GroceryAmount: Sendable, Equatable, Codable {
    package var amount: Double
    package var unit: String?

    package init(amount: Double, unit: String?) { self.amount = amount; self.unit = unit }
}

package struct GroceryItem: Sendable, Equatable, Codable {
    /// The ingredient's key (singular lowercase words), the merge key and the key to check or remove it.
    package var item: String
    /// The ingredient as it was typed when the item was first added.
    package var ingredient: String
    /// The shop aisle (`GroceryAisle`); the list is sorted by it.
    package var aisle: String
    package var checked: Bool
    /// What is still to buy: one entry per quantity, in the order first added. Masses sum whatever
    /// their unit ("500 g" + "1 kg" is "1.5 kg"), as do volumes ("2 tbsp" + "1 cup"), shown in the
    /// unit they were added in when that was always the same, else in g/kg or ml/l; units that do not
    /// convert ("clove", "can") sum per unit, shown as first spelled; a plain count has no unit.
    package var amounts: [GroceryAmount]
    /// What was bought: checking the item moves `amounts` here; adding to a checked item unchecks it
    /// and starts a new amount to buy, leaving this as it was.
    package var bought: [GroceryAmount]
    /// How many times the item was added without an amount ("salt", "some basil").
    package var unmeasuredAdds: Int
    /// The recipes it was added from, in the order they were first added; empty for items added by hand.
    package var recipeIds: [RecipeID]
    /// On a household's list: the item's id, the members who added it (first first) and the one
    /// who ticked it. Nil on a person's own list.
    package var itemId: String?
    package var addedBy: [UserID]?
    package var checkedBy: UserID?

    package init(item: String, ingredient: String, aisle: String, checked: Bool, amounts: [GroceryAmount],
                bought: [GroceryAmount], unmeasuredAdds: Int, recipeIds: [RecipeID],
                itemId: String? = nil, addedBy: [UserID]? = nil, checkedBy: UserID? = nil) {
        self.item = item; self.ingredient = ingredient; self.aisle = aisle; self.checked = checked
        self.amounts = amounts; self.bought = bought; self.unmeasuredAdds = unmeasuredAdds; self.recipeIds = recipeIds
        self.itemId = itemId; self.addedBy = addedBy; self.checkedBy = checkedBy
    }
}



/// Each user's grocery list.
///
/// - `GroceryAdded` with `merged == false` starts the item (replacing any leftover of it); with
///   `merged == true` it adds to what is still to buy and unchecks the item (adding again means more
///   is needed), leaving what was bought. An add without an amount counts in `unmeasuredAdds`.
/// - `GroceryChecked` moves every amount to bought (or, unchecking, back to buy) and sets `checked`;
///   `GroceryRemoved` deletes the item with its amounts and sources.
/// - The list is ordered unchecked first, then by aisle, then by the position of the add that created
///   the item.
/// - A household's list (`ListOwner.household`) keeps its rows by item id, and each member's
///   first add of an item in `grocery_authors` with the name as they typed it: the item reads as
///   its first remaining author's. A deleted person's author rows go, and with them every item only
///   they added (`docs/erasure.md`); a dissolved household's list goes whole.
package struct GroceriesProjection: Projection {
    package init() {}
    package var name: String { "groceries" }
    package var eventTypes: Set<EventType> { [.groceryAdded, .groceryChecked, .groceryRemoved, .userDeleted, .householdLeft] }
    /// 2: amounts by quantity in base units, bought apart from still to buy. 3: households' lists.
    package var layoutVersion: Int { 3 }

    package func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE grocery_items (
                user_id TEXT NOT NULL,
                item TEXT NOT NULL,
                ingredient TEXT NOT NULL,
                checked INTEGER NOT NULL,
                unmeasured_adds INTEGER NOT NULL,
                added_at_position INTEGER NOT NULL,
                checked_by TEXT,
                PRIMARY KEY (user_id, item)
            ) WITHOUT ROWID;
            CREATE INDEX grocery_items_by_checker ON grocery_items (checked_by) WHERE checked_by IS NOT NULL;
            CREATE TABLE grocery_authors (
                user_id TEXT NOT NULL,
                item TEXT NOT NULL,
                author TEXT NOT NULL,
                item_key TEXT NOT NULL,
                ingredient TEXT NOT NULL,
                added_at_position INTEGER NOT NULL,
                PRIMARY KEY (user_id, item, author)
            ) WITHOUT ROWID;
            CREATE INDEX grocery_authors_by_author ON grocery_authors (author);
            CREATE TABLE grocery_amounts (
                user_id TEXT NOT NULL,
                item TEXT NOT NULL,
                unit_key TEXT NOT NULL,
                bought INTEGER NOT NULL,
                unit TEXT,
                amount REAL NOT NULL,
                added_at_position INTEGER NOT NULL,
                PRIMARY KEY (user_id, item, unit_key, bought)
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

    package func apply(_ event: Event, recorded: RecordedEvent, db: Database) throws {
        switch event {
        case .userDeleted(let e):
            for table in ["grocery_items", "grocery_amounts", "grocery_sources"] {
                try db.cachedStatement(sql: "DELETE FROM \(table) WHERE user_id = ?").execute(arguments: [e.userId])
            }
            try eraseAuthor(e.userId, db)
        case .householdLeft(let e):
            if e.dissolved {
                for table in ["grocery_items", "grocery_amounts", "grocery_sources", "grocery_authors"] {
                    try db.cachedStatement(sql: "DELETE FROM \(table) WHERE user_id = ?")
                        .execute(arguments: [ListOwner.household(e.householdId)])
                }
            }
        case .groceryAdded(let e):
            let (owner, item) = Self.row(e.userId, e.item, e.household, e.itemId)
            if !e.merged { try delete(userId: owner, item: item, db) }
            let unmeasured = e.amount == nil ? 1 : 0
            try db.cachedStatement(sql: """
                INSERT INTO grocery_items (user_id, item, ingredient, checked, unmeasured_adds, added_at_position)
                VALUES (?, ?, ?, 0, ?, ?)
                ON CONFLICT (user_id, item) DO UPDATE
                SET checked = 0, checked_by = NULL, unmeasured_adds = unmeasured_adds + excluded.unmeasured_adds
                """).execute(arguments: [owner, item, e.household == nil ? e.ingredient : "", unmeasured, recorded.position])
            if e.household != nil {
                // An author's first add names the item for them; an erased author's reads "" until their rows go.
                try db.cachedStatement(sql: """
                    INSERT INTO grocery_authors (user_id, item, author, item_key, ingredient, added_at_position) VALUES (?, ?, ?, ?, ?, ?)
                    ON CONFLICT (user_id, item, author) DO NOTHING
                    """).execute(arguments: [owner, item, e.userId, e.item, e.ingredient, recorded.position])
            }
            if let amount = e.amount {
                let stored = StoredAmount(amount, unit: e.unit)
                try db.cachedStatement(sql: """
                    INSERT INTO grocery_amounts (user_id, item, unit_key, bought, unit, amount, added_at_position)
                    VALUES (?, ?, ?, 0, ?, ?, ?)
                    ON CONFLICT (user_id, item, unit_key, bought) DO UPDATE SET \(Self.mergeAmounts)
                    """).execute(arguments: [owner, item, stored.key, stored.unit, stored.amount, recorded.position])
            }
            if let recipeId = e.recipeId {
                try db.cachedStatement(sql: """
                    INSERT INTO grocery_sources (user_id, item, recipe_id, added_at_position) VALUES (?, ?, ?, ?)
                    ON CONFLICT (user_id, item, recipe_id) DO NOTHING
                    """).execute(arguments: [owner, item, recipeId, recorded.position])
            }
        case .groceryChecked(let e):
            let (owner, item) = Self.row(e.userId, e.item, e.household, e.itemId)
            try db.cachedStatement(sql: "UPDATE grocery_items SET checked = ?, checked_by = ? WHERE user_id = ? AND item = ?")
                .execute(arguments: [e.checked, e.household != nil && e.checked ? e.userId : nil, owner, item])
            // Checking moves what was to buy into bought; unchecking moves it back.
            try db.cachedStatement(sql: """
                INSERT INTO grocery_amounts (user_id, item, unit_key, bought, unit, amount, added_at_position)
                SELECT user_id, item, unit_key, ?1, unit, amount, added_at_position FROM grocery_amounts
                WHERE user_id = ?2 AND item = ?3 AND bought = NOT ?1
                ON CONFLICT (user_id, item, unit_key, bought) DO UPDATE SET \(Self.mergeAmounts)
                """).execute(arguments: [e.checked, owner, item])
            try db.cachedStatement(sql: "DELETE FROM grocery_amounts WHERE user_id = ? AND item = ? AND bought = NOT ?")
                .execute(arguments: [owner, item, e.checked])
        case .groceryRemoved(let e):
            let (owner, item) = Self.row(e.userId, e.item, e.household, e.itemId)
            try delete(userId: owner, item: item, db)
        default:
            break
        }
    }

    /// The row an event names: the person's own item by its key, or a household's by its id.
    private static func row(_ userId: UserID, _ key: String, _ household: HouseholdID?, _ itemId: String?) -> (owner: String, item: String) {
        guard let household, let itemId else { return (userId, key) }
        return (ListOwner.household(household), itemId)
    }

    /// A deleted person's adds leave the households' lists: their author rows go, an item nobody
    /// else added goes whole, and a tick of theirs stays a tick by nobody.
    private func eraseAuthor(_ userId: UserID, _ db: Database) throws {
        let authored = try Row.fetchAll(db.cachedStatement(sql: "SELECT user_id, item FROM grocery_authors WHERE author = ?"),
                                        arguments: [userId])
        try db.cachedStatement(sql: "DELETE FROM grocery_authors WHERE author = ?").execute(arguments: [userId])
        for row in authored {
            let owner: String = row["user_id"], item: String = row["item"]
            let others = try Int.fetchOne(db.cachedStatement(sql: "SELECT count(*) FROM grocery_authors WHERE user_id = ? AND item = ?"),
                                          arguments: [owner, item]) ?? 0
            if others == 0 { try delete(userId: owner, item: item, db) }
        }
        try db.cachedStatement(sql: "UPDATE grocery_items SET checked_by = NULL WHERE checked_by = ?").execute(arguments: [userId])
    }

    /// Adds an amount into the row of its quantity: a convertible unit keeps its symbol while every
    /// add used it and becomes NULL (shown in g/kg or ml/l) once two differ; other units keep their
    /// first spelling.
    private static let mergeAmounts = """
        amount = amount + excluded.amount,
        unit = CASE WHEN unit IS excluded.unit OR unit_key NOT LIKE ' %' THEN unit ELSE NULL END,
        added_at_position = min(added_at_position, excluded.added_at_position)
        """

    private func delete(userId: UserID, item: String, _ db: Database) throws {
        for table in ["grocery_items", "grocery_amounts", "grocery_sources", "grocery_authors"] {
            try db.cachedStatement(sql: "DELETE FROM \(table) WHERE user_id = ? AND item = ?").execute(arguments: [userId, item])
        }
    }

    package func checksum(_ db: Database) throws -> String {
        try ProjectionChecksum.sha256(db, queries: [
            """
            SELECT user_id, item, ingredient, checked, unmeasured_adds, added_at_position, checked_by FROM grocery_items
            ORDER BY user_id, item
            """,
            """
            SELECT user_id, item, author, item_key, ingredient, added_at_position FROM grocery_authors
            ORDER BY user_id, item, author
            """,
            """
            SELECT user_id, item, unit_key, bought, unit, amount, added_at_position FROM grocery_amounts
            ORDER BY user_id, item, unit_key, bought
            """,
            "SELECT user_id, item, recipe_id, added_at_position FROM grocery_sources ORDER BY user_id, item, recipe_id",
        ])
    }

    // MARK: Queries

    /// The user's list: unchecked first, then by aisle, then in the order the items were first added.
    package static func list(_ userId: UserID, in db: Database) throws -> [GroceryItem] {
        var toBuy: [String: [GroceryAmount]] = [:]
        var bought: [String: [GroceryAmount]] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: """
            SELECT item, unit_key, bought, unit, amount FROM grocery_amounts WHERE user_id = ?
            ORDER BY item, added_at_position, unit_key
            """), arguments: [userId]) {
            let amount = StoredAmount(key: row["unit_key"], unit: row["unit"], amount: row["amount"]).shown
            if row["bought"] { bought[row["item"], default: []].append(amount) } else { toBuy[row["item"], default: []].append(amount) }
        }
        var sources: [String: [RecipeID]] = [:]
        for row in try Row.fetchAll(db.cachedStatement(sql: """
            SELECT item, recipe_id FROM grocery_sources WHERE user_id = ? ORDER BY item, added_at_position, recipe_id
            """), arguments: [userId]) {
            sources[row["item"], default: []].append(row["recipe_id"])
        }
        // A household's items are named by their authors' first adds, the earliest first.
        var authors: [String: [(author: UserID, key: String, ingredient: String)]] = [:]
        let shared = userId.hasPrefix(ListOwner.household(""))
        if shared {
            for row in try Row.fetchAll(db.cachedStatement(sql: """
                SELECT item, author, item_key, ingredient FROM grocery_authors WHERE user_id = ? ORDER BY item, added_at_position, author
                """), arguments: [userId]) {
                authors[row["item"], default: []].append((row["author"], row["item_key"], row["ingredient"]))
            }
        }
        let rows = try Row.fetchAll(db.cachedStatement(sql: """
            SELECT item, ingredient, checked, unmeasured_adds, added_at_position, checked_by FROM grocery_items WHERE user_id = ?
            """), arguments: [userId])
        return rows.map { row -> (GroceryAisle, Int64, GroceryItem) in
            let id: String = row["item"]
            let named = authors[id]?.first { !$0.key.isEmpty }
            let item = shared ? named?.key ?? "" : id
            let aisle = GroceryAisle.of(item: item)
            return (aisle, row["added_at_position"],
                    GroceryItem(item: item, ingredient: shared ? named?.ingredient ?? "" : row["ingredient"], aisle: aisle.name,
                                checked: row["checked"], amounts: toBuy[id] ?? [], bought: bought[id] ?? [],
                                unmeasuredAdds: row["unmeasured_adds"], recipeIds: sources[id] ?? [],
                                itemId: shared ? id : nil, addedBy: shared ? authors[id]?.map(\.author) ?? [] : nil,
                                checkedBy: row["checked_by"]))
        }
        .sorted { a, b in (a.2.checked ? 1 : 0, a.0.rawValue, a.1) < (b.2.checked ? 1 : 0, b.0.rawValue, b.1) }
        .map(\.2)
    }

    /// One item of the user's list, by its key.
    package static func item(_ userId: UserID, item: String, in db: Database) throws -> GroceryItem? {
        try list(userId, in: db).first { $0.item == item }
    }
}

/// An amount as the table holds it: convertible units in grams or millilitres under the quantity's
/// key (" mass", " volume": a leading space no trimmed unit can have), other units per lowercased
/// spelling, a plain count under "".
struct StoredAmount: Equatable {
    let key: String
    let unit: String?
    let amount: Double

    init(key: String, unit: String?, amount: Double) { self.key = key; self.unit = unit; self.amount = amount }

    init(_ amount: Double, unit typed: String?) {
        let spelling = typed?.trimmingCharacters(in: .whitespaces) ?? ""
        if let unit = MeasureUnit.named(spelling) {
            self.init(key: " " + unit.quantity.rawValue, unit: unit.symbol, amount: amount * unit.base)
        } else {
            self.init(key: spelling.lowercased(), unit: spelling.isEmpty ? nil : spelling, amount: amount)
        }
    }

    var shown: GroceryAmount {
        guard key.hasPrefix(" "), let quantity = MeasureUnit.Quantity(rawValue: String(key.dropFirst())) else {
            return GroceryAmount(amount: amount, unit: unit)
        }
        let (value, symbol) = unit.flatMap(MeasureUnit.named).map { (amount / $0.base, $0.symbol) }
            ?? MeasureUnit.display(quantity, base: amount)
        // Conversions leave float noise (3 tbsp came back 3.0000000000000004): a cook reads three decimals.
        return GroceryAmount(amount: (value * 1000).rounded() / 1000, unit: symbol)
    }
}
