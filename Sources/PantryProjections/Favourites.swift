import Foundation
import GRDB
import PantryDomain
import PantryLog

package struct Favourite: Sendable, Equatable, Codable {
    package var recipeId: RecipeID
    package var title: String
    package var image: String?
    /// Milliseconds since 1970 (UTC): when the log recorded the save.
    package var savedAt: Int64

    package init(recipeId: RecipeID, title: String, image: String?, savedAt: Int64) {
        self.recipeId = recipeId; self.title = title; self.image = image; self.savedAt = savedAt
    }
}

/// "Try something like these": a keyword the API can search the recipe catalog with, and the saved
/// recipes it came from (newest first).
package struct FavouriteSuggestion: Sendable, Equatable, Codable {
    package var keyword: String
    package var basedOn: [RecipeID]

    package init(keyword: String, basedOn: [RecipeID]) { self.keyword = keyword; self.basedOn = basedOn }
}

/// Each user's saved recipes. "Newest first" is log order reversed (the position, not the clock).
package struct FavouritesProjection: Projection {
    package init() {}
    package var name: String { "favourites" }
    package var eventTypes: Set<EventType> { [.recipeSaved, .savedRecipeRemoved, .userDeleted] }

    package func migrate(_ db: Database) throws {
        try db.execute(sql: """
            CREATE TABLE favourites (
                user_id TEXT NOT NULL,
                recipe_id TEXT NOT NULL,
                title TEXT NOT NULL,
                image TEXT,
                saved_at INTEGER NOT NULL,
                saved_at_position INTEGER NOT NULL,
                PRIMARY KEY (user_id, recipe_id)
            ) WITHOUT ROWID;
            CREATE INDEX favourites_by_user ON favourites (user_id, saved_at_position DESC);
            """)
    }

    package func apply(_ event: Event, recorded: RecordedEvent, db: Database) throws {
        switch event {
        case .recipeSaved(let e):
            // Saving again (the decider forbids it while saved) would make it the newest.
            try db.cachedStatement(sql: """
                INSERT OR REPLACE INTO favourites (user_id, recipe_id, title, image, saved_at, saved_at_position)
                VALUES (?, ?, ?, ?, ?, ?)
                """).execute(arguments: [e.userId, e.recipeId, e.title, e.image, recorded.metadata.recordedAt, recorded.position])
        case .savedRecipeRemoved(let e):
            try db.cachedStatement(sql: "DELETE FROM favourites WHERE user_id = ? AND recipe_id = ?")
                .execute(arguments: [e.userId, e.recipeId])
        case .userDeleted(let e):
            try db.cachedStatement(sql: "DELETE FROM favourites WHERE user_id = ?").execute(arguments: [e.userId])
        default:
            break
        }
    }

    package func checksum(_ db: Database) throws -> String {
        try ProjectionChecksum.sha256(db, queries: [
            "SELECT user_id, recipe_id, title, image, saved_at, saved_at_position FROM favourites ORDER BY user_id, recipe_id",
        ])
    }

    // MARK: Queries

    /// The user's saved recipes, newest first.
    package static func list(_ userId: UserID, in db: Database) throws -> [Favourite] {
        try Row.fetchAll(db.cachedStatement(sql: """
            SELECT recipe_id, title, image, saved_at FROM favourites WHERE user_id = ? ORDER BY saved_at_position DESC
            """), arguments: [userId]).map {
            Favourite(recipeId: $0["recipe_id"], title: $0["title"], image: $0["image"], savedAt: $0["saved_at"])
        }
    }

    /// Saved recipes whose title contains `text` (trimmed), ignoring case (full Unicode case
    /// folding, so "CRÈME" finds "crème"), newest first. An empty text matches everything.
    /// Filtered in Swift: SQLite's LIKE folds ASCII only, and one user's favourites are few.
    package static func search(_ userId: UserID, text: String, in db: Database) throws -> [Favourite] {
        let needle = text.trimmingCharacters(in: .whitespacesAndNewlines)
        let all = try list(userId, in: db)
        guard !needle.isEmpty else { return all }
        return all.filter { $0.title.range(of: needle, options: [.caseInsensitive]) != nil }
    }

    /// The rule, deterministic: split every saved title into words (letters and digits, lower-cased,
    /// diacritics kept); drop words shorter than 3 characters, numbers and `stopWords`. The keyword is
    /// the word found in the most saved titles (counted once per title); a tie goes to the word of the
    /// most recently saved recipe, then to the alphabetically first. `basedOn` lists the saved recipes
    /// whose titles contain it, newest first. Nil when the user has no favourites with a usable word.
    package static func suggestion(_ userId: UserID, in db: Database) throws -> FavouriteSuggestion? {
        let favourites = try list(userId, in: db)  // newest first
        var titles: [String: Int] = [:]            // word -> number of titles
        var newest: [String: Int] = [:]            // word -> index of its newest title (0 = newest)
        var recipes: [String: [RecipeID]] = [:]
        for (index, favourite) in favourites.enumerated() {
            for word in Set(significantWords(favourite.title)) {
                titles[word, default: 0] += 1
                if newest[word] == nil { newest[word] = index }
                recipes[word, default: []].append(favourite.recipeId)
            }
        }
        let best = titles.keys.min { a, b in
            if titles[a]! != titles[b]! { return titles[a]! > titles[b]! }
            if newest[a]! != newest[b]! { return newest[a]! < newest[b]! }
            return a < b
        }
        guard let keyword = best else { return nil }
        return FavouriteSuggestion(keyword: keyword, basedOn: recipes[keyword]!)
    }

    /// Words that say nothing about what a dish is (English and Dutch, the seeds' languages).
    package static let stopWords: Set<String> = [
        "and", "the", "with", "for", "from", "into", "over", "under", "style", "recipe", "recipes", "easy",
        "best", "quick", "simple", "homemade", "classic", "perfect", "ever", "minute", "minutes", "healthy",
        "super", "ultimate", "favorite", "favourite", "delicious", "tasty", "special", "style", "way", "our",
        "your", "my", "one", "two", "pot", "pan", "made",
        "met", "een", "het", "van", "voor", "uit", "op", "en", "de", "in", "of", "zonder", "lekker", "makkelijke",
        "snelle", "recept",
    ]

    static func significantWords(_ title: String) -> [String] {
        title.lowercased()
            .split(whereSeparator: { !($0.isLetter || $0.isNumber) })
            .map(String.init)
            .filter { $0.count >= 3 && !$0.allSatisfy(\.isNumber) && !stopWords.contains($0) }
    }
}
