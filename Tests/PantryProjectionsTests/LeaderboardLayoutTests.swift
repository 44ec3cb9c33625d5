import Foundation
import GRDB
import PantryDomain
import Testing
@testable import PantryProjections
import PantryStandings

/// Layout 3 dropped layout 2's row per point (`earned_points`): a worker that finds a layout-2 file
/// starts it again from the log, as any change of layout does, and ends where the live file would.
@Suite struct LeaderboardLayoutTests {
    @Test func aLayoutTwoFileIsRebuiltFromTheLogWithoutItsTableOfPoints() throws {
        let h = try History()
        h.register("u1", "ada")
        h.register("u2", "bob")
        for ingredient in ["Eggs", "Basil"] {
            h.run(.useOwnedIngredient(UseOwnedIngredient(userId: "u1", recipeId: "r1", ingredient: ingredient, recipe: History.facts("Shakshuka"))))
        }
        let head = try h.log.headPosition()
        let path = h.directory.appendingPathComponent("leaderboard.sqlite").path
        // The file as layout 2 left it, at the head, with a user whose points the log does not hold.
        try DatabaseQueue(path: path).write { db in
            try db.execute(sql: """
                PRAGMA user_version = 2;
                CREATE TABLE checkpoint (id INTEGER PRIMARY KEY CHECK (id = 1), position INTEGER NOT NULL);
                INSERT INTO checkpoint (id, position) VALUES (1, \(head));
                CREATE TABLE leaderboard_users (user_id TEXT PRIMARY KEY NOT NULL, username TEXT NOT NULL, points INTEGER NOT NULL,
                    reached_at_position INTEGER NOT NULL, registered_at_position INTEGER NOT NULL) WITHOUT ROWID;
                INSERT INTO leaderboard_users VALUES ('stale', 'stale', 99, 1, 1);
                CREATE TABLE earned_points (user_id TEXT NOT NULL, recipe_id TEXT NOT NULL, ingredient TEXT NOT NULL,
                    PRIMARY KEY (user_id, recipe_id, ingredient)) WITHOUT ROWID;
                INSERT INTO earned_points VALUES ('u1', 'r1', 'egg');
                """)
        }
        let store = try ProjectionStore(projection: LeaderboardProjection(), path: path, keys: h.keys)
        #expect(try store.checkpoint == 0)
        #expect(try store.read { try Int.fetchOne($0, sql: "PRAGMA user_version") } == 3)
        #expect(try store.read { try $0.tableExists("earned_points") } == false)
        // What the worker does next: catch up from its checkpoint.
        try store.catchUp(from: h.log)
        #expect(try store.checkpoint == head)
        #expect(try store.read { try LeaderboardProjection.top(10, in: $0) }
                == [LeaderboardEntry(rank: 1, userId: "u1", username: "ada", points: 2)])
        #expect(try store.read { try LeaderboardProjection.count(in: $0) } == 2)
        // The same as a replay of the log into an empty file.
        let fresh = try ProjectionStore(projection: LeaderboardProjection(),
                                        path: h.directory.appendingPathComponent("fresh.sqlite").path, keys: h.keys)
        try fresh.catchUp(from: h.log)
        #expect(try store.checksum() == fresh.checksum())
    }
}
